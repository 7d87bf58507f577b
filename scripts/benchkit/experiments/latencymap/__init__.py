"""The latency map (make latency-map, make latency-map-cluster): every build over downstream latency × load.

Every build over a grid of latency added to a downstream hop (latency.py: Toxiproxy, the same for every build, outside the code under test) × load (the open
model at a ladder of rates, the closed model at several numbers of users). Each row of the grid is one latency
setting on one hop; at each row, the latency is checked where it is set (the hop's round trip rises by the
setting), then every load runs against every build in turn, their order turned round from one load to the next.
Each cell keeps complete answers/s, the latency of complete answers, degraded, shed, failed and unsent answers,
and what the build held meanwhile (platform threads and connections to its downstream at their peak, peak RSS).
Beside the measurement, each build's ceiling at each row as Little's law predicts it from its pool sizes.

The local stack must be up with its latency proxy; a build whose services do not go through it yet is restarted
behind it (LATENCY_PROXY=on) and restarted as it was at the end (make latency-map starts the stack behind it).
Writes latency-map.json (schema reactive-bench/latency-map/1); latencymapreport renders it.

Its grid (rows and columns), how long a cell is loaded and the repeats are its Spec; a cell whose repeats differ by more than SPREAD_LIMIT is repeated again, up to EXTRA_REPEATS more times."""
import dataclasses
import json
import pathlib
import threading
import time

from benchkit import BASELINE, SERVICES, VERSIONS, info, step
from benchkit.core import knobs, latency
from benchkit.core.knobs import knob, numbers
from benchkit.experiments.latencymap import report as latencyreport
from benchkit.experiments.latencymap.ceilings import (TUNED, predicted_ceiling, pools, predictions_problems, rule, sweep_kept,
                                                      tuned)
from benchkit.core.kinds import SUMMARIES, Kind, checked, written
from benchkit.core.platforms import LatencyProxy
from benchkit.experiments.latencymap.report import SPREAD_LIMIT
from benchkit.core.protocol import background, measure, order, warm_up

SCHEMA = "reactive-bench/latency-map/1"
NEEDS = (LatencyProxy,)  # what it asks of a platform beyond what every experiment does


# A cell whose repeats do not agree (latencyreport.SPREAD_LIMIT) is measured again, up to EXTRA_REPEATS times more,
# and the map says which cells never agreed.
EXTRA_REPEATS = 2


def unsettled(document):
    """{(row, load)} of the cells where some build's repeats disagree (latencyreport.spreads)."""
    return {key for cells in latencyreport.spreads(document).values() for key, spread in cells.items()
            if spread is not None and spread > SPREAD_LIMIT}


@dataclasses.dataclass(frozen=True)
class Load:
    model: str  # "open" (value: requests/s) or "closed" (value: users)
    value: int

    @property
    def label(self):
        return f"{self.value}/s" if self.model == "open" else f"{self.value} users"

    def settings(self, duration):
        if self.model == "open":  # as many in flight as the slowest build could need before requests go unsent
            return "open", {"RATE": str(self.value), "DURATION": duration, "MAX_USERS": str(max(1000, self.value))}
        # closed, bounded by time: every user sends until the step's end
        return "closed", {"USERS": str(self.value), "ITERATIONS": "1000000", "MAX_DURATION": duration}


def grid(spec):
    """The rows (latency.Setting) and the loads (Load) of the map's spec."""
    jitter = knobs.value("LATENCY_JITTER")
    rows = [latency.Setting("authors", ms, round(ms * jitter)) for ms in spec.authors_ms]
    rows += [latency.Setting("database", ms, round(ms * jitter)) for ms in spec.database_ms]
    return rows, [Load("open", rate) for rate in spec.rates] + [Load("closed", users) for users in spec.users]


# ---------- the runs

class Peaks:
    """Samples a build's gauges (threads, connections) every half second while a cell runs; keeps each peak."""

    def __init__(self, build):
        self.build, self.peaks, self.stopped = build, {}, threading.Event()
        self.thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self):
        while not self.stopped.wait(0.5):
            for service, figures in self.build.gauges().items():
                for name, value in figures.items():
                    if value is not None:
                        key = (service, name)
                        self.peaks[key] = max(value, self.peaks.get(key, value))

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stopped.set()
        self.thread.join()

    def figures(self):
        return {service: {name: self.peaks.get((service, name)) for name in ("threads", "connections")}
                for service in SERVICES}


def cell(build, row, load, runs_dir, repeat, duration):
    scenario, settings = load.settings(duration)
    label = f"map-{row.hop}-{row.ms:g}ms-{load.model}-{load.value}"
    with Peaks(build) as peaks:
        figures = measure(build, scenario, runs_dir, repeat, settings, label=label)
    cost = json.loads((runs_dir / f"{build.version}-{label}-{repeat}.cost.json").read_text())
    memory = {service: next(iter(values.values()), None) for service, values in (cost["memory_mib"] or {}).items()}
    return {"repeat": repeat, "complete_per_s": round(figures["ok_rps"], 1), "requests": figures["requests"],
            "p50": figures["p50"] if figures["complete"] else None, "p99": figures["p99"] if figures["complete"] else None,
            "fastest": figures["fastest"] if figures["complete"] else None,
            "degraded": figures["degraded"], "shed": figures["shed"], "failed": figures["failed"],
            "unsent": figures["dropped"], "peaks": peaks.figures(), "peak_rss_mib": memory,
            "cpu_seconds": cost["cpu_seconds"]}


def check(platform, version, row, own):
    """The hop's latency observed against the setting, on each of its proxies (own: the proxy's own cost at 0)."""
    return [latency.check_hop(row, via, direct, proxy_own_ms=own.get((row.hop, via)))
            for via, direct in platform.hop_addresses(version, row.hop)]


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
    rows, loads = document["rows"], document["loads"]
    repeats = document["environment"].get("runs", 1)
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


@dataclasses.dataclass(frozen=True)
class Spec:
    authors_ms: tuple = knob("LATENCY_AUTHORS_MS", (0.0, 1.0, 5.0, 20.0, 50.0), "latency per author look-up, ms: the "
                             "rows of the authors hop", numbers(float))
    database_ms: tuple = knob("LATENCY_DATABASE_MS", (5.0,), "latency per query, ms: the slow-database rows",
                              numbers(float))
    rates: tuple = knob("MAP_RATES", (250, 500, 1000), "the open model's columns, requests/s", numbers(int))
    users: tuple = knob("MAP_USERS", (100, 400, 1000), "the closed model's columns, users", numbers(int))
    duration: str = knob("MAP_STEP_DURATION", "10s", "how long each cell is loaded")
    repeats: int = knob("MAP_REPEATS", 3, "how many times the whole grid runs (at least 3 for a published map: each "
                        "cell's spread shows); a cell whose repeats then differ by more than "
                        "the map report's `SPREAD_LIMIT` of their median is repeated again")


def main(argv):
    """benchkit latency-map-verdicts LATENCY_MAP_JSON: judge a map already measured (see verdicts); exit 1 when one
    does not hold."""
    found = verdicts(json.loads(pathlib.Path(argv[0]).read_text()))
    for sentence, holds in sorted(found, key=lambda verdict: not verdict[1]):  # what does not hold last, seen first
        print(f"{'holds' if holds else 'does not hold'}: {sentence}")
    raise SystemExit(0 if all(holds for _, holds in found) else 1)


def run(platform, spec, directory):
    """The map: latency-map.json, latency-map.md and .html. SWEEP: every build with what that sweep chose."""
    chosen, sweep = {}, None
    if knobs.value("SWEEP"):
        sweep = json.loads((knobs.value("SWEEP") / "sweep.json").read_text())
        chosen, properties = tuned(sweep)
        TUNED.update(properties)
    (directory / "runs").mkdir(parents=True, exist_ok=True)
    if chosen and not platform.reroutes:
        raise SystemExit(f"{platform.where}: the builds run as deployed; deploy a sweep's values instead (VALUES=…)")
    missing = platform.behind_proxy(platform.versions)
    if missing:
        raise SystemExit(f"{platform.where}: {missing}")
    proxy = platform.latency()
    try:
        run_map(platform, proxy, spec, platform.versions, directory, chosen, sweep)
    finally:
        platform.close()  # a build restarted behind the proxy, restarted as it was
    return directory / "latency-map.json"


def behind_the_proxy(platform, versions, chosen):
    """Every build's services restarted behind the latency proxy where they are not, or with what a sweep chose."""
    for version in versions:
        if not platform.through_proxy(version) or chosen.get(version):
            info(f"{version}: restarting its services behind the latency proxy"
                 + (" with the values its sweep chose" if chosen.get(version) else ""))
            platform.reconfigure(version, {service: {**chosen.get(version, {}).get(service, {}), "LATENCY_PROXY": "on"}
                                           for service in SERVICES})


def map_document(environment, duration, rows, loads, versions, sweep):
    """The map's document before its first cell: its grid, the builds' pools, the rule and their predictions."""
    return {"schema": SCHEMA, "commit": environment["git_commit"], "timestamp": environment["timestamp"],
            "where": environment["where"], "environment": environment, "duration": duration,
            "rows": [dataclasses.asdict(row) for row in rows], "loads": [dataclasses.asdict(load) for load in loads],
            "pools": {version: pools(version) for version in versions}, "rule": rule(),
            "tuned": {version: TUNED.get(version, {}) for version in versions},
            "sweep": sweep_kept(sweep) if sweep else None,
            "predicted": {version: [predicted_ceiling(version, row) for row in rows] for version in versions},
            "own": {}, "checks": {version: [] for version in versions}, "cells": {version: [] for version in versions}}


def proxy_own(platform, versions, document):
    """{(hop, proxy address): ms} the proxy itself adds on each hop with no latency set, for the checks' tolerance;
    each check kept in the document's "own"."""
    own = {}
    for version in versions:
        document["own"][version] = []
        for hop in latency.HOPS:
            for (via, direct) in platform.hop_addresses(version, hop):
                found = latency.check_hop(latency.Setting(hop, 0), via, direct)
                own[(hop, via)] = found["added_ms"]
                document["own"][version].append(found)
        info(f"{version}: the proxy itself adds " + ", ".join(f"{c['hop']} {c['added_ms']:+.2f} ms"
                                                             for c in document["own"][version]))
    return own


def run_map(platform, proxy, spec, versions, directory, chosen=None, sweep=None):
    """chosen: {version: {service: {variable: value}}}, what a sweep chose (else each build as it ships); sweep: that
    sweep's sweep.json, whose candidates the map keeps (the choice, as data beside the map it made)."""
    chosen = chosen or {}
    runs_dir = directory / "runs"
    (rows, loads), duration, repeats = grid(spec), spec.duration, spec.repeats
    behind_the_proxy(platform, versions, chosen)
    builds = {version: platform.build(version) for version in versions}
    environment = platform.environment(f"{platform.where}, behind the latency proxy", repeats, True)
    for version in versions:
        proxy.clear(version)
    environment["warmup"] = {version: warm_up(version, build, runs_dir) for version, build in builds.items()}
    environment["background_cpu_per_s"] = background(builds)
    document = map_document(environment, duration, rows, loads, versions, sweep)
    own = proxy_own(platform, versions, document)
    started = time.monotonic()
    planned = {(index, position) for index in range(len(rows)) for position in range(len(loads))}
    total = repeats * len(planned) * len(versions)
    progress = {"done": 0}

    def measure_repeat(repeat, wanted):
        """One repeat of the cells wanted ((row, load) pairs): each row's latency set and checked, then its loads,
        every build in turn, their order turned round from one load to the next."""
        for index, row in enumerate(rows):
            positions = [position for position in range(len(loads)) if (index, position) in wanted]
            if not positions:
                continue
            for version in versions:
                proxy.clear(version)
                proxy.set(version, row)
                checks = check(platform, version, row, own)
                document["checks"][version].append({"repeat": repeat, "row": index, "hops": checks})
                info(f"{version}, {row.label}: observed +" + ", +".join(f"{c['added_ms']:.1f} ms" for c in checks)
                     + ("" if all(c["ok"] for c in checks) else " — NOT the setting"))
            for position in positions:
                load = loads[position]
                for version in order(versions, position + index + repeat):
                    progress["done"] += 1
                    step(f"{version}: {row.label}, {load.model} {load.label} for {duration}, repeat {repeat} "
                         f"(cell {progress['done']}/{total}, {time.monotonic() - started:.0f} s so far)")
                    document["cells"][version].append({"row": index, "load": position,
                                                       **cell(builds[version], row, load, runs_dir, repeat, duration)})
                    (directory / "latency-map.json").write_text(json.dumps(document, indent=2))

    for repeat in range(1, repeats + 1):
        measure_repeat(repeat, planned)
    # A cell whose repeats disagree by more than SPREAD_LIMIT is repeated again, up to EXTRA_REPEATS more times.
    for extra in range(1, EXTRA_REPEATS + 1 if repeats > 1 else 1):
        wide = unsettled(document)
        if not wide:
            break
        total += len(wide) * len(versions)
        info(f"repeat {repeats + extra}: {len(wide)} cell(s) whose repeats differ by more than {SPREAD_LIMIT:.0%}")
        measure_repeat(repeats + extra, wide)
    document["unsettled"] = sorted(unsettled(document))
    for version in versions:
        proxy.clear(version)
    (directory / "latency-map.json").write_text(json.dumps(document, indent=2))
    info(f"the map: {latencyreport.render(directory)} (and .html)")
    return directory


def publish_latency_map(document, name, directory=SUMMARIES):
    """A latency map (latency-map.json) as docs/results/<name>.json: its grid, checks, predictions and cells, each
    cell without its per-process CPU seconds; every figure the docs show of it is computed from its cells."""
    data = checked(document, SCHEMA, predictions_problems)  # its ratios are computed here, from its cells
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


def map_consistency(summary):
    """Where a latency map's ratios are not what its cells give, or its predictions not what its pools give."""
    return ([] if summary.get("ratios") == latencyreport.ratio_grid(summary) else
            ["ratios: not what its cells give (the medians over the repeats, each build over v1)"]) \
        + predictions_problems(summary)




def map_table(version):
    return lambda summary: latencyreport.ratio_rows(summary, version)


def map_chart(version, kind):
    return lambda summary: latencyreport.heat_map(summary, version, kind)


KIND = Kind("latency-map", SCHEMA, SCHEMA, ("latency-map.json",), publish_latency_map, map_consistency,
            {**{f"map-{version}": map_table(version) for version in VERSIONS if version != BASELINE},
             "map-ceilings": lambda summary: latencyreport.prediction_rows(summary, latencyreport.medians(summary)),
             "map-sweep": latencyreport.sweep_rows, "map-proxy": latencyreport.proxy_rows,
             "map-spread": latencyreport.spread_rows},
            {f"map-{version}-{kind}": map_chart(version, kind) for version in VERSIONS if version != BASELINE
             for kind in latencyreport.HEAT_MAPS})
