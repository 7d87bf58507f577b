"""The small summaries committed beside the docs (docs/results/<name>.json), each written from a run's results by
`benchkit figures publish`: a bench's results.json, a chaos run's chaos.json, an A/B's <experiment>.json. Each keeps
the rounds its figures come from, and `consistency` says where a summary's medians and ratios are not what its own
rounds give."""
import dataclasses
import datetime
import json
import pathlib
import re
import statistics
import sys

from . import BASELINE, ROOT, ab, bakeoff, compare, latencymap, latencyreport, results
from .chaos.report import SCHEMA as CHAOS_RUN_SCHEMA
from .stats import close

SCHEMA = "reactive-bench/summary/1"
SUMMARIES = ROOT / "docs" / "results"
# What a summary keeps of a results.json: the figures the docs quote, each build's and each ratio's.
FIGURES = ("ok_rps", "p50", "p99", "error_pct", "degraded", "shed")
CPU = (results.WHOLE, results.PER_COMPLETE, results.BACKGROUND_OFF, results.GENERATOR, *results.PROCESSES)
RATIOS = (results.HEADLINE, "p50", "p99")


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


def publish(results_json, name, directory=SUMMARIES):
    """A summary of a run's results.json (or of the results directory that holds it), as docs/results/<name>.json."""
    results_dir = within(results_json, "results.json").parent
    data = results.read(results_dir / "results.json")
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
    problems = bench_consistency(summary)
    if problems:
        sys.exit(f"{results_dir}: the results are not consistent: " + "; ".join(problems))
    return written(summary, name, directory)


CHAOS_SCHEMA = "reactive-bench/chaos-summary/1"


def chaos_runs(chaos_dirs):
    """One chaos.json of one or several chaos runs at the same commit (one build at a time at two replicas): their
    runs together, passed when all passed, the first run's time."""
    found = []
    for chaos_dir in chaos_dirs:
        data = json.loads(within(chaos_dir, "chaos.json").read_text())
        if data.get("schema") != CHAOS_RUN_SCHEMA:
            sys.exit(f"{within(chaos_dir, 'chaos.json')}: schema {data.get('schema')!r}, not {CHAOS_RUN_SCHEMA}")
        found.append(data)
    if len({data["commit"] for data in found}) != 1:
        sys.exit(f"{', '.join(map(str, chaos_dirs))}: chaos runs of different commits")
    return {**found[0], "passed": all(data["passed"] for data in found),
            "runs": [run for data in found for run in data["runs"]]}


def publish_chaos(chaos_json, name, directory=SUMMARIES):
    """A summary of a chaos run's chaos.json (or of several runs', a list; each the file or its directory), as
    docs/results/<name>.json: every fault run's outcome and every overload run's, with the stalls counted per build."""
    data = chaos_runs(chaos_json if isinstance(chaos_json, (list, tuple)) else [chaos_json])
    failed = lambda r: sorted(check for check, ok in r["checks"].items() if not ok)  # noqa: E731
    faults = [{"fault": r["fault"], "version": r["version"], "replicas": r.get("replicas", 1),
               "requests": r["requests"], "outcomes": r["outcomes"], "recovery_seconds": r["recovery_seconds"],
               "p99_ms_during_fault": r.get("p99_ms_during_fault"),
               "writes": {k: r["writes"][k] for k in ("sent", "created")},
               "events": {k: r["events"][k] for k in ("created", "delivered", "lost", "duplicates")},
               "circuit_openings": r.get("circuit_openings"),
               # web-api's own counters: second tries of its reads, calls that reached their time-out
               "retries": r.get("retries"), "timeouts": r.get("timeouts"),
               "machine_busy": {k: (r.get("cpu") or {}).get(f"machine_busy_{k}")
                                for k in ("during_fault", "when_not_complete", "when_complete")},
               "passed": r["passed"], "failed_checks": failed(r)} for r in data["runs"] if "timeline" in r]
    overload = {}
    for r in (r for r in data["runs"] if "timeline" not in r):
        overload.setdefault(r["version"], {"runs": []})["runs"].append({
            "passed": r["passed"], "failed_checks": failed(r), "stalled_seconds": r.get("stalled_seconds"),
            "degraded": r["outcomes"]["degraded"], "accepted_rps": r["accepted_rps"],
            "accepted_p99_ms": r["accepted_p99_ms"],
            **{k: r.get(k) for k in ("capacity_rps", "offered_rps", "server_mean_ms", "little_bound_ms",
                                     "peak_rss_mib")},
            "shed": r["outcomes"]["shed"], "complete": r["outcomes"]["complete"]})
    for found in overload.values():
        found.update(overload_counts(found["runs"]))
    summary = {"schema": CHAOS_SCHEMA, "name": name, "commit": data["commit"], "timestamp": data["timestamp"],
               "where": data["where"], "passed": data["passed"], "faults": faults, "overload": overload}
    return written(summary, name, directory)


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


def publish_ab(document, name, directory=SUMMARIES):
    """An A/B's document (benchkit ab) as docs/results/<name>.json: its rounds and ratios, without the environment and
    the explanation (the docs say what was measured)."""
    data = checked(document, ab.SCHEMA, ab.consistency)
    summary = {"name": name, **{k: v for k, v in data.items() if k not in ("environment", "explanation")}}
    return written(summary, name, directory)


def publish_compare(document, name, directory=SUMMARIES):
    """A comparison of a node's run with a local one (benchkit compare's compare.json) as docs/results/<name>.json,
    its rounds with it."""
    return written({"name": name, **checked(document, compare.SCHEMA, compare.consistency)}, name, directory)


def publish_bakeoff(document, name, directory=SUMMARIES):
    """The load generators' bake-off (benchkit bakeoff's bakeoff.json) as docs/results/<name>.json, whole."""
    return written(checked(document, bakeoff.SCHEMA, bakeoff.consistency), name, directory)


def publish_latency_map(document, name, directory=SUMMARIES):
    """A latency map (latency-map.json) as docs/results/<name>.json: its grid, checks, predictions and cells, each
    cell without its per-process CPU seconds; every figure the docs show of it is computed from its cells."""
    data = json.loads(pathlib.Path(document).read_text())
    if data.get("schema") != latencymap.SCHEMA:
        sys.exit(f"{document}: schema {data.get('schema')!r}, not {latencymap.SCHEMA}")
    environment = data["environment"]
    summary = {"name": name, **{k: v for k, v in data.items() if k not in ("environment", "cells")},
               "repeats": environment["runs"], "settled": {v: w["settled"] for v, w in environment["warmup"].items()},
               # each cell's CPU seconds: the latency proxy's and the whole system's (not per process)
               "cells": {v: [{**{k: c[k] for k in c if k != "cpu_seconds"},
                              "cpu_seconds": {"proxy": c["cpu_seconds"].get("proxy"),
                                              "system": round(sum(c["cpu_seconds"].values()), 3)}} for c in cells]
                         for v, cells in data["cells"].items()}}
    summary["ratios"] = latencyreport.ratio_grid(summary)
    return written(summary, name, directory)


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


def map_consistency(summary):
    """Where a latency map's ratios are not what its cells give, or its predictions not what its pools give."""
    return ([] if summary.get("ratios") == latencyreport.ratio_grid(summary) else
            ["ratios: not what its cells give (the medians over the repeats, each build over v1)"]) \
        + latencymap.predictions_problems(summary)


def chaos_consistency(summary):
    """Where a chaos summary's counts and verdicts are not what its runs give: each build's counts of its overload
    runs, each run's verdict against its failed checks, events lost, outcomes against requests, the whole verdict."""
    problems = []
    for version, found in summary["overload"].items():
        if {k: v for k, v in found.items() if k != "runs"} != overload_counts(found["runs"]):
            problems.append(f"overload {version}: the counts are not what its runs give")
    runs = [*summary["faults"], *(r for found in summary["overload"].values() for r in found["runs"])]
    for run in runs:
        if run["passed"] != (run["failed_checks"] == []):
            problems.append(f"{run.get('fault', 'overload')} {run.get('version', '')}: passed is not what its "
                            "failed checks say")
    for fault in summary["faults"]:
        events = fault["events"]
        if events["lost"] != events["created"] - events["delivered"]:
            problems.append(f"{fault['fault']} {fault['version']}: events lost are not created less delivered")
        if sum(fault["outcomes"].values()) != fault["requests"]:
            problems.append(f"{fault['fault']} {fault['version']}: its outcomes do not add up to its requests")
    if summary["passed"] != all(run["passed"] for run in runs):
        problems.append("passed: not what its runs give")
    return problems


def bench_consistency(summary):
    """Where a bench summary's figures are not what their own rounds give: a median, a lowest or highest round, a
    ratio of a round, the median, lowest and highest of the ratios, one entry per round of the scenario, the drifted
    rounds from the rounds' drift. [] when there is none."""
    problems = []
    for scenario_name, scenario in summary["scenarios"].items():
        builds = scenario["builds"]
        numbers = [r["number"] for r in scenario["rounds"]]
        drifted = sorted(r["number"] for r in scenario["rounds"] if r["drift"] is not None)
        for v, build in builds.items():
            if build["runs"] != len(numbers) or any(len(figure["rounds"]) != len(numbers)
                                                    for kind in ("figures", "cpu_ms") for figure in build[kind].values()):
                problems.append(f"{scenario_name} {v}: not one run and one figure per round of the {len(numbers)}")
            for kind in ("figures", "cpu_ms"):
                for key, figure in build[kind].items():
                    again = results.Figure.of(figure["unit"], figure["rounds"])
                    expected = (again.median, again.low, again.high)
                    if not all(close(a, b) for a, b in zip((figure["median"], figure["low"], figure["high"]), expected)):
                        problems.append(f"{scenario_name} {v} {key}: median, low, high {figure['median']}, "
                                        f"{figure['low']}, {figure['high']} are not its rounds' {expected}")
        for v, ratios in scenario["ratios"].items():
            for key, ratio in ratios.items():
                base, mine = builds[BASELINE]["figures"][key]["rounds"], builds[v]["figures"][key]["rounds"]
                for index, (number, value) in enumerate(ratio["rounds"]):
                    expected = mine[index] / base[index] if base[index] and mine[index] is not None else None
                    if not close(value, expected):
                        problems.append(f"{scenario_name} {v}/v1 {key}: round {number} says {value}, its figures "
                                        f"give {expected}")
                if [number for number, _ in ratio["rounds"]] != numbers:
                    problems.append(f"{scenario_name} {v}/v1 {key}: its rounds are not the scenario's {numbers}")
                if ratio["drifted_rounds"] != drifted:
                    problems.append(f"{scenario_name} {v}/v1 {key}: drifted rounds {ratio['drifted_rounds']} are not "
                                    f"the rounds the machine drifted in, {drifted}")
                again = results.Ratio.of(key, ratio["rounds"], drifted)
                if not (close(ratio["low"], again.low) and close(ratio["high"], again.high)):
                    problems.append(f"{scenario_name} {v}/v1 {key}: lowest and highest {ratio['low']}, "
                                    f"{ratio['high']} are not its rounds' ratios' {again.low}, {again.high}")
                if not close(ratio["median"], again.median):
                    problems.append(f"{scenario_name} {v}/v1 {key}: median {ratio['median']} is not the median of "
                                    f"its rounds' ratios")
                if not close(ratio["median_without_drifted"], again.median_without_drifted):
                    problems.append(f"{scenario_name} {v}/v1 {key}: the median without the drifted rounds is not "
                                    f"what its rounds give")
    return problems


# Runs combined into one headline must be independent: separate starts of the stack, at least this far apart.
COMBINED_APART_HOURS = 1.0


def combined(named, name):
    """One summary of several independent runs of the same builds on the same kind of platform ({name: summary} of
    bench summaries, in time order): every round of every run, renumbered in turn and naming its run and its own
    number, each figure and ratio again from all of them (so its interval covers every round of every run); a knee is
    the lowest of the runs'. Refused when the runs are not comparable or not far enough apart."""
    runs = sorted(named.items(), key=lambda item: item[1]["timestamp"])
    first = runs[0][1]
    if len(runs) < 2 or any(s.get("schema") != SCHEMA for _, s in runs):
        sys.exit("combine: two bench summaries or more")
    for key in ("on_kubernetes", "versions"):
        if len({json.dumps(s[key]) for _, s in runs}) != 1:
            sys.exit(f"combine: the runs differ in {key}: not one comparison")
    times = [datetime.datetime.fromisoformat(s["timestamp"]) for _, s in runs]
    if any((later - earlier).total_seconds() < 3600 * COMBINED_APART_HOURS for earlier, later in zip(times, times[1:])):
        sys.exit(f"combine: runs less than {COMBINED_APART_HOURS:g} h apart are not independent runs")
    scenarios = {}
    for scenario in (n for n in first["scenarios"] if all(n in s["scenarios"] for _, s in runs)):
        parts = [(run, s["scenarios"][scenario]) for run, s in runs]
        rounds, numbers = [], {}
        for run, part in parts:
            for r in part["rounds"]:
                numbers[(run, r["number"])] = len(rounds) + 1
                rounds.append({**r, "number": len(rounds) + 1, "run": run, "run_round": r["number"]})
        drifted = sorted(r["number"] for r in rounds if r["drift"] is not None)
        builds = {}
        for v in first["versions"]:
            if not all(v in part["builds"] for _, part in parts):
                continue
            builds[v] = {"runs": sum(part["builds"][v]["runs"] for _, part in parts), **{
                kind: {key: dataclasses.asdict(results.Figure.of(
                    first["scenarios"][scenario]["builds"][v][kind][key]["unit"],
                    [value for _, part in parts for value in part["builds"][v][kind][key]["rounds"]]))
                       for key in first["scenarios"][scenario]["builds"][v][kind]} for kind in ("figures", "cpu_ms")}}
        ratios = {}
        for v, found in first["scenarios"][scenario]["ratios"].items():
            ratios[v] = {}
            for key in found:
                per_round = [[numbers[(run, number)], value] for run, part in parts
                             for number, value in part["ratios"][v][key]["rounds"]]
                ratios[v][key] = dataclasses.asdict(results.Ratio.of(key, per_round, drifted))
        scenarios[scenario] = {"builds": builds, "ratios": ratios, "rounds": rounds}
    summary = {"schema": SCHEMA, "name": name, "commit": ", ".join(dict.fromkeys(s["commit"] for _, s in runs)),
               "timestamp": runs[-1][1]["timestamp"], "where": first["where"], "on_kubernetes": first["on_kubernetes"],
               "versions": first["versions"],
               "runs": [{"name": run, "commit": s["commit"], "timestamp": s["timestamp"],
                         "rounds": len(s["scenarios"].get("closed", {}).get("rounds", []))} for run, s in runs],
               "settled": {v: all(s["settled"].get(v) for _, s in runs) for v in first["versions"]},
               "equal_work": all(s["equal_work"] for _, s in runs),
               "load_settings": first["load_settings"],
               "open_rate": "; ".join(dict.fromkeys(str(s["open_rate"]) for _, s in runs)),
               "scenarios": scenarios,
               "curve": {"knees": {v: min(s["curve"]["knees"][v] for _, s in runs) for v in first["curve"]["knees"]
                                   if all(v in s["curve"]["knees"] for _, s in runs)},
                         "repeats": sum(s["curve"]["repeats"] for _, s in runs)}}
    problems = bench_consistency(summary)
    if problems:
        sys.exit("combine: not consistent: " + "; ".join(problems))
    return summary


def published_headline(on_kubernetes, readme=ROOT / "README.md", directory=SUMMARIES):
    """(name, summary) of the run whose headline README.md shows for this kind of platform (a bench summary of the
    same on_kubernetes that README's markers name first), or (None, None)."""
    found = summaries(directory)
    for name in re.findall(r"<!-- figures? (\S+) ", pathlib.Path(readme).read_text()):
        summary = found.get(name)
        if summary and summary.get("schema") == SCHEMA and summary["on_kubernetes"] == on_kubernetes:
            return name, summary
    return None, None


def against_published(data, published):
    """For each build's closed-model ratio to v1 (complete answers/s): this run's median, lowest and highest round,
    the published run's, and whether this run's median falls inside the published interval. [] without both."""
    mine, theirs = (d.get("scenarios", {}).get("closed", {}).get("ratios", {}) for d in (data, published or {}))
    rows = []
    for version in mine:
        here, there = mine[version][results.HEADLINE], theirs.get(version, {}).get(results.HEADLINE)
        if here["median"] is None or not there or there["median"] is None:
            continue
        rows.append({"version": version, "median": here["median"], "low": here["low"], "high": here["high"],
                     "published": {k: there[k] for k in ("median", "low", "high")},
                     "inside": there["low"] <= here["median"] <= there["high"]})
    return rows


def summaries(directory=SUMMARIES, schemas=(SCHEMA,)):
    """{name: summary} of the summaries in a directory whose schema is one of these (bench summaries unless told)."""
    found = {}
    for path in sorted(pathlib.Path(directory).glob("*.json")):
        data = json.loads(path.read_text())
        if data.get("schema") in schemas:
            found[path.stem] = data
    return found
