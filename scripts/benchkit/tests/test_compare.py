import json

import pytest

from benchkit.publish import compare
from benchkit.publish.compare.costs import Cost
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


def compared(tmp_path, local, node, tls=None):
    """python -m benchkit compare LOCAL NODE: the remainder.json it writes into NODE."""
    compare.main([str(local), str(node), *(["--tls", str(tls)] if tls else [])])
    return json.loads((node / "remainder.json").read_text())


def test_two_benches_are_two_steps_jit_and_gc_cpu_off_each_and_the_node_judged_round_against_round(tmp_path):
    # local: 2.25 ms, JIT 3 × 0.2/3 s = 0.2 ms, GC 3 × 0.03 s = 0.09 ms: settled 1.96 ms.
    # node: 6.75 ms, JIT 2.0 ms, GC 0.09 ms: settled 4.66 ms; its rounds at 0.9, 1.0 and 1.1 of that CPU.
    document = compared(tmp_path, side(tmp_path / "local", 1, 0.2),
                        side(tmp_path / "node", 3, 2.0, scales=(0.9, 1.0, 1.1)))
    assert document["steps"] == [["local closed", "the local stack (make demo)"], ["node closed", "the node (make bench)"]]
    assert not document["background_taken_off"] and document["unlimited"] == []
    found = document["builds"]["v1"]
    assert found["settled_ms"]["local closed"] == pytest.approx(1.96)
    assert found["settled_ms"]["node closed"] == pytest.approx(4.66)
    left = found["factors"]["unexplained"]
    assert (left["factor"], left["low"], left["high"]) == pytest.approx(
        (4.66 / 1.96, (6.75 * 0.9 - 2.09) / 1.96, (6.75 * 1.1 - 2.09) / 1.96))
    assert left["against_bound"] == "beyond" and list(found["factors"]) == ["unexplained"]
    assert compare.rows(document)[-1][1] == "beyond"


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
    compare.bench_side(side(tmp_path / "settled", 1, 0.2), False)
    with pytest.raises(SystemExit, match="did not settle"):
        compare.bench_side(side(tmp_path / "unsettled", 1, 0.2, settled=False), False)


def test_the_background_comes_off_both_sides_or_neither(tmp_path):
    with_background = side(tmp_path / "a", 1, 0.2, background={"v1": {"web-api": 0.045}})
    without = side(tmp_path / "b", 1, 0.2)
    assert compare.has_background(with_background) and not compare.has_background(without)
    raw = compare.bench_side(with_background, False)[1]["closed"]["v1"].median("whole")
    off = compare.bench_side(with_background, True)[1]["closed"]["v1"].median("whole")
    assert raw == pytest.approx(2.25) and off == pytest.approx(2.25 - 0.45)
    assert not compared(tmp_path, with_background, without)["background_taken_off"]


def test_a_published_comparison_is_checked_against_its_rounds(tmp_path):
    from benchkit.publish import registry as publishing
    compared(tmp_path, side(tmp_path / "local", 1, 0.2), side(tmp_path / "node", 3, 2.0, scales=(0.9, 1.0, 1.1)))
    summary = json.loads(publishing.publish(tmp_path / "node" / "remainder.json", "node-vs-local",
                                          tmp_path / "docs").read_text())
    assert publishing.consistency(summary) == []
    summary["builds"]["v1"]["factors"]["unexplained"]["factor"] *= 1.01  # a changed figure
    assert publishing.consistency(summary) == ["v1 factors.unexplained.factor: not what its steps' rounds give"]
    summary["builds"]["v1"]["factors"]["unexplained"]["factor"] /= 1.01
    summary["builds"]["v1"]["processes"]["web-api"]["settled_ms"]["node closed"] += 0.001  # so is a process's figure
    assert publishing.consistency(summary) != []
    assert compare.process_rows(summary)[1][0] == "web-api"


def cpu_map(directory, scales, background=0.0, settled=True):
    """A CPU map of v1 at the rungs of scales ({rung: CPU scale}), three closed rounds each of 1000 complete answers:
    2.25 CPU s × the scale, web-api's JIT 0.1 and GC 0.05 CPU s, each process's background in its cell (per s)."""
    runs = directory / "runs"
    runs.mkdir(parents=True)
    cells = []
    for rung, scale in scales.items():
        for run in (1, 2, 3):
            write_run(runs, "v1", f"cpu-map-{rung}", run)
            cost_file = runs / f"v1-cpu-map-{rung}-{run}.cost.json"
            cost = json.loads(cost_file.read_text())
            cost["cpu_seconds"] = {k: v * scale for k, v in cost["cpu_seconds"].items()}
            cost["jvm"] = {"web-api": {"jit_cpu_seconds": 0.1, "gc_cpu_seconds": 0.05}}
            cost_file.write_text(json.dumps(cost))
            cells.append({"size": rung, "round": run, "settled": settled,
                          "background_cpu_per_s": {p: background for p in cost["cpu_seconds"]}})
    (directory / "cpu-map.json").write_text(json.dumps({
        "commit": "abc", "timestamp": "t", "where": "here", "environment": {"git_commit": "abc"},
        "sizes": list(scales), "cells": [{"build": "v1", "mode": "", "size": rung,
                                          "rounds": [c for c in cells if c["size"] == rung]} for rung in scales]}))
    return directory


def test_the_remainder_brings_a_pods_conditions_one_at_a_time_and_names_what_is_left(tmp_path):
    # settled: 2.25 × scale − 0.15 (JIT and GC) − background (0.005/s × 10 s × 5 processes = 0.25) ms per answer
    local = cpu_map(tmp_path / "local", {"0": 1.0, "1p": 1.1, "1": 1.2}, background=0.005)
    node = cpu_map(tmp_path / "node", {"1": 2.0, "0": 1.8}, background=0.005)
    tls = tmp_path / "tls"
    tls.mkdir()
    (tls / "tls.json").write_text(json.dumps({"builds": {"v1": {"rounds": {
        mode: [{"cpu_ms_per_complete_background_off": ms}] * 2 for mode, ms in (("disable", 2.0), ("require", 2.1))}}}}))
    settled = {rung: 2.25 * scale - 0.15 - 0.25 for rung, scale in {"0": 1.0, "1p": 1.1, "1": 1.2, "node": 2.0}.items()}
    document = compared(tmp_path, local, node, tls)
    found = document["builds"]["v1"]
    assert found["settled_ms"]["local 1p"] == pytest.approx(settled["1p"])
    assert found["factors"]["local 1p"]["factor"] == pytest.approx(settled["1p"] / settled["0"])
    assert found["factors"]["local 1"]["ms"] == pytest.approx(settled["1"] - settled["1p"])
    assert found["factors"]["tls"]["ms"] == pytest.approx(0.1)
    left = found["factors"]["unexplained"]
    assert left["factor"] == pytest.approx(settled["node"] / (settled["1"] + 0.1))
    # the steps' ms add up to the node's gap over the local stack with no limit
    assert sum(f["ms"] for f in found["factors"].values()) == pytest.approx(settled["node"] - settled["0"])
    assert left["against_bound"] == "beyond"  # 4.1 / 2.4 in every round: above 1.3x
    # web-api's own settled figure: its JIT and GC off, its background off
    assert found["processes"]["web-api"]["settled_ms"]["node 1"] == pytest.approx(2.0 - 0.15 - 0.05)
    assert found["unlimited"]["median"] == pytest.approx((2.25 * 1.8 - 0.4) / settled["0"])
    rows = compare.rows(document)
    assert rows[4][0].startswith("and TLS") and rows[4][1].startswith(f"{settled['1'] + 0.1:.3f}")
    assert rows[-2][1] == "beyond"


def test_the_node_is_judged_against_the_bound_by_every_round_of_its_ratio():
    def cost(*settled):
        return Cost(whole=list(settled), jit=[0.0] * 3, gc=[0.0] * 3, settled=list(settled))
    local = cost(1.0, 1.0, 1.0)
    # round against round: 1.28, 1.35 and 1.40; the median of the rounds' ratios, not the ratio of the medians
    ratio = compare.by_round(cost(1.28, 1.40, 1.35), local)
    assert (ratio["median"], ratio["low"], ratio["high"]) == pytest.approx((1.35, 1.28, 1.40))
    assert compare.against_bound(ratio) == "undecided"  # rounds on both sides of 1.3
    assert compare.against_bound(compare.by_round(cost(1.1, 1.2, 1.29), local)) == "within"
    assert compare.against_bound(compare.by_round(cost(1.31, 1.5, 1.4), local)) == "beyond"


def test_a_remainder_needs_settled_cells_and_every_step(tmp_path):
    with pytest.raises(SystemExit, match="did not settle"):
        compare.map_side(cpu_map(tmp_path / "unsettled", {"0": 1.0}, settled=False))
    _, local = compare.map_side(cpu_map(tmp_path / "local", {"0": 1.0, "1": 1.2}))  # no rung 1p
    _, node = compare.map_side(cpu_map(tmp_path / "node", {"1": 2.0}))
    assert compare.remainder({"local": local, "node": node}, compare.MAP_STEPS, compare.MAP_UNLIMITED, {}) == {}
    with pytest.raises(SystemExit, match="no build has every step"):
        compare.main([str(tmp_path / "local"), str(tmp_path / "node")])


def test_a_published_remainder_is_checked_against_its_steps_rounds(tmp_path):
    from benchkit.publish import registry as publishing
    compared(tmp_path, cpu_map(tmp_path / "local", {"0": 1.0, "1p": 1.1, "1": 1.2}), cpu_map(tmp_path / "node", {"1": 2.0}))
    summary = json.loads(publishing.publish(tmp_path / "node" / "remainder.json", "remainder",
                                          tmp_path / "docs").read_text())
    assert publishing.consistency(summary) == []
    assert summary["builds"]["v1"]["unlimited"] is None  # the node's map had no rung without a limit
    summary["builds"]["v1"]["factors"]["unexplained"]["factor"] *= 1.01
    assert publishing.consistency(summary) == ["v1 factors.unexplained.factor: not what its steps' rounds give"]
    summary["builds"]["v1"]["factors"]["unexplained"]["factor"] /= 1.01
    summary["builds"]["v1"]["processes"]["authors"]["settled_ms"]["local 0"] += 0.001
    assert publishing.consistency(summary) != []
    assert compare.process_rows(summary)[1][0] == "web-api"
