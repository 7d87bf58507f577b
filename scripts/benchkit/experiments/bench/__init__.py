"""The measured runs: the same warm-up for every build, then each scenario RUNS times, one build at a
time, the builds' order turned round every other round; the open model's rate follows what the closed
runs measured here unless RATE is given. Each run records its per-request samples and their summary, what every process of the build used, and the downstream calls the
services themselves counted: results/<time>/runs/<version>-<scenario>-<run>.json and .cost.json, which
`python -m benchkit report` renders. The local stack must be up (scripts/stack.sh up), or, with
--kubernetes, the builds deployed (make deploy-v1, make deploy-v2)."""
import argparse
import json
import os
import pathlib
import statistics

from benchkit import VERSIONS, info, step
from benchkit.core import curve, knobs, platforms, profile
from benchkit.core.protocol import HOPS, background, measure, order, warm_up


# What make bench runs unless SCENARIOS says otherwise.
DEFAULT_SCENARIOS = tuple(knobs.BY_NAME["SCENARIOS"].default.split(","))


def open_rate(closed_rates):
    """The open model's arrival rate when RATE is not given: 80 % of what the slowest build sustained
    (complete answers per second, median of its closed runs) on this machine, in this bench, so that
    every build can carry it and latency is compared at the same load. None without closed runs."""
    if not closed_rates:
        return None
    slowest = min(statistics.median(rates) for rates in closed_rates.values())
    return max(10, int(0.8 * slowest / 10) * 10)


def run_curve(builds, versions, closed_rates, runs_dir, environment, results):
    """The open model at each rate of the ladder (CURVE_SHARES of the fastest build's closed-model maximum, default
    curve.SHARES), every build at each step (their order turned round every other step), each step
    CURVE_STEP_DURATION long; the whole ladder CURVE_REPEATS times (knobs.py), so that a knee rests on
    every repeat of its step, not on one."""
    if not closed_rates:
        raise SystemExit("the curve's rates follow the closed model's maximum: run it after closed (SCENARIOS=closed,curve)")
    fastest = max(statistics.median(rates) for rates in closed_rates.values())
    shares = knobs.value("CURVE_SHARES")
    rates = curve.ladder(fastest, tuple(float(s) for s in shares.split(",")) if shares else curve.SHARES)
    duration, repeats = knobs.value("CURVE_STEP_DURATION"), knobs.value("CURVE_REPEATS")
    environment["curve"] = {"fastest_closed_complete_per_s": round(fastest, 1), "rates": rates, "step": duration,
                            "repeats": repeats}
    (results / "environment.json").write_text(json.dumps(environment, indent=2))
    for repeat in range(1, repeats + 1):
        for index, rate in enumerate(rates, start=1):
            for version in order(versions, index + repeat - 1):
                step(f"{version}: curve step {index}/{len(rates)}, repeat {repeat}/{repeats}, {rate} requests/s "
                     f"for {duration}")
                measure(builds[version], curve.label(rate), runs_dir, repeat,
                        {"RATE": rate, "DURATION": duration, "MAX_USERS": max(200, rate)})


def main(argv=None):
    parser = argparse.ArgumentParser(prog="benchkit bench", description=__doc__.splitlines()[0])
    parser.add_argument("--results", type=pathlib.Path, required=True)
    parser.add_argument("--versions", default=",".join(VERSIONS))
    parser.add_argument("--scenarios", default=knobs.value("SCENARIOS"),
                        help="closed, open, curve (the latency-versus-load ladder, after closed), smoke, the "
                             "hops alone: " + ", ".join(HOPS) + ", and profile (JFR during one more closed run)")
    parser.add_argument("--profile-iterations", type=int, default=knobs.value("PROFILE_ITERATIONS"),
                        help="requests per user of the profiled run")
    parser.add_argument("--runs", type=int, default=knobs.value("RUNS"))
    parser.add_argument("--no-warmup", action="store_true", help="skip the warm-up (smoke runs only)")
    parser.add_argument("--loadgen", default=knobs.value("LOADGEN"))
    parser.add_argument("--where", default="local stack (one machine, loopback)")
    parser.add_argument("--kubernetes", metavar="NAMESPACE", help="run the load generator as Jobs in this namespace instead")
    args = parser.parse_args(argv)

    runs_dir = args.results / "runs"
    runs_dir.mkdir(parents=True, exist_ok=True)
    versions = args.versions.split(",")
    platform = platforms.select(args.kubernetes, args.loadgen, versions)
    builds = {version: platform.build(version) for version in versions}
    environment = platform.environment(args.where, args.runs, not args.no_warmup)
    (args.results / "environment.json").write_text(json.dumps(environment, indent=2))

    closed_rates = {}
    try:
        if not args.no_warmup:
            environment["warmup"] = {version: warm_up(version, build, runs_dir) for version, build in builds.items()}
        # After the warm-up: the threads a JVM starts on demand (carriers, compiler and GC threads) exist by now.
        environment["ergonomics"] = {version: build.ergonomics() for version, build in builds.items()}
        environment["background_cpu_per_s"] = background(builds)
        (args.results / "environment.json").write_text(json.dumps(environment, indent=2))
        for scenario in args.scenarios.split(","):
            if scenario == "curve":
                run_curve(builds, versions, closed_rates, runs_dir, environment, args.results)
                continue
            if scenario == "profile":
                step("Profiles: JFR in every service during one more closed run per build (not measured)")
                if profile.record(builds, versions, args.results, args.profile_iterations) is None:
                    info("not profiled: this platform's JVMs are not reachable with jcmd")
                continue
            settings = {}
            if scenario == "open" and "RATE" not in os.environ:
                rate = open_rate(closed_rates)
                if rate:
                    settings["RATE"] = rate
                    environment["open_rate"] = f"{rate}/s: 80 % of the slowest build's closed-model complete answers/s"
                    (args.results / "environment.json").write_text(json.dumps(environment, indent=2))
            for run in range(1, args.runs + 1):
                seconds = platform.calibrate()
                info(f"round {run}: the calibration job took {seconds:.2f} s ({platform.calibrated})")
                for position, version in enumerate(order(versions, run)):
                    step(f"{version}: {scenario} run {run}/{args.runs}" +
                         (f" at {settings['RATE']} requests/s" if "RATE" in settings else ""))
                    figures = measure(builds[version], scenario, runs_dir, run, settings,
                                      {"calibration_seconds": seconds, "position": position + 1})
                    if scenario == "closed":
                        closed_rates.setdefault(version, []).append(figures["ok_rps"])
    finally:
        for build in builds.values():
            build.close()
    step(f"Raw results in {args.results}")
