"""Where an in-cluster answer's extra cost comes from (python -m benchkit compare LOCAL NODE [--tls TLS]): each build's
CPU per complete answer in the closed model, on the local stack and on a Kubernetes node, with each one's background
rate taken off, and the difference taken apart by measurement: JIT compilation and GC during the runs (HotSpot's own
counters), TLS to PostgreSQL (what make tls measured it to cost, the cluster having it and the local stack not), and
what is left (the pod network path: veth, bridge, kube-proxy's rules; cgroup accounting; anything not named).
Writes compare.md and compare.html into NODE."""
import argparse
import json
import pathlib
import statistics

from . import NAMES, documents, results

SCENARIO = "closed"
WITHIN = 1.3  # the bound: a node's figure within 1.3 x of the local one, or the rest named


def per_answer(directory, scenario=SCENARIO):
    """{version: {figure: ms per complete answer, median over the runs}}: the whole system's CPU, with the background
    rate off; the JIT compiler threads' CPU and the GC's seconds of the three services."""
    values = {}
    for run in results.read_runs(directory):
        complete = run["metrics"]["complete"]
        if run["scenario"] != scenario or not complete:
            continue
        mine = values.setdefault(run["version"], {"cpu": [], "jit": [], "gc": []})
        working = results.system_without_background(run)
        mine["cpu"].append(1000 * (working if working is not None else sum(run["cpu_seconds"].values())) / complete)
        jvm = run.get("jvm") or {}
        if jvm and all(jvm.values()) and all("jit_cpu_seconds" in j for j in jvm.values()):
            mine["jit"].append(1000 * sum(max(0.0, j["jit_cpu_seconds"]) for j in jvm.values()) / complete)
            mine["gc"].append(1000 * sum(j["gc_seconds"] for j in jvm.values()) / complete)
    return {version: {key: statistics.median(v) if v else None for key, v in found.items()}
            for version, found in values.items()}


def tls_cost(tls_results):
    """{version: CPU ms per request that TLS to PostgreSQL adds (require minus disable, medians)}, from make tls."""
    if tls_results is None:
        return {}
    builds = json.loads((tls_results / "tls.json").read_text())["builds"]
    return {version: statistics.median(r["cpu_ms"] for r in modes["require"]) -
            statistics.median(r["cpu_ms"] for r in modes["disable"]) for version, modes in builds.items()}


def rows(local, node, tls):
    table = [["build", "local ms", "node ms", "node / local", "difference ms", "JIT (node − local)",
              "GC (node − local)", "TLS to PostgreSQL (make tls)", "left: pod network path and the rest",
              f"within {WITHIN}× once explained"]]
    for version in node:
        if version not in local or local[version]["cpu"] is None or node[version]["cpu"] is None:
            continue
        here, there = local[version], node[version]
        difference = there["cpu"] - here["cpu"]
        parts = {"jit": None if there["jit"] is None or here["jit"] is None else there["jit"] - here["jit"],
                 "gc": None if there["gc"] is None or here["gc"] is None else there["gc"] - here["gc"],
                 "tls": tls.get(version)}
        left = difference - sum(v for v in parts.values() if v is not None)
        explained = (there["cpu"] - sum(v for v in parts.values() if v is not None)) / here["cpu"]
        table.append([NAMES.get(version, version), f"{here['cpu']:.3f}", f"{there['cpu']:.3f}",
                      f"{there['cpu'] / here['cpu']:.2f}×", f"{difference:.3f}",
                      *("–" if v is None else f"{v:.3f}" for v in parts.values()), f"{left:.3f}",
                      f"{explained:.2f}× {'yes' if explained <= WITHIN else 'no'}"])
    return table


EXPLANATION = ("CPU per complete answer in the closed model (the whole system: the build's three services, "
               "PostgreSQL and Kafka, each platform's background rate with no load taken off), the median of each "
               "platform's rounds. The difference is taken apart by what was measured: the JIT compiler threads' CPU "
               "(from /proc) and GC time (HotSpot's counters) of the three JVMs during the runs, and TLS to PostgreSQL, which the cluster requires and the local stack does "
               "not use (make tls measured its cost on the local stack). What is left is what no counter names: the "
               "pod network path (veth pairs, the bridge, kube-proxy's iptables rules on every connection), cgroup "
               "accounting, and any effect of the CPU quota on the code itself. The last column is the node's figure "
               f"without the named parts, against the local one: within {WITHIN}× is the bound the project holds.")


def main(argv=None):
    parser = argparse.ArgumentParser(prog="benchkit compare", description=__doc__.splitlines()[0])
    parser.add_argument("local", type=pathlib.Path, help="a local bench's results (make demo)")
    parser.add_argument("node", type=pathlib.Path, help="a bench's results on a Kubernetes node (make bench)")
    parser.add_argument("--tls", type=pathlib.Path, help="make tls's results, for TLS's cost")
    args = parser.parse_args(argv)
    table = rows(per_answer(args.local), per_answer(args.node), tls_cost(args.tls))
    local_env = json.loads((args.local / "environment.json").read_text())
    node_env = json.loads((args.node / "environment.json").read_text())
    documents.write(args.node, "compare", "reactive-bench: an answer's cost, on the local stack and on a node",
                    f"local at commit {local_env.get('git_commit')} ({args.local.name}), node at commit "
                    f"{node_env.get('git_commit')} ({args.node.name})" + (f", TLS from {args.tls.name}" if args.tls else ""),
                    [("CPU ms per complete answer, and where the difference goes", EXPLANATION, [("", table)])], {})
    print(documents.markdown_table(table))
    print(f"Comparison: {args.node / 'compare.md'} and {args.node / 'compare.html'}")
