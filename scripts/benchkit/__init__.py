"""benchkit: the benchmark harness of reactive-bench, run as `python -m benchkit run EXPERIMENT` from scripts/ (make NAME
does). core/ is what every experiment measures through (the platforms, the protocol, the builds' configuration, the
document model); experiments/ holds one package per experiment; registry.py lists them, their settings and the kinds
of result they publish; figures.py renders the docs' figures from the published summaries (docs/architecture.md)."""
import os
import pathlib
import time

from benchkit.core.buildsconf import build_lines, builds, floor

ROOT = pathlib.Path(__file__).resolve().parents[2]
LOCAL_DIR = pathlib.Path(os.environ.get("LOCAL_DIR", ROOT / ".local"))
SERVICES = ("web-api", "articles", "authors")


BUILDS = builds()
VERSIONS = tuple(BUILDS)
FLOOR = tuple(floor())  # the read alone in plain Vert.x: measured where an experiment or VERSIONS asks for it
BASELINE = VERSIONS[0]  # every ratio is a build's figure over the first build's (builds.conf's order)
CHART_VALUES = build_lines("chart-values")  # what a build gets in its pods beyond its own configuration
# "v1 (imperative)", "v3 (virtual threads)": what a report's columns are called
NAMES = {version: f"{version} ({description.split(':', 1)[0]})" for version, description in BUILDS.items()} | {
    version: f"{version} (floor)" for version in FLOOR}


def floor_last(versions):
    """The versions in their order, the floor's after the builds': the order a table sets them against the floor."""
    return [v for v in versions if v not in FLOOR] + [v for v in versions if v in FLOOR]


def step(message):
    """A step of a run, with the time of day it began (as scripts/lib.sh's)."""
    print(f"\033[36m==>\033[0m {time.strftime('%H:%M:%S')} {message}", flush=True)


def info(message):
    print(f"    {message}", flush=True)
