"""What the comparisons of two platforms share: a build's CPU per complete answer over its rounds, settled (its
background, and its JVMs' JIT compiler and GC threads' CPU, off), and TLS's cost from make tls's rounds."""
import dataclasses
import json
import statistics

from benchkit.core import results

WITHIN = 1.3  # the project's bound: a node's settled cost within 1.3 x of the local one, or the rest named
# make tls's rounds agree when each mode's rounds lie within this share of their median.
TLS_AGREEMENT = 0.10


@dataclasses.dataclass
class Cost:
    """One build's CPU ms per complete answer on one side, round by round: all of it (background off where both sides
    measured it), the JIT compiler threads' and the GC threads' CPU, and what is left (settled)."""
    whole: list
    jit: list
    gc: list
    settled: list
    # where it lands: {process: [CPU ms per complete answer of each round, background not taken off]}
    processes: dict = dataclasses.field(default_factory=dict)
    # {process: [its settled CPU ms per complete answer of each round]}: as `settled`, process by process (a JVM's own
    # JIT and GC threads off, the background off where it is taken off the whole)
    settled_processes: dict = dataclasses.field(default_factory=dict)
    # CFS periods in which a container hit its CPU limit, and all its periods, summed over the rounds (None: no quota)
    throttled_periods: int = None
    periods: int = None

    def median(self, figure):
        values = [v for v in getattr(self, figure) if v is not None]
        return statistics.median(values) if values else None

    def bounds(self, figure):
        values = [v for v in getattr(self, figure) if v is not None]
        return (min(values), max(values)) if values else (None, None)


def costs(runs, background, scenario):
    """{version: Cost} of the runs of one scenario."""
    found = {}
    for run in sorted(runs, key=lambda r: r["run"]):
        complete = run["metrics"]["complete"]
        if run["scenario"] != scenario or not complete:
            continue
        cost = found.setdefault(run["version"], Cost([], [], [], []))
        for process, seconds in run["cpu_seconds"].items():
            cost.processes.setdefault(process, []).append(1000 * seconds / complete)
            cost.settled_processes.setdefault(process, []).append(settled_process(run, process, background, complete))
        quota = [figures for figures in (run.get("throttling") or {}).values() if figures]
        if quota:
            cost.throttled_periods = (cost.throttled_periods or 0) + sum(f["throttled"] for f in quota)
            cost.periods = (cost.periods or 0) + sum(f["periods"] for f in quota)
        working = results.system_without_background(run) if background else sum(run["cpu_seconds"].values())
        whole = 1000 * working / complete if working is not None else None
        jvm = run.get("jvm") or {}
        figures = [j for j in jvm.values() if j]
        jit = 1000 * sum(max(0.0, j["jit_cpu_seconds"]) for j in figures) / complete \
            if figures and len(figures) == len(jvm) and all(j.get("jit_cpu_seconds") is not None for j in figures) else None
        gc = 1000 * sum(j["gc_cpu_seconds"] for j in figures) / complete \
            if figures and len(figures) == len(jvm) and all(j.get("gc_cpu_seconds") is not None for j in figures) else None
        cost.whole.append(whole)
        cost.jit.append(jit)
        cost.gc.append(gc)
        cost.settled.append(None if whole is None or jit is None or gc is None else whole - jit - gc)
    return found


def settled_process(run, process, background, complete):
    """One process's CPU ms per complete answer in a run, its JVM's JIT and GC threads off (None where a JVM's were
    not read), its background off where the whole's is."""
    seconds = run["cpu_seconds"][process]
    if background:
        idle = run.get("background_cpu_per_s") or {}
        if process not in idle:
            return None
        seconds -= idle[process] * run["seconds"]
    jvm = (run.get("jvm") or {})
    if process in jvm:
        figures = jvm[process] or {}
        if figures.get("jit_cpu_seconds") is None or figures.get("gc_cpu_seconds") is None:
            return None
        seconds -= max(0.0, figures["jit_cpu_seconds"]) + figures["gc_cpu_seconds"]
    return 1000 * seconds / complete


def tls_cost(tls_results):
    """{version: (CPU ms per complete answer that TLS to PostgreSQL adds, the background off, or None where the
    rounds do not agree, why)} from make tls (require minus disable, medians of each mode's rounds)."""
    if tls_results is None:
        return {}
    found = {}
    for version, build in json.loads((tls_results / "tls.json").read_text())["builds"].items():
        modes = build["rounds"]
        key = "cpu_ms_per_complete_background_off"
        if not all(r.get(key) is not None for m in modes.values() for r in m):
            found[version] = (None, "make tls without CPU per complete answer, background off: run it again")
            continue
        medians, spread = {}, 0.0
        for mode in ("disable", "require"):
            values = [r[key] for r in modes[mode]]
            medians[mode] = statistics.median(values)
            spread = max(spread, (max(values) - min(values)) / medians[mode])
        if spread > TLS_AGREEMENT:
            found[version] = (None, f"its rounds are {spread:.0%} apart, more than {TLS_AGREEMENT:.0%}")
        else:
            found[version] = (medians["require"] - medians["disable"], f"rounds within {spread:.0%}")
    return found

