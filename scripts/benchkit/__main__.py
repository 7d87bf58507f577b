"""python -m benchkit COMMAND [ARGS…]: bench | results | check FILE EXPRESSION… | report | sweep | chaos | ab tls|reads|proxy | latency-map | latency-report RESULTS | compare LOCAL NODE | blocked LOG… | reach | builds … | knobs | figures publish|render|check | unschedulable NAMESPACE"""
import importlib
import sys

# each command's module, under benchkit
MODULES = {"bench": "experiments.bench", "results": "core.results", "check": "checks.check",
           "report": "experiments.bench.report", "sweep": "experiments.sweep", "chaos": "experiments.chaos",
           "blocked": "checks.blocked", "reach": "checks.reach", "ab": "experiments.ab", "compare": "experiments.compare",
           "bakeoff": "experiments.bakeoff", "builds": "core.buildsconf", "figures": "figures",
           "latency-map": "experiments.latencymap", "latency-report": "experiments.latencymap.report",
           "knobs": "core.knobs"}


def main():
    if len(sys.argv) < 2 or sys.argv[1] not in (*MODULES, "unschedulable"):
        sys.exit(__doc__)
    command, args = sys.argv[1], sys.argv[2:]
    if command == "unschedulable":  # for scripts/k8s.sh while helm waits; the standard library is enough
        from benchkit.core.kube import unschedulable
        print(unschedulable(args[0]))
        return
    # imported on demand: only the reports need matplotlib
    importlib.import_module(f"benchkit.{MODULES[command]}").main(args)


main()
