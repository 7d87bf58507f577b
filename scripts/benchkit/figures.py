"""The figures the project publishes: every one comes from a small summary committed beside the docs
(docs/results/<name>.json, written from a run's results.json by `publish`), and the docs show it between markers
that `render` fills in and `check` compares (make test fails on a figure that differs from its summary, and on a
summary whose ratios are not what its own rounds give).

    python -m benchkit figures publish RESULTS NAME   docs/results/NAME.json from RESULTS/results.json
    python -m benchkit figures publish-chaos RESULTS NAME   the same from a chaos run's RESULTS/chaos.json
    python -m benchkit figures render                 fills in every marked figure of README.md and docs/*.md
    python -m benchkit figures check                  fails where a marked figure or a summary is not what it should be

Markers (HTML comments, invisible on GitHub):
    <!-- figure NAME PATH FORMAT -->2.35×<!-- /figure -->       one figure: PATH into the summary, dots between keys
                                                               ("scenarios.closed.ratios.v2.median"), FORMAT as
                                                               Python's format ("{:.2f}×")
    <!-- figures NAME TABLE -->…<!-- /figures -->               a table of the summary (TABLES names them)"""
import json
import pathlib
import re
import statistics
import sys

from . import NAMES, ROOT, results

SCHEMA = "reactive-bench/summary/1"
SUMMARIES = ROOT / "docs" / "results"
DOCUMENTS = ("README.md", "docs/*.md")
# What a summary keeps of a results.json: the figures the docs quote, each build's and each ratio's.
FIGURES = ("ok_rps", "p50", "p99", "error_pct", "degraded", "shed")
CPU = (results.WHOLE, results.PER_COMPLETE, results.BACKGROUND_OFF, results.GENERATOR, *results.PROCESSES)
RATIOS = (results.HEADLINE, "p50", "p99")
# Two figures count as equal when they agree to this share: a summary's JSON keeps every digit.
TOLERANCE = 1e-9

FIGURE = re.compile(r"<!-- figure (\S+) (\S+) (.+?) -->(.*?)<!-- /figure -->", re.DOTALL)
TABLE = re.compile(r"<!-- figures (\S+) (\S+) -->\n(.*?)<!-- /figures -->", re.DOTALL)


def publish(results_dir, name, directory=SUMMARIES):
    """A summary of a run's results.json, as docs/results/<name>.json."""
    data = results.read(pathlib.Path(results_dir) / "results.json")
    summary = {
        "schema": SCHEMA, "name": name, "commit": data["commit"], "timestamp": data["timestamp"],
        "where": data["where"], "on_kubernetes": data["on_kubernetes"], "versions": data["versions"],
        "settled": data["settled"], "equal_work": data["equal_work"]["passed"],
        "load_settings": data["environment"].get("load_settings", {}),
        "open_rate": data["environment"].get("open_rate"),
        "scenarios": {scenario_name: {
            "builds": {v: {"runs": b["runs"],
                           "figures": {k: b["figures"][k] for k in FIGURES if k in b["figures"]},
                           "cpu_ms": {k: b["cpu_ms"][k] for k in CPU if k in b["cpu_ms"]}}
                       for v, b in scenario["builds"].items()},
            "ratios": {v: {k: ratios[k] for k in RATIOS} for v, ratios in scenario["ratios"].items()},
            "rounds": [{"number": r["number"], "calibration_seconds": r["calibration_seconds"], "drift": r["drift"]}
                       for r in scenario["rounds"]],
        } for scenario_name, scenario in data["scenarios"].items()},
        "curve": {"knees": data["curve"]["knees"], "repeats": data["curve"]["repeats"]},
    }
    problems = consistency(summary)
    if problems:
        sys.exit(f"{results_dir}: the results are not consistent: " + "; ".join(problems))
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{name}.json"
    path.write_text(json.dumps(summary, indent=2) + "\n")
    return path


CHAOS_SCHEMA = "reactive-bench/chaos-summary/1"


def publish_chaos(chaos_dir, name, directory=SUMMARIES):
    """A summary of a chaos run's chaos.json, as docs/results/<name>.json: every fault run's outcome and every
    overload run's, with the stalls counted per build."""
    data = json.loads((pathlib.Path(chaos_dir) / "chaos.json").read_text())
    if data.get("schema") != "reactive-bench/chaos/1":
        sys.exit(f"{chaos_dir}/chaos.json: schema {data.get('schema')!r}, not reactive-bench/chaos/1")
    failed = lambda r: sorted(check for check, ok in r["checks"].items() if not ok)  # noqa: E731
    faults = [{"fault": r["fault"], "version": r["version"], "replicas": r.get("replicas", 1),
               "requests": r["requests"], "outcomes": r["outcomes"], "recovery_seconds": r["recovery_seconds"],
               "events": {k: r["events"][k] for k in ("created", "delivered", "lost", "duplicates")},
               "passed": r["passed"], "failed_checks": failed(r)} for r in data["runs"] if "timeline" in r]
    overload = {}
    for r in (r for r in data["runs"] if "timeline" not in r):
        overload.setdefault(r["version"], {"runs": []})["runs"].append({
            "passed": r["passed"], "failed_checks": failed(r), "stalled_seconds": r.get("stalled_seconds"),
            "degraded": r["outcomes"]["degraded"], "accepted_rps": r["accepted_rps"],
            "accepted_p99_ms": r["accepted_p99_ms"]})
    for found in overload.values():
        found.update(overload_counts(found["runs"]))
    summary = {"schema": CHAOS_SCHEMA, "name": name, "commit": data["commit"], "timestamp": data["timestamp"],
               "where": data["where"], "passed": data["passed"], "faults": faults, "overload": overload}
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{name}.json"
    path.write_text(json.dumps(summary, indent=2) + "\n")
    return path


def overload_counts(runs):
    """What a build's overload runs add up to: the runs that stalled and their stalled seconds, the runs with a
    degraded answer, the runs that failed a check, and the accepted rate and p99 over the runs."""
    rates = [r["accepted_rps"] for r in runs]
    p99s = [r["accepted_p99_ms"] for r in runs if r["accepted_p99_ms"] is not None]
    return {"run_count": len(runs), "stalled_runs": sum(1 for r in runs if r["stalled_seconds"]),
            "stalled_seconds": sum(r["stalled_seconds"] or 0 for r in runs),
            "degraded_runs": sum(1 for r in runs if r["degraded"]),
            "failed_runs": sum(1 for r in runs if not r["passed"]),
            "accepted_rps": {"median": statistics.median(rates), "low": min(rates), "high": max(rates)},
            "accepted_p99_ms": {"median": statistics.median(p99s) if p99s else None, "low": min(p99s, default=None),
                                "high": max(p99s, default=None)}}


def close(a, b):
    if a is None or b is None:
        return a is b
    return abs(a - b) <= TOLERANCE * max(1.0, abs(a), abs(b))


def consistency(summary):
    """Where a summary's figures are not what their own rounds give: a median, a lowest or highest round, a ratio
    of a round, the median of the ratios; for a chaos summary, each build's counts of its overload runs. [] when
    there is none."""
    problems = []
    if summary.get("schema") == CHAOS_SCHEMA:
        for version, found in summary["overload"].items():
            if {k: v for k, v in found.items() if k != "runs"} != overload_counts(found["runs"]):
                problems.append(f"overload {version}: the counts are not what its runs give")
        return problems
    for scenario_name, scenario in summary["scenarios"].items():
        builds = scenario["builds"]
        for v, build in builds.items():
            for kind in ("figures", "cpu_ms"):
                for key, figure in build[kind].items():
                    again = results.Figure.of(figure["unit"], figure["rounds"])
                    expected = (again.median, again.low, again.high)
                    if not all(close(a, b) for a, b in zip((figure["median"], figure["low"], figure["high"]), expected)):
                        problems.append(f"{scenario_name} {v} {key}: median, low, high {figure['median']}, "
                                        f"{figure['low']}, {figure['high']} are not its rounds' {expected}")
        for v, ratios in scenario["ratios"].items():
            for key, ratio in ratios.items():
                base, mine = builds["v1"]["figures"][key]["rounds"], builds[v]["figures"][key]["rounds"]
                for index, (number, value) in enumerate(ratio["rounds"]):
                    expected = mine[index] / base[index] if base[index] and mine[index] is not None else None
                    if not close(value, expected):
                        problems.append(f"{scenario_name} {v}/v1 {key}: round {number} says {value}, its figures "
                                        f"give {expected}")
                measured = [value for _, value in ratio["rounds"] if value is not None]
                kept = [value for number, value in ratio["rounds"]
                        if value is not None and number not in ratio["drifted_rounds"]]
                if not close(ratio["median"], statistics.median(measured) if measured else None):
                    problems.append(f"{scenario_name} {v}/v1 {key}: median {ratio['median']} is not the median of "
                                    f"its rounds' ratios")
                if not close(ratio["median_without_drifted"], statistics.median(kept) if kept else None):
                    problems.append(f"{scenario_name} {v}/v1 {key}: the median without the drifted rounds is not "
                                    f"what its rounds give")
    return problems


def summaries(directory=SUMMARIES):
    found = {}
    for path in sorted(pathlib.Path(directory).glob("*.json")):
        data = json.loads(path.read_text())
        if data.get("schema") in (SCHEMA, CHAOS_SCHEMA):
            found[path.stem] = data
    return found


def at(summary, path):
    value = summary
    for key in path.split("."):
        value = value[int(key)] if isinstance(value, list) else value[key]
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
    """Each fault against each build: its answers, its recovery, its events, its verdict (and the checks it failed)."""
    rows = [["fault", "build", "replicas", "requests", "complete / degraded / other", "recovery s",
             "events delivered / created (lost)", "verdict"]]
    for f in summary["faults"]:
        o = f["outcomes"]
        rows.append([f["fault"], f["version"], str(f["replicas"]), f"{f['requests']:,}",
                     f"{o['complete']:,} / {o['degraded']:,} / {f['requests'] - o['complete'] - o['degraded']:,}",
                     formatted(f["recovery_seconds"], "{:.1f}"),
                     f"{f['events']['delivered']} / {f['events']['created']} ({f['events']['lost']})",
                     "PASS" if f["passed"] else "FAIL: " + ", ".join(f["failed_checks"])])
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


TABLES = {"faults": faults_table, "overload": overload_table, "headline": headline_table, "knees": knees_table, "answer": answer_table, "hops": hops_table,
          "cpu": cpu_table}


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

    return TABLE.sub(table, FIGURE.sub(figure, text))


def check(root=ROOT, directory=SUMMARIES):
    """[problem]: a marked figure that is not its summary's, a summary that is not consistent."""
    found = summaries(directory)
    problems = [f"docs/results/{name}.json: {problem}" for name, summary in found.items()
                for problem in consistency(summary)]
    for path in documents(root):
        text = path.read_text()
        expected = rendered(text, found, path.name)
        if expected != text:
            wrong = [(a, b) for a, b in zip(text.splitlines(), expected.splitlines()) if a != b]
            shown = wrong[0] if wrong else ("", "")
            problems.append(f"{path.relative_to(root)}: a figure is not its summary's "
                            f"(found {shown[0][:160]!r}, expected {shown[1][:160]!r}); make docs-figures renders them")
    return problems


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    command = argv[0] if argv else ""
    if command == "publish" and len(argv) == 3:
        print(f"Summary: {publish(argv[1], argv[2])}")
    elif command == "publish-chaos" and len(argv) == 3:
        print(f"Summary: {publish_chaos(argv[1], argv[2])}")
    elif command == "render":
        found = summaries()
        for path in documents():
            text = path.read_text()
            new = rendered(text, found, path.name)
            if new != text:
                path.write_text(new)
                print(f"rendered {path.relative_to(ROOT)}")
    elif command == "check":
        problems = check()
        marked = sum(len(FIGURE.findall(p.read_text())) + len(TABLE.findall(p.read_text())) for p in documents())
        for problem in problems:
            print(problem)
        if problems:
            sys.exit(f"{len(problems)} published figure(s) differ from their summaries")
        print(f"{marked} marked figures and tables in README.md and docs/ are their summaries', "
              f"{len(summaries())} summaries consistent")
    else:
        sys.exit(__doc__)
