"""The figures the project publishes: every one comes from a small summary committed beside the docs
(docs/results/<name>.json, written from a run's document by `publish`), and the docs show it between markers
that `render` fills in and `check` compares (make test fails on a figure that differs from its summary, and on a
summary whose ratios are not what its own rounds give).

    python -m benchkit figures publish RESULTS NAME   docs/results/NAME.json from what a run wrote: its results
                                                      directory, or the file itself (bench.json, chaos.json, an
                                                      A/B's <experiment>.json, compare.json, latency-map.json;
                                                      registry.py knows each); several chaos runs'
                                                      directories, comma-separated: one summary
    python -m benchkit figures combine NAME SUMMARY… [--floor SUMMARY…] [--again SUMMARY…]
                                                      docs/results/NAME.json of two or more independent sessions'
                                                      summaries of one design (separate starts, hours apart): every
                                                      round of each, every ratio and its interval from all of them;
                                                      --floor: the noise floor's summaries of the same sessions,
                                                      pooled alike, which its verdicts are judged against; --again:
                                                      other sessions, kept apart, set beside the pooled intervals
    python -m benchkit figures render                 fills in every marked figure of README.md and docs/*.md
    python -m benchkit figures check                  fails where a marked figure or a summary is not what it should be
    python -m benchkit figures since [NAME…]          each file of the services changed since a summary (every one
                                                      where none is named) was measured, and whether in code or in
                                                      comments alone (make since NAME=…)

Markers (HTML comments, invisible on GitHub):
    <!-- figure NAME PATH FORMAT -->2.35×<!-- /figure -->       one figure: PATH into the summary, dots between keys
                                                               ("scenarios.closed.ratios.v2.median"), FORMAT as
                                                               Python's format ("{:.2f}×"); in a PATH a number
                                                               indexes a list, [build=v3,size=0.5] picks the one
                                                               item of a list with those values
    <!-- figures NAME TABLE -->…<!-- /figures -->               a table of the summary (TABLES names them)
    <!-- chart NAME KIND -->…<!-- /chart -->                     a picture drawn from the summary (CHARTS names them)
                                                               into docs/figures/NAME-KIND.svg, which the text
                                                               between the markers shows
    <!-- setting MODULE.NAME FORMAT -->10 %<!-- /setting -->    a constant of the harness, not a measurement: NAME
                                                               of benchkit's MODULE ("calibration.DRIFT_LIMIT",
                                                               "curve.SHARES.0"; "knobs.NAME": a knob's default),
                                                               so the docs say what the code does
    <!-- knobs GROUP -->…<!-- /knobs -->                         the table of a group of knobs (knobs.py): each
                                                               variable, its one default, what it means
    <!-- since NAME -->…<!-- /since -->                         which code the summary's figures describe: whether
                                                               the code the services run changed after it was
                                                               measured, from git (publish/since.py); a page that
                                                               quotes a summary measured on code changed since must
                                                               have one"""
import dataclasses
import importlib
import json
import pathlib
import re
import sys

from benchkit import ROOT, registry

from benchkit.publish import registry as publishing
from benchkit.publish import since, unmarked
from benchkit.core import knobs, sealing
from benchkit.publish.kinds import SUMMARIES, written
from benchkit.core.documents import formatted, markdown_table

DOCUMENTS = ("README.md", "docs/*.md")
FIGURE = re.compile(r"<!-- figure (\S+) (\S+) (.+?) -->(.*?)<!-- /figure -->", re.DOTALL)
TABLE = re.compile(r"<!-- figures (\S+) (\S+) -->\n(.*?)<!-- /figures -->", re.DOTALL)
CHART = re.compile(r"<!-- chart (\S+) (\S+) -->(.*?)<!-- /chart -->", re.DOTALL)
SETTING = re.compile(r"<!-- setting (\S+) (.+?) -->(.*?)<!-- /setting -->", re.DOTALL)
KNOBS = re.compile(r"<!-- knobs (\S+) -->\n(.*?)<!-- /knobs -->", re.DOTALL)
PICTURES = "docs/figures"  # under the root of the docs


def at(summary, path):
    """The value at a path of keys; a number indexes a list; [key=value,…] is the one item of a list whose keys have
    those values (a cell: [build=v3,mode=absent,size=0.5]; "_" stands for a space, which a marker cannot hold)."""
    value = summary
    for key in re.findall(r"\[[^\]]*\]|[^.\[]+", path):
        if key.startswith("["):
            wanted = dict(pair.split("=", 1) for pair in key[1:-1].split(","))
            found = [item for item in value if all(str(item.get(k)) == v.replace("_", " ") for k, v in wanted.items())]
            if len(found) != 1:
                raise KeyError(f"{key}: {len(found)} items have those values, not one")
            value = found[0]
        elif isinstance(value, (list, tuple)):
            value = value[int(key)]
        else:
            value = getattr(value, key) if dataclasses.is_dataclass(value) else value[key]
    return value


# ---------- the pictures a doc can show of a summary (drawn deterministically: the same summary, the same bytes)

def setting_value(path):
    """A setting of the harness named by its dotted path under benchkit: a module's constant (`core.curve.SHARES.0`,
    keys and indexes after it) or a knob's default (`core.knobs.RUNS`)."""
    parts = path.split(".")
    for end in range(len(parts) - 1, 0, -1):
        try:
            module = importlib.import_module(f"{__package__}.{'.'.join(parts[:end])}")
        except ImportError:
            continue
        name, keys = parts[end], ".".join(parts[end + 1:])
        value = {k.name: k for k in registry.KNOBS}[name].default if module is knobs else getattr(module, name)
        return at(value, keys) if keys else value
    raise ImportError(path)


def pictures(text, found, where, root=ROOT):
    """{path: svg} of every chart marked in a text, drawn from its summary."""
    drawn = {}
    for match in CHART.finditer(text):
        name, kind = match.group(1), match.group(2)
        chart = publishing.of_summary(found[name]).charts.get(kind) if name in found else None
        if chart is None:
            raise SystemExit(f"{where}: no summary {name} or no chart {kind} of it ({', '.join(publishing.CHARTS)})")
        drawn[root / PICTURES / f"{name}-{kind}.svg"] = chart(found[name])
    return drawn


# ---------- render and check

def documents(root=ROOT):
    return [path for pattern in DOCUMENTS for path in sorted(root.glob(pattern))]


def rendered(text, found, where, root=ROOT):
    """The text with every marked figure filled in from the summaries, and what each says of the code it describes
    from git (publish/since.py); unknown names or paths fail loudly."""
    def figure(match):
        name, path, pattern = match.group(1), match.group(2), match.group(3)
        if name not in found:
            raise SystemExit(f"{where}: no summary docs/results/{name}.json")
        try:
            value = at(found[name], path)
        except (KeyError, IndexError, ValueError, TypeError):
            raise SystemExit(f"{where}: docs/results/{name}.json has no {path}") from None
        return f"<!-- figure {name} {path} {pattern} -->{formatted(value, pattern)}<!-- /figure -->"

    def table(match):
        name, kind = match.group(1), match.group(2)
        rows = publishing.table(found[name], kind) if name in found else None
        if rows is None:
            raise SystemExit(f"{where}: no summary {name} or no table {kind} of it ({', '.join(publishing.TABLES)})")
        return f"<!-- figures {name} {kind} -->\n{markdown_table(rows)}\n<!-- /figures -->"

    def setting(match):
        path, pattern = match.group(1), match.group(2)
        try:
            value = setting_value(path)
        except (ImportError, AttributeError, KeyError, IndexError, ValueError, TypeError):
            raise SystemExit(f"{where}: the harness has no setting {path}") from None
        return f"<!-- setting {path} {pattern} -->{formatted(value, pattern)}<!-- /setting -->"

    def knob_table(match):
        group, groups = match.group(1), tuple(dict.fromkeys(knob.group for knob in registry.KNOBS))
        if group not in groups:
            raise SystemExit(f"{where}: no knobs {group} ({', '.join(groups)})")
        return f"<!-- knobs {group} -->\n{markdown_table(knobs.rows(registry.KNOBS, group))}\n<!-- /knobs -->"

    text = KNOBS.sub(knob_table, SETTING.sub(setting, TABLE.sub(table, FIGURE.sub(figure, text))))
    return since.rendered(text, found, where, root)


def quoted(text):
    """The summaries a text quotes: by a figure, a table or a chart."""
    return [match.group(1) for pattern in (FIGURE, TABLE, CHART) for match in pattern.finditer(text)]


LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


def dead_links(root=ROOT):
    """[problem]: a link of README.md, docs/ or a committed report copy (docs/results/*.md) to a file that is not in the
    repository: evidence nobody can open."""
    pages = [*documents(root), *sorted((root / "docs" / "results").glob("*.md"))]
    return [f"{page.relative_to(root)}: links {target}, which is not in the repository" for page in pages
            for target in LINK.findall(page.read_text())
            if not target.startswith(("http://", "https://", "mailto:")) and not (page.parent / target).exists()]


def first_of(root, path):
    """A summary as the commit that added it held it, or None."""
    text = since.first_committed(root, path)
    return json.loads(text) if text else None


def check(root=ROOT, directory=SUMMARIES):
    """[problem]: a marked figure that is not its summary's, a summary that is not consistent, a measured number
    outside a marker (publish/unmarked.py)."""
    found = publishing.loaded(directory)
    problems = [f"docs/results/{name}.json: {problem}" for name, summary in found.items()
                for problem in publishing.consistency(summary) + publishing.pooled_again(summary, found)]
    problems += [f"docs/results/{path.name}: schema {json.loads(path.read_text()).get('schema')!r}: no kind publishes "
                 "it, so nothing checks it" for path in sorted(pathlib.Path(directory).glob("*.json"))
                 if path.stem not in found]
    if since.in_git(root):  # what a summary must still be of its first commit (a copy without history cannot tell)
        problems += [f"docs/results/{name}.json: {problem}" for name, summary in found.items()
                     for problem in publishing.sealed(
                         summary, lambda name=name: first_of(root, pathlib.Path(directory) / f"{name}.json"),
                         lambda commit: since.known(root, commit))]
        problems += [f"docs/results/{name}.json: {problem}" for name, summary in found.items()
                     for problem in sealing.problems(
                         summary, since.first_alike(root, pathlib.Path(directory) / f"{name}.json", sealing.alike(summary)),
                         lambda commit: since.known(root, commit))]
    problems += unmarked.problems(documents(root), root) + dead_links(root)
    for path in documents(root):
        text = path.read_text()
        expected = rendered(text, found, path.name, root)
        problems += since.problems(text, quoted(text), found, str(path.relative_to(root)), root)
        if expected != text:
            wrong = [(a, b) for a, b in zip(text.splitlines(), expected.splitlines()) if a != b]
            shown = wrong[0] if wrong else ("", "")
            problems.append(f"{path.relative_to(root)}: a figure is not its summary's "
                            f"(found {shown[0][:160]!r}, expected {shown[1][:160]!r}); make docs-figures renders them")
        for picture, svg in pictures(text, found, path.name, root).items():
            if not picture.exists() or picture.read_text() != svg:
                problems.append(f"{path.relative_to(root)}: {picture.relative_to(root)} is not what its summary draws; "
                                "make docs-figures draws it")
    return problems


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    command = argv[0] if argv else ""
    if command == "publish" and len(argv) == 3:
        print(f"Summary: {publishing.publish(argv[1], argv[2])}")
    elif command == "combine" and len(argv) >= 4:
        found = publishing.loaded()
        given = {"": []}  # the sessions, then each flag's summaries
        for word in argv[2:]:
            given.setdefault(word, []) if word in ("--floor", "--again") else given[list(given)[-1]].append(word)
        missing = [n for names in given.values() for n in names if n not in found]
        if missing:
            sys.exit(f"no summary docs/results/{missing[0]}.json")
        sessions, floors, again = ({n: found[n] for n in given.get(flag, ())} or None
                                   for flag in ("", "--floor", "--again"))
        document = publishing.pooled(sessions, argv[1], floors, again)
        print(f"Summary: {written(document, argv[1], SUMMARIES)}")
    elif command == "render":
        found = publishing.loaded()
        for path in documents():
            text = path.read_text()
            new = rendered(text, found, path.name, ROOT)
            if new != text:
                path.write_text(new)
                print(f"rendered {path.relative_to(ROOT)}")
            for picture, svg in pictures(new, found, path.name).items():
                if not picture.exists() or picture.read_text() != svg:
                    picture.parent.mkdir(parents=True, exist_ok=True)
                    picture.write_text(svg)
                    print(f"drew {picture.relative_to(ROOT)}")
    elif command == "check":
        problems = check()
        marked = sum(len(pattern.findall(p.read_text())) for pattern in (FIGURE, TABLE, CHART) for p in documents())
        for problem in problems:
            print(problem)
        if problems:
            sys.exit(f"{len(problems)} published figure(s) differ from their summaries")
        print(f"{marked} marked figures and tables in README.md and docs/ are their summaries', "
              f"{len(publishing.loaded())} summaries consistent")
    elif command == "since":
        found = publishing.loaded()
        for name in argv[1:] or sorted(found):
            if name not in found:
                sys.exit(f"no summary docs/results/{name}.json")
            print(since.listing(ROOT, name, found[name]))
    else:
        sys.exit(__doc__)
