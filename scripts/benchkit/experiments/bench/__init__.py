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

from benchkit import info
from benchkit.core.experiment import Measures
from benchkit.core import cells, curve, design, knobs, profile
from benchkit.core.design import Design
from benchkit.core.knobs import knob, numbers
from benchkit.core.load import Lengths
from benchkit.core.protocol import measure
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


def curve_of(spec, versions, closed_rates, environment, directory, lengths):
    """The curve's Design: the open model at each rate of the ladder (CURVE_SHARES of the fastest build's closed-model
    maximum, default curve.SHARES), each step CURVE_STEP_DURATION long, on the builds as the scenarios left them warm:
    a step is a mode, every build at each step in an order drawn at random (reversed in the round after),
    the whole ladder a round, CURVE_REPEATS of them (knobs.py), so that a knee rests on every repeat of its step."""
    if not closed_rates:
        raise SystemExit("the curve's rates follow the closed model's maximum: run it after closed (SCENARIOS=closed,curve)")
    fastest = max(statistics.median(rates) for rates in closed_rates.values())
    rates = curve.ladder(fastest, spec.curve_shares)
    duration, repeats = spec.curve_step_duration, spec.curve_repeats
    environment["curve"] = {"fastest_closed_complete_per_s": round(fastest, 1), "rates": rates, "step": duration,
                            "repeats": repeats}
    (directory / "environment.json").write_text(json.dumps(environment, indent=2))

    def step_phase(build, runs_dir, round_, variant, label, facts):
        rate = curve.rate_of(variant.mode)
        measure(build, "open", runs_dir, round_, {"RATE": rate, "DURATION": duration, "MAX_USERS": max(200, rate)},
                facts, variant.mode)
        return {}
    return Design(f"{DESIGN}-curve", "The latency-versus-load curve", curve_of.__doc__, versions,
                  {curve.label(rate): {} for rate in rates}, compared=cells.BUILD, restart=design.AS_RUNNING,
                  phases=(step_phase,), rounds=repeats, lengths=lengths)


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
    # make test profiles v3 alone: the check it runs on a profile, no carrier pinned, concerns virtual threads
    profiled: tuple = knob("PROFILE_VERSIONS", (), "the builds the profile records, of those run (default: every one)",
                           numbers(str))


def scenario_phase(closed_rates, settings, opened):
    """A bench scenario's run of a build in a round, as the scenarios' design measures it: the scenario's own load at
    its target (its settings: the open model's rate, which opened() sets before its first run), the closed model's
    rates kept for the open model and the curve."""
    def measured(build, runs_dir, round_, variant, label, facts):
        load_scenario, target = load_scenario_and_target(variant.mode)
        if variant.mode == "open" and "open" not in settings:
            opened()
        figures = measure(build, load_scenario, runs_dir, round_, settings.get(variant.mode), facts, variant.mode,
                          target)
        if variant.mode == "closed":
            closed_rates.setdefault(build.version, []).append(figures["ok_rps"])
        return {key: figures[key] for key in ("ok_rps", "p50", "p99")}
    return measured


def profiled(directory):
    """The profile's phase: JFR in every service of a build during one more closed run (not measured)."""
    def recorded(build, runs_dir, round_, variant, label, facts):
        if profile.record(build, directory) is None:
            info(f"{build.version} not profiled: this platform's JVMs are not reachable with jcmd")
        return {}
    return recorded


def run(platform, spec, directory):
    """Every scenario of the spec, each RUNS times, then the report (bench.json, report.md, report.html); exits 1
    when the builds did not do the same work. The scenarios are one design's modes, each one's rounds before the
    next's (Design.in_turn), on every build as it runs, warmed once before the first; the curve and the profile are
    designs of their own after them, on the builds as they left them warm."""
    versions = tuple(platform.versions)
    environment = platform.environment(platform.where, knobs.value("RUNS"), not spec.no_warmup)
    directory.mkdir(parents=True, exist_ok=True)

    def written():
        (directory / "environment.json").write_text(json.dumps(environment, indent=2))
    written()
    closed_rates, settings, running = {}, {}, {}

    def opened():  # the open model's rate, once the closed model's rounds are all measured
        rate = open_rate(closed_rates) if "RATE" not in os.environ else None
        settings["open"] = {"RATE": rate} if rate else {}
        if rate:
            environment["open_rate"] = f"{rate}/s: 80 % of the slowest build's closed-model complete answers/s"
            written()
            info(f"the open model at {rate} requests/s")
    lengths = Lengths(warmup=0) if spec.no_warmup else Lengths()  # a smoke run's cold JVMs
    # each build's, as it is warmed (the platform's own "warmup" says only whether the builds are: it stays with none)
    environment.update(ergonomics={}, background_cpu_per_s={}, **({} if spec.no_warmup else {"warmup": {}}))
    modes = {s: {} for s in spec.scenarios if s not in ("curve", "profile")}
    designs = []
    if modes:
        designs.append(Design(DESIGN, TITLE, __doc__, versions, modes, compared=cells.BUILD, restart=design.AS_RUNNING,
                              in_turn=True, lengths=lengths, phases=(scenario_phase(closed_rates, settings, opened),)))
    if "curve" in spec.scenarios:  # its rates follow the closed model's: its Design is made once they are known
        designs.append(lambda: curve_of(spec, versions, closed_rates, environment, directory, lengths))
    if "profile" in spec.scenarios:
        if unknown := set(spec.profiled) - set(versions):
            raise SystemExit(f"PROFILE_VERSIONS names {', '.join(sorted(unknown))}, which this run does not run "
                             f"({', '.join(versions)})")
        designs.append(Design(f"{DESIGN}-profile", "Profiles: JFR in every service during one more closed run per "
                              "build (not measured)", "", spec.profiled or versions, {"profile": {}}, compared=cells.BUILD,
                              restart=design.AS_RUNNING, rounds=1, phases=(profiled(directory),), lengths=lengths))
    try:
        for made in designs:
            design.run(platform, made() if callable(made) else made, directory, leave=False, running=running)
            # what each build's warm-up found, its background and what its JVM chose then, as the report shows them
            for version, (it, warm, idle) in running.items():
                if version not in environment["ergonomics"]:
                    environment["ergonomics"][version] = it.ergonomics()
                    environment["background_cpu_per_s"][version] = idle
                    if not spec.no_warmup:
                        environment["warmup"][version] = warm
            written()
    finally:
        for it, *_ in running.values():
            it.close()
    sweep = knobs.value("SWEEP")  # the sweep that chose the builds' settings goes into the report
    if sweep:
        shutil.copy(sweep / "sweep.json", directory)
    rundoc.write(directory)  # the cell document, from what the runs kept (its report: publish.bench)
    return directory / rundoc.FILE


def measures_floor(spec):  # make demo and make bench measure the floor (v0) beside the builds, where it runs
    return True


MEASURES = Measures(Spec, run, floor=measures_floor)
