"""The registry: every experiment a user runs (`benchkit run NAME`, `make NAME`), every setting the harness reads
with its one default (the core's and each experiment's Spec), and every kind of published result with what figures
does with them all: publish a run by the schema of what it wrote, load every summary, check each by its kind, draw a
doc's table or chart only from a summary of its kind. A new experiment is its package and one line here."""
import dataclasses
import json
import pathlib
import sys

from benchkit.checks import traces
from benchkit.core import knobs
from benchkit.core.kinds import SUMMARIES, loaded as loaded_schemas
from benchkit.experiments import ab, bakeoff, bench, chaos, compare, cpumap, latencymap, sweep


def group_of(package):
    """An experiment package's settings' group: its name (cpumap, latencymap, …)."""
    return package.__name__.rsplit(".", 1)[1]


@dataclasses.dataclass(frozen=True)
class Experiment:
    name: str  # as make and benchkit run call it
    package: object  # its Spec, run(platform, spec, directory), and PLATFORMS where not every platform
    given: dict = dataclasses.field(default_factory=dict)  # the Spec's fields this entry fixes

    @property
    def group(self):
        return group_of(self.package)

    @property
    def platforms(self):
        return getattr(self.package, "PLATFORMS", ("local", "kubernetes"))


EXPERIMENTS = {experiment.name: experiment for experiment in (
    Experiment("bench", bench),
    Experiment("sweep", sweep),
    Experiment("tls", ab, {"variant": "tls"}),
    Experiment("reads", ab, {"variant": "reads"}),
    Experiment("proxy-cost", ab, {"variant": "proxy"}),
    Experiment("tracing-cost", ab, {"variant": "tracing"}),
    Experiment("tracing-sampled-cost", ab, {"variant": "tracing-sampled"}),
    Experiment("tracing-absent", ab, {"variant": "tracing-absent"}),
    Experiment("against-commit", ab, {"variant": "against-commit"}),
    Experiment("chaos", chaos),
    Experiment("latency-map", latencymap),
    Experiment("bakeoff", bakeoff),
    Experiment("cpu-map", cpumap),
)}
PACKAGES = tuple(dict.fromkeys(e.package for e in EXPERIMENTS.values()))  # an A/B's three entries share one
# every knob: the core's, then each experiment's Spec
KNOBS = knobs.CORE + tuple(knob for package in PACKAGES for knob in knobs.declared(package.Spec, group_of(package)))

# Every kind of published result: each experiment's (its KIND), the comparisons of two runs (compare: of two
# benches, and the remainder of two CPU maps), and the traces make test's trace check keeps. In the order a results directory is looked into: a node's directory
# holds its results.json and its compare.json (or cpu-map.json and remainder.json), and publishing the directory
# publishes the run (a comparison is published by its own path).
KINDS = (*(package.KIND for package in PACKAGES if hasattr(package, "KIND")), compare.KIND, compare.REMAINDER_KIND,
         traces.KIND)
BY_SUMMARY_SCHEMA = {kind.summary_schema: kind for kind in KINDS}
BY_RUN_SCHEMA = {kind.run_schema: kind for kind in KINDS}
TABLES = {name: table for kind in KINDS for name, table in kind.tables.items()}
CHARTS = {name: chart for kind in KINDS for name, chart in kind.charts.items()}


def of_summary(summary):
    """The kind of a summary, by its schema (None for one no kind publishes)."""
    return BY_SUMMARY_SCHEMA.get(summary.get("schema"))


def consistency(summary):
    """Where a summary is not what its own rounds, runs or cells give ([] when nowhere)."""
    kind = of_summary(summary)
    return kind.consistency(summary) if kind else [f"schema {summary.get('schema')!r}: no kind publishes it"]


def publish(found, name, directory=SUMMARIES):
    """A run's summary as <directory>/<name>.json, its kind read from what the run wrote: a file by its schema, a
    results directory by the first kind whose file it holds; several chaos runs' directories, comma-separated, make
    one summary."""
    if "," in str(found):
        return chaos.summary.publish_chaos(str(found).split(","), name, directory)
    found = pathlib.Path(found)
    if found.is_file():
        schema = json.loads(found.read_text()).get("schema")
        kind = BY_RUN_SCHEMA.get(schema) or sys.exit(f"{found}: schema {schema!r}: no kind publishes it")
        return kind.publish(found, name, directory)
    for kind in KINDS:
        for file in kind.run_files:
            if (found / file).exists():
                return kind.publish(found / file, name, directory)
    sys.exit(f"{found}: none of {', '.join(f for kind in KINDS for f in kind.run_files)}: nothing to publish")


def loaded(directory=SUMMARIES):
    """{name: summary} of every summary of a known kind in the directory."""
    return loaded_schemas(directory, tuple(BY_SUMMARY_SCHEMA))


def table(summary, name):
    """The rows of a doc's table of a summary; None when the table is not one of the summary's kind."""
    kind = of_summary(summary)
    return kind.tables[name](summary) if kind and name in kind.tables else None
