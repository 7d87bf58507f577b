"""A bench run's summary, committed beside the docs (docs/results/<name>.json) and written from its results.json by
`benchkit figures publish`: the rounds its figures come from, each checked against them (bench_consistency); several
independent runs combined into one headline; where a new run falls against the published one."""
import dataclasses
import datetime
import json
import pathlib
import re
import sys

from benchkit import BASELINE, ROOT
from benchkit.core import results
from benchkit.experiments.bench import document as rundoc
from benchkit.experiments.bench import tables
from benchkit.core.kinds import SUMMARIES, Kind, loaded, within, written
from benchkit.core.stats import close

SCHEMA = "reactive-bench/summary/1"
# What a summary keeps of a results.json: the figures the docs quote, each build's and each ratio's.
FIGURES = ("ok_rps", "p50", "p99", "error_pct", "degraded", "shed")
CPU = (results.WHOLE, results.PER_COMPLETE, results.BACKGROUND_OFF, results.GENERATOR, *results.PROCESSES)
RATIOS = (results.HEADLINE, "p50", "p99")


def publish(results_json, name, directory=SUMMARIES):
    """A summary of a run's results.json (or of the results directory that holds it), as docs/results/<name>.json."""
    results_dir = within(results_json, "results.json").parent
    data = rundoc.read(results_dir / "results.json")
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
                again = rundoc.Ratio.of(key, ratio["rounds"], drifted)
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


def refuse_incomparable(runs):
    """Exits unless the runs ([(name, summary)] in time order) are two bench summaries or more of the same builds on
    the same kind of platform, each at least COMBINED_APART_HOURS after the one before."""
    if len(runs) < 2 or any(s.get("schema") != SCHEMA for _, s in runs):
        sys.exit("combine: two bench summaries or more")
    for key in ("on_kubernetes", "versions"):
        if len({json.dumps(s[key]) for _, s in runs}) != 1:
            sys.exit(f"combine: the runs differ in {key}: not one comparison")
    times = [datetime.datetime.fromisoformat(s["timestamp"]) for _, s in runs]
    if any((later - earlier).total_seconds() < 3600 * COMBINED_APART_HOURS for earlier, later in zip(times, times[1:])):
        sys.exit(f"combine: runs less than {COMBINED_APART_HOURS:g} h apart are not independent runs")


def combined(named, name):
    """One summary of several independent runs of the same builds on the same kind of platform ({name: summary} of
    bench summaries, in time order): every round of every run, renumbered in turn and naming its run and its own
    number, each figure and ratio again from all of them (so its interval covers every round of every run); a knee is
    the lowest of the runs'. Refused when the runs are not comparable or not far enough apart."""
    runs = sorted(named.items(), key=lambda item: item[1]["timestamp"])
    first = runs[0][1]
    refuse_incomparable(runs)
    scenarios = {}
    # The open model runs at a rate each run took from what its machine sustained: runs at different rates measured
    # different loads, and their latencies are not one figure. Left out, and said so.
    rates = list(dict.fromkeys(str(s["open_rate"]) for _, s in runs))
    left_out = {"open": "each run at its own rate: " + "; ".join(rates)} if len(rates) > 1 else {}
    for scenario in (n for n in first["scenarios"]
                     if n not in left_out and all(n in s["scenarios"] for _, s in runs)):
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
                ratios[v][key] = dataclasses.asdict(rundoc.Ratio.of(key, per_round, drifted))
        scenarios[scenario] = {"builds": builds, "ratios": ratios, "rounds": rounds}
    summary = {"schema": SCHEMA, "name": name, "commit": ", ".join(dict.fromkeys(s["commit"] for _, s in runs)),
               "timestamp": runs[-1][1]["timestamp"], "where": first["where"], "on_kubernetes": first["on_kubernetes"],
               "versions": first["versions"],
               "runs": [{"name": run, "commit": s["commit"], "timestamp": s["timestamp"],
                         "rounds": len(s["scenarios"].get("closed", {}).get("rounds", []))} for run, s in runs],
               "settled": {v: all(s["settled"].get(v) for _, s in runs) for v in first["versions"]},
               "equal_work": all(s["equal_work"] for _, s in runs),
               "load_settings": first["load_settings"],
               "open_rate": rates[0] if len(rates) == 1 else None, "left_out": left_out,
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
    found = loaded(directory, (SCHEMA,))
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


KIND = Kind("bench", SCHEMA, rundoc.SCHEMA, ("results.json",), publish, bench_consistency,
            {"headline": tables.headline_table, "knees": tables.knees_table, "answer": tables.answer_table,
             "hops": tables.hops_table, "cpu": tables.cpu_table})
