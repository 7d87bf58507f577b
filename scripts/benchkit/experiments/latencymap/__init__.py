"""The latency map (make latency-map, make latency-map-cluster): every build over downstream latency × load.

Every build over a grid of latency added to a downstream hop (latency.py: Toxiproxy, the same for every build, outside the code under test) × load (the open
model at a ladder of rates, the closed model at several numbers of users). Each row of the grid is one latency
setting on one hop; at each row, the latency is checked where it is set (the hop's round trip rises by the
setting), then every load runs against every build in turn, in an order drawn at random, reversed for the next.
Each cell keeps complete answers/s, the latency of complete answers, degraded, shed, failed and unsent answers,
and what the build held meanwhile (platform threads and connections to its downstream at their peak, peak RSS).
Beside the measurement, each build's ceiling at each row as Little's law predicts it from its pool sizes.

The local stack must be up with its latency proxy; a build whose services do not go through it yet is restarted
behind it (LATENCY_PROXY=on) and restarted as it was at the end (make latency-map starts the stack behind it).
Writes latency-map.json, the cell document (core.cells) every design writes, with the grid, the checks and the
predictions beside its cells; publish.latencymap renders it.

Its grid (rows and columns) and how long a cell is loaded are its Spec, its rounds RUNS; a cell whose rounds differ by
more than SPREAD_LIMIT is measured again, up to EXTRA_REPEATS more times."""
import dataclasses
import json
import threading

from benchkit import SERVICES, info
from benchkit.core.experiment import Measures
from benchkit.core import delays, design, knobs, latency
from benchkit.core.cells import BUILD
from benchkit.core.design import AS_RUNNING, Design
from benchkit.core.knobs import knob, numbers
from benchkit.core.load import Lengths
from benchkit.experiments.latencymap.ceilings import predicted_ceiling, pools, rule, sweep_kept, tuned
from benchkit.schemas.latencymap import EXTRA_REPEATS, as_grid, ratio_grid, unsettled
from benchkit.core.plugins import LatencyProxy
from benchkit.core.protocol import measure


# its builds warmed once, as they run, before the first cell; its cells' loads are its own (cell)
LENGTHS = Lengths(warmup=300)


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
    """The rows (delays.Setting) and the loads (Load) of the map's spec."""
    jitter = knobs.value("LATENCY_JITTER")
    rows = [delays.Setting("authors", ms, round(ms * jitter)) for ms in spec.authors_ms]
    rows += [delays.Setting("database", ms, round(ms * jitter)) for ms in spec.database_ms]
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


def mode_name(row, load):
    """A cell's mode: its row and its load ("authors +50 ms · open 1000"), as a marker selects it (_ for a space)."""
    return f"{row.hop} +{row.ms:g} ms · {load.model} {load.value}"


def cell(build, row, load, runs_dir, repeat, duration):
    """One cell's figures in one round: its load on the build behind the row's latency, the build's peaks meanwhile,
    and the CPU of the latency proxy and of the whole system."""
    scenario, settings = load.settings(duration)
    label = f"map-{row.hop}-{row.ms:g}ms-{load.model}-{load.value}"
    with Peaks(build) as peaks:
        figures = measure(build, scenario, runs_dir, repeat, settings, label=label)
    cost = figures["cost"]
    memory = {service: next(iter(values.values()), None) for service, values in (cost["memory_mib"] or {}).items()}
    return {"complete_per_s": round(figures["ok_rps"], 1), "requests": figures["requests"],
            "p50": figures["p50"] if figures["complete"] else None, "p99": figures["p99"] if figures["complete"] else None,
            "fastest": figures["fastest"] if figures["complete"] else None,
            "degraded": figures["degraded"], "shed": figures["shed"], "failed": figures["failed"],
            "unsent": figures["dropped"], "peaks": peaks.figures(), "peak_rss_mib": memory,
            "cpu_seconds": {"proxy": cost["cpu_seconds"].get("proxy"),
                            "system": round(sum(cost["cpu_seconds"].values()), 3)}}


def check(platform, version, row, own):
    """The hop's latency observed against the setting, on each of its proxies (own: the proxy's own cost at 0)."""
    return [latency.check_hop(row, via, direct, proxy_own_ms=own.get((row.hop, via)))
            for via, direct in platform.plugin(LatencyProxy).hop_addresses(version, row.hop)]


@dataclasses.dataclass(frozen=True)
class Spec:
    authors_ms: tuple = knob("LATENCY_AUTHORS_MS", (0.0, 1.0, 5.0, 20.0, 50.0), "latency per author look-up, ms: the "
                             "rows of the authors hop", numbers(float))
    database_ms: tuple = knob("LATENCY_DATABASE_MS", (5.0,), "latency per query, ms: the slow-database rows",
                              numbers(float))
    rates: tuple = knob("MAP_RATES", (250, 500, 1000), "the open model's columns, requests/s", numbers(int))
    users: tuple = knob("MAP_USERS", (100, 400, 1000), "the closed model's columns, users", numbers(int))
    duration: str = knob("MAP_STEP_DURATION", "10s", "how long each cell is loaded (the rounds: RUNS, at least 3 for "
                         "a published map; a cell whose rounds then differ by more than the map report's "
                         "`SPREAD_LIMIT` of their median is measured again)")


def run(platform, spec, directory):
    """The map: latency-map.json, latency-map.md and .html. SWEEP: every build with what that sweep chose."""
    chosen, properties, sweep = {}, {}, None
    if knobs.value("SWEEP"):
        sweep = json.loads((knobs.value("SWEEP") / "sweep.json").read_text())
        chosen, properties = tuned(sweep)
    (directory / "runs").mkdir(parents=True, exist_ok=True)
    if chosen and not platform.reroutes:
        raise SystemExit(f"{platform.where}: the builds run as deployed; deploy a sweep's values instead (VALUES=…)")
    proxies = platform.plugin(LatencyProxy)
    missing = proxies.behind_proxy(platform.versions)
    if missing:
        raise SystemExit(f"{platform.where}: {missing}")
    proxy = proxies.latency()
    try:
        run_map(platform, proxy, spec, platform.versions, directory, chosen, sweep, properties)
    finally:
        platform.close()  # a build restarted behind the proxy, restarted as it was
    return directory / "latency-map.json"


def behind_the_proxy(platform, version, chosen):
    """A build's services restarted behind the latency proxy where they are not, or with what a sweep chose."""
    if not platform.plugin(LatencyProxy).through_proxy(version) or chosen.get(version):
        info(f"{version}: restarting its services behind the latency proxy"
             + (" with the values its sweep chose" if chosen.get(version) else ""))
        platform.reconfigure(version, {service: {**chosen.get(version, {}).get(service, {}), "LATENCY_PROXY": "on"}
                                       for service in SERVICES})


def proxy_own(platform, version):
    """{(hop, proxy address): ms} the proxy itself adds on each hop of a build with no latency set, for the checks'
    tolerance, and [each check] for the map's document."""
    own, kept = {}, []
    for hop in latency.HOPS:
        for (via, direct) in platform.plugin(LatencyProxy).hop_addresses(version, hop):
            found = latency.check_hop(delays.Setting(hop, 0), via, direct)
            own[(hop, via)] = found["added_ms"]
            kept.append(found)
    info(f"{version}: the proxy itself adds " + ", ".join(f"{c['hop']} {c['added_ms']:+.2f} ms" for c in kept))
    return own, kept


EXPLANATION = ("Each build behind the same latency proxy, the latency of one hop at a time added (each row), each load "
               "for the same duration (each column), the builds in turn; a cell is a build at a row and a load, "
               "measured in rounds (the whole grid again), and a cell whose rounds disagree is measured again.")


def run_map(platform, proxy, spec, versions, directory, chosen=None, sweep=None, properties=None):
    """The map as a Design (core.design) on the builds as they run behind the proxy: a mode per row and load, its
    phase a load of the row's latency for the step's duration; the row's latency set on each build's proxies and
    checked before its first cell of the row. chosen: {version: {service: {variable: value}}}, what a sweep chose
    (else each build as it ships); sweep: that sweep's sweep.json, whose candidates the map keeps; properties:
    {version: {property: value}}, the same choice as the pools' bounds read it (ceilings.tuned)."""
    chosen, properties = chosen or {}, properties or {}
    (rows, loads), duration = grid(spec), spec.duration
    own, kept = {}, {}
    at = {mode_name(row, load): (index, position) for index, row in enumerate(rows)
          for position, load in enumerate(loads)}
    checks, current = {version: [] for version in versions}, {}

    def arrange(build, variant, round_):
        if round_ == 0:  # before the build is warmed: behind the proxy, and what the proxy itself adds on its hops
            behind_the_proxy(platform, build, chosen)
            proxy.clear(build)
            found_own, kept[build] = proxy_own(platform, build)
            own.update(found_own)
            return
        index = at[variant.mode][0]
        if current.get(build) != (index, round_):  # each row set and checked again in every round
            proxy.clear(build)
            proxy.set(build, rows[index])
            found = check(platform, build, rows[index], own)
            checks[build].append({"repeat": round_, "row": index, "hops": found})
            info(f"{build}, {rows[index].label}: observed +" + ", +".join(f"{c['added_ms']:.1f} ms" for c in found)
                 + ("" if all(c["ok"] for c in found) else " — NOT the setting"))
            current[build] = (index, round_)

    def loaded(build, runs_dir, round_, variant, label, facts):
        index, position = at[variant.mode]
        return cell(build, rows[index], loads[position], runs_dir, round_, duration)

    the_map = Design("latency-map", "When the services wait", EXPLANATION, tuple(versions), {mode: {} for mode in at},
                     compared=BUILD, phases=(loaded,), restart=AS_RUNNING, arrange=arrange, again=unsettled,
                     extra_rounds=EXTRA_REPEATS, lengths=LENGTHS, quiet=False)
    extra = {"duration": duration, "rows": [dataclasses.asdict(row) for row in rows],
             "loads": [dataclasses.asdict(load) for load in loads], "grid": {mode: list(i) for mode, i in at.items()},
             "pools": {version: pools(version, properties) for version in versions}, "rule": rule(),
             "tuned": {version: properties.get(version, {}) for version in versions},
             "sweep": sweep_kept(sweep) if sweep else None,
             "predicted": {version: [predicted_ceiling(version, row, properties) for row in rows]
                           for version in versions},
             "own": kept, "checks": checks}
    try:
        document = design.run(platform, the_map, directory, extra)
    finally:
        for version in versions:
            proxy.clear(version)
    document["unsettled"] = sorted(at[mode] for mode in unsettled(document))
    document["ratios"] = ratio_grid(as_grid(document))
    (directory / "latency-map.json").write_text(json.dumps(document, indent=2))
    return directory


MEASURES = Measures(Spec, run, needs=(LatencyProxy,), lengths=LENGTHS)
