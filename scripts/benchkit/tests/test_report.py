import json

from benchkit import report


def summary(requests=1000, seconds=10):
    """A run's summary as load.summarize_into writes it: every answer complete, latencies 4-30 ms."""
    return {"schema": "load-summary/1", "figures": {
        "requests": requests, "rps": requests / seconds, "duration_s": seconds, "complete": requests,
        "ok_rps": requests / seconds, "avg": 5, "p50": 4, "p90": 8, "p95": 9, "p99": 12, "max": 30, "failed": 0,
        "error_pct": 0.0, "degraded": 0, "dropped": 0, "shed": 0, "bytes_min": 1997, "bytes_max": 1997,
        "bytes_avg": 1997}, "thresholds_crossed": []}


def write_run(runs, version, scenario, run=1, authors=5000, requests=1000, memory=None, restarts=None,
              calibration_seconds=2.0, throttling=None, node_cpu=None):
    name = f"{version}-{scenario}-{run}"
    (runs / f"{name}.json").write_text(json.dumps(summary(requests=requests)))
    (runs / f"{name}.cost.json").write_text(json.dumps({
        "version": version, "scenario": scenario, "run": run, "thresholds_crossed": False, "seconds": 10,
        "requests_served": {"web-api": requests, "articles": requests, "authors": authors, "fallbacks": 0},
        "expected_calls_per_request": {"articles": 1, "authors": 5},
        "cpu_seconds": {"web-api": 1.0, "articles": 0.5, "authors": 0.5, "postgres": 0.2, "kafka": 0.05},
        "load_cpu_seconds": 0.3, "idle_cpu_seconds": 0.0225,
        "memory_mib": memory or {"web-api": {"peak RSS during the run (VmHWM, reset before it)": 300}},
        "restarts": restarts,
        "jvm": {"web-api": {"jit_seconds": 0.25, "jit_cpu_seconds": 0.2, "gc_seconds": 0.125, "compilations": 40}},
        "throttling": throttling,
        "node_cpu_seconds": node_cpu,
        "calibration_seconds": calibration_seconds, "position": 1 if (version == "v1") == (run % 2 == 1) else 2,
    }))


def results(tmp_path, **v2):
    runs = tmp_path / "runs"
    runs.mkdir()
    (tmp_path / "environment.json").write_text(json.dumps({"timestamp": "t", "git_commit": "abc", "where": "here",
                                                           "builds": {"web-api-v1": ["x=1"]}}))
    for run in (1, 2):
        write_run(runs, "v1", "closed", run)
        write_run(runs, "v2", "closed", run, **v2)
    return tmp_path


def rendered(directory, environment):
    """The report's Markdown, with this environment.json."""
    (directory / "environment.json").write_text(json.dumps(environment))
    report.render(directory)
    return (directory / "report.md").read_text()


def test_a_report_of_equal_work(tmp_path):
    directory = results(tmp_path)
    assert report.render(directory)
    md = (directory / "report.md").read_text()
    assert "PASS: the builds did the same work for every complete answer" in md
    assert "| CPU ms per web-api request, whole system | 2.250 | 2.250 | 1.00× |" in md
    assert "| CPU ms per web-api request, loadgen (the load generator) | 0.300 | 0.300 | 1.00× |" in md
    assert "| throughput (req/s) | 100.0 | 100.0 | 1.00× |" in md
    assert "| CPU s of the other builds, idle meanwhile (share of the measured build's) | 0.02 (1.0 %) | 0.02 (1.0 %) | – |" in md
    html = (directory / "report.html").read_text()
    assert html.count("<svg") == 2  # latency of the one scenario, throughput
    assert 'src="http' not in html and 'href="http' not in html
    assert (directory / "latency-closed.svg").exists()


def test_one_extra_call_per_request_fails(tmp_path):
    directory = results(tmp_path, authors=6000)
    assert not report.render(directory)
    assert "FAIL: the builds did NOT do the same work" in (directory / "report.md").read_text()


def test_restarts_are_flagged(tmp_path):
    directory = results(tmp_path, restarts={"bench-v2-web-api-x/web-api": {"restarts": 1, "last_reason": "OOMKilled"}})
    report.render(directory)
    md = (directory / "report.md").read_text()
    assert "WARNING: v2 closed: pods restarted during the run (bench-v2-web-api-x/web-api: 1x (OOMKilled)" in md


def test_rounds_show_the_order_and_leave_out_a_round_where_the_machine_moved(tmp_path):
    runs = tmp_path / "runs"
    runs.mkdir()
    (tmp_path / "environment.json").write_text(json.dumps({}))
    for run, seconds, v2_requests in ((1, 2.0, 1500), (2, 2.1, 1600), (3, 2.6, 3000)):
        write_run(runs, "v1", "closed", run, calibration_seconds=seconds)
        write_run(runs, "v2", "closed", run, requests=v2_requests, authors=5 * v2_requests, calibration_seconds=seconds)
    assert report.render(tmp_path)
    md = (tmp_path / "report.md").read_text()
    assert "| 1 | v1 → v2 | 2.00 |" in md and "| 2 | v2 → v1 | 2.10 |" in md
    assert "| 3 | v1 → v2 | 2.60 (moved +24%: not used) |" in md
    assert "closed: v2 / v1 complete answers/s over the 2 rounds that passed: 1.55× (±3 %)" in md


def test_the_curve_comes_first_with_each_builds_knee(tmp_path):
    runs = tmp_path / "runs"
    runs.mkdir()
    (tmp_path / "environment.json").write_text(json.dumps({}))
    write_run(runs, "v1", "closed")
    write_run(runs, "v2", "closed")
    for rate in (50, 100, 150):
        # over 10 s: v1 carries 50/s and 100/s, not 150/s (1,200 of 1,500); v2 carries all three
        write_run(runs, "v1", f"curve-{rate}", requests=min(rate, 120) * 10, authors=5 * min(rate, 120) * 10)
        write_run(runs, "v2", f"curve-{rate}", requests=rate * 10, authors=5 * rate * 10)
    assert report.render(tmp_path)
    md = (tmp_path / "report.md").read_text()
    assert md.index("## Latency versus load") < md.index("## Results")
    assert "v1: knee at 100 requests/s" in md and "v2: knee at 150 requests/s" in md
    assert "| curve (all steps) | authors calls per complete answer" in md
    assert "Scenario: curve-50" not in md  # the steps are in the curve's table, not a table each
    assert (tmp_path / "latency-curve.svg").exists()


def test_sql_parity_only_with_pg_stat_statements(tmp_path):
    directory = results(tmp_path)
    report.render(directory)
    assert "## SQL parity" not in (directory / "report.md").read_text()
    for cost_file in (directory / "runs").glob("*.cost.json"):
        cost = json.loads(cost_file.read_text())
        cost["sql"] = [{"database": "articles", "query": f"select {cost['version']}", "calls": 1000, "rows": 10}]
        cost_file.write_text(json.dumps(cost))
    report.render(directory)
    md = (directory / "report.md").read_text()
    assert "## SQL parity" in md
    assert "| articles | `select v1` | 1.00 | – |" in md


def test_jit_gc_and_cfs_throttling_per_run_and_the_warm_up(tmp_path):
    directory = results(tmp_path, throttling={"web-api": {"periods": 200, "throttled": 50, "throttled_seconds": 1.5}})
    environment = json.loads((directory / "environment.json").read_text())
    environment["warmup"] = {version: {"windows": [{"iterations": 900, "seconds": 30, "incomplete_share": 0.3,
                                                     "jit_share": 0.2},
                                                    {"iterations": 300, "seconds": 12, "incomplete_share": 0.0,
                                                     "jit_share": 0.025}], "settled": True, "seconds": 42.0,
                                       "jvm": {"web-api": {"jit_seconds": 9.5, "gc_seconds": 0.5, "compilations": 4000}},
                                       "throttling": {"web-api": {"periods": 400, "throttled": 300,
                                                                  "throttled_seconds": 12.0}}}
                             for version in ("v1", "v2")}
    md = rendered(directory, environment)
    assert "| JIT compiler threads' CPU s during the run, web-api | 0.20 | 0.20 | 1.00× |" in md
    assert "| JIT compile s during the run (elapsed, as HotSpot counts it), web-api | 0.25 | 0.25 | 1.00× |" in md
    assert "| GC s during the run, web-api | 0.12 | 0.12 | 1.00× |" in md
    assert "| CFS: periods throttled / with the quota, throttled s, web-api | – | 50 / 200 (25 %), 1.50 s | – |" in md
    assert "CPU s of the node's own processes" not in md  # only where they run on this machine
    assert "## Warm-up" in md
    assert "| windows (requests per VU: incomplete answers, JIT share of the CPU) | 900: 30%, 20.0%; 300: 0%, 2.5% |" in md
    assert "| settled | yes | yes |" in md
    assert "| JIT compile s (elapsed), web-api | 9.50 | 9.50 |" in md
    assert "| CFS: periods throttled / with the quota, web-api | 300 / 400, 12.00 s | 300 / 400, 12.00 s |" in md


def test_cpu_per_complete_answer_and_without_the_background(tmp_path):
    directory = results(tmp_path)
    environment = json.loads((directory / "environment.json").read_text())
    # 0.1 CPU s per s with no load, over the 10 s of each run: 1 of its 2.25 CPU s
    environment["background_cpu_per_s"] = {v: {"web-api": 0.04, "articles": 0.02, "authors": 0.02, "postgres": 0.01,
                                                "kafka": 0.01} for v in ("v1", "v2")}
    md = rendered(directory, environment)
    assert "| CPU ms per web-api request, whole system, the background rate taken off | 1.250 | 1.250 | 1.00× |" in md
    assert "| CPU ms per complete answer, whole system | 2.250 | 2.250 | 1.00× |" in md
    assert "| background CPU of v1 with no load (CPU ms per second) | web-api 40.0, articles 20.0" in md


def test_the_node_s_own_processes_apart(tmp_path):
    directory = results(tmp_path, node_cpu={"etcd": 0.2, "kube-apiserver": 0.4, "kubelet": 0.3, "containerd": 0.225})
    report.render(directory)
    md = (directory / "report.md").read_text()
    assert ("| CPU s of the node's own processes during the run (etcd, apiserver, kubelet, containerd, kube-proxy, …; "
            "share of the measured build's) | – | 1.13 (50.0 %) | – |") in md
