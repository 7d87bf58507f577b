"""What a bench's summary adds to the cell document's (a bench run writes one, experiments/bench/document.py, and `benchkit figures
publish` commits it like any design's): its own check, what it adds when sessions are pooled (cells.pooled), and
where a new run falls against the published one."""
import pathlib
import re
import sys

from benchkit import ROOT
from benchkit.core import calibration, cells, curve, sizes
from benchkit.publish.kinds import SUMMARIES, loaded
from benchkit.schemas.bench import DESIGN, ladders


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
    that is a bench's, a CPU map's or make answer's, of the same on_kubernetes), or (None, None)."""
    found = {name: s for name, s in loaded(directory, (cells.SCHEMA,)).items()
             if s.get("design") in (DESIGN, "cpu-map", "answer")}
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


def against_published(document, published):
    """For each build's closed-model ratio to v1 (complete answers/s): this run's median, lowest and highest round,
    the published run's, and whether this run's median falls inside the published interval. [] without both."""
    rows = []
    for cell in (c for c in document["cells"] if c["mode"] == "closed" and "ratios" in c):
        here, there = cell["ratios"]["complete_per_s"], published and published_ratio(published, cell["build"])
        if here["median"] is None or not there or there["median"] is None:
            continue
        rows.append({"version": cell["build"], "median": here["median"], "low": here["low"], "high": here["high"],
                     "published": {k: there[k] for k in ("median", "low", "high")},
                     "inside": there["low"] <= here["median"] <= there["high"]})
    return rows
