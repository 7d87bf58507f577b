"""Where an in-cluster answer's extra cost comes from (python -m benchkit compare LOCAL NODE [--tls TLS]): each build's
CPU per complete answer in the closed model, on the local stack and on a Kubernetes node, both sides treated alike:
each one's background rate taken off (on both or on neither), and the CPU of the JVMs' JIT compiler threads and GC
threads during the runs taken off both. What is left is each build's settled cost per answer; the node's over the
local one, with an interval from their rounds, is the comparison. TLS to PostgreSQL (which the cluster requires and
the local stack does not use) is then named apart, where make tls's rounds agree. A run whose warm-up did not settle
is refused, on either side. Writes compare.json, compare.md and compare.html into NODE."""
import argparse
import dataclasses
import json
import pathlib
import statistics
import sys

from benchkit import NAMES
from benchkit.core import documents, results
from benchkit.core.kinds import Kind, document_publisher
from benchkit.core.stats import differences

SCHEMA = "reactive-bench/compare/1"
SCENARIO = "closed"
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


def refuse_unsettled(directory):
    """Exits when a build's warm-up did not settle (or there was none): its JIT was still compiling."""
    environment = json.loads((directory / "environment.json").read_text())
    warmups = environment.get("warmup") or {}
    unsettled = sorted(v for v, w in warmups.items() if not (isinstance(w, dict) and w.get("settled")))
    if not warmups or unsettled:
        sys.exit(f"{directory}: the warm-up of {', '.join(unsettled) or 'every build'} did not settle: its JIT was "
                 "still compiling, and a comparison with it would say more than its data (a longer "
                 "WARMUP_MAX_WINDOWS settles it)")


def has_background(directory):
    return bool(json.loads((directory / "environment.json").read_text()).get("background_cpu_per_s"))


def per_answer(directory, background):
    """{version: Cost} of one side's closed runs; background: whether to take the background rate off (both sides
    alike)."""
    return costs(results.read_runs(directory), background, SCENARIO)


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


def comparison(local, node, tls):
    """{version: the figures of the table}, from both sides' Costs and TLS's."""
    found = {}
    for version in node:
        if version not in local:
            continue
        here, there = local[version], node[version]
        settled_here, settled_there = here.median("settled"), there.median("settled")
        if settled_here is None or settled_there is None:
            continue
        low_here, high_here = here.bounds("settled")
        low_there, high_there = there.bounds("settled")
        tls_ms, tls_why = tls.get(version, (None, "not measured (no --tls)"))
        without_tls = settled_there - tls_ms if tls_ms is not None else None
        found[version] = {
            # each side's rounds, from which every figure below follows (consistency recomputes them)
            "local_rounds": dataclasses.asdict(here), "node_rounds": dataclasses.asdict(there),
            "local_ms": here.median("whole"), "node_ms": there.median("whole"),
            "local_jit_ms": here.median("jit"), "node_jit_ms": there.median("jit"),
            "local_gc_ms": here.median("gc"), "node_gc_ms": there.median("gc"),
            "local_settled_ms": settled_here, "node_settled_ms": settled_there,
            "ratio": settled_there / settled_here,
            # the interval: the node's lowest round over the local highest, and the other way round
            "ratio_low": low_there / high_here, "ratio_high": high_there / low_here,
            "tls_ms": tls_ms, "tls": tls_why,
            "ratio_without_tls": without_tls / settled_here if without_tls is not None else None,
            "processes": {process: {"local_ms": statistics.median(here.processes[process]),
                                    "node_ms": statistics.median(rounds),
                                    "ratio": statistics.median(rounds) / statistics.median(here.processes[process])}
                          for process, rounds in there.processes.items() if here.processes.get(process)},
            "node_throttled_share": there.throttled_periods / there.periods if there.periods else None,
        }
    return found


def consistency(document):
    """Where a comparison's figures are not what its rounds (and its TLS figure) give; [] when none is."""
    problems = []
    for version, figures in document["builds"].items():
        here, there = Cost(**figures["local_rounds"]), Cost(**figures["node_rounds"])
        tls = {version: (figures["tls_ms"], figures["tls"])} if figures["tls_ms"] is not None else {}
        expected = comparison({version: here}, {version: there}, tls).get(version)
        if expected is None:
            problems.append(f"{version}: its rounds give no settled figure")
            continue
        given = ("local_rounds", "node_rounds")  # what the rest follows from
        problems += [f"{version} {path}: not what its rounds give" for path in differences(
            {k: v for k, v in figures.items() if k not in given}, {k: v for k, v in expected.items() if k not in given})]
    return problems


def process_rows(found):
    """Where the difference lands: each process's CPU ms per complete answer on either side (medians of the rounds,
    the background not taken off), node over local; and how often the node's containers hit their CPU limit."""
    versions = list(found)
    processes = list(dict.fromkeys(p for f in found.values() for p in f["processes"]))
    table = [["CPU ms per complete answer: local → node (node / local)", *(NAMES.get(v, v) for v in versions)]]
    for process in processes:
        table.append([process, *(f"{f['local_ms']:.3f} → {f['node_ms']:.3f} ({f['ratio']:.2f}×)"
                                 if (f := found[v]["processes"].get(process)) else "–" for v in versions)])
    table.append(["the node's CFS periods in which a container hit its CPU limit",
                  *(f"{found[v]['node_throttled_share']:.2%}" if found[v]["node_throttled_share"] is not None else "–"
                    for v in versions)])
    return table


def rows(found):
    table = [["build", "local ms (JIT, GC)", "node ms (JIT, GC)", "settled: local / node ms",
              "node / local, settled (lowest–highest)", "TLS to PostgreSQL ms (make tls)", "node / local without TLS",
              f"within {WITHIN}×"]]
    for version, f in found.items():
        final = f["ratio_without_tls"] if f["ratio_without_tls"] is not None else f["ratio"]
        table.append([NAMES.get(version, version),
                      f"{f['local_ms']:.3f} ({f['local_jit_ms']:.3f}, {f['local_gc_ms']:.3f})",
                      f"{f['node_ms']:.3f} ({f['node_jit_ms']:.3f}, {f['node_gc_ms']:.3f})",
                      f"{f['local_settled_ms']:.3f} / {f['node_settled_ms']:.3f}",
                      f"{f['ratio']:.2f}× ({f['ratio_low']:.2f}–{f['ratio_high']:.2f})",
                      f"{f['tls_ms']:.3f}" if f["tls_ms"] is not None else f"– ({f['tls']})",
                      f"{f['ratio_without_tls']:.2f}×" if f["ratio_without_tls"] is not None else "–",
                      "yes" if final <= WITHIN else "no"])
    return table


EXPLANATION = ("CPU per complete answer in the closed model: the whole system (the build's three services, "
               "PostgreSQL and Kafka), each platform's background rate with no load taken off where both measured "
               "it (on neither otherwise), the median of each side's rounds. From both sides alike the CPU of the "
               "three JVMs' JIT compiler threads (from /proc) and GC threads (HotSpot's sun.threads.total_gc_cpu_time) "
               "during the runs is taken off: what is left is the settled cost of an answer. The node's over the "
               "local one is the comparison, its interval the node's lowest round over the local highest and the "
               "other way round. TLS to PostgreSQL, which the cluster requires and the local stack does not use, is "
               f"named apart where make tls's rounds agree (each mode within {TLS_AGREEMENT:.0%}). What is left after "
               "that is what no counter names: the pod network path (veth pairs, the bridge, kube-proxy's rules), "
               f"cgroup accounting, the CPU quota's effect on the code. {WITHIN}× is the bound the project holds.")


# The remainder: the node's conditions brought to the local stack one at a time, from two CPU maps (make cpu-map, make
# cpu-map-cluster: the same protocol on both platforms). Each step: (side, rung, what it adds); TLS, measured by
# make tls, comes between the local stack's last step and the node.
REMAINDER_SCHEMA = "reactive-bench/remainder/1"
STEPS = (("local", "0", "the local stack, no limit"),
         ("local", "1p", "each JVM counts one processor"),
         ("local", "1", "and a quota of one CPU: a 1-CPU pod's conditions"),
         ("node", "1", "the node, pods of one CPU"))
# the platform alone, where both maps have it: pods without a limit against the local stack without one
UNLIMITED = (("local", "0"), ("node", "0"))


def step_name(side, rung):
    return f"{side} {rung}"


def map_costs(directory):
    """{rung: {version: Cost}} of a CPU map's closed rounds, each round's background (measured by its cell) off; refused
    where a cell's warm-up did not settle."""
    document = json.loads((directory / "cpu-map.json").read_text())
    unsettled = sorted(f"{v} at {c['size']}, round {c['round']}" for v, cells in document["cells"].items()
                       for c in cells if not c.get("settled"))
    if unsettled:
        sys.exit(f"{directory}: the warm-up of {', '.join(unsettled)} did not settle: its JIT was still compiling")
    idle = {(v, f"cpu-{c['size']}", c["round"]): c["background_cpu_per_s"]
            for v, cells in document["cells"].items() for c in cells}
    runs = []
    for run in results.read_runs(directory, document["environment"]):
        key = (run["version"], run["scenario"], run["run"])
        if key in idle:
            runs.append({**run, "background_cpu_per_s": idle[key]})
    return document, {rung: costs(runs, True, f"cpu-{rung}") for rung in document["sizes"]}


def ratio_of(there, here, add=0.0):
    """there / (here + add) of two Costs' settled medians, with the interval of their rounds (there's lowest over
    here's highest, and the other way round)."""
    low_here, high_here = here.bounds("settled")
    low_there, high_there = there.bounds("settled")
    return {"median": there.median("settled") / (here.median("settled") + add),
            "low": low_there / (high_here + add), "high": high_there / (low_here + add)}


def remainder(local, node, tls):
    """{version: the steps' rounds and what follows from them}: local and node are map_costs' {rung: {version: Cost}}."""
    sides = {"local": local, "node": node}
    found = {}
    for version in node.get("1", {}):
        found_steps = {step_name(side, rung): sides[side].get(rung, {}).get(version)
                       for side, rung in (*((side, rung) for side, rung, _ in STEPS), *UNLIMITED)}
        if all(found_steps[step_name(side, rung)] is not None for side, rung, _ in STEPS):
            found[version] = figures_of({name: cost for name, cost in found_steps.items() if cost is not None},
                                        *tls.get(version, (None, "not measured (no --tls)")))
    return found


def figures_of(steps, tls_ms, tls_why):
    """A build's figures from its steps' Costs ({step name: Cost}, UNLIMITED's where measured) and TLS's cost."""
    pod = {step_name(side, rung): steps[step_name(side, rung)] for side, rung, _ in STEPS}
    if any(cost.median("settled") is None for cost in pod.values()):
        return None
    unlimited = [steps[name] for name in (step_name(*s) for s in UNLIMITED)
                 if name in steps and steps[name].median("settled") is not None]
    return {"steps": {name: dataclasses.asdict(cost) for name, cost in steps.items()}, "tls_ms": tls_ms, "tls": tls_why,
            **what_steps_add(pod, unlimited, tls_ms)}


def what_steps_add(steps, unlimited, tls_ms):
    """Each step's settled ms and what it adds: its factor over the step before and its ms; what is left: the node
    over the local stack in the same conditions, TLS added. (The steps may go either way, so no share of a total.)"""
    names = list(steps)
    settled = {name: cost.median("settled") for name, cost in steps.items()}
    local_pod, node_pod = steps[names[-2]], steps[names[-1]]
    added = tls_ms or 0.0
    factors = {}
    for before, name in zip(names, names[1:-1]):
        factors[name] = {"factor": settled[name] / settled[before], "ms": settled[name] - settled[before]}
    if tls_ms is not None:
        factors["tls"] = {"factor": (settled[names[-2]] + added) / settled[names[-2]], "ms": added}
    left = ratio_of(node_pod, local_pod, added)
    factors["unexplained"] = {"factor": left["median"], "ms": settled[names[-1]] - settled[names[-2]] - added,
                              "low": left["low"], "high": left["high"]}
    processes = {}
    for process in node_pod.settled_processes:
        medians = {name: statistics.median(rounds) if (rounds := [r for r in cost.settled_processes.get(process, [])
                                                                  if r is not None]) else None
                   for name, cost in steps.items()}
        if None not in medians.values():
            # a process whose settled cost is nothing but noise around its background (Kafka's) has no ratio
            processes[process] = {"settled_ms": medians, "node_over_local_pod": medians[names[-1]] / medians[names[-2]]
                                  if min(medians[names[-1]], medians[names[-2]]) > 0 else None}
    return {"settled_ms": settled, "factors": factors,
            "node_over_local": settled[names[-1]] / settled[names[0]],
            "within": left["median"] <= WITHIN, "processes": processes,
            "unlimited": ratio_of(unlimited[1], unlimited[0]) if len(unlimited) == 2 else None}


def remainder_consistency(document):
    """Where a remainder's figures are not what its steps' rounds (and its TLS figure) give; [] when none is."""
    problems = []
    for version, figures in document["builds"].items():
        expected = figures_of({name: Cost(**cost) for name, cost in figures["steps"].items()}, figures["tls_ms"],
                              figures["tls"])
        if expected is None:
            problems.append(f"{version}: its steps give no settled figure")
        else:
            problems += [f"{version} {path}: not what its steps' rounds give" for path in differences(
                {k: v for k, v in figures.items() if k != "steps"}, {k: v for k, v in expected.items() if k != "steps"})]
    return problems


def step_text(figures, key, settled):
    found = figures["factors"].get(key)
    if found is None:
        return "not measured"
    return f"{settled:.3f} ({found['factor']:.2f}×, {found['ms']:+.3f} ms)"


def remainder_rows(document):
    """Per build: the settled CPU ms per complete answer of each step, what each adds, and what is left."""
    builds = document["builds"]
    versions = list(builds)
    names = [step_name(side, rung) for side, rung, _ in STEPS]
    table = [["CPU ms per complete answer, settled (× and ms over the step before)",
              *(NAMES.get(v, v) for v in versions)]]
    table.append([STEPS[0][2], *(f"{builds[v]['settled_ms'][names[0]]:.3f}" for v in versions)])
    for (side, rung, what), name in zip(STEPS[1:-1], names[1:-1]):
        table.append([what, *(step_text(builds[v], name, builds[v]["settled_ms"][name]) for v in versions)])
    table.append(["and TLS to PostgreSQL (make tls)",
                  *(step_text(builds[v], "tls", builds[v]["settled_ms"][names[-2]] + builds[v]["tls_ms"])
                    if builds[v]["tls_ms"] is not None else f"– ({builds[v]['tls']})" for v in versions)])
    table.append([STEPS[-1][2], *(f"{builds[v]['settled_ms'][names[-1]]:.3f} ({builds[v]['node_over_local']:.2f}× the "
                                  "local stack with no limit)" for v in versions)])
    table.append(["left unexplained: the node over the local stack in the same conditions (lowest–highest)",
                  *(unexplained_text(builds[v]["factors"]["unexplained"]) for v in versions)])
    table.append([f"the local stack within {WITHIN}× of the node", *("yes" if builds[v]["within"] else "no"
                                                                    for v in versions)])
    table.append(["the platform alone: pods without a limit over the local stack without one",
                  *(documents.ratio_text(builds[v]["unlimited"]) if builds[v]["unlimited"] else "–" for v in versions)])
    return table


def unexplained_text(found):
    return f"{found['factor']:.2f}× ({found['low']:.2f}–{found['high']:.2f}), {found['ms']:+.3f} ms"


def remainder_process_rows(document):
    """Per process and build: its settled CPU ms per complete answer at each step, and the node's over the local
    stack in the same conditions."""
    builds = document["builds"]
    versions = list(builds)
    processes = list(dict.fromkeys(p for f in builds.values() for p in f["processes"]))
    table = [["settled CPU ms per complete answer: local no limit → one processor → one CPU → node "
              "(node / local at one CPU)", *(NAMES.get(v, v) for v in versions)]]
    for process in processes:
        table.append([process, *(" → ".join(f"{ms:.3f}" for ms in found["settled_ms"].values())
                                 + (f" ({found['node_over_local_pod']:.2f}×)" if found["node_over_local_pod"] else "")
                                 if (found := builds[v]["processes"].get(process)) else "–" for v in versions)])
    return table


REMAINDER_EXPLANATION = (
    "What a pod's conditions cost each build, brought to the local stack one at a time, and what is left to the "
    "platform. Both sides are CPU maps (make cpu-map and make cpu-map-cluster: the same rounds, warm-up, closed model "
    "and cells on both platforms). Each cost is the whole system's CPU per complete answer in the closed model "
    "(the build's three services, PostgreSQL and Kafka), each cell's background off, the three JVMs' JIT compiler "
    "and GC threads' CPU off: the settled cost; the median of the rounds. The steps: the local stack with no limit; "
    "each JVM counting one processor with no quota (rung 1p); a quota of one CPU per service on top (rung 1, what a "
    "1-CPU pod gives a JVM); TLS to PostgreSQL, which the cluster requires (make tls, where its rounds agree); the "
    "node's pods of one CPU; each step's factor and ms are over the step before. What is left unexplained is the node "
    "over the local stack in the same conditions: the pod "
    f"network path (veth pairs, the bridge, kube-proxy's rules, conntrack), nested cgroups, the container runtime. "
    f"{WITHIN}× is the bound the project holds.")


def main(argv=None):
    parser = argparse.ArgumentParser(prog="benchkit compare", description=__doc__.splitlines()[0])
    parser.add_argument("local", type=pathlib.Path, help="a local bench's results (make demo), or a local CPU map's "
                        "(make cpu-map: then the remainder, step by step)")
    parser.add_argument("node", type=pathlib.Path, help="a bench's results on a Kubernetes node (make bench), or a "
                        "CPU map's there (make cpu-map-cluster)")
    parser.add_argument("--tls", type=pathlib.Path, help="make tls's results, for TLS's cost")
    args = parser.parse_args(argv)
    if (args.local / "cpu-map.json").exists() and (args.node / "cpu-map.json").exists():
        return main_remainder(args)
    for side in (args.local, args.node):
        refuse_unsettled(side)
    background = has_background(args.local) and has_background(args.node)
    found = comparison(per_answer(args.local, background), per_answer(args.node, background), tls_cost(args.tls))
    local_env = json.loads((args.local / "environment.json").read_text())
    node_env = json.loads((args.node / "environment.json").read_text())
    (args.node / "compare.json").write_text(json.dumps(
        {"schema": SCHEMA, "background_taken_off": background, "builds": found,
         "local": {"results": args.local.name, "commit": local_env.get("git_commit"),
                   "timestamp": local_env.get("timestamp")},
         "node": {"results": args.node.name, "commit": node_env.get("git_commit"), "timestamp": node_env.get("timestamp"),
                  "where": node_env.get("where")},
         "tls": args.tls.name if args.tls else None}, indent=2))
    table = rows(found)
    documents.write(args.node, "compare", "reactive-bench: an answer's cost, on the local stack and on a node",
                    f"local at commit {local_env.get('git_commit')} ({args.local.name}), node at commit "
                    f"{node_env.get('git_commit')} ({args.node.name})" + (f", TLS from {args.tls.name}" if args.tls else "")
                    + ("" if background else "; no background rate taken off (one side did not measure it)"),
                    [("CPU ms per complete answer, settled, both sides alike", EXPLANATION, [("", table)]),
                     ("Where it lands, process by process", "", [("", process_rows(found))])], {})
    print(documents.markdown_table(table))
    print(f"Comparison: {args.node / 'compare.md'} and {args.node / 'compare.html'}")


def main_remainder(args):
    """The remainder of two CPU maps: remainder.json, .md and .html into the node's map."""
    local_map, local = map_costs(args.local)
    node_map, node = map_costs(args.node)
    document = {"schema": REMAINDER_SCHEMA, "builds": remainder(local, node, tls_cost(args.tls)),
                "local": {"results": args.local.name, "commit": local_map["commit"], "timestamp": local_map["timestamp"]},
                "node": {"results": args.node.name, "commit": node_map["commit"], "timestamp": node_map["timestamp"],
                         "where": node_map["where"]},
                "tls": args.tls.name if args.tls else None}
    if not document["builds"]:
        sys.exit("no build has every step: both maps need rungs " + ", ".join(sorted({r for _, r, _ in STEPS})))
    (args.node / "remainder.json").write_text(json.dumps(document, indent=2))
    table = remainder_rows(document)
    documents.write(args.node, "remainder", "reactive-bench: what a pod's conditions cost, and what is left",
                    f"local map at commit {local_map['commit']} ({args.local.name}), node's at commit "
                    f"{node_map['commit']} ({args.node.name})" + (f", TLS from {args.tls.name}" if args.tls else ""),
                    [("A pod's conditions, one at a time", REMAINDER_EXPLANATION, [("", table)]),
                     ("Where it lands, process by process", "", [("", remainder_process_rows(document))])], {})
    print(documents.markdown_table(table))
    print(f"The remainder: {args.node / 'remainder.md'} and {args.node / 'remainder.html'}")


KIND = Kind("compare", SCHEMA, SCHEMA, ("compare.json",), document_publisher(SCHEMA, consistency, ()), consistency,
            {"compare": lambda summary: rows(summary["builds"]),
             "compare-processes": lambda summary: process_rows(summary["builds"])})

REMAINDER_KIND = Kind("remainder", REMAINDER_SCHEMA, REMAINDER_SCHEMA, ("remainder.json",),
                      document_publisher(REMAINDER_SCHEMA, remainder_consistency, ()), remainder_consistency,
                      {"remainder": remainder_rows, "remainder-processes": remainder_process_rows})
