"""Every kind of published result, and what figures does with them all: publish a run by the schema of what it wrote,
load every summary, check each by its kind (and a pooled one against its sessions, a sealed one against its first
commit), draw a doc's table or chart only from a summary of its kind. Each experiment's part is its PUBLISHES
(publish/<its package>, as the catalogue names it)."""
import importlib
import json
import pathlib
import sys

from benchkit import catalogue
from benchkit.core import cells, sealing, stats
from benchkit.publish.kinds import SUMMARIES, Kind, Publishes, document_publisher, loaded as loaded_schemas
from benchkit.publish import ab, compare, traces

def publishes_of(package):
    """What is published of an experiment: publish/<its package>'s PUBLISHES where it has one; else what every cell
    document has, its own report and tables (publish.ab's), its run's file the one its design writes, <package>.json:
    an experiment of one file under experiments/, whose Design is named as its package, needs nothing here."""
    try:
        return importlib.import_module(f"benchkit.publish.{package}").PUBLISHES
    except ModuleNotFoundError as missing:
        if missing.name != f"benchkit.publish.{package}":
            raise
        return Publishes(run_files=(f"{package}.json",), report=ab.PUBLISHES.report)


# what is published of each experiment, once for the A/Bs' entries that share one
PUBLISHED = tuple(publishes_of(package) for package in dict.fromkeys(entry.package for entry in catalogue.EXPERIMENTS))

# Every kind of published result: each experiment's (its KIND), the comparison of two runs (compare: the remainder
# of two CPU maps or two benches), and the traces make test's trace check keeps. In the order a results directory is
# looked into: a node's directory holds its bench.json or cpu-map.json and its remainder.json, and publishing the
# directory publishes the run (a comparison is published by its own path).
# Every grid experiment writes the cell document (core.cells): one kind, whose tables and charts each design adds.
# what a design's own check adds to the cell document's (the latency map's ratio grid and predictions)
DESIGN_CONSISTENCY = {name: check for published in PUBLISHED for name, check in published.consistency.items()}


# what a design adds when sessions are pooled (the bench's knees, and the open model left out at different rates)
DESIGN_POOL = {name: extra for published in PUBLISHED for name, extra in published.pool.items()}


# what a design checks of a summary against the summary as first committed (the latency map's own prediction)
DESIGN_SEALED = {name: check for published in PUBLISHED for name, check in published.sealed.items()}


def sealed(summary, first, known):
    """Where a summary is not what it was when first committed, where it must be (first(): that summary, or None,
    asked of git only for a design that checks it); known(commit): whether git knows a commit it names."""
    check = DESIGN_SEALED.get(summary.get("design"))
    return check(summary, first(), known) if check else []


def cell_consistency(summary):
    return cells.consistency(summary) + DESIGN_CONSISTENCY.get(summary.get("design"), lambda _: [])(summary)


def pooled(named, name, floors=None, again=None):
    """One cell document of several sessions' summaries of one design (cells.pooled, with what the design adds, the
    noise floor of the same sessions and other sessions kept apart where given)."""
    designs = {summary.get("design") for summary in named.values()}
    return cells.pooled(named, name, DESIGN_POOL.get(designs.pop()) if len(designs) == 1 else None, floors, again)


def pooled_again(summary, found):
    """Where a pooled summary is not what its sessions' summaries (and its floor's and the sessions kept apart) pool
    into again ([] where it is, or is not pooled): a round edited in the pool, its derived figures recomputed, is
    consistent with itself, and only its sessions can tell."""
    named = {flag: [s["name"] for s in part] for flag, part in (
        ("sessions", summary.get("sessions", ())), ("floors", summary.get("floor", {}).get("sessions", ())),
        ("again", summary.get("again", ())))}
    if not named["sessions"]:
        return []
    missing = [n for names in named.values() for n in names if n not in found]
    if missing:
        return [f"pooled from {missing[0]}, which is not published: it cannot be pooled again"]
    sessions, floors, apart = ({n: found[n] for n in named[flag]} or None for flag in ("sessions", "floors", "again"))
    recomputed = json.loads(json.dumps(pooled(sessions, summary["name"], floors, apart)))
    return [f"{path or 'the summary'} is not what its sessions pool into"
            for path in stats.differences(sealing.unamended(summary), sealing.unamended(recomputed))[:3]]


# A cell document is what a design's run wrote (the bench's too)
CELLS = Kind("cells", cells.SCHEMA, cells.SCHEMA,
             tuple(file for published in PUBLISHED for file in published.run_files),
             document_publisher(cells.SCHEMA, cell_consistency, ("environment", "explanation"), kept=cells.kept),
             cell_consistency,
             {name: table for published in PUBLISHED for name, table in published.tables.items()},
             {name: chart for published in PUBLISHED for name, chart in published.charts.items()})
KINDS = (*(published.kind for published in PUBLISHED if published.kind), CELLS, compare.KIND, traces.KIND)
BY_SUMMARY_SCHEMA = {kind.summary_schema: kind for kind in KINDS}
# a run's kind by (its schema, its design): a design's own kind first, else its schema's
BY_RUN = {(kind.run_schema, kind.design): kind for kind in reversed(KINDS)}
TABLES = {name: table for kind in KINDS for name, table in kind.tables.items()}
CHARTS = {name: chart for kind in KINDS for name, chart in kind.charts.items()}


def of_summary(summary):
    """The kind of a summary, by its schema (None for one no kind publishes)."""
    return BY_SUMMARY_SCHEMA.get(summary.get("schema"))


def consistency(summary):
    """Where a summary is not what its own rounds, runs or cells give ([] when nowhere)."""
    kind = of_summary(summary)
    return kind.consistency(summary) if kind else [f"schema {summary.get('schema')!r}: no kind publishes it"]


def run_of(found):
    """(its kind, the file it wrote) of a run: a file by its schema, a results directory by the first kind whose file
    it holds."""
    if found.is_file():
        data = json.loads(found.read_text())
        schema = data.get("schema")
        return (BY_RUN.get((schema, data.get("design"))) or BY_RUN.get((schema, ""))
                or sys.exit(f"{found}: schema {schema!r}: no kind publishes it")), found
    for kind in KINDS:
        for file in kind.run_files:
            if (found / file).exists():
                return kind, found / file
    sys.exit(f"{found}: none of {', '.join(f for kind in KINDS for f in kind.run_files)}: nothing to publish")


def publish(found, name, directory=SUMMARIES):
    """A run's summary as <directory>/<name>.json, its kind read from what the run wrote (run_of); several runs'
    directories, comma-separated, make one summary where their kind publishes several as one (Kind.several: chaos)."""
    runs = [pathlib.Path(path) for path in str(found).split(",")]
    kind, file = run_of(runs[0])
    if len(runs) == 1:
        return kind.publish(file, name, directory)
    if not kind.several:
        sys.exit(f"{found}: several runs are published as one summary only by "
                 f"{', '.join(kind.name for kind in KINDS if kind.several)}")
    return kind.publish(runs, name, directory)


def loaded(directory=SUMMARIES):
    """{name: summary} of every summary of a known kind in the directory."""
    return loaded_schemas(directory, tuple(BY_SUMMARY_SCHEMA))


def table(summary, name):
    """The rows of a doc's table of a summary; None when the table is not one of the summary's kind."""
    kind = of_summary(summary)
    return kind.tables[name](summary) if kind and name in kind.tables else None
