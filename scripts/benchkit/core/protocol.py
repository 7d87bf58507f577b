"""The measuring protocol every experiment shares: one measured run of a scenario on a build (its samples, what
every process used, what the services counted), the same warm-up rule for every build (until its answers are
complete and its JIT has settled), the background rate of every process with no load, and the builds' order in each
round, drawn at random. Experiments measure through it and never through each other."""
import functools
import json
import random
import time
import urllib.error
import urllib.request

from benchkit.core import curve, knobs, load, prometheus, results
from benchkit.core.platform import deltas, scheduling_between
from benchkit import info, step


# How long the probe before a run waits for a complete answer: right after a run that saturated a build (a closed run
# under half a CPU), web-api may still shed or fail fast while its backlog drains (503, Retry-After), for longer on a
# slower machine; the run must start from an answer, not from that moment.
PROBE_SECONDS = 120


def probe(build, patience=PROBE_SECONDS):
    """One request through web-api: what it must cost downstream (one articles call, one call per distinct
    author it shows), and those authors' names, for the authors-alone hop. A 503 is asked again (after its
    Retry-After, a second at most) until an answer or `patience` seconds."""
    url = f"{build.web_api_url()}/{build.version}/articles"
    deadline = time.monotonic() + patience
    while True:
        try:
            articles = json.loads(urllib.request.urlopen(url, timeout=10).read())
            break
        except urllib.error.HTTPError as refused:
            if refused.code != 503 or time.monotonic() > deadline:
                raise
            time.sleep(min(1.0, float(refused.headers.get("Retry-After") or 1)))
    names = sorted({article["authorName"] for article in articles})
    return {"articles": 1, "authors": len(names)}, names


def fork(build):
    """What identifies a fork, and what its start took: per service, its JVM's start (process_start_time_seconds,
    epoch seconds: another start, another value) and its seconds from that start to ready ("ready_s"): to the moment
    the platform found it ready where it notes one (Build.ready_at), else its uptime when first read after (at most:
    a build's services started together are read once the slowest is ready); and the seconds from web-api's start
    to its first complete answer ("first_answer_s"), the probe's. A team sizes a readiness probe and a start-up budget
    by these. None where the platform cannot read the services' metrics."""
    metrics = build.metrics()
    if not metrics:
        return None
    ready_at = build.ready_at()
    found = {}
    for name, text in metrics.items():
        started = prometheus.sample(text, "process_start_time_seconds")
        found[name] = {"started": started,
                       "ready_s": round(ready_at[name] - started, 3) if name in ready_at and started
                       else prometheus.sample(text, "process_uptime_seconds")}
    probe(build)
    found["first_answer_s"] = prometheus.sample(build.metrics()["web-api"], "process_uptime_seconds")
    return found


def measure(build, scenario, runs_dir, run, settings=None, round_facts=None, label=None, target="web-api"):
    """One measured run of a load scenario (load/scenarios.json) against a service of the build (label: what the run
    is called in the results, if not the scenario): its figures (load.metrics), and under "cost" what every process
    used meanwhile, as <name>.cost.json keeps it for the report."""
    name = f"{build.version}-{label or scenario}-{run}"
    began = time.monotonic()
    expected, names = probe(build)
    settings = {**(settings or {}), **({"AUTHOR_NAMES": ",".join(names)} if target == "authors" else {})}
    time.sleep(1)  # the look-ups of that request are counted by authors a moment after web-api answered
    build.reset_peaks()
    build.reset_statements()
    snapping = time.monotonic()
    before = build.snapshot()
    running = time.monotonic()
    code, load_cpu = build.run(scenario, runs_dir / f"{name}.json", settings, target)
    ran = time.monotonic()
    time.sleep(1)  # and so are the last look-ups of the run
    snapping_after = time.monotonic()
    after = build.snapshot()
    snapped = time.monotonic()
    # What the harness spent around the load, for whoever makes a run cheaper: on a cluster a snapshot is about
    # twenty kubectl calls, and a run a load Job's install, start, end and removal.
    harness = {"probe_s": snapping - began, "snapshot_before_s": running - snapping, "run_s": ran - running,
               "snapshot_after_s": snapped - snapping_after}
    statements = build.statements()
    cost = {
        "version": build.version, "scenario": label or scenario, "target": target, "run": run, "thresholds_crossed": code == load.THRESHOLDS_CROSSED,
        "seconds": after["time"] - before["time"], "settings": settings,
        "requests_served": {k: after["requests"][k] - before["requests"][k] for k in before["requests"]},
        "expected_calls_per_request": expected,
        "cpu_seconds": {k: after["cpu_seconds"][k] - before["cpu_seconds"][k] for k in before["cpu_seconds"]},
        "load_cpu_seconds": load_cpu,
        "idle_cpu_seconds": after["idle_cpu_seconds"] - before["idle_cpu_seconds"],
        "memory_mib": build.memory(before, after),
        "restarts": build.restarts(before, after),
        "nodes": build.placement(after),
        "jvm": deltas(before["jvm"], after["jvm"]),
        "throttling": deltas(before["throttling"], after["throttling"]),
        "scheduling": scheduling_between(before, after),
        "node_cpu_seconds": ({name: seconds - before["node_cpu_seconds"].get(name, 0)
                              for name, seconds in after["node_cpu_seconds"].items()}
                             if after.get("node_cpu_seconds") and before.get("node_cpu_seconds") else None),
        "sql": statements,
        "harness_seconds": harness,
        **(round_facts or {}),
    }
    (runs_dir / f"{name}.cost.json").write_text(json.dumps(cost, indent=2))
    figures = load.metrics(json.loads((runs_dir / f"{name}.json").read_text()))
    if figures["requests"] and not figures["complete"] + figures["degraded"]:
        # Nothing the next runs measure could mean anything: stop here, saying where to look.
        raise SystemExit(f"every request of {name} against {target} failed ({figures['failed']:.0f}, "
                         f"{figures['shed']:.0f} of them shed); see {runs_dir / name}.log")
    return {**figures, "cost": cost}


def closed_round(build, runs_dir, round_, iterations, label, idle, speed, warmed):
    """One round of an experiment's variant in the closed model (an A/B's mode, a CPU map's size) on a build:
    results.round_figures of it."""
    figures = measure(build, "closed", runs_dir, round_, {"ITERATIONS": str(iterations)}, label=label)
    return results.round_figures(figures.pop("cost"), figures, idle, speed, warmed)


def open_run(build, runs_dir, round_, label, rate):
    """One run of the open model at a rate, as long as OPEN_SECONDS says."""
    return measure(build, "open", runs_dir, round_, {"RATE": str(rate), "DURATION": f"{knobs.value('OPEN_SECONDS')}s"},
                   label=label)


def open_round(build, runs_dir, round_, label, closed_rate):
    """The open model's figures of one round, after its closed one: p50 and p99 at the fixed rate (OPEN_RATE), and the
    capacity: up the ladder of shares of the round's closed-model rate (CAPACITY_SHARES), the highest rate carried
    (curve.carried) with p99 of complete answers within P99_BOUND_MS; None where the first step is not. Each step is
    kept ("capacity_steps")."""
    rate, bound, shares = knobs.value("OPEN_RATE"), knobs.value("P99_BOUND_MS"), knobs.value("CAPACITY_SHARES")
    found = {"open_rate": rate or None, "open_p50": None, "open_p99": None, "open_complete_per_s": None}
    if rate:
        figures = open_run(build, runs_dir, round_, f"{label}-open-{rate}", rate)
        found.update(open_p50=figures["p50"], open_p99=figures["p99"], open_complete_per_s=figures["ok_rps"])
    steps, capacity = [], None
    for step_rate in curve.ladder(closed_rate, shares) if shares else ():
        figures = open_run(build, runs_dir, round_, f"{label}-capacity-{step_rate}", step_rate)
        point = {"complete": figures["ok_rps"], "dropped": figures["dropped"], "requests": figures["requests"]}
        within = curve.carried(step_rate, point) and figures["p99"] is not None and figures["p99"] <= bound
        steps.append({"rate": step_rate, "complete_per_s": figures["ok_rps"], "p99": figures["p99"], "within": within})
        if not within:
            break
        capacity = step_rate
    return {**found, "capacity_per_s": capacity, "capacity_steps": steps, "p99_bound_ms": bound}


# The warm-up rule, the same for every build and every platform: warm in windows until the JIT has settled, i.e.
# the build's three JVMs' compiler threads used at most JIT_SETTLED_SHARE of their CPU in the window (CPU, read
# from /proc: HotSpot's own compile time is elapsed time, which a busy machine stretches), and the window's answers
# were complete (more than WARMUP_CLEAN_SHARE degraded or failed did not warm the look-up path: a cold first look-up
# timed out, the circuit opened, and the rest fell back at once without calling authors). The first window is
# WARMUP_ITERATIONS per user, each later one a third of it. WARMUP_MAX_WINDOWS caps the complete windows spent
# waiting for the JIT; a window of incomplete answers never ends the warm-up: it waits for the circuit and warms
# again, and past WARMUP_INCOMPLETE_SECONDS of incomplete windows after the first the run fails, naming what the
# answers were. The time counts from the end of the first incomplete window, not its start: a first window long only
# because the machine is slow (a cold JVM's first seconds incomplete, the rest complete) is no wait, and the windows
# after it, a third as long, say whether the build answers.
WARMUP_CLEAN_SHARE = 0.01
JIT_SETTLED_SHARE = 0.03
WARMUP_INCOMPLETE_SECONDS = 300  # a cold build behind a slow proxy on a busy machine came back in two windows
BREAKER_DELAY_SECONDS = 6  # web-api's circuit breakers close again after 5 s (DownstreamPolicy)


def jit_share(before, after):
    """The share of the build's services' CPU that their JIT compiler threads used between two snapshots (CPU
    against CPU: a slower or busier machine stretches both alike); None where it cannot be read."""
    jit = deltas(before["jvm"], after["jvm"])
    if not jit or any(figures is None or figures.get("jit_cpu_seconds") is None for figures in jit.values()):
        return None
    cpu = sum(after["cpu_seconds"][service] - before["cpu_seconds"][service] for service in jit)
    compiling = sum(max(0.0, figures["jit_cpu_seconds"]) for figures in jit.values())  # a stopped thread: < 0
    return compiling / cpu if cpu > 0 else None


class WarmUpFailed(SystemExit):
    """A build whose warm-up answers stayed incomplete past WARMUP_INCOMPLETE_SECONDS: nothing is measured after it."""


def warm_up(version, build, runs_dir, iterations=None):
    """The same warm-up rule for every build (see above). Returns its windows (requests per user, seconds, share of
    incomplete answers, JIT share), whether it settled, how long it took, and what the JIT, the GC and CFS
    throttling took meanwhile. The last window's answers are always complete: else it raises WarmUpFailed. Its first
    window: WARMUP_ITERATIONS requests per user where set, else the caller's own (iterations), else the warmup
    scenario's."""
    iterations = int(load.setting("warmup", "iterations", own=iterations))
    windows, settled, complete_windows, incomplete_since = [], False, 0, None
    first = before = build.snapshot()
    while complete_windows < knobs.value("WARMUP_MAX_WINDOWS"):
        count = iterations if not windows else max(1, iterations // 3)
        step(f"{version}: warm-up window {len(windows) + 1} ({load.setting('warmup', 'users')} users x {count} "
             "requests, not measured)")
        summary = runs_dir / f"{version.replace(' ', '-')}-warmup-{len(windows) + 1}.json"  # "v1 again": no space
        build.run("warmup", summary, {"WARMUP_ITERATIONS": str(count)})
        after = build.snapshot()
        figures = load.metrics(json.loads(summary.read_text()))
        incomplete = round(1 - figures["complete"] / figures["requests"], 4) if figures["requests"] else 1.0
        share = jit_share(before, after)
        windows.append({"iterations": count, "seconds": round(after["time"] - before["time"], 1),
                        "incomplete_share": incomplete, "jit_share": None if share is None else round(share, 4)})
        if incomplete > WARMUP_CLEAN_SHARE:
            incomplete_since = after["time"] if incomplete_since is None else incomplete_since
            waited = after["time"] - incomplete_since
            if waited > WARMUP_INCOMPLETE_SECONDS:
                raise WarmUpFailed(
                    f"{version}: the warm-up's answers stayed incomplete for {waited:.0f} s ({len(windows)} windows; "
                    f"the last: {incomplete:.0%} of {figures['requests']:.0f} not complete, {figures['degraded']:.0f} "
                    f"degraded, {figures['failed']:.0f} failed, {figures['shed']:.0f} of them shed): a downstream of "
                    f"web-api does not answer in time; nothing was measured (see {summary})")
            info(f"{incomplete:.0%} of the window's answers were degraded or failed: warming up again once the circuit"
                 f" has closed ({BREAKER_DELAY_SECONDS} s)")
            time.sleep(BREAKER_DELAY_SECONDS)
            before = build.snapshot()
            continue
        incomplete_since, complete_windows = None, complete_windows + 1
        if share is None or share <= JIT_SETTLED_SHARE:  # unreadable counters: complete answers are the rule left
            settled = share is not None
            break
        info(f"the JIT took {share:.1%} of the services' CPU in this window (settled at {JIT_SETTLED_SHARE:.0%}): "
             "warming up further")
        before = after  # one snapshot ends a window and starts the next (in a cluster each costs many kubectl execs)
    last = after
    if not settled:
        info(f"{version}: the warm-up ended after {len(windows)} windows without the JIT settled"
             if windows[-1]["jit_share"] is not None else f"{version}: JIT time not readable; warmed until complete")
    return {"windows": windows, "settled": settled, "seconds": round(last["time"] - first["time"], 1),
            "jvm": deltas(first["jvm"], last["jvm"]),
            "throttling": deltas(first["throttling"], last["throttling"])}


def background(builds, seconds=None):
    """CPU seconds per second of each process of every build with no load at all (the outbox relays poll, health
    probes, the JVM's own housekeeping): what a run's CPU includes whatever it serves. One quiet window for every
    build at once: nothing is loaded, so each build's processes idle as they would alone, at the same moment."""
    seconds = seconds or knobs.value("BACKGROUND_SECONDS")
    step(f"{', '.join(builds)}: {seconds} s with no load, for the background rate")
    before = {version: build.snapshot() for version, build in builds.items()}
    time.sleep(seconds)
    after = {version: build.snapshot() for version, build in builds.items()}
    rates = {}
    for version in builds:
        elapsed = after[version]["time"] - before[version]["time"]
        rates[version] = {process: (after[version]["cpu_seconds"][process] - before[version]["cpu_seconds"][process])
                          / elapsed for process in after[version]["cpu_seconds"]}
    return rates


@functools.cache
def seed():
    """The run's seed of the builds' orders: ORDER_SEED where given (to draw a run's orders again), else the time it
    was first asked for; a run's document states it."""
    return knobs.value("ORDER_SEED") or str(time.time_ns())


def order(versions, run):
    """The builds' order in one round (randomised interleaved trials): drawn at random from the run's seed in odd
    rounds, and that order reversed in the even round after it. No build keeps its place round after round (on a
    warmer or a quieter machine, or beside the same neighbour), and each pair of rounds puts every build once before
    and once after every other."""
    drawn = list(versions)
    random.Random(f"{seed()}/{(run + 1) // 2}/{'/'.join(map(str, drawn))}").shuffle(drawn)
    return drawn if run % 2 else drawn[::-1]
