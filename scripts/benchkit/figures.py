"""The figures the project publishes: every one comes from a small summary committed beside the docs
(docs/results/<name>.json, written from a run's results.json by `publish`), and the docs show it between markers
that `render` fills in and `check` compares (make test fails on a figure that differs from its summary, and on a
summary whose ratios are not what its own rounds give).

    python -m benchkit figures publish RESULTS NAME   docs/results/NAME.json from RESULTS/results.json (or, in a
                                                      chaos or an A/B run's RESULTS, as publish-chaos or publish-ab;
                                                      RESULTS a compare.json: a node's run against a local one;
                                                      several chaos runs' directories, comma-separated: one summary)
    python -m benchkit figures publish-chaos RESULTS NAME   the same from a chaos run's RESULTS/chaos.json
    python -m benchkit figures publish-ab FILE NAME   the same from an A/B's <experiment>.json (make tls, make reads)
    python -m benchkit figures combine NAME SUMMARY…  docs/results/NAME.json of two or more independent runs' summaries
                                                      (separate starts, hours apart): every round of each, the headline
                                                      and its interval from all of them
    python -m benchkit figures render                 fills in every marked figure of README.md and docs/*.md
    python -m benchkit figures check                  fails where a marked figure or a summary is not what it should be

Markers (HTML comments, invisible on GitHub):
    <!-- figure NAME PATH FORMAT -->2.35×<!-- /figure -->       one figure: PATH into the summary, dots between keys
                                                               ("scenarios.closed.ratios.v2.median"), FORMAT as
                                                               Python's format ("{:.2f}×")
    <!-- figures NAME TABLE -->…<!-- /figures -->               a table of the summary (TABLES names them)
    <!-- chart NAME KIND -->…<!-- /chart -->                     a picture drawn from the summary (CHARTS names them)
                                                               into docs/figures/NAME-KIND.svg, which the text
                                                               between the markers shows
    <!-- setting MODULE.NAME FORMAT -->10 %<!-- /setting -->    a constant of the harness, not a measurement: NAME
                                                               of benchkit's MODULE ("calibration.DRIFT_LIMIT",
                                                               "curve.SHARES.0"), so the docs say what the code does"""
import importlib
import pathlib
import re
import sys

from . import NAMES, ROOT, ab, bakeoff, compare, latencyreport, results, unmarked
from .stats import close
from .summaries import SUMMARIES, combined, consistency, publish_ab, publish_chaos, publish_found, summaries, written

DOCUMENTS = ("README.md", "docs/*.md")
FIGURE = re.compile(r"<!-- figure (\S+) (\S+) (.+?) -->(.*?)<!-- /figure -->", re.DOTALL)
TABLE = re.compile(r"<!-- figures (\S+) (\S+) -->\n(.*?)<!-- /figures -->", re.DOTALL)
CHART = re.compile(r"<!-- chart (\S+) (\S+) -->(.*?)<!-- /chart -->", re.DOTALL)
SETTING = re.compile(r"<!-- setting (\S+) (.+?) -->(.*?)<!-- /setting -->", re.DOTALL)
PICTURES = "docs/figures"  # under the root of the docs


def at(summary, path):
    value = summary
    for key in path.split("."):
        value = value[int(key)] if isinstance(value, (list, tuple)) else value[key]
    return value


def formatted(value, pattern):
    return "–" if value is None else pattern.format(value)


# ---------- the tables a doc can show of a summary

def interval(figure, pattern="{:,.0f}"):
    if figure["median"] is None:
        return "–"
    if close(figure["low"], figure["high"]):
        return pattern.format(figure["median"])
    return f"{pattern.format(figure['median'])} ({pattern.format(figure['low'])}–{pattern.format(figure['high'])})"


def ratio_text(ratio):
    """2.35× (2.16–2.67): the median of the rounds' ratios, the lowest and the highest."""
    if ratio["median"] is None:
        return "–"
    return f"{ratio['median']:.2f}× ({ratio['low']:.2f}–{ratio['high']:.2f})"


def headline_table(summary, scenario_name="closed"):
    """Each build's complete answers/s, latency of complete answers, CPU per complete answer and the generator's,
    medians with the lowest and highest round; then v2/v1 and v3/v1 as the median of the per-round ratios."""
    scenario = summary["scenarios"][scenario_name]
    versions = list(scenario["builds"])
    rows = [["", *(NAMES.get(v, v) for v in versions)]]
    cells = {
        "complete answers / s (lowest–highest round)": lambda b: interval(b["figures"]["ok_rps"]),
        "latency p50 / p99 of complete answers (ms)":
            lambda b: f"{b['figures']['p50']['median']:.1f} / {b['figures']['p99']['median']:.1f}",
        "CPU ms per complete answer, whole system": lambda b: interval(b["cpu_ms"][results.PER_COMPLETE], "{:.2f}"),
        "CPU ms per request, the load generator": lambda b: interval(b["cpu_ms"][results.GENERATOR], "{:.2f}"),
    }
    for label, cell in cells.items():
        rows.append([label, *(cell(scenario["builds"][v]) for v in versions)])
    ratio_row = ["÷ v1, complete answers / s: the median of the rounds' ratios (lowest–highest)"]
    for v in versions:
        ratio = scenario["ratios"].get(v, {}).get(results.HEADLINE)
        ratio_row.append("1" if v == "v1" else ratio_text(ratio) if ratio else "–")
    rows.append(ratio_row)
    drifted = sorted({n for r in scenario["ratios"].values() for n in r[results.HEADLINE]["drifted_rounds"]})
    if drifted:
        rows.append([f"the same without the drifted round{'s' if len(drifted) > 1 else ''} "
                     f"{', '.join(map(str, drifted))}",
                     *("1" if v == "v1" else formatted(scenario["ratios"][v][results.HEADLINE]["median_without_drifted"],
                                                       "{:.2f}×") for v in versions)])
    return rows


def knees_table(summary):
    knees = summary["curve"]["knees"]
    return [["", *(NAMES.get(v, v) for v in knees)],
            ["the curve's knee, requests/s (" + (f"carried in each of {summary['curve']['repeats']} repeats)"
                                                  if summary["curve"]["repeats"] > 1 else "one step each, not repeated)"),
             *(formatted(knees[v], "{:,}") for v in knees)]]


def answer_table(summary):
    """The README's table: throughput when saturated with the ratios to v1, latency at the open model's rate, the
    curve's knee, CPU per complete answer and the generator's share of it."""
    closed, versions = summary["scenarios"]["closed"], summary["versions"]
    open_ = summary["scenarios"].get("open")
    rows = [["", *(NAMES.get(v, v) for v in versions)]]
    row = ["throughput when saturated (complete answers/s, closed; ÷ v1: the median of the rounds' ratios, lowest–highest)"]
    for v in versions:
        text = interval(closed["builds"][v]["figures"]["ok_rps"])
        ratio = closed["ratios"].get(v, {}).get(results.HEADLINE)
        row.append(text + (f"; **{ratio['median']:.2f}×** ({ratio['low']:.2f}–{ratio['high']:.2f})" if ratio else ""))
    rows.append(row)
    if open_:
        rate = (summary.get("open_rate") or "").split("/")[0] or "a fixed rate"
        rows.append([f"latency at {rate} requests/s (open), p50 / p99 of complete answers (ms)",
                     *(f"{open_['builds'][v]['figures']['p50']['median']:.1f} / "
                       f"{open_['builds'][v]['figures']['p99']['median']:.1f}" for v in versions)])
    knees = summary["curve"]["knees"]
    if knees:
        repeats = summary["curve"]["repeats"]
        rows.append(["highest rate carried (the curve's knee, " +
                     (f"in each of {repeats} repeats)" if repeats > 1 else "one step each, not repeated)"),
                     *(formatted(knees.get(v), "{:,}/s") for v in versions)])
    rows.append(["CPU per complete answer, whole system (ms)",
                 *(interval(closed["builds"][v]["cpu_ms"][results.PER_COMPLETE], "{:.2f}") for v in versions)])
    rows.append(["of which the load generator, per request (ms)",
                 *(formatted(closed["builds"][v]["cpu_ms"][results.GENERATOR]["median"], "{:.2f}") for v in versions)])
    return rows


def hops_table(summary):
    """Each downstream hop alone (closed, straight at the service): complete answers/s with the ratios to v1, and
    the service's own CPU per request."""
    versions = summary["versions"]
    rows = [["", *(NAMES.get(v, v) for v in versions)]]
    for hop, service in (("articles-alone", "articles"), ("authors-alone", "authors")):
        scenario = summary["scenarios"].get(hop)
        if not scenario:
            continue
        row = [f"{service} alone: complete answers/s; ÷ v1 (the median of the rounds' ratios, lowest–highest)"]
        for v in versions:
            ratio = scenario["ratios"].get(v, {}).get(results.HEADLINE)
            row.append(interval(scenario["builds"][v]["figures"]["ok_rps"]) +
                       (f"; {ratio_text(ratio)}" if ratio else ""))
        rows.append(row)
        rows.append([f"{service} alone: {service}' own CPU ms per request",
                     *(formatted(scenario["builds"][v]["cpu_ms"][service]["median"], "{:.3f}") for v in versions)])
    return rows


def cpu_table(summary, scenario_name="closed"):
    """CPU ms per web-api request of each process of the whole system (closed), medians of the rounds."""
    scenario, versions = summary["scenarios"][scenario_name], summary["versions"]
    rows = [["CPU ms per web-api request (closed)", *(NAMES.get(v, v) for v in versions)]]
    for process in (*results.PROCESSES, results.WHOLE, results.GENERATOR):
        rows.append([process if process != results.GENERATOR else "the load generator, apart",
                     *(formatted(scenario["builds"][v]["cpu_ms"][process]["median"], "{:.2f}") for v in versions)])
    return rows


def faults_table(summary):
    """Each fault against each build: its answers, the p99 during the fault, its recovery, its writes and events,
    the circuit's openings, its verdict (and the checks it failed)."""
    rows = [["fault", "build", "replicas", "requests", "complete / degraded / 503 / other", "p99 during fault ms",
             "recovery s", "writes 201 / sent", "events delivered / created (lost)", "circuit opened", "verdict"]]
    for f in summary["faults"]:
        o = f["outcomes"]
        other = f["requests"] - o["complete"] - o["degraded"] - o["shed"] - o["unavailable"]
        rows.append([f["fault"], f["version"], str(f["replicas"]), f"{f['requests']:,}",
                     f"{o['complete']:,} / {o['degraded']:,} / {o['shed'] + o['unavailable']:,} / {other:,}",
                     formatted(f.get("p99_ms_during_fault"), "{:,.0f}"), formatted(f["recovery_seconds"], "{:.1f}"),
                     f"{f['writes']['created']} / {f['writes']['sent']}" if "writes" in f else "–",
                     f"{f['events']['delivered']} / {f['events']['created']} ({f['events']['lost']})",
                     formatted(f.get("circuit_openings"), "{:.0f}×"),
                     "PASS" if f["passed"] else "FAIL: " + ", ".join(f["failed_checks"])])
    return rows


def faults_calls_table(summary):
    """What web-api's own counters saw of each fault: its reads tried a second time (a look-up whose connection
    failed, articles' newest after a failure), its calls that reached their time-out, its circuit's openings."""
    rows = [["fault", "build", "requests", "complete / degraded", "reads retried", "calls timed out", "circuit opened"]]
    for f in summary["faults"]:
        o = f["outcomes"]
        rows.append([f["fault"], f["version"], f"{f['requests']:,}", f"{o['complete']:,} / {o['degraded']:,}",
                     formatted(f.get("retries"), "{:,.0f}"), formatted(f.get("timeouts"), "{:,.0f}"),
                     formatted(f.get("circuit_openings"), "{:.0f}×")])
    return rows


def faults_cpu_table(summary):
    """How busy the whole machine was during each fault, and in the seconds with an incomplete answer against the
    others (the harness's recorder, once a second)."""
    rows = [["fault", "build", "replicas", "machine busy during the fault", "in seconds with an incomplete answer",
             "in the other seconds"]]
    for f in summary["faults"]:
        busy = f.get("machine_busy") or {}
        rows.append([f["fault"], f["version"], str(f["replicas"]),
                     *(formatted(busy.get(k), "{:.0%}") for k in ("during_fault", "when_not_complete", "when_complete"))])
    return rows


def overload_runs_table(summary):
    """Every overload run: what the build sustained and was offered, what it accepted and turned away, web-api's own
    mean time per accepted request against Little's bound, the accepted p99, web-api's peak RSS, stalled seconds."""
    rows = [["build", "sustains req/s", "offered req/s", "accepted req/s", "complete", "degraded", "shed 503",
             "in web-api ms (Little's bound)", "accepted p99 ms", "web-api peak RSS MiB", "stalled s", "verdict"]]
    for version, found in summary["overload"].items():
        for r in found["runs"]:
            rows.append([NAMES.get(version, version), formatted(r.get("capacity_rps"), "{:,}"),
                         formatted(r.get("offered_rps"), "{:,}"), f"{r['accepted_rps']:,}",
                         formatted(r.get("complete"), "{:,}"), f"{r['degraded']:,}", formatted(r.get("shed"), "{:,}"),
                         f"{formatted(r.get('server_mean_ms'), '{:.1f}')} "
                         f"({formatted(r.get('little_bound_ms'), '{:.0f}')})",
                         formatted(r["accepted_p99_ms"], "{:.0f}"), formatted(r.get("peak_rss_mib"), "{}"),
                         formatted(r["stalled_seconds"], "{}"),
                         "PASS" if r["passed"] else "FAIL: " + ", ".join(r["failed_checks"])])
    return rows


def overload_table(summary):
    """Per build, its overload runs: how many stalled (and their stalled seconds), had a degraded answer, failed a
    check; the accepted rate and p99 over the runs."""
    rows = [["build", "overload runs", "runs that stalled (stalled seconds)", "runs with a degraded answer",
             "runs that failed a check", "accepted requests/s (lowest–highest run)", "accepted p99 ms (lowest–highest)"]]
    for version, found in summary["overload"].items():
        rows.append([NAMES.get(version, version), str(found["run_count"]),
                     f"{found['stalled_runs']} ({found['stalled_seconds']})", str(found["degraded_runs"]),
                     str(found["failed_runs"]), interval(found["accepted_rps"]), interval(found["accepted_p99_ms"])])
    return rows


TABLES = {"faults": faults_table, "faults-calls": faults_calls_table, "faults-cpu": faults_cpu_table, "overload": overload_table,
          "overload-runs": overload_runs_table,
          "headline": headline_table, "knees": knees_table,
          "answer": answer_table, "hops": hops_table, "cpu": cpu_table, "ab": ab.table,
          "compare": lambda summary: compare.rows(summary["builds"]),
          "compare-processes": lambda summary: compare.process_rows(summary["builds"]),
          "map-v2": lambda summary: latencyreport.ratio_rows(summary, "v2"),
          "map-v3": lambda summary: latencyreport.ratio_rows(summary, "v3"),
          "map-ceilings": lambda summary: latencyreport.prediction_rows(summary, latencyreport.medians(summary)),
          "map-sweep": latencyreport.sweep_rows,
          "map-proxy": latencyreport.proxy_rows,
          "bakeoff": bakeoff.table, "bakeoff-stall": bakeoff.stall_table}


# ---------- the pictures a doc can show of a summary (drawn deterministically: the same summary, the same bytes)

CHARTS = {f"map-{version}-{kind}": (lambda version, kind: lambda summary: latencyreport.heat_map(summary, version, kind))(
              version, kind) for version in ("v2", "v3") for kind in latencyreport.HEAT_MAPS}


def pictures(text, found, where, root=ROOT):
    """{path: svg} of every chart marked in a text, drawn from its summary."""
    drawn = {}
    for match in CHART.finditer(text):
        name, kind = match.group(1), match.group(2)
        if name not in found or kind not in CHARTS:
            raise SystemExit(f"{where}: no summary {name} or no chart {kind} ({', '.join(CHARTS)})")
        drawn[root / PICTURES / f"{name}-{kind}.svg"] = CHARTS[kind](found[name])
    return drawn


def markdown(rows):
    lines = ["| " + " | ".join(rows[0]) + " |", "|" + "---|" * len(rows[0])]
    lines += ["| " + " | ".join(row) + " |" for row in rows[1:]]
    return "\n".join(lines) + "\n"


# ---------- render and check

def documents(root=ROOT):
    return [path for pattern in DOCUMENTS for path in sorted(root.glob(pattern))]


def rendered(text, found, where):
    """The text with every marked figure filled in from the summaries; unknown names or paths fail loudly."""
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
        if name not in found or kind not in TABLES:
            raise SystemExit(f"{where}: no summary {name} or no table {kind} ({', '.join(TABLES)})")
        return f"<!-- figures {name} {kind} -->\n{markdown(TABLES[kind](found[name]))}<!-- /figures -->"

    def setting(match):
        path, pattern = match.group(1), match.group(2)
        module, _, rest = path.partition(".")
        name, _, keys = rest.partition(".")
        try:
            value = getattr(importlib.import_module(f"{__package__}.{module}"), name)
            value = at(value, keys) if keys else value
        except (ImportError, AttributeError, KeyError, IndexError, ValueError, TypeError):
            raise SystemExit(f"{where}: the harness has no setting {path}") from None
        return f"<!-- setting {path} {pattern} -->{formatted(value, pattern)}<!-- /setting -->"

    return SETTING.sub(setting, TABLE.sub(table, FIGURE.sub(figure, text)))


LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


def dead_links(root=ROOT):
    """[problem]: a link of README.md, docs/ or a committed report copy (docs/results/*.md) to a file that is not in the
    repository: evidence nobody can open."""
    pages = [*documents(root), *sorted((root / "docs" / "results").glob("*.md"))]
    return [f"{page.relative_to(root)}: links {target}, which is not in the repository" for page in pages
            for target in LINK.findall(page.read_text())
            if not target.startswith(("http://", "https://", "mailto:")) and not (page.parent / target).exists()]


def check(root=ROOT, directory=SUMMARIES):
    """[problem]: a marked figure that is not its summary's, a summary that is not consistent, a measured number
    outside a marker (unmarked.py)."""
    found = summaries(directory)
    problems = [f"docs/results/{name}.json: {problem}" for name, summary in found.items()
                for problem in consistency(summary)]
    problems += unmarked.problems(documents(root), root) + dead_links(root)
    for path in documents(root):
        text = path.read_text()
        expected = rendered(text, found, path.name)
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
        print(f"Summary: {publish_found(pathlib.Path(argv[1]), argv[2])}")
    elif command == "publish-chaos" and len(argv) == 3:
        print(f"Summary: {publish_chaos(argv[1], argv[2])}")
    elif command == "publish-ab" and len(argv) == 3:
        print(f"Summary: {publish_ab(argv[1], argv[2])}")
    elif command == "combine" and len(argv) >= 4:
        found = summaries()
        missing = [n for n in argv[2:] if n not in found]
        if missing:
            sys.exit(f"no summary docs/results/{missing[0]}.json")
        print(f"Summary: {written(combined({n: found[n] for n in argv[2:]}, argv[1]), argv[1], SUMMARIES)}")
    elif command == "render":
        found = summaries()
        for path in documents():
            text = path.read_text()
            new = rendered(text, found, path.name)
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
              f"{len(summaries())} summaries consistent")
    else:
        sys.exit(__doc__)
