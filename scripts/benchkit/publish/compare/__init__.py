"""Where an answer's extra cost on a Kubernetes node comes from (python -m benchkit compare LOCAL NODE [--tls TLS]):
each build's settled CPU per complete answer (the background, and the JVMs' JIT compiler and GC threads' CPU, off),
from a step on the local stack to the node, each step's factor and ms over the one before, and what is left to the
platform: the node over the last local step, round against round. Two CPU maps (make cpu-map, make cpu-map-cluster)
give the steps of a pod's conditions brought to the local stack one at a time; two benches (make demo, make bench) give
two steps, the local stack and the node. TLS to PostgreSQL (make tls, where its rounds agree) is named between the
last local step and the node. A run whose warm-up did not settle is refused, on either side. Writes remainder.json,
.md and .html into NODE."""
import argparse
import dataclasses
import json
import pathlib
import statistics
import sys

from benchkit import NAMES
from benchkit.core import documents, results
from benchkit.publish.kinds import Kind, document_publisher
from benchkit.core.stats import differences
from benchkit.publish.compare.costs import TLS_AGREEMENT, WITHIN, Cost, costs, tls_cost

SCHEMA = "reactive-bench/remainder/2"
# Of two CPU maps (the same protocol on both platforms): the node's conditions brought to the local stack one at a
# time, each (side, rung, what it adds); and the platform alone, where both maps have it: pods without a limit against
# the local stack without one.
MAP_STEPS = (("local", "0", "the local stack, no limit"),
             ("local", "1p", "each JVM counts one processor"),
             ("local", "1", "and a quota of one CPU: a 1-CPU pod's conditions"),
             ("node", "1", "the node, pods of one CPU"))
MAP_UNLIMITED = (("local", "0"), ("node", "0"))
# Of two benches' closed runs: the local stack and the node, as each was deployed.
BENCH_STEPS = (("local", "closed", "the local stack (make demo)"), ("node", "closed", "the node (make bench)"))


def step_name(side, rung):
    return f"{side} {rung}"


def refuse_unsettled(directory, unsettled):
    if unsettled:
        sys.exit(f"{directory}: the warm-up of {', '.join(unsettled)} did not settle: its JIT was still compiling, "
                 "and a comparison with it would say more than its data (a longer WARMUP_MAX_WINDOWS settles it)")


def map_side(directory):
    """(the map's document, {rung: {version: Cost}}) of a CPU map's closed rounds, each round's background (measured
    by its cell) off; refused where a cell's warm-up did not settle."""
    document = json.loads((directory / "cpu-map.json").read_text())
    refuse_unsettled(directory, sorted(f"{c['build']} at {c['size']}, round {r['round']}" for c in document["cells"]
                                       for r in c["rounds"] if not r.get("settled")))
    idle = {(c["build"], f"cpu-map-{c['size']}", r["round"]): r["background_cpu_per_s"]
            for c in document["cells"] for r in c["rounds"]}
    runs = [{**run, "background_cpu_per_s": idle[key]} for run in results.read_runs(directory, document["environment"])
            if (key := (run["version"], run["scenario"], run["run"])) in idle]
    return document, {rung: costs(runs, True, f"cpu-map-{rung}") for rung in document["sizes"]}


def bench_side(directory, background):
    """(what the document keeps of the bench, {"closed": {version: Cost}}) of a bench's closed runs; background:
    whether to take the background rate off (both sides alike); refused where a build's warm-up did not settle."""
    environment = json.loads((directory / "environment.json").read_text())
    warmups = environment.get("warmup") or {}
    refuse_unsettled(directory, sorted(v for v, w in warmups.items() if not (isinstance(w, dict) and w.get("settled")))
                     or ([] if warmups else ["every build"]))
    kept = {"commit": environment.get("git_commit"), "timestamp": environment.get("timestamp"),
            "where": environment.get("where")}
    return kept, {"closed": costs(results.read_runs(directory), background, "closed")}


def has_background(directory):
    return bool(json.loads((directory / "environment.json").read_text()).get("background_cpu_per_s"))


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


def remainder(sides, steps, unlimited, tls):
    """{version: the steps' rounds and what follows from them}: sides {side: {rung: {version: Cost}}}, steps and
    unlimited ((side, rung), …), tls {version: (ms, why)}; a build without every step is left out."""
    found = {}
    names = [step_name(side, rung) for side, rung, *_ in steps]
    for version in sides["node"].get(steps[-1][1], {}):
        measured = {step_name(side, rung): sides[side].get(rung, {}).get(version)
                    for side, rung in (*((side, rung) for side, rung, *_ in steps), *unlimited)}
        if all(measured[name] is not None for name in names):
            found[version] = figures_of({name: cost for name, cost in measured.items() if cost is not None}, names,
                                        [step_name(*s) for s in unlimited],
                                        *tls.get(version, (None, "not measured (no --tls)")))
    return found


def figures_of(steps, names, unlimited, tls_ms, tls_why):
    """A build's figures from its steps' Costs ({step name: Cost}, the unlimited pair's where measured), the steps'
    names in order, and TLS's cost."""
    if any(steps[name].median("settled") is None for name in names):
        return None
    pair = [steps[name] for name in unlimited if name in steps and steps[name].median("settled") is not None]
    return {"steps": {name: dataclasses.asdict(cost) for name, cost in steps.items()}, "tls_ms": tls_ms, "tls": tls_why,
            **what_steps_add({name: steps[name] for name in names}, pair, tls_ms)}


def what_steps_add(steps, unlimited, tls_ms):
    """Each step's settled ms and what it adds: its factor over the step before and its ms; what is left: the node
    over the last local step, TLS added. (The steps may go either way, so no share of a total.)"""
    names = list(steps)
    settled = {name: cost.median("settled") for name, cost in steps.items()}
    local_pod, node_pod = steps[names[-2]], steps[names[-1]]
    added = tls_ms or 0.0
    factors = {name: {"factor": settled[name] / settled[before], "ms": settled[name] - settled[before]}
               for before, name in zip(names, names[1:-1])}
    if tls_ms is not None:
        factors["tls"] = {"factor": (settled[names[-2]] + added) / settled[names[-2]], "ms": added}
    left = by_round(node_pod, local_pod, added)
    factors["unexplained"] = {"factor": left["median"], "ms": settled[names[-1]] - settled[names[-2]] - added,
                              "low": left["low"], "high": left["high"], "rounds": left["rounds"],
                              "against_bound": against_bound(left)}
    # each process's settled cost where the runs kept it, else all of it (a comparison published before they did)
    figure = "settled_processes" if node_pod.settled_processes else "processes"
    processes = {}
    for process in getattr(node_pod, figure):
        medians = {name: statistics.median(rounds) if (rounds := [r for r in getattr(cost, figure).get(process, [])
                                                                  if r is not None]) else None
                   for name, cost in steps.items()}
        if None not in medians.values():
            # a process whose settled cost is nothing but noise around its background (Kafka's) has no ratio
            processes[process] = {"settled_ms": medians, "node_over_local_pod": medians[names[-1]] / medians[names[-2]]
                                  if min(medians[names[-1]], medians[names[-2]]) > 0 else None}
    return {"settled_ms": settled, "factors": factors, "node_over_local": settled[names[-1]] / settled[names[0]],
            "processes": processes, "processes_settled": figure == "settled_processes",
            "node_throttled_share": node_pod.throttled_periods / node_pod.periods if node_pod.periods else None,
            "unlimited": by_round(unlimited[1], unlimited[0]) if len(unlimited) == 2 else None}


def consistency(document):
    """Where a remainder's figures are not what its steps' rounds (and its TLS figure) give; [] when none is."""
    problems = []
    names = [name for name, _ in document["steps"]]
    for version, figures in document["builds"].items():
        expected = figures_of({name: Cost(**cost) for name, cost in figures["steps"].items()}, names,
                              document["unlimited"], figures["tls_ms"], figures["tls"])
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


def rows(document):
    """Per build: the settled CPU ms per complete answer of each step, what each adds, and what is left."""
    builds, (first, *middle, last) = document["builds"], document["steps"]
    versions = list(builds)
    table = [["CPU ms per complete answer, settled (× and ms over the step before)",
              *(NAMES.get(v, v) for v in versions)],
             [first[1], *(f"{builds[v]['settled_ms'][first[0]]:.3f}" for v in versions)]]
    for name, what in middle:
        table.append([what, *(step_text(builds[v], name, builds[v]["settled_ms"][name]) for v in versions)])
    table.append(["and TLS to PostgreSQL (make tls)",
                  *(step_text(builds[v], "tls", builds[v]["settled_ms"][document["steps"][-2][0]] + builds[v]["tls_ms"])
                    if builds[v]["tls_ms"] is not None else f"– ({builds[v]['tls']})" for v in versions)])
    table.append([last[1], *(f"{builds[v]['settled_ms'][last[0]]:.3f} ({builds[v]['node_over_local']:.2f}× "
                             f"{first[1]})" for v in versions)])
    table.append(["left unexplained: the node over the last local step, the median of the rounds' ratios "
                  "(lowest–highest)", *(unexplained_text(builds[v]["factors"]["unexplained"]) for v in versions)])
    table.append([f"the node against {WITHIN}× the last local step, every round",
                  *(builds[v]["factors"]["unexplained"]["against_bound"] for v in versions)])
    if document["unlimited"]:
        table.append(["the platform alone: pods without a limit over the local stack without one",
                      *(documents.ratio_text(builds[v]["unlimited"]) if builds[v]["unlimited"] else "–"
                        for v in versions)])
    return table


def unexplained_text(found):
    return f"{found['factor']:.2f}× ({found['low']:.2f}–{found['high']:.2f}), {found['ms']:+.3f} ms"


def process_rows(document):
    """Per process and build: its CPU ms per complete answer at each step (settled where the runs kept it), the node's
    over the last local step; and how often the node's containers hit their CPU limit."""
    builds = document["builds"]
    versions = list(builds)
    processes = list(dict.fromkeys(p for f in builds.values() for p in f["processes"]))
    settled = all(f["processes_settled"] for f in builds.values())
    table = [[f"{'settled ' if settled else ''}CPU ms per complete answer: "
              + " → ".join(what for _, what in document["steps"]) + " (node / the last local step)",
              *(NAMES.get(v, v) for v in versions)]]
    for process in processes:
        table.append([process, *(" → ".join(f"{ms:.3f}" for ms in found["settled_ms"].values())
                                 + (f" ({found['node_over_local_pod']:.2f}×)" if found["node_over_local_pod"] else "")
                                 if (found := builds[v]["processes"].get(process)) else "–" for v in versions)])
    table.append(["the node's CFS periods in which a container hit its CPU limit",
                  *(f"{share:.2%}" if (share := builds[v]["node_throttled_share"]) is not None else "–"
                    for v in versions)])
    return table


EXPLANATION = (
    "What the node costs each build over the local stack, step by step, and what is left to the platform. Each cost "
    "is the whole system's CPU per complete answer in the closed model (the build's three services, PostgreSQL and "
    "Kafka), the background off, the three JVMs' JIT compiler and GC threads' CPU off: the settled cost; the median of "
    "the rounds. Of two CPU maps (make cpu-map and make cpu-map-cluster: the same rounds, warm-up, closed model and "
    "cells on both platforms) the steps are: the local stack with no limit; each JVM counting one processor with no "
    "quota (rung 1p); a quota of one CPU per service on top (rung 1, what a 1-CPU pod gives a JVM); the node's pods "
    "of one CPU. Of two benches (make demo and make bench) they are the local stack and the node as deployed. Each "
    "step's factor and ms are over the step before. TLS to PostgreSQL, which the cluster requires, is named between "
    f"the last local step and the node where make tls's rounds agree (each mode within {TLS_AGREEMENT:.0%}). What is "
    "left unexplained is the node over the last local step, round against round of the same number: the pod network "
    "path (veth pairs, the bridge, kube-proxy's rules, conntrack), nested cgroups, the container runtime. "
    f"{WITHIN}× is the bound the project holds: within it where every round is, beyond it where every round is, else "
    "undecided.")


def main(argv=None):
    parser = argparse.ArgumentParser(prog="benchkit compare", description=__doc__.splitlines()[0])
    parser.add_argument("local", type=pathlib.Path, help="a local CPU map's results (make cpu-map), or a local "
                        "bench's (make demo)")
    parser.add_argument("node", type=pathlib.Path, help="a CPU map's results on a Kubernetes node (make "
                        "cpu-map-cluster), or a bench's there (make bench)")
    parser.add_argument("--tls", type=pathlib.Path, help="make tls's results, for TLS's cost")
    args = parser.parse_args(argv)
    if (args.local / "cpu-map.json").exists() and (args.node / "cpu-map.json").exists():
        (local_kept, local), (node_kept, node) = map_side(args.local), map_side(args.node)
        steps, unlimited, background = MAP_STEPS, MAP_UNLIMITED, True
    else:
        background = has_background(args.local) and has_background(args.node)
        (local_kept, local), (node_kept, node) = (bench_side(side, background) for side in (args.local, args.node))
        steps, unlimited = BENCH_STEPS, ()
    document = {"schema": SCHEMA, "steps": [[step_name(side, rung), what] for side, rung, what in steps],
                "unlimited": [step_name(*s) for s in unlimited], "background_taken_off": background,
                "builds": remainder({"local": local, "node": node}, steps, unlimited, tls_cost(args.tls)),
                **{side: {"results": directory.name, **{k: kept.get(k) for k in ("commit", "timestamp", "where")}}
                   for side, directory, kept in (("local", args.local, local_kept), ("node", args.node, node_kept))},
                "tls": args.tls.name if args.tls else None}
    if not document["builds"]:
        sys.exit("no build has every step: " + ", ".join(step_name(side, rung) for side, rung, _ in steps))
    (args.node / "remainder.json").write_text(json.dumps(document, indent=2))
    table = rows(document)
    documents.write(args.node, "remainder", "reactive-bench: what the node costs an answer, step by step",
                    f"local at commit {local_kept.get('commit')} ({args.local.name}), node at commit "
                    f"{node_kept.get('commit')} ({args.node.name})" + (f", TLS from {args.tls.name}" if args.tls else "")
                    + ("" if background else "; no background rate taken off (one side did not measure it)"),
                    [("The node's cost, step by step", EXPLANATION, [("", table)]),
                     ("Where it lands, process by process", "", [("", process_rows(document))])], {})
    print(documents.markdown_table(table))
    print(f"The remainder: {args.node / 'remainder.md'} and {args.node / 'remainder.html'}")


KIND = Kind("remainder", SCHEMA, SCHEMA, ("remainder.json",), document_publisher(SCHEMA, consistency, ()), consistency,
            {"remainder": rows, "remainder-processes": process_rows})
