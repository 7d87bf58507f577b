import json

import pytest

from benchkit.experiments import compare
from benchkit.tests.test_report import write_run


def side(directory, cpu_scale, jit, gc=0.03, background=None, settled=True, scales=(1.0, 1.0, 1.0)):
    """Three closed rounds of v1, 1000 complete answers each: 2.25 CPU s × cpu_scale × the round's scale, and per
    service jit and gc CPU seconds."""
    runs = directory / "runs"
    runs.mkdir(parents=True)
    (directory / "environment.json").write_text(json.dumps({
        "git_commit": "abc", "background_cpu_per_s": background,
        "warmup": {"v1": {"settled": settled, "windows": []}}}))
    for run, scale in zip((1, 2, 3), scales):
        write_run(runs, "v1", "closed", run)
        cost_file = runs / f"v1-closed-{run}.cost.json"
        cost = json.loads(cost_file.read_text())
        cost["cpu_seconds"] = {k: v * cpu_scale * scale for k, v in cost["cpu_seconds"].items()}
        cost["jvm"] = {s: {"jit_seconds": jit, "jit_cpu_seconds": jit / 3, "gc_seconds": 0.5, "gc_cpu_seconds": gc,
                           "compilations": 1} for s in ("web-api", "articles", "authors")}
        cost_file.write_text(json.dumps(cost))
    return directory


def test_both_sides_alike_jit_and_gc_cpu_off_each_and_an_interval_from_the_rounds(tmp_path):
    # local: 2.25 ms, JIT 3 × 0.2/3 s = 0.2 ms, GC 3 × 0.03 s = 0.09 ms: settled 1.96 ms.
    # node: 6.75 ms, JIT 2.0 ms, GC 0.09 ms: settled 4.66 ms; its rounds at 0.9, 1.0 and 1.1 of that CPU.
    local = compare.per_answer(side(tmp_path / "local", 1, 0.2), background=False)
    node = compare.per_answer(side(tmp_path / "node", 3, 2.0, scales=(0.9, 1.0, 1.1)), background=False)
    found = compare.comparison(local, node, {})["v1"]
    assert found["local_settled_ms"] == pytest.approx(1.96) and found["node_settled_ms"] == pytest.approx(4.66)
    assert found["ratio"] == pytest.approx(4.66 / 1.96)
    assert found["ratio_low"] == pytest.approx((6.75 * 0.9 - 2.09) / 1.96)
    assert found["ratio_high"] == pytest.approx((6.75 * 1.1 - 2.09) / 1.96)
    assert compare.rows({"v1": found})[1][-1] == "no"  # above 1.3x


def test_tls_is_taken_off_only_where_its_rounds_agree(tmp_path):
    tls = tmp_path / "tls"
    tls.mkdir()
    agreeing = {"disable": [{"cpu_ms_per_complete_background_off": 2.0}, {"cpu_ms_per_complete_background_off": 2.1}],
                "require": [{"cpu_ms_per_complete_background_off": 2.5}, {"cpu_ms_per_complete_background_off": 2.6}]}
    apart = {"disable": [{"cpu_ms_per_complete_background_off": 2.0}, {"cpu_ms_per_complete_background_off": 4.0}],
             "require": [{"cpu_ms_per_complete_background_off": 2.5}, {"cpu_ms_per_complete_background_off": 2.6}]}
    (tls / "tls.json").write_text(json.dumps({"builds": {"v1": {"rounds": agreeing}, "v2": {"rounds": apart}, "v3": {
        "rounds": {"disable": [{"cpu_ms": 2.0}], "require": [{"cpu_ms": 2.5}]}}}}))
    cost = compare.tls_cost(tls)
    assert cost["v1"][0] == pytest.approx(0.5)
    assert cost["v2"][0] is None and "apart" in cost["v2"][1]
    assert cost["v3"][0] is None  # only CPU per request: not per complete answer


def test_a_run_that_did_not_settle_is_refused_on_either_side(tmp_path):
    settled = side(tmp_path / "settled", 1, 0.2)
    unsettled = side(tmp_path / "unsettled", 1, 0.2, settled=False)
    compare.refuse_unsettled(settled)
    with pytest.raises(SystemExit, match="did not settle"):
        compare.refuse_unsettled(unsettled)


def test_the_background_comes_off_both_sides_or_neither(tmp_path):
    with_background = side(tmp_path / "a", 1, 0.2, background={"v1": {"web-api": 0.045}})
    without = side(tmp_path / "b", 1, 0.2)
    assert compare.has_background(with_background) and not compare.has_background(without)
    raw = compare.per_answer(with_background, background=False)["v1"].median("whole")
    off = compare.per_answer(with_background, background=True)["v1"].median("whole")
    assert raw == pytest.approx(2.25) and off == pytest.approx(2.25 - 0.45)


def test_a_published_comparison_is_checked_against_its_rounds(tmp_path):
    from benchkit import registry
    local = compare.per_answer(side(tmp_path / "local", 1, 0.2), background=False)
    node = compare.per_answer(side(tmp_path / "node", 3, 2.0, scales=(0.9, 1.0, 1.1)), background=False)
    document = {"schema": compare.SCHEMA, "background_taken_off": False, "builds": compare.comparison(local, node, {}),
                "local": {}, "node": {}, "tls": None}
    (tmp_path / "compare.json").write_text(json.dumps(document))
    summary = json.loads(registry.publish(tmp_path / "compare.json", "node-vs-local", tmp_path / "docs").read_text())
    assert registry.consistency(summary) == []
    summary["builds"]["v1"]["ratio"] *= 1.01  # a changed figure
    assert any("v1 ratio" in problem for problem in registry.consistency(summary))
    summary["builds"]["v1"]["ratio"] /= 1.01
    summary["builds"]["v1"]["processes"]["web-api"]["node_ms"] += 0.001  # so is a process's figure
    assert any("web-api node_ms" in problem for problem in registry.consistency(summary))
    assert compare.process_rows(summary["builds"])[1][0] == "web-api"
