"""What is published of the latency map (experiments.latencymap measures it): the tables and heat maps a doc may
show of its cell document, the checks it must pass (its ratios, its predictions and its counts what its cells, pools
and rules give; its own prediction as first committed), what a map must show on any machine (make test's verdicts),
and a run's report (report.py), all read from the document alone."""
import json
import pathlib

from benchkit import BASELINE, VERSIONS, info
from benchkit.publish.kinds import Publishes
from benchkit.schemas import latencymap as grid
from benchkit.schemas.latencymap import predict
from benchkit.publish.latencymap import report as latencyreport


def predictions_problems(data):
    """Where a map's predictions are not what its pools give by its rule, for the run's own and for every revision
    made after it (each names its commit and why). [] when there is none."""
    problems = []
    for revision in [{"commit": data.get("commit"), "why": "the run's own", **data}, *data.get("revisions", ())]:
        where = f"the prediction of {revision.get('commit')}"
        if not revision.get("commit") or not revision.get("why"):
            problems.append(f"{where}: a revision names its commit and why")
            continue
        if "rule" not in revision:
            problems.append(f"{where}: no rule kept to compute it again")
            continue
        for version, predicted in revision["predicted"].items():
            again = [predict(revision["pools"][version], revision["rule"], row) for row in data["rows"]]
            if predicted != again:
                problems.append(f"{where}, {version}: not what its pools give by its rule ({again})")
    return problems


SEALED = ("pools", "predicted")  # what the run itself wrote of its prediction, before any of its figures


def sealed_problems(summary, first, known):
    """Where a map's own prediction is not what the run wrote, as the summary was first committed (first; None: not
    committed yet), so that a pool and its prediction edited together cannot pass as the run's (a prediction revised
    after the run is a revision: its commit, why, its rule and pools); or a revision's commit is one git does not
    know (known(commit))."""
    problems = [] if first is None or all(first.get(k) == summary.get(k) for k in SEALED) else [
        "the run's own prediction is not what it was when first committed: a revised one goes in revisions, with "
        "its commit and why"]
    return problems + [f"the revision of {r.get('commit')}: no commit of that name" for r in summary.get("revisions", ())
                       if not known(r.get("commit"))]


def counts_problems(summary):
    """Where a cell's rounds are not as many as the rule measures, the cells said never to agree are not those whose
    repeats disagree, or a round's counts do not add up: an open load sends its rate for the duration (requests and
    unsent), the complete, degraded and failed answers are no more than the requests, and shed ones are failed ones."""
    problems, seconds = [], float(str(summary["duration"]).rstrip("s"))
    by_mode = {}
    for cell in summary["cells"]:
        by_mode.setdefault(cell["mode"], []).append(cell)
    for mode, cells in by_mode.items():
        if not any(c["rounds"] for c in cells):
            continue  # a cell the map did not reach (a map of a few cells: the grid's others are left empty)
        wanted = grid.repeats_of(cells, summary["rounds"])
        if any([r["round"] for r in c["rounds"]] != list(range(1, wanted + 1)) for c in cells):
            problems.append(f"{mode}: not {wanted} rounds of every build, as its repeats' spread asks")
        load = summary["loads"][summary["grid"][mode][1]]
        for cell in cells:
            for r in cell["rounds"]:
                answered = r["complete_per_s"] * seconds + r["degraded"] + r["failed"]
                if (load["model"] == "open" and r["requests"] + r["unsent"] != load["value"] * seconds) \
                        or r["shed"] > r["failed"] or answered > r["requests"] + 1:
                    problems.append(f"{mode}, {cell['build']} round {r['round']}: requests {r['requests']}, unsent "
                                    f"{r['unsent']}, degraded {r['degraded']}, failed {r['failed']}, shed {r['shed']} "
                                    "do not add up")
    # a map of one round has no repeats to disagree, and an early one did not say so
    if summary.get("unsettled", []) != sorted(summary["grid"][mode] for mode in grid.unsettled(summary)):
        problems.append(f"unsettled: {summary.get('unsettled')} are not the cells whose repeats disagree")
    return problems


def map_consistency(summary):
    """Where a latency map's ratios are not what its cells give, its predictions not what its pools give, or its
    rounds' counts not what its rules and loads give."""
    return ([] if summary.get("ratios") == grid.ratio_grid(grid.as_grid(summary)) else
            ["ratios: not what its cells give (each build over v1: the median of the repeats' own ratios)"]) \
        + predictions_problems(summary) + counts_problems(summary)


def outside(found):
    """A hop's check that failed, in the figures it was judged by."""
    return (f"{found['hop']} {found['setting_ms']:g} ms: added {found['added_ms']} (floors {found['direct_floor_ms']} "
            f"-> {found['proxied_floor_ms']}), bounds {found['low_ms']}..{found['high_ms']}, {found['samples']} round "
            "trips")


def verdicts(document):
    """What a map must show on any machine, as (sentence, holds) pairs: every hop's latency and the proxy's own cost
    observed within their bounds, every cell measured with complete answers, and no complete answer faster than the
    latency of its row less the jitter (an answer waits for its look-ups and its queries, each through the proxy: a
    build that bypassed it answers faster, however fast or slow the machine)."""
    document = grid.as_grid(document)
    rows, loads = document["rows"], document["loads"]
    repeats = document["rounds"]
    too_fast = [(version, rows[c["row"]]["hop"], rows[c["row"]]["ms"], c["load"], c["fastest"])
                for version, cells in document["cells"].items() for c in cells
                if c["fastest"] is not None and c["fastest"] < rows[c["row"]]["ms"] - rows[c["row"]]["jitter_ms"]]
    missed = [f"{version} row {c['row']} {outside(h)}" for version, checks in document["checks"].items()
              for c in checks for h in c["hops"] if not h["ok"]]
    own_missed = [f"{version} {outside(o)}" for version, own in document["own"].items() for o in own if not o["ok"]]
    return [
        ("every hop's latency observed as set" + (f" (not: {missed[:4]})" if missed else ""), not missed),
        ("the proxy's own cost at 0 ms within its bound" + (f" (not: {own_missed[:4]})" if own_missed else ""),
         not own_missed),
        (f"every cell measured ({len(rows)} rows x {len(loads)} loads, {repeats} repeats or more), each with complete "
         "answers", all(all(sum(1 for c in cells if (c["row"], c["load"]) == (r, l)) >= repeats
                                for r in range(len(rows)) for l in range(len(loads)))
                            and all(c["complete_per_s"] > 0 for c in cells) for cells in document["cells"].values())),
        ("no complete answer faster than its row's latency less the jitter"
         + (f" (faster: {too_fast[:5]})" if too_fast else ""), not too_fast),
    ]


def main(argv):
    """benchkit latency-map-verdicts LATENCY_MAP_JSON: judge a map already measured (see verdicts); exit 1 when one
    does not hold."""
    found = verdicts(json.loads(pathlib.Path(argv[0]).read_text()))
    for sentence, holds in sorted(found, key=lambda verdict: not verdict[1]):  # what does not hold last, seen first
        print(f"{'holds' if holds else 'does not hold'}: {sentence}")
    raise SystemExit(0 if all(holds for _, holds in found) else 1)


def write_report(path):
    """latency-map.md and .html beside the document."""
    info(f"the map: {latencyreport.render(path.parent)} (and .html)")


def grid_table(table):
    """A table (or chart) of the grid, as a doc draws it from the map's cell document."""
    return lambda summary: table(grid.as_grid(summary))


def map_table(version):
    return grid_table(lambda grid: latencyreport.ratio_rows(grid, version))


def map_chart(version, kind):
    return grid_table(lambda grid: latencyreport.heat_map(grid, version, kind))


# what a doc may show of a latency map's cell document (the registry's cell Kind), and what its check adds
PUBLISHES = Publishes(
    run_files=("latency-map.json",),
    tables={**{f"map-{version}": map_table(version) for version in VERSIONS if version != BASELINE},
            "map-ceilings": grid_table(lambda grid: latencyreport.prediction_rows(grid, latencyreport.medians(grid))),
            "map-sweep": grid_table(latencyreport.sweep_rows), "map-proxy": grid_table(latencyreport.proxy_rows),
            "map-spread": grid_table(latencyreport.spread_rows)},
    charts={f"map-{version}-{kind}": map_chart(version, kind) for version in VERSIONS if version != BASELINE
            for kind in grid.HEAT_MAPS},
    consistency={"latency-map": map_consistency}, sealed={"latency-map": sealed_problems},
    report=write_report)
