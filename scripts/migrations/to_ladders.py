"""One-off (issue 61): every bench summary keeps its sessions' curve steps, so that its knees and repeats are checked
against them as every other figure is against its rounds. Nothing measured changes.

The summaries published before kept the knees alone. Where the run's report is committed beside its summary
(docs/results/<name>.md: its "Latency versus load" table, each repeat's complete answers/s, p50 / p99 and unsent
iterations, as printed), the steps are read back from it; a repeat's requests, which the table does not print, are
the rate times the step's length (what the open model sends in a step). The knees the steps give must be the
published ones, or nothing is written. A summary whose report is not committed (demo-6cfbdd4) keeps no steps, so no
knees, and a pool of it none either: a knee nobody can check is not shown.

    cd scripts && ../.tools/benchkit/bin/python -m migrations.to_ladders"""
import json
import re

from benchkit.core import cells
from benchkit.core.kinds import SUMMARIES
from benchkit.experiments.bench import summaries

REPEAT = re.compile(r"(\d+), ([\d.]+) / ([\d.]+), (\d+)")


def ladder_of(report):
    """{build: {rate: [points]}} of a report's curve table, with the step's length its environment gives."""
    text = report.read_text()
    seconds = int(re.search(r'"step": "(\d+)s"', text).group(1))
    lines = text.split("| offered req/s |", 1)[1].split("\n\n", 1)[0].splitlines()
    builds = re.findall(r"(v\d): complete/s", lines[0])
    found = {build: {} for build in builds}
    for line in lines[2:]:
        rate, *columns = [part.strip() for part in line.strip("|").split("|")]
        for build, column in zip(builds, columns):
            found[build][rate] = [{"complete": int(c), "p50": float(p50), "p99": float(p99), "dropped": int(unsent),
                                   "requests": int(rate) * seconds}
                                  for c, p50, p99, unsent in REPEAT.findall(column)]
    return found


def main():
    bench = {p: json.loads(p.read_text()) for p in sorted(SUMMARIES.glob("*.json"))}
    bench = {p: s for p, s in bench.items() if s.get("schema") == cells.SCHEMA and s.get("design") == summaries.DESIGN}
    ladders = {}
    for path, summary in bench.items():
        if "sessions" in summary["curve"] or summary.get("sessions"):
            continue
        report = path.with_suffix(".md")
        ladders[summary["name"]] = ladder_of(report) if report.exists() else None
    for path, summary in bench.items():
        if "sessions" in summary["curve"]:
            continue
        names = [s["name"] for s in summary.get("sessions") or [summary]]
        new = summaries.ladders([ladders[name] for name in names])
        if ladders.get(summary["name"]) and new["knees"] != summary["curve"]["knees"]:
            raise SystemExit(f"{path.name}: its report's steps give knees {new['knees']}, not {summary['curve']}")
        print(f"{path.name}: knees {summary['curve']['knees']} -> {new['knees']}, repeats "
              f"{summary['curve']['repeats']} -> {new['repeats']}")
        path.write_text(json.dumps({**summary, "curve": new}, indent=2) + "\n")


if __name__ == "__main__":
    main()
