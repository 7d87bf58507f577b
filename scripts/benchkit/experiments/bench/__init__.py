"""The measured runs (make demo, make bench): every scenario in rounds, then the report.

The same warm-up for every build, then each scenario RUNS times, one build at a time, in an order drawn at random and reversed in the round after; the open model's rate follows what the closed
runs measured here unless RATE is given. Each run records its per-request samples and their summary, what every process of the build used, and the downstream calls the
services themselves counted: results/<time>/runs/<version>-<scenario>-<run>.json and .cost.json, which
its report renders (publish.bench). On the local stack (make demo) or the deployed builds (make bench)."""
import dataclasses
import json
import os
import shutil
import statistics

from benchkit import info, step
from benchkit.core.experiment import Measures
from benchkit.core import cells, curve, design, knobs, profile
from benchkit.core.design import Design
from benchkit.core.knobs import knob, numbers
from benchkit.core.protocol import background, measure, warm_up
from benchkit.experiments.bench import document as rundoc
from benchkit.schemas.bench import DESIGN, TITLE


def open_rate(closed_rates):
    """The open model's arrival rate when RATE is not given: 80 % of what the slowest build sustained
    (complete answers per second, median of its closed runs) on this machine, in this bench, so that
    every build can carry it and latency is compared at the same load. None without closed runs."""
    if not closed_rates:
        return None
    slowest = min(statistics.median(rates) for rates in closed_rates.values())
    return max(10, int(0.8 * slowest / 10) * 10)


def run_curve(spec, session, versions, closed_rates, environment, results):
    """The open model at each rate of the ladder (CURVE_SHARES of the fastest build's closed-model maximum, default
    curve.SHARES), each step CURVE_STEP_DURATION long, as a design of the core's: a step is a mode, every build at
    each step in an order drawn at random (reversed in the round after), the whole ladder a round, CURVE_REPEATS of
    them (knobs.py), so that a knee rests on every repeat of its step, not on one."""
    if not closed_rates:
        raise SystemExit("the curve's rates follow the closed model's maximum: run it after closed (SCENARIOS=closed,curve)")
    fastest = max(statistics.median(rates) for rates in closed_rates.values())
    rates = curve.ladder(fastest, spec.curve_shares)
    duration, repeats = spec.curve_step_duration, spec.curve_repeats
    environment["curve"] = {"fastest_closed_complete_per_s": round(fastest, 1), "rates": rates, "step": duration,
                            "repeats": repeats}
    (results / "environment.json").write_text(json.dumps(environment, indent=2))

    def step_phase(build, runs_dir, round_, variant, label, facts):
        rate = curve.rate_of(variant.mode)
        measure(build, "open", runs_dir, round_, {"RATE": rate, "DURATION": duration, "MAX_USERS": max(200, rate)},
                facts, variant.mode)
        return {}
    ladder = dataclasses.replace(session.design, modes={curve.label(rate): {} for rate in rates}, phases=(step_phase,))
    design.measure_rounds(dataclasses.replace(session, design=ladder),
                          [(version, design.Variant(curve.label(rate))) for rate in rates for version in versions], 0,
                          range(1, repeats + 1))


# A hop alone: the closed model against one downstream service of the build, to tell data access from
# the fan-out (load scenario, target service).
HOPS = {"articles-alone": ("closed", "articles"), "authors-alone": ("closed", "authors")}


def load_scenario_and_target(scenario):
    """The load scenario (load/scenarios.json) a bench scenario runs, and the service of the build it loads. The profile
    and the curve's steps load web-api too (closed, open)."""
    if scenario in HOPS:
        return HOPS[scenario]
    if scenario == "profile":
        return "closed", "web-api"
    return ("open" if scenario == "curve" or curve.rate_of(scenario) else scenario), "web-api"


@dataclasses.dataclass(frozen=True)
class Spec:
    scenarios: tuple = knob("SCENARIOS", ("closed", "open", "curve", "articles-alone", "authors-alone", "profile"),
                            "what to measure (also `smoke`); `curve` needs `closed` before it", numbers(str))
    curve_shares: tuple = knob("CURVE_SHARES", curve.SHARES, "the curve's ladder: its rates as shares of the fastest "
                               "build's closed-model maximum (e.g. `0.25,1.0` for a short test)", numbers(float))
    curve_step_duration: str = knob("CURVE_STEP_DURATION", "20s", "each step of the latency-versus-load curve")
    curve_repeats: int = knob("CURVE_REPEATS", 2, "how many times the curve's whole ladder runs; a build's knee is "
                              "the highest rate it carried in every repeat")
    no_warmup: bool = knob("NO_WARMUP", False, "skip the warm-up (a smoke run only: every figure of a cold JVM is the "
                           "JIT's)")


def scenario_phase(closed_rates, settings):
    """A bench scenario's run of a build in a round, as the scenarios' design measures it: the scenario's own load at
    its target (its settings: the open model's rate), the closed model's rates kept for the open model and the
    curve."""
    def measured(build, runs_dir, round_, variant, label, facts):
        load_scenario, target = load_scenario_and_target(variant.mode)
        figures = measure(build, load_scenario, runs_dir, round_, settings.get(variant.mode), facts, variant.mode,
                          target)
        if variant.mode == "closed":
            closed_rates.setdefault(build.version, []).append(figures["ok_rps"])
        return {key: figures[key] for key in ("ok_rps", "p50", "p99")}
    return measured


def run(platform, spec, directory):
    """Every scenario of the spec, each RUNS times, then the report (bench.json, report.md, report.html); exits 1
    when the builds did not do the same work. The scenarios are one design's modes, measured one after the other
    by the core's rounds, every build warmed once before the first."""
    runs = knobs.value("RUNS")
    versions = platform.versions
    runs_dir = directory / "runs"
    runs_dir.mkdir(parents=True, exist_ok=True)
    builds = {version: platform.build(version) for version in versions}
    environment = platform.environment(platform.where, runs, not spec.no_warmup)
    (directory / "environment.json").write_text(json.dumps(environment, indent=2))
    closed_rates, settings = {}, {}
    scenarios = Design(DESIGN, TITLE, __doc__, tuple(versions),
                       {s: {} for s in spec.scenarios if s not in ("curve", "profile")}, compared=cells.BUILD,
                       restart=design.AS_RUNNING, phases=(scenario_phase(closed_rates, settings),))
    try:
        if not spec.no_warmup:
            environment["warmup"] = {version: warm_up(version, build, runs_dir) for version, build in builds.items()}
        # After the warm-up: the threads a JVM starts on demand (carriers, compiler and GC threads) exist by now.
        environment["ergonomics"] = {version: build.ergonomics() for version, build in builds.items()}
        environment["background_cpu_per_s"] = background(builds)
        (directory / "environment.json").write_text(json.dumps(environment, indent=2))
        running = {version: (build, environment.get("warmup", {}).get(version, {"settled": None}),
                             environment["background_cpu_per_s"][version]) for version, build in builds.items()}
        session = design.Session(platform, scenarios, runs_dir, keep=lambda *_: None, running=running)
        for scenario in spec.scenarios:
            if scenario == "curve":
                run_curve(spec, session, versions, closed_rates, environment, directory)
                continue
            if scenario == "profile":
                step("Profiles: JFR in every service during one more closed run per build (not measured)")
                if profile.record(builds, versions, directory) is None:
                    info("not profiled: this platform's JVMs are not reachable with jcmd")
                continue
            rate = open_rate(closed_rates) if scenario == "open" and "RATE" not in os.environ else None
            if rate:
                settings["open"] = {"RATE": rate}
                environment["open_rate"] = f"{rate}/s: 80 % of the slowest build's closed-model complete answers/s"
                (directory / "environment.json").write_text(json.dumps(environment, indent=2))
                info(f"the open model at {rate} requests/s")
            design.measure_rounds(session, [(v, design.Variant(scenario)) for v in versions], 0, range(1, runs + 1))
    finally:
        for build in builds.values():
            build.close()
    sweep = knobs.value("SWEEP")  # the sweep that chose the builds' settings goes into the report
    if sweep:
        shutil.copy(sweep / "sweep.json", directory)
    rundoc.write(directory)  # the cell document, from what the runs kept (its report: publish.bench)
    return directory / rundoc.FILE


def measures_floor(spec):  # make demo and make bench measure the floor (v0) beside the builds, where it runs
    return True


MEASURES = Measures(Spec, run, floor=measures_floor)
