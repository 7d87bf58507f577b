import json

import pytest

from benchkit.core import cells
from benchkit.publish.bench import report, tables
from benchkit.experiments.bench import document as results_module


def rendered(directory):
    """A run's bench.json made from what its runs kept, then its report from it alone (what benchkit report does);
    whether the builds did the same work."""
    results_module.write(directory)
    return report.render(directory)


def cell(data, version, scenario="closed"):
    return cells.cell_of(data, version, scenario)


def figure(data, version, *path, scenario="closed"):
    """The median, lowest and highest of what a cell's rounds hold at a path of keys, and each round's."""
    return cells.figure(cell(data, version, scenario), *path)


def read(directory):
    return json.loads((directory / results_module.FILE).read_text())


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


def computed(directory, environment=None):
    """The cell document of a bench folder (with this environment.json, if given)."""
    if environment is not None:
        (directory / "environment.json").write_text(json.dumps(environment))
    return results_module.write(directory)


def test_a_report_of_equal_work_is_rendered_from_its_results(tmp_path):
    directory = results(tmp_path)
    assert rendered(directory)
    data = read(directory)
    assert data["schema"] == cells.SCHEMA and data["design"] == "bench"
    assert data["equal_work"] and data["versions"] == ["v1", "v2"]
    for version in ("v1", "v2"):
        assert figure(data, version, "cpu_ms")["median"] == 2.25
        assert figure(data, version, "generator_cpu_ms")["median"] == 0.3
        assert figure(data, version, "rps") == {"unit": "", "median": 100.0, "low": 100.0, "high": 100.0,
                                                "rounds": [100.0, 100.0]}
        assert figure(data, version, "idle_cpu_s")["median"] == 0.0225
    assert cell(data, "v2")["ratios"]["complete_per_s"]["median"] == 1.0
    # the view shows the data's figures
    md = (directory / "report.md").read_text()
    assert "| 2.250 | 2.250 | 1.00× |" in md
    html = (directory / "report.html").read_text()
    assert html.count("<svg") == 2  # latency of the one scenario, throughput
    assert 'src="http' not in html and 'href="http' not in html
    assert (directory / "latency-closed.svg").exists()


def test_one_extra_call_per_request_fails(tmp_path):
    directory = results(tmp_path, authors=6000)
    assert not rendered(directory)
    assert read(directory)["equal_work"] is False


def test_restarts_are_kept_with_their_reason(tmp_path):
    directory = results(tmp_path, restarts={"bench-v2-web-api-x/web-api": {"restarts": 1, "last_reason": "OOMKilled"}})
    data = computed(directory)
    assert report.tables.restarts(cell(data, "v2")) == ["bench-v2-web-api-x/web-api: 1x (OOMKilled)",
                                                        "bench-v2-web-api-x/web-api: 1x (OOMKilled)"]
    assert data["on_kubernetes"]


def test_the_headline_ratio_is_the_median_of_every_rounds_ratio_and_a_drifted_round_is_shown_beside(tmp_path):
    runs = tmp_path / "runs"
    runs.mkdir()
    (tmp_path / "environment.json").write_text(json.dumps({}))
    for run, seconds, v2_requests in ((1, 2.0, 1500), (2, 2.1, 1600), (3, 2.6, 3000)):
        write_run(runs, "v1", "closed", run, calibration_seconds=seconds)
        write_run(runs, "v2", "closed", run, requests=v2_requests, authors=5 * v2_requests, calibration_seconds=seconds)
    assert rendered(tmp_path)
    data = read(tmp_path)
    assert [[r["place"] for r in cell(data, v)["rounds"]] for v in ("v1", "v2")] == [[1, 2, 1], [2, 1, 2]]
    for version in ("v1", "v2"):
        assert [r["drift"] is not None for r in cell(data, version)["rounds"]] == [False, False, True]
    ratio = cell(data, "v2")["ratios"]["complete_per_s"]
    assert ratio["rounds"] == [1.5, 1.6, 3.0]
    assert (ratio["median"], ratio["low"], ratio["high"]) == (1.6, 1.5, 3.0)  # every round counts
    assert report.tables.without_drifted(cell(data, "v2")) == 1.55  # the sensitivity line
    rows, lines = report.tables.rounds_rows(report.tables.scenarios_of(data)["closed"])
    assert [row[1] for row in rows[1:]] == ["v1 → v2", "v2 → v1", "v1 → v2"] and "moved" in rows[3][2]
    assert lines == ["v2 / v1 complete answers/s, the median of 3 rounds' ratios: 1.60× (1.50–3.00); without the "
                     "drifted round 3: 1.55×"]
    # the ratio of the medians in the results table follows from its own row: 1600 / 1000
    assert figure(data, "v2", "complete_per_s")["median"] / figure(data, "v1", "complete_per_s")["median"] == 1.6


def test_the_curve_knee_needs_every_repeat_of_its_step(tmp_path):
    runs = tmp_path / "runs"
    runs.mkdir()
    (tmp_path / "environment.json").write_text(json.dumps({}))
    write_run(runs, "v1", "closed")
    write_run(runs, "v2", "closed")
    for repeat in (1, 2):
        for rate in (50, 100, 150):
            # over 10 s: v1 carries 50/s, and 100/s only in the first repeat, never 150/s; v2 carries all three
            v1 = min(rate, 120 if repeat == 1 else 90) * 10
            write_run(runs, "v1", f"curve-{rate}", run=repeat, requests=v1, authors=5 * v1)
            write_run(runs, "v2", f"curve-{rate}", run=repeat, requests=rate * 10, authors=5 * rate * 10)
    assert rendered(tmp_path)
    data = read(tmp_path)
    assert data["curve"]["knees"] == {"v1": 50, "v2": 150} and data["curve"]["repeats"] == 2
    step = data["curve"]["sessions"][0]["v1"]["100"]
    assert [results_module.curve.carried(100, repeat) for repeat in step] == [True, False]
    assert "(not carried)" in report.curve_section(data["curve"])[0][2][1]  # v1 at 100/s
    assert "curve (all steps)" in data["work"]
    assert data["modes"] == ["closed"]  # the steps are the curve's
    assert (tmp_path / "latency-curve.svg").exists()


def test_sql_parity_only_with_pg_stat_statements(tmp_path):
    directory = results(tmp_path)
    assert computed(directory)["sql"] == {}
    for cost_file in (directory / "runs").glob("*.cost.json"):
        cost = json.loads(cost_file.read_text())
        cost["sql"] = [{"database": "articles", "query": f"select {cost['version']}", "calls": 1000, "rows": 10}]
        cost_file.write_text(json.dumps(cost))
    assert computed(directory)["sql"]["v1"] == {
        "statements": [{"database": "articles", "statement": "select v1", "calls_per_request": 1.0}],
        "data_statements_per_request": {"articles": 1.0}, "every_statement_per_request": {"articles": 1.0},
        "transactions_per_request": {"articles": 0.0}}


def test_jit_gc_and_cfs_throttling_per_run_and_the_warm_up(tmp_path):
    directory = results(tmp_path, throttling={"web-api": {"periods": 200, "throttled": 50, "throttled_seconds": 1.5}})
    environment = json.loads((directory / "environment.json").read_text())
    environment["warmup"] = {version: {"windows": [{"iterations": 900, "seconds": 30, "incomplete_share": 0.3,
                                                     "jit_share": 0.2},
                                                    {"iterations": 300, "seconds": 12, "incomplete_share": 0.0,
                                                     "jit_share": 0.025}], "settled": version == "v1",
                                       "seconds": 42.0,
                                       "jvm": {"web-api": {"jit_seconds": 9.5, "gc_seconds": 0.5, "compilations": 4000}},
                                       "throttling": {"web-api": {"periods": 400, "throttled": 300,
                                                                  "throttled_seconds": 12.0}}}
                             for version in ("v1", "v2")}
    data = computed(directory, environment)
    assert data["settled"] == {"v1": True, "v2": False}
    assert figure(data, "v1", "jvm", "web-api", "jit_cpu_seconds")["median"] == 0.2
    assert figure(data, "v1", "jvm", "web-api", "gc_seconds")["median"] == 0.125
    assert figure(data, "v1", "throttling")["median"] is None  # v1 measured none (no quota)
    assert figure(data, "v2", "throttling", "web-api", "throttled")["median"] == 50
    assert figure(data, "v2", "node_cpu_s")["median"] is None  # only where the node's processes run on this machine
    assert rendered(directory)  # the warm-up and throttling render


def test_cpu_per_complete_answer_and_without_the_background(tmp_path):
    directory = results(tmp_path)
    environment = json.loads((directory / "environment.json").read_text())
    # 0.1 CPU s per s with no load, over the 10 s of each run: 1 of its 2.25 CPU s
    environment["background_cpu_per_s"] = {v: {"web-api": 0.04, "articles": 0.02, "authors": 0.02, "postgres": 0.01,
                                                "kafka": 0.01} for v in ("v1", "v2")}
    data = computed(directory, environment)
    assert abs(figure(data, "v1", "cpu_ms_background_off")["median"] - 1.25) < 1e-9
    assert figure(data, "v1", "cpu_ms_per_complete")["median"] == 2.25


def test_the_node_s_own_processes_apart(tmp_path):
    directory = results(tmp_path, node_cpu={"etcd": 0.2, "kube-apiserver": 0.4, "kubelet": 0.3, "containerd": 0.225})
    data = computed(directory)
    assert abs(figure(data, "v2", "node_cpu_s")["median"] - 1.125) < 1e-9
    assert figure(data, "v1", "node_cpu_s")["median"] is None and figure(data, "v2", "system_cpu_s")["median"] == 2.25


def test_figures_are_computed_again_from_the_kept_samples(tmp_path):
    directory = results(tmp_path)
    for summary_file in (directory / "runs").glob("v1-closed-*.json"):
        if not summary_file.name.endswith(".cost.json"):
            # 100 complete answers of 10 ms, and 900 fast 503s the old definition counted into the percentiles
            rows = [f"{1_000_000 + i * 1000},{1_000_000 + i * 1000},10000,200,complete,1997" for i in range(100)]
            rows += [f"{2_000_000 + i * 100},{2_000_000 + i * 100},500,503,shed,120" for i in range(900)]
            summary_file.with_suffix(".csv").write_text(",".join(results_module.samples.HEADER) + "\n" + "\n".join(rows) + "\n")
    with pytest.raises(SystemExit, match="no samples beside it"):  # v2's runs have none
        results_module.resummarize(directory)
    for summary_file in (directory / "runs").glob("v2-closed-*.json"):
        if not summary_file.name.endswith(".cost.json"):
            summary_file.unlink()
            summary_file.with_suffix(".cost.json").unlink()
    assert results_module.resummarize(directory) == 2
    data = results_module.write(directory)
    assert figure(data, "v1", "p50")["median"] == 10.0 and figure(data, "v1", "shed")["median"] == 900


def test_a_run_s_report_says_where_its_ratios_fall_against_the_published_answer(tmp_path):
    """The published local run is the one README.md's answer shows; a run whose median lies in its interval is said to,
    one beside it is said not to, and the report carries the comparison."""
    from benchkit.core import cells
    from benchkit.publish.bench import summaries
    name, published = summaries.published_headline(on_kubernetes=False)
    assert name and published.get("on_kubernetes", False) is False
    there = summaries.published_ratio(published, "v2")
    assert there == (cells.cell_of(published, "v2", "closed") if published["design"] == "bench" else
                     cells.cell_of(published, "v2", size="0"))["ratios"]["complete_per_s"]

    def run(median):
        return {"cells": [{"build": "v2", "mode": "closed", "ratios": {"complete_per_s": {
            "median": median, "low": median - 0.1, "high": median + 0.1}}}]}
    inside, = summaries.against_published(run(there["low"]), published)
    outside, = summaries.against_published(run(there["high"] + 0.01), published)
    assert inside["inside"] and not outside["inside"] and outside["published"]["median"] == there["median"]
    runs = tmp_path / "runs"
    runs.mkdir()
    (tmp_path / "environment.json").write_text(json.dumps({}))
    for run_number in (1, 2):
        write_run(runs, "v1", "closed", run_number)
        write_run(runs, "v2", "closed", run_number, requests=1500, authors=7500)
    rendered(tmp_path)
    rows, _ = report.published_rows(read(tmp_path))
    assert [row[0] for row in rows[1:]] == ["v2 (reactive)"] and rows[1][3] == ("yes" if there["low"] <= 1.5 <= there["high"] else "NO")


def test_in_a_cluster_the_report_says_which_node_each_pod_and_load_pod_ran_on(tmp_path):
    directory = results(tmp_path)
    for version, run, node in (("v1", 1, "node-a"), ("v1", 2, "node-b"), ("v2", 1, "node-b"), ("v2", 2, "node-b")):
        cost_file = directory / "runs" / f"{version}-closed-{run}.cost.json"
        cost = json.loads(cost_file.read_text())
        cost["nodes"] = {f"bench-{version}-web-api-x": "node-a", f"bench-{version}-authors-y": "node-c"}
        cost_file.write_text(json.dumps(cost))
        summary_file = directory / "runs" / f"{version}-closed-{run}.json"
        summary = json.loads(summary_file.read_text())
        summary["pods"] = [{"pod": "load-0", "node": node, "cpu_seconds": 1.0, "start_skew_ms": None}]
        summary_file.write_text(json.dumps(summary))
    data = computed(directory)
    assert data["placement"]["v1"] == {"build": {"node-a": ["bench-v1-web-api-x"], "node-c": ["bench-v1-authors-y"]},
                                       "load": {"node-a": 1, "node-b": 1}}
    assert data["placement"]["v2"]["load"] == {"node-b": 2}  # every v2 run's generator on a node of its own
    assert ["v1", "node-a", "bench-v1-web-api-x", "1"] in tables.placement_rows(data["placement"])
    assert rendered(directory) is not None
    assert "Where the pods ran" in (directory / "report.md").read_text()
    (tmp_path / "local").mkdir()
    assert computed(results(tmp_path / "local"))["placement"] == {}  # the local stack: nothing placed


def test_the_floor_measured_in_the_same_rounds_gives_each_build_its_multiples_and_the_layer_table(tmp_path):
    directory = results(tmp_path)
    runs = directory / "runs"
    for run in (1, 2):  # the floor answers twice as many in the same time, each at half the CPU
        write_run(runs, "v0", "closed", run, requests=2000, authors=10000)
    json_layer = "JSON (Jackson, Vert.x's JsonObject)"
    profiles = directory / "profiles"
    profiles.mkdir()
    (profiles / "profile.json").write_text(json.dumps(
        {v: {s: {"samples": 10, "shares": {}, "layers": {json_layer: 1.0}, "pins": {"count": 0}}
             for s in ("web-api", "articles", "authors")} for v in ("v0", "v1", "v2")}))
    (profiles / "costs.json").write_text(json.dumps(
        {v: {"complete": 1000, "cpu_ms": {"web-api": 1.0 / factor, "articles": 0.5, "authors": 0.5, "postgres": 0.2},
             "gc_ms": {"web-api": 0.0}, "jit_ms": {"web-api": 0.0}} for v, factor in (("v0", 2), ("v1", 1), ("v2", 1))}))
    rendered(directory)
    data = read(directory)
    v1 = cell(data, "v1")
    assert v1["against_floor"]["complete_per_s"]["rounds"] == [0.5, 0.5]
    assert v1["against_floor"]["cpu_ms_per_complete"]["median"] == pytest.approx(2.0)
    assert "against_floor" not in cell(data, "v0")
    rows = report.tables.floor_table(data)
    assert rows[0][1:] == ["v1 (imperative)", "v2 (reactive)", "v0 (floor)"]
    assert rows[2][1:] == ["0.50× (0.50–0.50)", "0.50× (0.50–0.50)", "1"]
    assert rows[4][1:] == ["2.00× (2.00–2.00)", "2.00× (2.00–2.00)", "1"]
    assert data["profile"]["costs"]["v0"]["cpu_ms"]["web-api"] == 0.5
    layers = {row[0]: row[1:] for row in report.tables.layers_table(data)}
    assert layers[json_layer] == ["2.000", "2.000", "1.500", "+0.500", "+0.500"]
    again = tmp_path / "again"
    again.mkdir()
    without = computed(results(again))
    assert report.tables.floor_table(without) is None and report.tables.layers_table(without) is None


def test_the_floor_is_set_against_the_public_estimate_as_a_multiple_of_each_end():
    from benchkit.publish.bench import public
    data = {"cells": [{"build": "v0", "mode": "closed", "size": "0", "rounds": [{"cpu_ms_per_complete": 1.6}, {"cpu_ms_per_complete": 1.6}]}]}
    rows = report.tables.public_table(data)
    low, high = public.ESTIMATE_BEST_JVM_MS
    assert rows[1][1:] == ["1.60", "1"]
    assert rows[2][1:] == [f"{low:.2f}–{high:.2f}", f"{1.6 / high:.1f}–{1.6 / low:.1f}×"]
    # derived from its sources: 13 HTTP sides at HttpArena's 36-38 µs, 6 statements at pgbench's 17 µs and 46 - 38 µs
    # of their client's
    assert public.SIDES == 13 and (low, high) == (round((13 * 36 + 6 * 25) / 1000, 2), round((13 * 38 + 6 * 25) / 1000, 2))
    assert report.tables.public_table({"cells": [{"build": "v1", "mode": "closed", "size": "0", "rounds": []}]}) is None
