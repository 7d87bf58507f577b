"""What every kind of published result shares: a Kind names the schema its run writes and the one its summary
carries, how it is published, how a summary is checked against its own rounds, and the tables and charts a doc may
show of it; each experiment declares its own (its KIND), and registry.py lists them. Here too the helpers every
publisher uses: where the summaries live, writing one, reading a run's document checked."""
import dataclasses
import json
import pathlib
import sys
from typing import Callable, Optional

from benchkit import ROOT

SUMMARIES = ROOT / "docs" / "results"


@dataclasses.dataclass(frozen=True)
class Kind:
    name: str
    summary_schema: str  # what its summaries carry
    run_schema: str  # what a run of it writes
    run_files: tuple  # the file(s) a run writes into its results directory
    publish: Callable  # (the file the run wrote or its directory, name, directory) -> the summary's path
    consistency: Callable  # summary -> [problem]
    tables: dict = dataclasses.field(default_factory=dict)  # {marker name: summary -> rows}
    charts: dict = dataclasses.field(default_factory=dict)  # {marker name: summary -> svg}
    several: bool = False  # publish takes several runs (a list of their files or directories) into one summary
    design: str = ""  # a run of its schema is this kind's where it ran this design (chaos's cell document)


def written(summary, name, directory):
    """The summary as <directory>/<name>.json; its path."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{name}.json"
    path.write_text(json.dumps(summary, indent=2) + "\n")
    return path


def within(found, file):
    """The file a run wrote, given it or the run's results directory."""
    found = pathlib.Path(found)
    return found if found.is_file() else found / file


def checked(document, schema, consistency):
    """A run's document (an A/B's, a comparison's), refused when it is not of that schema or its figures are not
    what its own rounds give."""
    data = json.loads(pathlib.Path(document).read_text())
    if data.get("schema") != schema:
        sys.exit(f"{document}: schema {data.get('schema')!r}, not {schema}")
    problems = consistency(data)
    if problems:
        sys.exit(f"{document}: not what its rounds give: " + "; ".join(problems))
    return data


def document_publisher(schema, consistency, drop=("environment",), named=True, kept=None):
    """The publish of a kind whose summary is its run's document: refused unless it is what its rounds give, then
    without `drop` (the docs say where and how it was measured), named; kept(document): what it keeps of what it
    drops ({key: value})."""
    def publish(document, name, directory=SUMMARIES):
        data = checked(document, schema, consistency)
        return written({**({"name": name} if named else {}), **{k: v for k, v in data.items() if k not in drop},
                        **(kept(data) if kept else {})}, name, directory)
    return publish


def loaded(directory=SUMMARIES, schemas=()):
    """{name: summary} of the summaries in a directory whose schema is one of these."""
    found = {}
    for path in sorted(pathlib.Path(directory).glob("*.json")):
        data = json.loads(path.read_text())
        if data.get("schema") in schemas:
            found[path.stem] = data
    return found


@dataclasses.dataclass(frozen=True)
class Publishes:
    """A summary kind of its own (kind), or what its designs add to the cell document every grid run writes: the
    files its runs write (run_files), the tables and charts a doc may show ({marker name: summary -> rows or svg}),
    and per design ({design: function}) what its check adds (consistency: summary -> [problem]), what pooling
    sessions adds (pool), and what is held against the summary as first committed (sealed)."""
    kind: Optional[Kind] = None
    run_files: tuple[str, ...] = ()
    tables: dict[str, Callable[[dict], Optional[list]]] = dataclasses.field(default_factory=dict)
    charts: dict[str, Callable[[dict], str]] = dataclasses.field(default_factory=dict)
    consistency: dict[str, Callable[[dict], list]] = dataclasses.field(default_factory=dict)
    pool: dict[str, Callable[[dict], tuple]] = dataclasses.field(default_factory=dict)
    # sealed(summary, the summary as first committed or None, known(commit)): [problem]
    sealed: dict[str, Callable[[dict, Optional[dict], Callable[[str], bool]], list]] = dataclasses.field(
        default_factory=dict)
    # report(the document's path): the run's own report beside it, read from it alone
    report: Optional[Callable[[pathlib.Path], None]] = None
