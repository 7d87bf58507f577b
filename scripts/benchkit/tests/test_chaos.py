import json
import time

import pytest

from benchkit.experiments import chaos
from benchkit.core import latency, prometheus, samples
from benchkit.platforms import kube
from benchkit.experiments.chaos import faults
from benchkit.experiments.chaos import clients, verdicts
from benchkit.publish.chaos import report as chaos_report
from benchkit.publish.chaos import summary as chaos_summary
from benchkit.schemas import chaos as chaos_schema
from benchkit.platforms import kubefaults, kubernetes
from benchkit.core.plugins import Faults, LatencyProxy


def pod(uid, name, restarts=0, ready=True, terminating=False):
    metadata = {"uid": uid, "name": name, **({"deletionTimestamp": "now"} if terminating else {})}
    return {"metadata": metadata, "status": {"containerStatuses": [{"restartCount": restarts, "ready": ready}]}}


def cluster_seeing(monkeypatch, *moments):
    """A Cluster whose kubectl get pods answers each moment's pods in turn (the last one from then on)."""
    answers = list(moments)
    monkeypatch.setattr(kube, "kubectl", lambda namespace, *args: json.dumps({"items": answers.pop(0) if len(answers) > 1 else answers[0]}))
    monkeypatch.setattr(kubefaults.time, "sleep", lambda seconds: None)
    return kubernetes.Kubernetes("reactive-bench", ["v1"]).plugin(Faults)


def test_a_deleted_pod_counts_as_replaced_only_once_its_successor_is_ready_and_it_is_gone(monkeypatch):
    before = {"old": ("authors-a", 0, True, False)}
    cluster = cluster_seeing(monkeypatch,
                             [pod("old", "authors-a", terminating=True)],  # not yet: nothing changed
                             [pod("old", "authors-a", terminating=True), pod("new", "authors-b", ready=False)],
                             [pod("old", "authors-a", terminating=True), pod("new", "authors-b")],  # still terminating
                             [pod("new", "authors-b")])
    calls = []
    real_pods = cluster.pods
    cluster.pods = lambda selector: calls.append(selector) or real_pods(selector)
    cluster.await_whole("app.kubernetes.io/name=authors", before, replaced=True)
    assert len(calls) == 4


def test_a_killed_container_counts_as_replaced_once_it_restarted_and_is_ready(monkeypatch):
    before = {"same": ("authors-a", 0, True, False)}
    cluster = cluster_seeing(monkeypatch, [pod("same", "authors-a", ready=False)], [pod("same", "authors-a", restarts=1, ready=False)],
                             [pod("same", "authors-a", restarts=1)])
    calls = []
    real_pods = cluster.pods
    cluster.pods = lambda selector: calls.append(selector) or real_pods(selector)
    cluster.await_whole("app.kubernetes.io/name=authors", before, replaced=True)
    assert len(calls) == 3


def test_a_part_that_must_stay_unchanged_waits_until_its_pods_are_ready_again(monkeypatch):
    before = {"same": ("web-api-a", 0, True, False)}
    cluster = cluster_seeing(monkeypatch, [pod("same", "web-api-a", ready=False)], [pod("same", "web-api-a")])
    calls = []
    real_pods = cluster.pods
    cluster.pods = lambda selector: calls.append(selector) or real_pods(selector)
    cluster.await_whole("app.kubernetes.io/instance=bench-v1", before, replaced=False)
    assert calls == ["app.kubernetes.io/instance=bench-v1"] * 2  # not ready, then ready: no sooner, no later


def run(outcomes, writes, events=None):
    at = 100.0
    return {"started": at, "steady_from": at, "injected": at + 6, "restoring": at + 6, "restored": at + 20, "ended": at + 50,
            "outcomes": [(at + 1 + i, outcome) for i, outcome in enumerate(outcomes)], "durations": [],
            "writes": [(at + i, status, i if status == 201 else None, f"t{i}") for i, status in enumerate(writes)],
            "created": {i: f"t{i}" for i, status in enumerate(writes) if status == 201},
            "events": events if events is not None else [(at + i, i, f"t{i}") for i, status in enumerate(writes) if status == 201],
            "circuit_openings": 0, "reconnections": 1}


def test_on_kubernetes_a_dropped_write_fails_and_a_rolling_update_allows_no_degraded_read_beside_another_replica():
    rolling = next(f for f in faults.KUBERNETES_FAULTS if f.name == "web-api rolling update")
    clean = verdicts.assess(rolling, "v1", True, 2, run(["complete"] * 10, [201, 201, 503]))
    assert clean["passed"], clean["checks"]
    dropped = verdicts.assess(rolling, "v1", True, 2, run(["complete"] * 10, [201, 0]))
    assert not dropped["checks"]["writes_201_or_503"]
    degraded = verdicts.assess(rolling, "v1", True, 2, run(["complete"] * 9 + ["degraded"], [201]))
    assert not degraded["checks"]["reads_all_complete"]
    lost = verdicts.assess(rolling, "v1", True, 2, run(["complete"] * 10, [201, 201], events=[(101.0, 0, "t0")]))
    assert not lost["checks"]["no_event_lost"] and lost["events"]["lost"] == 1


def test_only_the_steady_state_just_before_the_fault_must_be_clean():
    stopped = next(f for f in faults.FAULTS if f.name == "kafka stopped")
    # answers at 101..112 s, the fault at 106 s: one degraded at 101 s, before the steady state waited for from 103 s
    early = run(["degraded"] + ["complete"] * 11, [201])
    early["steady_from"] = 103.0
    assert verdicts.assess(stopped, "v1", False, 1, early)["checks"]["no_errors_before"]
    within = run(["complete"] * 3 + ["degraded"] + ["complete"] * 8, [201])  # at 104 s: in it
    within["steady_from"] = 103.0
    assert not verdicts.assess(stopped, "v1", False, 1, within)["checks"]["no_errors_before"]


def test_with_one_replica_a_rolling_update_may_degrade_reads_but_not_fail_them_and_a_kubelet_restart_may_not_even_degrade():
    rolling = next(f for f in faults.KUBERNETES_FAULTS if f.name == "authors rolling update")
    degraded = verdicts.assess(rolling, "v1", True, 1, run(["complete"] * 6 + ["degraded"] + ["complete"] * 5, [201]))
    assert degraded["passed"], degraded["checks"]
    assert "circuit_opened" not in degraded["checks"]  # expected of authors' outages, not of its updates
    failed = verdicts.assess(rolling, "v1", True, 1, run(["complete"] * 6 + ["failed"] + ["complete"] * 5, [201]))
    assert not failed["checks"]["reads_all_200"]
    kubelet = next(f for f in faults.NODE_FAULTS if f.name == "kubelet restarted")
    assert not verdicts.assess(kubelet, "v1", True, 1, run(["complete"] * 9 + ["degraded"], [201]))["passed"]


def test_a_kubelet_restart_fails_when_a_pod_was_restarted_meanwhile(monkeypatch):
    before = {"same": ("authors-a", 0, True, False)}
    cluster = cluster_seeing(monkeypatch, [pod("same", "authors-a", restarts=1)])
    with pytest.raises(SystemExit, match="replaced or restarted"):
        cluster.await_whole("app.kubernetes.io/instance=bench-v1", before, replaced=False)


def test_locally_a_write_without_an_answer_is_still_allowed_as_before():
    stopped = next(f for f in faults.FAULTS if f.name == "articles stopped")
    assert "writes: 201 or a 503 problem, never a dropped connection or a 502" not in \
        verdicts.assess(stopped, "v1", False, 1, run(["complete"] * 10, [201, 0]))["checks"]


def test_a_503_without_problem_json_and_retry_after_is_not_the_clear_answer_a_write_is_promised():
    from benchkit.tests import standin

    class Unavailable(standin.Quiet):
        def do_POST(self):
            self.rfile.read(int(self.headers["Content-Length"]))
            clear = self.path.endswith("/clear")
            self.send_response(503)
            self.send_header("Content-Type", "application/problem+json" if clear else "text/plain")
            if clear:
                self.send_header("Retry-After", "1")
            self.end_headers()
            self.wfile.write(b'{"status":503}')

    statuses = {}
    with standin.serving(Unavailable) as address:
        for path in ("clear", "bare"):
            writer = clients.Writer(f"{address}/{path}", 50, "t")
            writer.start()
            time.sleep(0.1)
            writer.done.set()
            writer.join(5)
            statuses[path] = {status for _, status, *_ in writer.sent}
    assert statuses["clear"] == {503}
    assert statuses["bare"] == {"503 without problem JSON and Retry-After"}


def test_beside_a_second_replica_a_deleted_pod_must_not_show_and_the_circuit_need_not_open():
    deleted = next(f for f in faults.KUBERNETES_FAULTS if f.name == "authors pod deleted")
    alone = verdicts.assess(deleted, "v1", True, 1, run(["complete"] * 6 + ["degraded"] + ["complete"] * 5, [201]))
    assert alone["checks"]["circuit_opened"] is False  # run() reports no opening: alone, it must open
    beside = verdicts.assess(deleted, "v1", True, 2, run(["complete"] * 12, [201]))
    assert beside["passed"] and "circuit_opened" not in beside["checks"], beside["checks"]
    degraded = verdicts.assess(deleted, "v1", True, 2, run(["complete"] * 6 + ["degraded"] + ["complete"] * 5, [201]))
    assert not degraded["checks"]["reads_all_complete"]


def test_an_authors_answering_past_the_time_out_must_open_the_circuit_whatever_the_replicas():
    slow = next(f for f in faults.PROXY_FAULTS if f.inject == "proxy-slow")
    assert slow.through_proxy and not faults.FAULTS[0].through_proxy
    for replicas in (1, 2):
        found = verdicts.assess(slow, "v1", True, replicas, run(["complete"] * 6 + ["degraded"] + ["complete"] * 5, [201]))
        assert found["checks"]["circuit_opened"] is False  # run() reports no opening: behind the slow proxy it must open
        assert found["checks"]["reads_all_200"]


def test_every_fault_made_in_the_proxy_has_its_toxic_and_is_cleared_by_taking_every_toxic_off():
    assert {f.inject for f in faults.PROXY_FAULTS} == set(latency.TOXICS)
    assert {f.restore for f in faults.PROXY_FAULTS} == {"proxy-clear"}
    assert all(f.part == "authors" for f in faults.PROXY_FAULTS)  # the hop of latency.HOPS they are made on


def test_only_faults_that_give_web_api_new_pods_leave_its_counters_unread():
    by_name = {f.name: f for f in faults.KUBERNETES_FAULTS + faults.NODE_FAULTS}
    assert verdicts.replaces_web_api(by_name["web-api rolling update"])
    assert verdicts.replaces_web_api(by_name["redeploy (new image tag)"])
    assert not verdicts.replaces_web_api(by_name["kubelet restarted"])  # its pods run on: "no circuit opened" applies
    assert not verdicts.replaces_web_api(by_name["authors rolling update"])


def test_the_cpu_summary_sets_the_busy_share_of_seconds_with_incomplete_answers_against_the_others():
    samples = [(100.0 + i, 1.0 if 105 <= 100 + i <= 107 else 0.25, {"web-api v1": 0.5, "authors v1": 1.5 if i > 5 else 0.1})
               for i in range(1, 20)]
    outcomes = [(100.5 + i, "degraded" if i == 6 else "complete") for i in range(19)]
    summary = verdicts.cpu_summary(samples, outcomes, 105.0, 110.0)
    assert summary["machine_busy_when_not_complete"] == 1.0  # the samples taken at 106 and 107 cover second 106
    assert summary["machine_busy_when_complete"] < 0.4
    assert summary["machine_busy_max_during_fault"] == 1.0
    assert summary["cores_during_fault"] == {"authors v1": 1.22, "web-api v1": 0.5}  # 0.1 then four of 1.5
    assert verdicts.cpu_summary([], outcomes, 105.0, 110.0) is None


def test_the_machine_cpu_reading_is_real_and_moves_forward():
    from benchkit.platforms import procfs
    busy, total = procfs.machine_cpu()
    sum(range(2_000_000))
    time.sleep(0.05)
    busy_after, total_after = procfs.machine_cpu()
    assert 0 <= busy <= total and busy_after > busy and total_after > total


def test_the_recorder_reads_the_machine_through_its_platform_and_says_nothing_of_one_it_cannot_read():
    class Machine:
        def __init__(self, ticks):
            self.ticks = ticks

        def machine_ticks(self):
            self.ticks = self.ticks and (self.ticks[0] + 50, self.ticks[1] + 100)  # half busy, every second
            return self.ticks

        def part_cpu_seconds(self):
            return {"u1": ("web-api v1", time.time())}  # one core, whatever the second
    for ticks, busy in (((0, 0), 0.5), (None, None)):
        recorder = clients.CpuRecorder(Machine(ticks))
        recorder.start()
        time.sleep(1.3)
        (_, shown, cores), *_ = recorder.stop()
        assert shown == busy and cores["web-api v1"] == pytest.approx(1.0, abs=0.2)
    summary = verdicts.cpu_summary([(101.0, None, {}), (102.0, None, {})], [(100.5, "complete")], 100.0, 103.0)
    assert summary["machine_busy_during_fault"] is None and summary["machine_busy_max_during_fault"] is None


def test_web_apis_counters_grow_per_pod_over_the_pods_that_served_throughout():
    text = lambda openings, retries: (f'ft_circuitbreaker_opened_total{{method="a"}} {openings}\n'  # noqa: E731
                                      f'ft_retry_retries_total{{method="a"}} {retries}\n')
    # Read through the Service, pod b's history (its start-up) would have passed for this run's: 2 openings.
    before = {"a": text(0, 0), "b": text(2, 515)}
    after = {"a": text(0, 3), "b": text(2, 516)}
    assert verdicts.counter_growth(before, after, prometheus.circuit_openings) == 0
    assert verdicts.counter_growth(before, after, prometheus.read_retries) == 4
    assert verdicts.counter_growth(before, {"c": text(1, 1)}, prometheus.circuit_openings) is None  # every pod replaced
    assert verdicts.counter_growth(before, None, prometheus.read_retries) is None
    assert verdicts.counter_growth(before, {"a": text(1, 0), "c": text(5, 5)}, prometheus.circuit_openings) == 1


def _overload(version, degraded, rps, p99, passed=True, stalled=0):
    return {"version": version, "outcomes": {"degraded": degraded, "shed": 0, "complete": 1000}, "accepted_rps": rps,
            "accepted_p99_ms": p99, "passed": passed, "stalled_seconds": stalled,
            "checks": {"p99_no_growth": passed, "memory_bounded": True}}


def _summary(runs):
    return chaos_summary.summarize({"commit": "c", "timestamp": "t", "where": "here", "passed": True, "runs": runs}, "run")


def test_overload_rounds_count_the_stalls_and_name_the_failed_runs():
    runs = [_overload("v1", 0, 900, 120), _overload("v3", 0, 1300, 90), _overload("v1", 0, 1000, 100),
            _overload("v3", 12026, 1100, 400, passed=False, stalled=3), _overload("v1", 0, 950, 110),
            _overload("v3", 0, 1200, 95, passed=False)]
    rows = chaos_summary.overload_table(_summary(runs))
    assert rows[1][1:5] == ["3", "0 (0)", "0", "0"]
    assert rows[2][1:5] == ["3", "1 (3)", "1", "2"]
    assert chaos_report.clean_runs(_summary(runs)) == {"v1": 3}
    assert "exclude, at 95 % confidence, a stall in more than 1 run in 10" in chaos_report.what_clean_runs_exclude(30)
    assert chaos_report.clean_runs(_summary([_overload("v1", 0, 900, 120), _overload("v2", 3, 1900, 60)])) == {}


def test_rounds_must_be_at_least_one(tmp_path):
    with pytest.raises(SystemExit, match="CHAOS_ROUNDS must be 1 or more"):
        chaos.run(None, chaos.Spec(rounds=0), tmp_path)


def test_a_run_settles_after_its_seconds_of_complete_answers_counted_from_the_part_back_or_the_last_bad_one():
    back = 100.0
    complete_since_back = [(back + t / 2, "complete") for t in range(21)]  # 10 s of complete answers
    assert clients.settled(complete_since_back, back, 10)
    assert not clients.settled(complete_since_back[:-1], back, 10)
    # a degraded answer restarts the count; one before the part was back does not count against it
    assert not clients.settled(complete_since_back + [(back + 4, "degraded")], back, 10)
    assert clients.settled([(back - 1, "degraded")] + complete_since_back, back, 10)
    assert not clients.settled([], back, 10)


def test_the_wait_for_settled_answers_reads_the_samples_as_they_are_written_and_ends_at_the_deadline(tmp_path):
    written = tmp_path / "load.csv"
    header = ",".join(samples.HEADER) + "\n"
    written.write_text(header)
    now = time.time()
    with written.open("a") as csv:  # 11 s of complete answers (each 1 ms), the last line half written
        for tenth in range(0, 111):
            due = int((now - 11 + tenth / 10) * 1e6)
            csv.write(f"{due},{due},1000,200,complete,1997\n")
        csv.write("17")
    started = time.monotonic()
    clients.await_settled(samples.Reader(written), now - 11, 10, deadline=now + 30)
    assert time.monotonic() - started < 1, "settled: no wait"
    degraded = tmp_path / "degraded.csv"
    degraded.write_text(header + f"{int(now * 1e6)},{int(now * 1e6)},1000,200,degraded,900\n")
    started = time.monotonic()
    clients.await_settled(samples.Reader(degraded), now - 11, 10, deadline=time.time() + 1.5)
    assert 1 <= time.monotonic() - started < 5, "not settled: waited until the deadline"


def test_every_check_is_keyed_by_an_identifier_that_the_report_can_describe():
    for fault in faults.FAULTS + faults.KUBERNETES_FAULTS + faults.NODE_FAULTS:
        for restores_itself in (False, True):
            result = verdicts.assess(fault, "v1", restores_itself, 1, run(["complete"] * 10, [201]))
            for check in result["checks"]:
                assert check.isidentifier() and verdicts.described(check, result), (fault.name, check)


@pytest.mark.parametrize("where", ["local", "kubernetes"])
def test_on_either_platform_a_fault_made_in_the_proxy_goes_to_the_proxy_of_its_build(monkeypatch, where):
    from benchkit.platforms import local
    platform = local.Local("loadgen") if where == "local" else kubernetes.Kubernetes("reactive-bench", ["v1"])
    calls = []

    class Proxy:
        def toxic(self, version, hop, kind, attributes, toxicity=1.0):
            calls.append(("toxic", version, hop, kind, toxicity))

        def clear(self, version):
            calls.append(("clear", version))
    monkeypatch.setattr(platform.plugin(LatencyProxy), "latency", lambda: Proxy())
    monkeypatch.setattr(local, "stack", lambda *args, **kwargs: pytest.fail("a proxy fault stops no process"))
    monkeypatch.setattr(kube, "kubectl", lambda *args, **kwargs: pytest.fail("a proxy fault touches no pod"))
    slow = next(f for f in faults.PROXY_FAULTS if f.inject == "proxy-slow")
    platform.plugin(Faults).act(slow.inject, slow, "v1")
    platform.plugin(Faults).act(slow.restore, slow, "v1")
    assert calls == [("toxic", "v1", "authors", "latency", 1.0), ("clear", "v1")]


def test_a_run_s_report_shows_the_tables_its_summary_publishes(tmp_path, monkeypatch):
    from benchkit.tests.test_figures import chaos_run
    data = json.loads((chaos_run(tmp_path / "given") / "chaos.json").read_text())
    made = data["cells"][0]["rounds"][0]
    made.update(timeline={"per_second": [], "injected": 0, "restoring": 1},
                cpu={**made["cpu"], "machine_busy_max_during_fault": 1.0, "cores_during_fault": {"web-api": 0.8}})
    (tmp_path / "chaos.json").write_text(json.dumps(data))
    monkeypatch.setattr(chaos_report, "timeline_chart", lambda title, entry: "<svg/>")
    assert chaos_report.render(tmp_path / "chaos.json") is False
    found = chaos_summary.summarize(chaos_schema.runs(data), "this run")
    report = (tmp_path / "chaos.md").read_text()
    for table in (chaos_summary.faults_table, chaos_summary.overload_runs_table, chaos_summary.overload_table):
        assert all(" | ".join(row) in report for row in table(found))
    assert "web-api 0.80" in report



class ChaosPlatform:
    """What chaos asks of the local stack on the core's runner, each restart kept: the runner's loop is what is tested
    (each fault's load and checks are the tests above); its own plug-ins, both of them."""
    where, kind, versions, on_node = "here", "local", ("v1", "v2"), False

    def __init__(self):
        self.done, self.behind, self.platform = [], set(), self

    def plugin(self, kind):
        return self

    def environment(self, where, runs, warmup):
        return {"git_commit": "abc1234", "timestamp": "t", "where": where}

    def fault_seconds(self, quick):
        return 5

    def after_seconds(self, quick):
        return 20

    def processes(self):
        return {}

    def behind_proxy(self, versions):
        return None

    def through_proxy(self, version):
        return version in self.behind

    def build(self, version):
        self.done.append(("build", version))
        return type("Build", (), {"version": version, "close": lambda self: None})()

    def reconfigure(self, version, environments, fresh=False):
        self.behind.add(version)
        self.done.append(("behind the proxy", version))

    def calibrate(self):
        return 1.0

    def restore(self, version):
        if version in self.behind:
            self.behind.discard(version)
            self.done.append(("as shipped", version))

    def close(self):
        self.done.append("closed")


def test_chaos_runs_on_the_core_s_runner_each_fault_a_mode_in_turn_the_proxy_s_behind_it_and_warmed_again(
        monkeypatch, tmp_path):
    from benchkit.core import design
    warmed = []
    monkeypatch.setattr(design, "warm_up", lambda version, build, runs_dir, warmup: warmed.append(version) or
                        {"settled": True})
    monkeypatch.setattr(design, "background", lambda builds: pytest.fail("chaos measures no closed model"))
    monkeypatch.setattr(chaos.knobs, "tool", lambda name: "loadgen")
    platform = ChaosPlatform()

    def made(fault, version, *_):
        platform.done.append((fault.name, version, version in platform.behind))
        return {"fault": fault.name, "version": version, "timeline": {}, "passed": True, "checks": {}}
    monkeypatch.setattr(chaos, "run_fault", made)
    monkeypatch.setattr(chaos, "run_overload", lambda version, *_: platform.done.append(("overload", version)) or {
        "fault": "overload (2x capacity)", "version": version, "passed": version == "v1", "checks": {}})
    spec = chaos.Spec(faults=("authors slower than the time-out", "authors stopped", "overload"), rounds=2)
    path = chaos.run(platform, spec, tmp_path)
    data = json.loads(path.read_text())
    one_round = [("authors stopped", "v1", False), ("authors stopped", "v2", False),
                 ("authors slower than the time-out", "v1", True), ("authors slower than the time-out", "v2", True),
                 ("overload", "v1"), ("overload", "v2")]
    assert [d for d in platform.done if len(d) in (2, 3) and d[0] not in ("build",)
            and d[0] in {f for f, *_ in one_round}] == one_round * 2
    # each build restarted behind the proxy for its faults, and as shipped after them; warmed after every start
    assert [d for d in platform.done if d[0] in ("behind the proxy", "as shipped")] == [
        ("behind the proxy", "v1"), ("behind the proxy", "v2"), ("as shipped", "v1"), ("as shipped", "v2")] * 2
    assert len(warmed) == 2 + 4 * 2
    # a cell per fault and build, a round each round; what the report and the summary read of it, in the order made
    assert [(c["mode"], c["build"], [r["round"] for r in c["rounds"]]) for c in data["cells"]] == [
        (mode, build, [1, 2]) for mode in ("authors stopped", "authors slower than the time-out", "overload")
        for build in ("v1", "v2")]
    found = chaos_schema.runs(data)
    assert found["passed"] is False and len(found["runs"]) == 12
    assert [(r["version"], r["fault"][:7]) for r in found["runs"][:6]] == [
        (build, fault[:7]) for fault, build, *_ in one_round]
    with pytest.raises(SystemExit, match="not a chaos run"):
        chaos_schema.runs({**data, "design": "cpu-map"})
