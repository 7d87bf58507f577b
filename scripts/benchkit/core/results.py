"""What a measured run cost, as every experiment reads it: the figures of a run's samples with their units, the CPU
each process used per request and per complete answer (its background rate off), what the kernel counted, the
statements sent; one round's figures (round_figures) and each figure's ratio round by round (ratios_by_round); a
Figure is the median of rounds with the lowest and highest. The bench's own run document is experiments/bench/document.py."""
import dataclasses
import json
import statistics
import sys

from benchkit import BASELINE
from benchkit.core import documents, load, sql

# The figures of a run's samples (samples.summarize), each with its unit. Latency percentiles are of the complete
# answers only: a build that sheds fast must not look faster for it.
METRICS = {
    "requests": "requests", "rps": "requests/s", "ok_rps": "complete answers/s", "complete": "answers",
    "avg": "ms", "p50": "ms", "p90": "ms", "p95": "ms", "p99": "ms", "max": "ms",
    "p50_not_complete": "ms", "p99_not_complete": "ms",
    "failed": "answers", "error_pct": "%", "shed": "answers", "degraded": "answers", "dropped": "requests",
    "fallbacks": "look-ups", "duration_s": "s", "stalled_seconds": "s", "bytes_min": "bytes", "bytes_max": "bytes", "bytes_avg": "bytes",
}
PROCESSES = ("web-api", "articles", "authors", "postgres", "kafka")
WHOLE = "whole system"
PER_COMPLETE = "whole system, per complete answer"
BACKGROUND_OFF = "whole system, the background rate taken off"
GENERATOR = "loadgen"
# What the kernel counted of each process per complete answer (core.platform.process_between), and what it counts as is.
SCHEDULING = (("voluntary_switches", "voluntary context switches"), ("involuntary_switches", "involuntary context switches"),
              ("run_delay_ms", "ms waiting for a core"), ("read_syscalls", "read system calls"),
              ("write_syscalls", "write system calls"), ("packets", "packets on the pod's network"))
THREADS = (("threads", "threads (the kernel's)"), ("threads_peak", "Java threads at peak (HotSpot's)"))
# The ratio every headline quotes: complete answers per second, build over v1, round by round.
HEADLINE = "ok_rps"


@dataclasses.dataclass
class Figure:
    """One figure of one build in one scenario: the median of its rounds, the lowest and highest round, and every
    round's value in round order (None where a round did not measure it)."""
    unit: str
    median: float | None
    low: float | None
    high: float | None
    rounds: list

    @classmethod
    def of(cls, unit, values):
        measured = [v for v in values if v is not None]
        if not measured:
            return cls(unit, None, None, None, list(values))
        return cls(unit, statistics.median(measured), min(measured), max(measured), list(values))


def read_runs(directory, environment=None):
    """Every measured run: its cost, the figures of its samples, and its build's background rate (measured once per
    bench; environment: the run's, where it is not in environment.json)."""
    environment = environment or json.loads((directory / "environment.json").read_text())
    background = environment.get("background_cpu_per_s") or {}
    runs = []
    for cost_file in sorted((directory / "runs").glob("*.cost.json")):
        cost = json.loads(cost_file.read_text())
        summary = json.loads(cost_file.with_name(cost_file.name.replace(".cost.json", ".json")).read_text())
        metrics = load.metrics(summary)
        metrics["fallbacks"] = cost["requests_served"].get("fallbacks", 0)
        runs.append({**cost, "metrics": metrics, "background_cpu_per_s": background.get(cost["version"]),
                     "load_pods": summary.get("pods") or []})
    if not runs:
        sys.exit(f"no runs in {directory / 'runs'}")
    return runs


def system_without_background(run):
    """The run's whole-system CPU seconds less what its processes use with no load over as long (None without a
    measured background rate)."""
    idle = run.get("background_cpu_per_s")
    if not idle:
        return None
    return sum(run["cpu_seconds"].values()) - sum(idle.get(p, 0) for p in run["cpu_seconds"]) * run["seconds"]


def per_request_cpu(run):
    """CPU ms per request of the run's target, per process and for the whole system (three ways), and the
    generator's."""
    count = run["requests_served"].get(run.get("target", "web-api")) or 0
    found = {process: 1000 * seconds / count if count else None for process, seconds in run["cpu_seconds"].items()}
    system = sum(run["cpu_seconds"].values())
    complete = run["metrics"]["complete"]
    working = system_without_background(run)
    found[WHOLE] = 1000 * system / count if count else None
    # A build that degrades must not look cheaper for the look-ups it skipped: per complete answer too.
    found[PER_COMPLETE] = 1000 * system / complete if complete else None
    found[BACKGROUND_OFF] = 1000 * working / count if count and working is not None else None
    found[GENERATOR] = 1000 * run["load_cpu_seconds"] / count if count and run.get("load_cpu_seconds") else None
    return found


def scheduling_per_complete(run):
    """{process: {figure of SCHEDULING: per complete answer, figure of THREADS: as counted}} of a run; None without
    the kernel's readings or without complete answers."""
    readings, complete = run.get("scheduling"), run["metrics"]["complete"]
    if not readings or not complete:
        return None
    found = {}
    for process, figures in readings.items():
        counted = {**figures, "run_delay_ms": 1000 * figures["run_delay_seconds"]}
        found[process] = {**{key: None if counted.get(key) is None else counted[key] / complete for key, _ in SCHEDULING},
                          **{key: counted.get(key) for key, _ in THREADS}}
    found[ALL] = {key: sum(f[key] for f in found.values()) if all(f[key] is not None for f in found.values()) else None
                  for key, _ in SCHEDULING}
    return found


ALL = "every process"
SCHEDULING_TEXT = (
    "Per complete answer, what the kernel counted of each process (a pod: every process of its container) during the "
    "run: context switches (voluntary: a thread blocked or handed off; involuntary: the scheduler took the core away), "
    "the time its threads were ready but waited for a core (schedstat's run delay), read and write system calls "
    "(/proc/PID/io's syscr and syscw: the read and write family, which a JVM's sockets use; PostgreSQL's recv and send "
    "are not among them) and, in pods, the packets on the pod's network interface (the local stack's processes share the "
    "machine's loopback: none there). Threads: the kernel's count, and a JVM's own peak of Java threads since it "
    "started. A thread that ended during the run takes its switches with it.")


def scheduling_rows(by_version):
    """[figure, each build's, each build over v1] rows of {version: {process: {figure: Figure as data}}}: the kernel's
    counts per complete answer, then the threads, process by process; a figure no build measured is left out."""
    versions = list(by_version)
    rows = [["per complete answer", *versions, *(f"{v} / {BASELINE}" for v in versions if v != BASELINE)]]
    processes = dict.fromkeys(p for found in by_version.values() for p in found)
    for process in [*(p for p in processes if p != ALL), *([ALL] if ALL in processes else [])]:
        for key, name in SCHEDULING + THREADS:
            figures = [by_version[v].get(process, {}).get(key) for v in versions]
            if all(f is None or f["median"] is None for f in figures):
                continue
            base = figures[versions.index(BASELINE)] if BASELINE in versions else None
            ratios = [f"{f['median'] / base['median']:.2f}×" if f and base and base["median"] and f["median"] is not None
                      else "–" for v, f in zip(versions, figures) if v != BASELINE]
            pattern = "{:,.0f}" if key in dict(THREADS) else "{:,.2f}"
            rows.append([f"{process}: {name}" if key not in dict(THREADS) else f"{process}: {name} (not per answer)",
                         *(documents.interval(f, pattern) if f else "–" for f in figures), *ratios])
    return rows


def statement_counts(cost):
    """Statements per web-api request the run sent to either database, the outbox relays' polls left out: every one
    (BEGIN and COMMIT included), and those that read or write data; (None, None) without pg_stat_statements."""
    calls = sql.per_request([cost]).get(cost["version"])
    if calls is None:
        return None, None
    databases = {key[0] for key in calls}
    return tuple(sum(sql.statements(calls, database, with_control) for database in databases)
                 for with_control in (True, False))


def peak_memory_mib(cost):
    """The build's services' memory at its peak during the run, added up over them, MiB (each platform's peak: a
    local process's VmHWM, reset before the run; a pod's cgroup peak); None where one service's is unknown."""
    peaks = [next((mib for name, mib in figures.items() if "peak" in name), None)
             for figures in (cost.get("memory_mib") or {}).values()]
    return sum(peaks) if peaks and None not in peaks else None


def peak_memory_by_service(cost):
    """{service: its memory at its peak during the run, MiB (as peak_memory_mib reads it), or None}: what a team sets
    each pod's memory limit by."""
    return {service: next((mib for name, mib in figures.items() if "peak" in name), None)
            for service, figures in (cost.get("memory_mib") or {}).items()}


def round_figures(cost, figures, idle, speed, warmed):
    """One measured run in rounds of an experiment (an A/B's mode, a size of the CPU map): its answers, its CPU per
    request and per complete answer (background off), its statements, its services' peak memory, the machine's speed,
    whether it settled."""
    run = {**cost, "metrics": figures, "background_cpu_per_s": idle}
    cpu = per_request_cpu(run)  # per web-api request, as every report counts it
    complete = figures["complete"]
    working = system_without_background(run)
    every, data = statement_counts(cost)
    return {"complete_per_s": figures["ok_rps"], "p50": figures["p50"], "p99": figures["p99"],
            "failed_pct": figures["error_pct"], "degraded": figures["degraded"],
            "cpu_ms": cpu[WHOLE], "cpu_ms_per_complete": cpu[PER_COMPLETE],
            "cpu_ms_per_complete_background_off": 1000 * working / complete if complete and working else None,
            "background_cpu_per_s": idle, "postgres_cpu_ms": cpu["postgres"], "proxy_cpu_ms": cpu.get("proxy"),
            "jaeger_cpu_ms": cpu.get("jaeger"),
            "data_services_cpu_ms": sum(cpu[s] for s in ("articles", "authors")) if cpu["articles"] is not None else None,
            "statements_per_request": every, "data_statements_per_request": data,
            "peak_memory_mib": peak_memory_mib(cost), "peak_memory_mib_by_service": peak_memory_by_service(cost),
            "scheduling": scheduling_per_complete(run), "throttling": cost.get("throttling"),
            "cores_used": (sum(cost["cpu_seconds"].values()) + (cost.get("load_cpu_seconds") or 0)) / cost["seconds"],
            "calibration_seconds": speed, "settled": warmed["settled"]}


def ratios_by_round(pairs, keys):
    """{figure: {rounds, median, low, high}} of each round's figure over its base round's, from (base, round) pairs
    of round_figures (a base missing or of 0: None that round)."""
    found, pairs = {}, list(pairs)
    for key in keys:
        each = Figure.of("×", [mine[key] / base[key] if base and base[key] and mine[key] is not None else None
                               for base, mine in pairs])
        found[key] = {"rounds": each.rounds, "median": each.median, "low": each.low, "high": each.high}
    return found


