"""python -m benchkit COMMAND [ARGS…]: bench | results | check FILE EXPRESSION… | report | sweep | chaos | ab tls|reads|proxy | latency-map | latency-report RESULTS | compare LOCAL NODE | blocked LOG… | reach | builds … | knobs | figures publish|render|check | unschedulable NAMESPACE"""
import importlib
import sys

COMMANDS = ("bench", "results", "check", "report", "sweep", "chaos", "blocked", "reach", "ab", "compare", "bakeoff",
            "builds", "figures", "latency-map", "latency-report", "knobs")
MODULES = {"builds": "buildsconf", "latency-map": "latencymap", "latency-report": "latencyreport"}  # a command named otherwise than its module


def main():
    if len(sys.argv) < 2 or sys.argv[1] not in (*COMMANDS, "unschedulable"):
        sys.exit(__doc__)
    command, args = sys.argv[1], sys.argv[2:]
    if command == "unschedulable":  # for scripts/k8s.sh while helm waits; the standard library is enough
        from .kube import unschedulable
        print(unschedulable(args[0]))
        return
    # imported on demand: only the reports need matplotlib
    importlib.import_module(f"{__package__}.{MODULES.get(command, command)}").main(args)


main()
