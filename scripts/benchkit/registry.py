"""The registry of the experiments' published results: each experiment's KIND (kinds.Kind), and what figures does
with them all: publish a run by the schema of what it wrote, load every summary, check each by its kind, draw a
doc's table or chart only from a summary of its kind. A new kind of result is one line here."""
import json
import pathlib
import sys

from benchkit.experiments import ab, bakeoff, compare, latencymap
from benchkit.experiments.bench import summaries
from benchkit.experiments.chaos import summary as chaos
from benchkit.core.kinds import SUMMARIES, loaded as loaded_schemas

# In the order a results directory is looked into: a node's directory holds its results.json and its compare.json,
# and publishing the directory publishes the run (compare.json is published by its own path).
KINDS = (latencymap.KIND, chaos.KIND, ab.KIND, summaries.KIND, compare.KIND, bakeoff.KIND)
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
        return chaos.publish_chaos(str(found).split(","), name, directory)
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
