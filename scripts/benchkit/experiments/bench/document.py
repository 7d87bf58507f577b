"""A bench run as the cell document every grid experiment writes (core.cells, bench.json), computed from what the
run kept (runs/*.json, runs/*.cost.json and environment.json), so that a report can be rendered again from them:
a cell for each build in each scenario, a round for each of its runs. A round holds the figures every design's round
has (results.round_figures) and what the bench's report adds: every process's CPU, the load's latency percentiles,
the JIT and GC, each service's memory, and what the equal-work check counts. Beside the cells: equal work, SQL parity,
the curve's ladder, where the pods ran. report.py renders Markdown and HTML from this document only, and tests read it.

    python -m benchkit results RESULTS     writes RESULTS/bench.json from RESULTS/runs and environment.json
    python -m benchkit results --resummarize RESULTS
                                           first computes every run's figures again from its kept samples (runs/*.csv),
                                           by today's definitions (after a change to samples.summarize)"""
import argparse
import json
import pathlib
import sys

from benchkit import BASELINE
from benchkit.core import calibration, cells, curve, layers, samples, sizes, sql
from benchkit.core.results import BACKGROUND_OFF, GENERATOR, per_request_cpu, read_runs, round_figures
from benchkit.schemas import work
from benchkit.schemas.bench import DESIGN, FILE, TITLE, ladders

# The load's own figures a round keeps beside round_figures' (by the load's names; ok_rps and error_pct are there as
# complete_per_s and failed_pct).
LOAD = ("requests", "rps", "avg", "p90", "p95", "max", "p50_not_complete", "p99_not_complete", "shed", "fallbacks",
        "dropped")
WORK = ("requests", "complete", "degraded", "failed", "shed")  # what the equal-work check sums of the load's figures


def work_of(run):
    """What the equal-work check counts of one run: its answers, the calls the services counted, its bytes."""
    metrics = run["metrics"]
    return {**{key: metrics[key] for key in WORK}, "target": run.get("target", "web-api"),
            **{service: run["requests_served"][service] for service in ("articles", "authors")},
            "expected_authors": run["expected_calls_per_request"]["authors"],
            "bytes_min": metrics["bytes_min"], "bytes_max": metrics["bytes_max"]}


def totals(counted):
    """What the equal-work check needs, summed over a build's runs of one scenario (or the curve's steps): counted,
    each run's work_of."""
    summed = {key: sum(w[key] for w in counted) for key in (*WORK, "articles", "authors")}
    return {**summed, "target": counted[0]["target"], "expected_authors": counted[0]["expected_authors"],
            "bytes_min": min(w["bytes_min"] for w in counted), "bytes_max": max(w["bytes_max"] for w in counted)}


def cell_round(run, settled):
    """One run as a round of its cell."""
    metrics, cpu = run["metrics"], per_request_cpu(run)
    return {"round": run["run"], "place": run.get("position"),
            **round_figures(run, metrics, run["background_cpu_per_s"], run.get("calibration_seconds"),
                            {"settled": settled}),
            **{key: metrics.get(key) for key in LOAD}, "drift": None,
            **{f"{process}_cpu_ms": cpu[process] for process in run["cpu_seconds"]},
            "cpu_ms_background_off": cpu[BACKGROUND_OFF], "generator_cpu_ms": cpu[GENERATOR],
            "jvm": run.get("jvm"), "memory_mib": run.get("memory_mib"), "restarts": run.get("restarts"),
            "idle_cpu_s": run.get("idle_cpu_seconds"), "system_cpu_s": sum(run["cpu_seconds"].values()),
            "node_cpu_s": sum(run["node_cpu_seconds"].values()) if run.get("node_cpu_seconds") else None,
            "work": work_of(run)}


def with_drift(found):
    """The cells, each round's drift set where the machine's speed before it was beyond calibration.DRIFT_LIMIT from
    the median of its scenario's rounds (every build of a round is measured after one calibration)."""
    for mode in dict.fromkeys(c["mode"] for c in found):
        speed = {r["round"]: r["calibration_seconds"] for c in found if c["mode"] == mode for r in c["rounds"]
                 if r["calibration_seconds"] is not None}
        moved = calibration.drifted(speed)
        for r in (r for c in found if c["mode"] == mode for r in c["rounds"]):
            r["drift"] = moved.get(r["round"])
    return found


def ladder(runs):
    """The curve's steps as a summary keeps them (curve.kept), of the runs at the curve's rates."""
    steps = {}
    for run in runs:  # in the order of their repeats
        rate = curve.rate_of(run["scenario"])
        if rate:
            m = run["metrics"]
            steps.setdefault((rate, run["version"]), []).append(
                {"complete": m["ok_rps"], "p50": m["p50"], "p99": m["p99"], "dropped": m["dropped"],
                 "requests": m["requests"]})
    return curve.kept([{"offered": rate, "version": version, "repeats": repeats}
                       for (rate, version), repeats in sorted(steps.items())])


def profiled(directory):
    """What the layer table needs of the run's profiles (layers.as_layers), or None where none were recorded."""
    found = [directory / "profiles" / name for name in ("profile.json", "costs.json")]
    if not all(path.exists() for path in found):
        return None
    return layers.as_layers(*(json.loads(path.read_text()) for path in found))


def compute(directory):
    """The cell document of a bench run's folder (its runs/ and environment.json)."""
    environment = json.loads((directory / "environment.json").read_text())
    runs = sorted(read_runs(directory, environment), key=lambda run: run["run"])
    warmups = {v: w for v, w in (environment.get("warmup") or {}).items() if isinstance(w, dict)}
    versions = sorted({run["version"] for run in runs})
    settled = {v: (warmups[v]["settled"] if v in warmups else None) for v in versions}
    scenarios = [name for name in dict.fromkeys(run["scenario"] for run in runs) if not curve.rate_of(name)]
    found = [{"build": v, "mode": scenario, "size": sizes.NO_LIMIT,
              "rounds": [cell_round(run, settled[v]) for run in runs
                         if run["scenario"] == scenario and run["version"] == v]}
             for scenario in scenarios for v in versions]
    found = with_drift([c for c in found if c["rounds"]])
    judged = {scenario: {c["build"]: totals([r["work"] for r in c["rounds"]]) for c in found if c["mode"] == scenario}
              for scenario in scenarios}
    curve_runs = [run for run in runs if curve.rate_of(run["scenario"])]
    if curve_runs:  # equal work is judged over all the curve's steps at once
        judged["curve (all steps)"] = {v: totals([work_of(run) for run in curve_runs if run["version"] == v])
                                       for v in dict.fromkeys(run["version"] for run in curve_runs)}
    document = {
        "schema": cells.SCHEMA, "design": DESIGN, "title": TITLE, "explanation": __doc__,
        "compared": cells.BUILD, "reference": BASELINE, "modes": scenarios, "sizes": [sizes.NO_LIMIT],
        "rounds": max((len(c["rounds"]) for c in found), default=0),
        "commit": environment.get("git_commit", ""), "timestamp": environment.get("timestamp", ""),
        "where": environment.get("where", ""), "on_kubernetes": any(run.get("restarts") is not None for run in runs),
        "versions": versions, "settled": settled, "equal_work": work.rows(judged)[1], "work": judged,
        "load_settings": environment.get("load_settings", {}), "open_rate": environment.get("open_rate"),
        "curve": ladders([ladder(runs)]), "sql": sql.as_data(sql.per_request(runs)), "placement": placement(runs),
        **({"profile": kept} if (kept := profiled(directory)) else {}), "environment": environment, "cells": found}
    document["cells"] = cells.with_ratios(document)
    return document


def placement(runs):
    """{version: {"build": {node: [its pods]}, "load": {node: how many of the build's load pods ran there}}} over a
    cluster's runs ({} where no scheduler placed anything): what shared a node with what."""
    found = {}
    for run in runs:
        build = found.setdefault(run["version"], {"build": {}, "load": {}})
        for pod, node in (run.get("nodes") or {}).items():
            pods = build["build"].setdefault(node, [])
            pods += [] if pod in pods else [pod]
        for pod in run.get("load_pods") or []:
            if pod.get("node"):
                build["load"][pod["node"]] = build["load"].get(pod["node"], 0) + 1
    return {version: where for version, where in found.items() if where["build"] or where["load"]}


def write(directory):
    """Computes and writes directory/bench.json; returns it."""
    document = compute(directory)
    (directory / FILE).write_text(json.dumps(document, indent=2))
    return document


def resummarize(directory):
    """Every run's summary figures computed again from its samples (runs/NAME.csv beside runs/NAME.json); returns how
    many. A run without its samples is refused: its figures could not be what the others' are."""
    count = 0
    for summary_file in sorted((directory / "runs").glob("*.json")):
        if summary_file.name.endswith(".cost.json"):
            continue
        kept = summary_file.with_suffix(".csv")
        if not kept.exists():
            sys.exit(f"{summary_file}: no samples beside it ({kept.name}): its figures cannot be computed again")
        summary = json.loads(summary_file.read_text())
        summary["figures"] = samples.summarize(samples.read(kept))
        summary["thresholds_crossed"] = samples.crossed(summary["figures"], summary.get("scenario"))
        summary_file.write_text(json.dumps(summary, indent=2))
        count += 1
    return count


def main(argv=None):
    parser = argparse.ArgumentParser(prog="benchkit results", description=__doc__.splitlines()[0])
    parser.add_argument("results", type=pathlib.Path)
    parser.add_argument("--resummarize", action="store_true",
                        help="compute every run's figures again from its kept samples first")
    args = parser.parse_args(argv)
    if args.resummarize:
        print(f"{resummarize(args.results)} runs summarized again from their samples")
    write(args.results)
    print(f"Results: {args.results / FILE}")
