"""Every kind of published result, in one registry: what a run of it writes, how that becomes a summary
(docs/results/<name>.json), how a summary is checked against its own rounds, and the tables and charts a doc can show
of it. `figures` publishes, loads, checks and renders through this table alone; a new kind is one entry here."""
import dataclasses
import json
import pathlib
import sys
from typing import Callable

from . import BASELINE, VERSIONS, ab, bakeoff, compare, latencymap, latencyreport, results, summaries, tables


@dataclasses.dataclass(frozen=True)
class Kind:
    name: str
    summary_schema: str  # what its summaries carry
    run_schema: str  # what a run of it writes
    run_files: tuple  # the file(s) a run writes into its results directory
    publish: Callable  # (the run's document or directory, name, directory) -> the summary's path
    consistency: Callable  # summary -> [problem]
    tables: dict = dataclasses.field(default_factory=dict)  # {marker name: summary -> rows}
    charts: dict = dataclasses.field(default_factory=dict)  # {marker name: summary -> svg}


def map_table(version):
    return lambda summary: latencyreport.ratio_rows(summary, version)


def map_chart(version, kind):
    return lambda summary: latencyreport.heat_map(summary, version, kind)


# In the order a results directory is looked into: a node's directory holds its results.json and its compare.json,
# and publishing the directory publishes the run (compare.json is published by its own path).
KINDS = (
    Kind("latency-map", latencymap.SCHEMA, latencymap.SCHEMA, ("latency-map.json",), summaries.publish_latency_map,
         summaries.map_consistency,
         {**{f"map-{version}": map_table(version) for version in VERSIONS if version != BASELINE},
          "map-ceilings": lambda summary: latencyreport.prediction_rows(summary, latencyreport.medians(summary)),
          "map-sweep": latencyreport.sweep_rows, "map-proxy": latencyreport.proxy_rows,
          "map-spread": lambda summary: latencyreport.spread_rows(summary, latencymap.SPREAD_LIMIT)},
         {f"map-{version}-{kind}": map_chart(version, kind) for version in VERSIONS if version != BASELINE
          for kind in latencyreport.HEAT_MAPS}),
    Kind("chaos", summaries.CHAOS_SCHEMA, summaries.CHAOS_RUN_SCHEMA, ("chaos.json",), summaries.publish_chaos,
         summaries.chaos_consistency,
         {"faults": tables.faults_table, "faults-calls": tables.faults_calls_table,
          "faults-cpu": tables.faults_cpu_table, "overload": tables.overload_table,
          "overload-runs": tables.overload_runs_table}),
    Kind("ab", ab.SCHEMA, ab.SCHEMA, tuple(f"{name}.json" for name in ab.EXPERIMENTS), summaries.publish_ab,
         ab.consistency, {"ab": ab.table}),
    Kind("bench", summaries.SCHEMA, results.SCHEMA, ("results.json",), summaries.publish,
         summaries.bench_consistency,
         {"headline": tables.headline_table, "knees": tables.knees_table, "answer": tables.answer_table,
          "hops": tables.hops_table, "cpu": tables.cpu_table}),
    Kind("compare", compare.SCHEMA, compare.SCHEMA, ("compare.json",), summaries.publish_compare, compare.consistency,
         {"compare": lambda summary: compare.rows(summary["builds"]),
          "compare-processes": lambda summary: compare.process_rows(summary["builds"])}),
    Kind("bakeoff", bakeoff.SCHEMA, bakeoff.SCHEMA, ("bakeoff.json",), summaries.publish_bakeoff,
         bakeoff.consistency, {"bakeoff": bakeoff.table, "bakeoff-stall": bakeoff.stall_table}),
)
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


def publish(found, name, directory=summaries.SUMMARIES):
    """A run's summary as <directory>/<name>.json, its kind read from what the run wrote: a file by its schema, a
    results directory by the first kind whose file it holds; several chaos runs' directories, comma-separated, make
    one summary."""
    if "," in str(found):
        return summaries.publish_chaos(str(found).split(","), name, directory)
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


def loaded(directory=summaries.SUMMARIES):
    """{name: summary} of every summary of a known kind in the directory."""
    return summaries.summaries(directory, tuple(BY_SUMMARY_SCHEMA))


def table(summary, name):
    """The rows of a doc's table of a summary; refused when the table is not one of the summary's kind."""
    kind = of_summary(summary)
    if kind is None or name not in kind.tables:
        return None
    return kind.tables[name](summary)
