"""A bench run's summary, committed beside the docs (docs/results/<name>.json) and written from its results.json by
`benchkit figures publish`: the cell document (core.cells) every grid experiment writes, a cell for each build in each
scenario, its rounds the runs' figures; several independent runs pooled into one (cells.pooled); where a new run
falls against the published one."""
import pathlib
import re
import sys

from benchkit import BASELINE, ROOT
from benchkit.core import calibration, cells, curve, results, sizes
from benchkit.core.kinds import SUMMARIES, loaded, within, written
from benchkit.experiments.bench import document as rundoc

DESIGN = "bench"
TITLE = "The demo and the bench: every scenario in rounds"
# What a round of a cell keeps of a run's figures, by the cell document's names: its answers, and its CPU per
# request of each process (per complete answer for the whole system too).
FIGURES = {"ok_rps": "complete_per_s", "p50": "p50", "p99": "p99", "error_pct": "failed_pct",
           "degraded": "degraded", "shed": "shed"}
CPU = {results.WHOLE: "cpu_ms", results.PER_COMPLETE: "cpu_ms_per_complete",
       results.BACKGROUND_OFF: "cpu_ms_background_off", results.GENERATOR: "generator_cpu_ms",
       **{process: f"{process}_cpu_ms" for process in results.PROCESSES}}


def cell_rounds(build, rounds):
    """A build's rounds of one scenario in results.json as a cell's rounds: the figures of each, the machine's
    speed before it and how far that drifted."""
    figures = [(new, build[kind][old]["rounds"]) for kind, names in (("figures", FIGURES), ("cpu_ms", CPU))
               for old, new in names.items() if old in build[kind]]
    rounds = rounds + [{"number": n, "calibration_seconds": None, "drift": None}  # runs measured without a speed
                       for n in range(len(rounds) + 1, build["runs"] + 1)]
    return [{"round": r["number"], "calibration_seconds": r["calibration_seconds"], "drift": r["drift"],
             **{new: values[index] for new, values in figures}} for index, r in enumerate(rounds[:build["runs"]])]


def document_of(head, scenarios):
    """The cell document of a bench's scenarios ({scenario: {"builds": {version: {runs, figures, cpu_ms}}, "rounds"}},
    as results.json holds them), under what the run says of itself (head)."""
    summary = {"schema": cells.SCHEMA, "name": head.pop("name"), "design": DESIGN, "title": TITLE, **head,
               "compared": cells.BUILD, "reference": BASELINE, "modes": list(scenarios), "sizes": [sizes.NO_LIMIT],
               "rounds": max(b["runs"] for s in scenarios.values() for b in s["builds"].values()),
               "cells": [{"build": v, "mode": mode, "size": sizes.NO_LIMIT,
                          "rounds": cell_rounds(build, scenario["rounds"])}
                         for mode, scenario in scenarios.items() for v, build in scenario["builds"].items()]}
    summary["cells"] = cells.with_ratios(summary)
    return summary


def publish(results_json, name, directory=SUMMARIES):
    """A summary of a run's results.json (or of the results directory that holds it), as docs/results/<name>.json."""
    results_dir = within(results_json, "results.json").parent
    data = rundoc.read(results_dir / "results.json")
    summary = document_of({
        "name": name, "commit": data["commit"], "timestamp": data["timestamp"], "where": data["where"],
        "on_kubernetes": data["on_kubernetes"], "versions": data["versions"], "settled": data["settled"],
        "equal_work": data["equal_work"]["passed"], "load_settings": data["environment"].get("load_settings", {}),
        "open_rate": data["environment"].get("open_rate"),
        "curve": ladders([curve.kept(data["curve"]["steps"])])}, data["scenarios"])
    problems = cells.consistency(summary) + consistency(summary)
    if problems:
        sys.exit(f"{results_dir}: the results are not consistent: " + "; ".join(problems))
    return written(summary, name, directory)


def ladders(sessions):
    """The curve a summary keeps: each session's ladder (curve.kept; None where its steps were not kept), with the
    knees and repeats they give."""
    return {"sessions": sessions, **curve.summarized(sessions)}


def consistency(summary):
    """What a bench's document adds to the cells' check: one round per round of its scenario in every cell, the
    rounds that drifted are those whose speed was beyond calibration.DRIFT_LIMIT from its session's median, and the
    curve's knees and repeats are what its sessions' steps give."""
    problems = []
    if summary["curve"] != ladders(summary["curve"]["sessions"]):
        problems.append(f"curve: knees {summary['curve']['knees']} and repeats {summary['curve']['repeats']} are not "
                        f"what its steps give, {curve.summarized(summary['curve']['sessions'])}")
    for mode in summary["modes"]:
        mine = [c for c in summary["cells"] if c["mode"] == mode]
        numbers = [[r["round"] for r in c["rounds"]] for c in mine]
        if any(n != numbers[0] for n in numbers):
            problems.append(f"{mode}: not one round of each build per round of the scenario")
        by_session = {}
        for cell in mine:
            for r in cell["rounds"]:
                by_session.setdefault((cell["build"], r.get("session")), {})[r["round"]] = r
        for rounds in by_session.values():
            drifted = calibration.drifted({n: r["calibration_seconds"] for n, r in rounds.items()
                                           if r["calibration_seconds"] is not None})
            said = {n for n, r in rounds.items() if r["drift"] is not None}
            if said != set(drifted):
                problems.append(f"{mode}: drifted rounds {sorted(said)} are not the rounds the machine drifted in, "
                                f"{sorted(drifted)}")
                break
    return problems


def pooled_extra(sessions):
    """What a bench adds when sessions are pooled: whether every build settled and did equal work in every session,
    every session's curve (its knees the lowest of theirs); the open model is left out where the sessions ran it at different
    rates (each took its rate from what its machine sustained: different loads, not one latency)."""
    if len({tuple(s["versions"]) for _, s in sessions}) != 1:
        sys.exit("pool: the sessions differ in versions: not one comparison")
    versions, rates = sessions[0][1]["versions"], list(dict.fromkeys(str(s["open_rate"]) for _, s in sessions))
    left_out = {"open": "each run at its own rate: " + "; ".join(rates)} if len(rates) > 1 else {}
    return {"settled": {v: all(s["settled"].get(v) for _, s in sessions) for v in versions},
            "equal_work": all(s["equal_work"] for _, s in sessions),
            "open_rate": rates[0] if len(rates) == 1 else None,
            "curve": ladders([ladder for _, s in sessions for ladder in s["curve"]["sessions"]])}, left_out


def published_headline(on_kubernetes, readme=ROOT / "README.md", directory=SUMMARIES):
    """(name, summary) of the answer README.md shows for this kind of platform (the first summary its markers name
    that is a bench's or a CPU map's of the same on_kubernetes), or (None, None)."""
    found = {name: s for name, s in loaded(directory, (cells.SCHEMA,)).items() if s.get("design") in (DESIGN, "cpu-map")}
    for name in re.findall(r"<!-- figures? (\S+) ", pathlib.Path(readme).read_text()):
        summary = found.get(name)  # a CPU map says where it was measured, a bench whether on Kubernetes
        if summary and summary.get("on_kubernetes", summary.get("where", "").startswith("Kubernetes")) == on_kubernetes:
            return name, summary
    return None, None


def published_ratio(published, build):
    """A published answer's ratio of complete answers/s of a build over v1 in the closed model, at the whole machine
    (a bench's closed scenario, a CPU map's cell with no limit), or None."""
    wanted = {"mode": "closed"} if published.get("design") == DESIGN else {"mode": "", "size": sizes.NO_LIMIT}
    cell = next((c for c in published.get("cells", []) if c["build"] == build
                 and all(c[k] == v for k, v in wanted.items())), None)
    return (cell or {}).get("ratios", {}).get("complete_per_s")


def against_published(data, published):
    """For each build's closed-model ratio to v1 (complete answers/s): this run's median, lowest and highest round,
    the published run's, and whether this run's median falls inside the published interval. [] without both."""
    mine = data.get("scenarios", {}).get("closed", {}).get("ratios", {})
    rows = []
    for version in mine:
        here, there = mine[version][results.HEADLINE], published and published_ratio(published, version)
        if here["median"] is None or not there or there["median"] is None:
            continue
        rows.append({"version": version, "median": here["median"], "low": here["low"], "high": here["high"],
                     "published": {k: there[k] for k in ("median", "low", "high")},
                     "inside": there["low"] <= here["median"] <= there["high"]})
    return rows
