"""The remainder of two CPU maps (python -m benchkit compare LOCAL_MAP NODE_MAP [--tls TLS]): the node's conditions
brought to the local stack one at a time, each step's factor and ms, and what is left to the platform."""
import dataclasses
import json
import statistics
import sys

from benchkit import NAMES
from benchkit.core import documents, results
from benchkit.core.kinds import Kind, document_publisher
from benchkit.core.stats import differences
from benchkit.compare.costs import WITHIN, Cost, costs, tls_cost

# The node's conditions brought to the local stack one at a time, from two CPU maps (make cpu-map, make
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
    unsettled = sorted(f"{c['build']} at {c['size']}, round {r['round']}" for c in document["cells"]
                       for r in c["rounds"] if not r.get("settled"))
    if unsettled:
        sys.exit(f"{directory}: the warm-up of {', '.join(unsettled)} did not settle: its JIT was still compiling")
    idle = {(c["build"], f"cpu-map-{c['size']}", r["round"]): r["background_cpu_per_s"]
            for c in document["cells"] for r in c["rounds"]}
    runs = []
    for run in results.read_runs(directory, document["environment"]):
        key = (run["version"], run["scenario"], run["run"])
        if key in idle:
            runs.append({**run, "background_cpu_per_s": idle[key]})
    return document, {rung: costs(runs, True, f"cpu-map-{rung}") for rung in document["sizes"]}


def by_round(there, here, add=0.0):
    """there / (here + add), round against round of the same number (the estimator every ratio uses), of two Costs'
    settled rounds: {rounds, median, low, high}."""
    found = results.Figure.of("×", [b / (a + add) if a is not None and b is not None else None
                                    for a, b in zip(here.settled, there.settled)])
    return {"rounds": found.rounds, "median": found.median, "low": found.low, "high": found.high}


def against_bound(ratio):
    """The node over the local stack against WITHIN, in a word from every round: "within" where every round's ratio
    is at most WITHIN, "beyond" where every one is above it, else "undecided" (its rounds lie on both sides)."""
    if ratio["high"] <= WITHIN:
        return "within"
    return "beyond" if ratio["low"] > WITHIN else "undecided"


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
    left = by_round(node_pod, local_pod, added)
    factors["unexplained"] = {"factor": left["median"], "ms": settled[names[-1]] - settled[names[-2]] - added,
                              "low": left["low"], "high": left["high"], "rounds": left["rounds"],
                              "against_bound": against_bound(left)}
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
            "processes": processes,
            "unlimited": by_round(unlimited[1], unlimited[0]) if len(unlimited) == 2 else None}


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
    table.append(["left unexplained: the node over the local stack in the same conditions, the median of the rounds' "
                  "ratios (lowest–highest)",
                  *(unexplained_text(builds[v]["factors"]["unexplained"]) for v in versions)])
    table.append([f"the node against {WITHIN}× the local stack in the same conditions, every round",
                  *(builds[v]["factors"]["unexplained"]["against_bound"] for v in versions)])
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
    "over the local stack in the same conditions, round against round of the same number: the pod "
    f"network path (veth pairs, the bridge, kube-proxy's rules, conntrack), nested cgroups, the container runtime. "
    f"{WITHIN}× is the bound the project holds: within it where every round is, beyond it where every round is, "
    "else undecided.")


def main(args):
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


KIND = Kind("remainder", REMAINDER_SCHEMA, REMAINDER_SCHEMA, ("remainder.json",),
                      document_publisher(REMAINDER_SCHEMA, remainder_consistency, ()), remainder_consistency,
                      {"remainder": remainder_rows, "remainder-processes": remainder_process_rows})
