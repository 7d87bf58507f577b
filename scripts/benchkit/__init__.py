"""benchkit: the benchmark harness of reactive-bench, run as `python -m benchkit <command>` from scripts/.

  load         the load generator as a plug: a local loadgen process, the samples of a Job's log
  samples      the neutral per-request sample format, and every figure computed from it
  bakeoff      the load generators' bake-off (CPU per request, coordinated omission)
  prometheus   what the services counted (/q/metrics)
  procfs       CPU and peak RSS of local processes (/proc)
  kube         kubectl, pod states, cgroup readings, port-forwards, the load generator as a Job
  platforms    where the builds run, one declared interface (Platform, Build): the local stack, a Kubernetes
               namespace; every measured run, reconfiguration and fault goes through it
  faults       the fault catalogue of each platform
  provenance   what every report states: the commit, the time, the builds' settings
  bench        the measured runs           report     the report of a bench run
  work         the equal-work check        stats      medians, spreads, percentiles
  documents    Markdown and HTML writer    charts     the charts (matplotlib)
  chaos        faults under load           sweep      each build at its best (its concurrency settings)
  curve        the load ladder             calibration  the machine's speed per round
  sql          SQL parity                  profile    JFR recordings, flame graphs, CPU per library
  blocked      Vert.x's blocked-thread reports in the services' logs, waiting told from busy
  reach        whether every load Job of make bench reaches its target behind the charts' NetworkPolicies
  ab           A/B of one setting per build, in rounds: TLS to PostgreSQL, reads in a transaction or not, the
               latency proxy's own cost
  latency      the latency proxy (Toxiproxy) between the services: latency per hop, and the check that it is so
  latencymap   each build over a grid of downstream latency × load, Little's law beside it (latencyreport renders it)
  summaries    the summaries committed beside the docs (docs/results/), each checked against its rounds
  figures      the docs' marked figures and tables, rendered from the summaries and checked
  compare      an answer's cost on the local stack and on a node, the difference taken apart
  hsperf       HotSpot's counters (JIT, GC) from a JVM's hsperfdata file
"""
import os
import pathlib

from benchkit.core.buildsconf import build_lines, builds

ROOT = pathlib.Path(__file__).resolve().parents[2]
LOCAL_DIR = pathlib.Path(os.environ.get("LOCAL_DIR", ROOT / ".local"))
SERVICES = ("web-api", "articles", "authors")


BUILDS = builds()
VERSIONS = tuple(BUILDS)
BASELINE = VERSIONS[0]  # every ratio is a build's figure over the first build's (builds.conf's order)
CHART_VALUES = build_lines("chart-values")  # what a build gets in its pods beyond its own configuration
# "v1 (imperative)", "v3 (virtual threads)": what a report's columns are called
NAMES = {version: f"{version} ({description.split(':', 1)[0]})" for version, description in BUILDS.items()}


def step(message):
    print(f"\033[36m==>\033[0m {message}", flush=True)


def info(message):
    print(f"    {message}", flush=True)
