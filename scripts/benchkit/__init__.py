"""benchkit: the benchmark harness of reactive-bench, run as `python -m benchkit <command>` from scripts/.

  k6           one k6 runner (a local process) and the reading of its summary and per-request samples
  prometheus   what the services counted (/q/metrics)
  procfs       CPU and peak RSS of local processes (/proc)
  kube         kubectl, pod states, cgroup readings, port-forwards, k6 as a Job
  targets      where a build runs: LocalBuild (the local stack) and KubernetesBuild, one interface
  bench        the measured runs           report     the report of a bench run
  work         the equal-work check        stats      medians, spreads, percentiles
  documents    Markdown and HTML writer    charts     the charts (matplotlib)
  chaos        faults under load           sweep      each build at its best (its concurrency settings)
  curve        the load ladder             calibration  the machine's speed per round
  sql          SQL parity                  profile    JFR recordings, flame graphs, CPU per library
"""
import os
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[2]
LOCAL_DIR = pathlib.Path(os.environ.get("LOCAL_DIR", ROOT / ".local"))
VERSIONS = ("v1", "v2")
SERVICES = ("web-api", "articles", "authors")


def edge_max_in_flight():
    """How many requests every build's edge admits at once (edge.max-in-flight, one value for all)."""
    values = set()
    for properties in ROOT.glob("services/*/v[0-9]/src/main/resources/application.properties"):
        values |= {line.split("=", 1)[1].strip() for line in properties.read_text().splitlines()
                   if line.startswith("edge.max-in-flight=")}
    if len(values) != 1:
        raise SystemExit(f"edge.max-in-flight differs between the builds: {sorted(values)}")
    return int(values.pop())


MAX_IN_FLIGHT = edge_max_in_flight()


def step(message):
    print(f"\033[36m==>\033[0m {message}", flush=True)


def info(message):
    print(f"    {message}", flush=True)
