"""Faults under load (make chaos, make chaos-cluster): every fault, every build, every expectation checked.

For each fault and each build, the load generator reads GET /vN/articles at a steady rate, a
writer POSTs new articles, an SSE client follows /vN/articles/stream, and a real part of the system fails and
comes back. Counts every outcome, every event produced and delivered, and the time to recover; checks each
against what the build promises; writes chaos.json, chaos.md and chaos.html. Exits 1 if any expectation failed.

Two platforms, the same clients, checks and report:
  the local stack (scripts/local/stack.sh up): a process (authors, articles, PostgreSQL, Kafka) stopped or frozen,
      then started again with scripts/local/stack.sh; plus overload;
  Kubernetes (the builds deployed by make deploy-vN in BENCH_NAMESPACE): pods deleted, a container killed,
      rolling updates, PostgreSQL's and Kafka's pods deleted, with kubectl; the clients reach web-api through its
      Service's ClusterIP, so they must run where that routes: on the node itself (the test node), or beside
      `minikube tunnel`.
"""
import dataclasses
import statistics
import sys
import threading
import time

from benchkit import SERVICES, info, step
from benchkit.core.experiment import Measures
from benchkit.core import buildsconf, design, knobs, samples
from benchkit.core.design import AS_RUNNING, Design
from benchkit.core.load import Lengths
from benchkit.core.knobs import knob, numbers
from benchkit.core.platform import RESTORE_LIMIT_SECONDS
from benchkit.core.plugins import Faults, LatencyProxy
from benchkit.experiments.chaos import faults
from benchkit.experiments.chaos.faults import KUBERNETES_QUICK, PROXY_FAULT_SECONDS, QUICK
from benchkit.core.prometheus import answered, calls_timed_out, circuit_openings, read_retries, scrape
from benchkit.core.stats import percentile
from benchkit.experiments.chaos.clients import (CpuRecorder, StreamReader, Writer, answers_ready, await_healthy, await_settled, run_load)
from benchkit.experiments.chaos.verdicts import OUTCOMES, assess, counter_growth, replaces_web_api
from benchkit.schemas.chaos import FILE, described
OVERLOAD = "overload"  # the mode after the faults: twice what each build sustains
LENGTHS = Lengths(warmup=100)  # a build's first warm-up window; make test's short subset's a third of it
# the open model's requests in flight at most under a fault: the modest rate's answers held up to five seconds
MAX_IN_FLIGHT = 200
# The longest the load waits for the steady state (`before` seconds of complete answers) before it makes the fault.
STEADY_LIMIT_SECONDS = 60


@dataclasses.dataclass(frozen=True)
class Timing:
    """How a fault's load runs, in seconds and requests; fault and after are each platform's (it says why)."""
    fault: int  # how long the part stays broken
    after: int  # the longest the load goes on once the part is back; it ends sooner once the last `settled` seconds
    # of answers were all complete: two of web-api's breaker delays (5 s), so a circuit that closed and would open
    # again shows within them
    settled: int = 10
    before: int = 6  # the steady state the fault is made in: this many seconds of complete answers just before it
    rate: int = 40  # the open model's requests/s during a fault
    writes: int = 4  # articles published per second meanwhile, each expected on the stream
    drain: int = 60  # the longest the stream is waited for, after the load, to deliver every article published
    probe_users: int = 50  # overload: what a build sustains, in the closed model …
    probe_iterations: int = 100
    overload: int = 20  # … then twice that, offered for so long


def make_fault(fault, version, faults, timing, answers, started):
    """The fault made and undone while the load runs (answers: its samples file), once the answers have settled
    again, or `after` seconds: (when it was made, when its restore began, when the part was back)."""
    # The fault is made in a steady state: once every answer of the last `before` seconds was complete. On a machine
    # shared with other work a build can degrade before any fault (242 degraded answers from 3 s on, in a warm CI
    # run with test-cluster rolling pods beside it), and the fault's effect would not show apart from what was there.
    await_settled(samples.Reader(answers), started, timing.before, started + STEADY_LIMIT_SECONDS)
    injected = time.time()
    faults.act(fault.inject, fault, version)
    time.sleep(max(0, injected + (PROXY_FAULT_SECONDS if fault.through_proxy else timing.fault) - time.time()))
    restoring = time.time()
    faults.act(fault.restore, fault, version)
    restored = time.time()  # a restarted service is ready; a restarted server accepts connections
    await_settled(samples.Reader(answers), restored, timing.settled, restored + timing.after)
    return injected, restoring, restored


def run_fault(fault, version, faults, loadgen, timing, work):
    web_api = faults.web_api_url(version)
    replicas = faults.replicas(fault, version)
    await_healthy(web_api, version)
    tag = f"chaos {fault.name} {version} {time.time_ns()}"
    reader = StreamReader(web_api, f"/{version}/articles/stream")
    reader.start()
    if not reader.connected.wait(30) or reader.error:
        sys.exit(f"could not follow {web_api}/{version}/articles/stream: {reader.error}")
    metrics_before = faults.web_api_metrics(version)
    cpu = CpuRecorder(faults)
    cpu.start()

    # The load lasts until the answers have settled once the part is back (at most `after` seconds), however long
    # it took to come back: the generator is given room for the longest steady-state wait and the longest restart the
    # stack waits for, and stopped then.
    duration = STEADY_LIMIT_SECONDS + timing.fault + RESTORE_LIMIT_SECONDS + timing.after
    answers = work / "load.csv"
    answers.unlink(missing_ok=True)  # the last fault's answers: read from the start below, they are not this one's
    load_result, enough = {}, threading.Event()
    loading = threading.Thread(target=lambda: load_result.update(zip(("samples", "summary"), run_load(
        loadgen, version, web_api, "open", {"RATE": timing.rate, "DURATION": f"{duration}s",
                                            "MAX_USERS": str(MAX_IN_FLIGHT)}, work, enough))))
    writer = Writer(f"{web_api}/{version}/articles", timing.writes, tag)
    loading.start()
    writer.start()
    started = time.time()

    injected, restoring, restored = make_fault(fault, version, faults, timing, answers, started)
    enough.set()
    loading.join()
    writer.done.set()
    writer.join()
    ended = time.time()

    created = {article_id: title for _, status, article_id, title in writer.sent if status == 201}
    deadline = time.time() + timing.drain
    while time.time() < deadline and not set(created) <= {e[1] for e in reader.events}:
        time.sleep(0.2)
    reader.stop()
    reader.join(5)
    cpu_samples = cpu.stop()
    # A new web-api pod counts from zero: its circuits' openings and its retries tell nothing then.
    metrics_after = None if replaces_web_api(fault) else faults.web_api_metrics(version)
    openings = counter_growth(metrics_before, metrics_after, circuit_openings)
    retries = counter_growth(metrics_before, metrics_after, read_retries)
    timeouts = counter_growth(metrics_before, metrics_after, calls_timed_out)

    outcomes, durations = load_result["samples"]
    return assess(fault, version, faults.restores_itself, replicas, {
        "started": started, "steady_from": injected - timing.before, "injected": injected, "restoring": restoring,
        "restored": restored, "ended": ended,
        "outcomes": outcomes, "durations": durations, "writes": writer.sent, "created": created,
        "events": [e for e in reader.events if e[2] and e[2].startswith(tag)], "circuit_openings": openings,
        "retries": retries, "timeouts": timeouts,
        "reconnections": reader.reconnections, "cpu": cpu_samples,
    })


# ---------- overload: twice what the build sustains

def run_overload(version, faults, loadgen, timing, work):
    service = faults.processes()[f"web-api-{version}"]
    web_api, management = service["url"], service["management"]
    step(f"overload {version}: measuring what it sustains (closed model, {timing.probe_users} users, after the same warm-up)")
    probe_settings = {"USERS": timing.probe_users, "ITERATIONS": timing.probe_iterations}
    run_load(loadgen, version, web_api, "closed", probe_settings, work)  # warms the JIT; not measured
    _, probe = run_load(loadgen, version, web_api, "closed", probe_settings, work)
    capacity = probe["rps"]
    rate = int(2 * capacity)
    info(f"{version} sustains {capacity:.0f} req/s; offering {rate}/s for {timing.overload} s")
    build = faults.platform.build(version)  # web-api's peak memory under the overload, as the platform reads it
    build.reset_peaks()
    before = build.snapshot()
    served_before = answered(scrape(management), "GET", "/articles", "200")
    (outcomes, durations), summary = run_load(loadgen, version, web_api, "open", {
        "RATE": rate, "DURATION": f"{timing.overload}s", "MAX_USERS": 600}, work)
    served_after = answered(scrape(management), "GET", "/articles", "200")
    served, served_seconds = (after - before for after, before in zip(served_after, served_before))
    ready = answers_ready(management)
    accepted = [ms for _, ms, status in durations if status == "200"]
    counts = {o: sum(1 for _, outcome in outcomes if outcome == o) for o in OUTCOMES}
    peak = next(iter(build.memory(before, build.snapshot())["web-api"].values()), None)
    build.close()
    accepted_timed = sorted((at, ms) for at, ms, status in durations if status == "200")
    span = (accepted_timed[-1][0] - accepted_timed[0][0]) if len(accepted_timed) > 1 else 1
    accepted_rps = len(accepted_timed) / max(span, 1)
    third = span / 3
    first = [ms for at, ms in accepted_timed if at < accepted_timed[0][0] + third]
    last = [ms for at, ms in accepted_timed if at >= accepted_timed[-1][0] - third]
    # Little's law: with at most the edge's max-in-flight admitted, the mean time an accepted request spends in web-api is at
    # most max-in-flight / throughput. Measured where the bound holds, by web-api's own timer (arrival to the end of
    # the answer); 10 % for the run's edges. What the generator sees on top (its own scheduling when it drives thousands of
    # requests a second on the same cores, the connection queue ahead of the edge) is the client's mean, reported.
    little_ms = 1000 * buildsconf.max_in_flight() / accepted_rps
    server_mean_ms = 1000 * served_seconds / served if served else 0
    mean_ms = statistics.fmean(accepted) if accepted else 0
    checks = {
        "ready_afterwards": ready,
        "excess_shed": counts["shed"] > 0,
        "little_bound": served > 0 and server_mean_ms <= 1.1 * little_ms,  # no timing, no pass
        "p99_no_growth": (percentile(last, 99) or 0) <= 1.5 * (percentile(first, 99) or 0) + 50,
        "memory_bounded": peak is not None and peak < 1024,
        "no_unanswered": counts["failed"] == 0,
    }
    result = {"fault": "overload (2x capacity)", "version": version, "capacity_rps": round(capacity),
              "offered_rps": rate, "achieved_rps": round(summary["rps"]),
              "unsent": summary["dropped"],
              "requests": len(outcomes), "outcomes": counts, "accepted_rps": round(accepted_rps),
              "accepted_mean_ms": round(mean_ms, 1), "server_mean_ms": round(server_mean_ms, 1),
              "little_bound_ms": round(little_ms, 1), "accepted_p50_ms": percentile(accepted, 50),
              "accepted_p99_ms": percentile(accepted, 99), "peak_rss_mib": round(peak) if peak else None,
              # seconds with requests outstanding throughout and none answered: a stall, whatever the checks say
              "stalled_seconds": summary.get("stalled_seconds"),
              "checks": checks, "passed": all(checks.values())}
    mark = "PASS" if result["passed"] else "FAIL"
    info(f"{mark} overload {version}: {counts}, accepted p99 {result['accepted_p99_ms']} ms, peak RSS {result['peak_rss_mib']} MiB, "
         f"stalled seconds {result['stalled_seconds']}"
         + "".join(f"\n        FAIL {described(name, result)}" for name, ok in checks.items() if not ok))
    return result


@dataclasses.dataclass(frozen=True)
class Spec:
    faults: tuple | None = knob("CHAOS_FAULTS", None, "the faults to make, by name, comma-separated, `overload` among "
                                "them (unset: every fault of the platform)", numbers(str))
    rounds: int = knob("CHAOS_ROUNDS", 1, "run every chosen fault (and overload) this many times, the builds in turn "
                       "each round: to count something rare, such as a stall")
    quick: bool = knob("CHAOS_QUICK", False, f"only {', '.join(QUICK)} (Kubernetes: {', '.join(KUBERNETES_QUICK)}), "
                       "shorter: make test's subset")


def chosen_faults(platform, spec, versions):
    """(the faults to inject, in the order they are made, and the names chosen, overload's among them): CHAOS_FAULTS,
    else the short subset with CHAOS_QUICK, else every fault the platform can inject; refused where one is unknown."""
    # Overload needs the local processes (their peak RSS): on Kubernetes the faults are the platform's own.
    made_by = platform.plugin(Faults)
    injectable, quick = faults.of(platform.kind, made_by.on_node)
    known = [f.name for f in injectable] + ([] if made_by.processes() is None else [OVERLOAD])
    # by default, the faults made in the latency proxy only where every build can go through one
    proxied = platform.plugin(LatencyProxy).behind_proxy(versions) is None
    names = list(spec.faults) if spec.faults else quick if spec.quick else \
        [name for name in known if proxied or not any(f.name == name and f.through_proxy for f in injectable)]
    unknown = set(names) - set(known)
    if unknown:
        sys.exit(f"unknown faults on {platform.where}: {', '.join(sorted(unknown))}; known: {', '.join(known)}")
    # the faults made in the latency proxy last: their builds are moved behind it (restarted, and warmed up again)
    return sorted((f for f in injectable if f.name in names), key=lambda f: f.through_proxy), names


def run(platform, spec, directory):
    """Every chosen fault under load, every build, on the core's runner: a fault is a mode, each build in turn made to
    meet it in every round (CHAOS_ROUNDS), overload after the faults; chaos.json, a cell document whose rounds are
    each fault's verdicts (its report, publish.chaos, fails the run when an expectation failed)."""
    if spec.rounds < 1:
        sys.exit("CHAOS_ROUNDS must be 1 or more")
    loadgen, versions = knobs.tool("LOADGEN"), platform.versions
    made_by, proxy = platform.plugin(Faults), platform.plugin(LatencyProxy)
    timing = Timing(fault=made_by.fault_seconds(spec.quick), after=made_by.after_seconds(spec.quick))
    chosen, names = chosen_faults(platform, spec, versions)
    work = directory / "work"
    work.mkdir(parents=True, exist_ok=True)
    if any(f.through_proxy for f in chosen):
        missing = proxy.behind_proxy(versions)
        if missing:
            sys.exit(f"{platform.where}: {', '.join(f.name for f in chosen if f.through_proxy)} are made in the latency "
                     f"proxy: {missing}")
    by_name = {f.name: f for f in chosen}
    moved = set()  # the builds this run restarted behind the latency proxy

    def arrange(version, variant, round_):
        """A build restarted behind the latency proxy for a fault made there, and as it was for any other (on a
        platform whose builds run behind it as deployed, nothing moves): whether it was restarted."""
        proxied = variant.mode in by_name and by_name[variant.mode].through_proxy
        if proxied and not proxy.through_proxy(version):
            step(f"{version}: its services restarted behind the latency proxy, for the faults made in it")
            platform.reconfigure(version, {service: {"LATENCY_PROXY": "on"} for service in SERVICES})
            moved.add(version)
            return True
        if not proxied and version in moved:
            platform.restore(version)
            moved.discard(version)
            return True
        return False

    def made(build, runs_dir, round_, variant, label, facts):
        if variant.mode == OVERLOAD:
            return run_overload(build.version, made_by, loadgen, timing, work)
        step(f"{variant.mode}, {build.version}: {by_name[variant.mode].story}")
        return run_fault(by_name[variant.mode], build.version, made_by, loadgen, timing, work)

    # the core's warm-up, as every experiment's: the short subset runs in make test after make bench has warmed every
    # build, with windows of a third of the full one's
    faults_made = Design("chaos", "Faults under load", __doc__.split("\n\n")[0], tuple(versions),
                         {**{f.name: {} for f in chosen}, **({OVERLOAD: {}} if OVERLOAD in names else {})},
                         restart=AS_RUNNING, phases=(made,), arrange=arrange, rounds=spec.rounds, drawn=False,
                         quiet=False, lengths=Lengths(warmup=30 if spec.quick else LENGTHS.warmup))
    design.run(platform, faults_made, directory)
    return directory / FILE


# what it asks of a platform beyond every experiment's: both plug-ins
MEASURES = Measures(Spec, run, needs=(Faults, LatencyProxy), lengths=LENGTHS)
