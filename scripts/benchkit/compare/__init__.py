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
from benchkit.compare import remainder
from benchkit.compare.costs import TLS_AGREEMENT, WITHIN, Cost, costs, tls_cost

SCHEMA = "reactive-bench/compare/1"
SCENARIO = "closed"


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


def main(argv=None):
    parser = argparse.ArgumentParser(prog="benchkit compare", description=__doc__.splitlines()[0])
    parser.add_argument("local", type=pathlib.Path, help="a local bench's results (make demo), or a local CPU map's "
                        "(make cpu-map: then the remainder, step by step)")
    parser.add_argument("node", type=pathlib.Path, help="a bench's results on a Kubernetes node (make bench), or a "
                        "CPU map's there (make cpu-map-cluster)")
    parser.add_argument("--tls", type=pathlib.Path, help="make tls's results, for TLS's cost")
    args = parser.parse_args(argv)
    if (args.local / "cpu-map.json").exists() and (args.node / "cpu-map.json").exists():
        return remainder.main(args)
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


KIND = Kind("compare", SCHEMA, SCHEMA, ("compare.json",), document_publisher(SCHEMA, consistency, ()), consistency,
            {"compare": lambda summary: rows(summary["builds"]),
             "compare-processes": lambda summary: process_rows(summary["builds"])})
