"""The latency map's grid, its Little's-law predictions and its report, on figures made up for the purpose."""
import json

import pytest

from benchkit import latency, latencymap, latencyreport


def test_the_grid_comes_from_the_environment(monkeypatch):
    monkeypatch.setenv("LATENCY_AUTHORS_MS", "0,20")
    monkeypatch.setenv("LATENCY_DATABASE_MS", "5")
    monkeypatch.setenv("LATENCY_JITTER", "0.1")
    monkeypatch.setenv("MAP_RATES", "300")
    monkeypatch.setenv("MAP_USERS", "100,400")
    rows, loads = latencymap.grid()
    assert rows == [latency.Setting("authors", 0, 0), latency.Setting("authors", 20, 2), latency.Setting("database", 5, 0)]
    assert [(load.model, load.value) for load in loads] == [("open", 300), ("closed", 100), ("closed", 400)]
    assert loads[0].settings("10s") == ("open", {"RATE": "300", "DURATION": "10s", "MAX_USERS": "1000"})
    assert loads[2].settings("10s")[1]["MAX_DURATION"] == "10s"


def test_little_s_law_names_the_tightest_pool():
    at_50 = latency.Setting("authors", 50)
    v1 = latencymap.predicted_ceiling("v1", at_50)
    # five look-ups per request, each holding a look-up thread and a connection for 50 ms
    pools = latencymap.pools("v1")
    assert v1["bounds"]["web-api's look-up threads"] == round(pools["web-api's look-up threads"] / (5 * 0.05))
    assert v1["ceiling"] == min(v1["bounds"].values())
    # v2 and v3 have no look-up threads to run out of: their connections to authors bound them
    for version in ("v2", "v3"):
        prediction = latencymap.predicted_ceiling(version, at_50)
        assert "web-api's look-up threads" not in prediction["bounds"]
        assert prediction["bound_by"] == "web-api's connections to authors"
    # a slow database: pipelined reactive connections carry far more queries at once than a JDBC pool
    slow = latency.Setting("database", 5)
    assert latencymap.predicted_ceiling("v2", slow)["ceiling"] > latencymap.predicted_ceiling("v3", slow)["ceiling"]
    assert latencymap.predicted_ceiling("v1", latency.Setting("authors", 0)) is None


def cell(row, load, complete, p99, repeat=1):
    peaks = {s: {"threads": 40, "connections": 10} for s in ("web-api", "articles", "authors")}
    return {"row": row, "load": load, "repeat": repeat, "complete_per_s": complete, "requests": 1000, "p50": p99 / 4,
            "p99": p99, "degraded": 0, "shed": 0, "failed": 0, "unsent": 0, "peaks": peaks,
            "peak_rss_mib": {"web-api": 300}, "cpu_seconds": {}}


@pytest.fixture
def made_up(tmp_path):
    rows = [latency.Setting("authors", 0), latency.Setting("authors", 50, 5)]
    data = {"schema": latencymap.SCHEMA, "commit": "abc1234", "timestamp": "2026-11-26T00:00:00+00:00",
            "where": "made up", "environment": {"runs": 2}, "duration": "10s",
            "rows": [{"hop": r.hop, "ms": r.ms, "jitter_ms": r.jitter_ms} for r in rows],
            "loads": [{"model": "open", "value": 250}, {"model": "closed", "value": 400}],
            "predicted": {v: [latencymap.predicted_ceiling(v, r) for r in rows] for v in ("v1", "v2")},
            "checks": {"v1": [{"repeat": 1, "row": 1, "hops": [{"added_ms": 50.4, "tolerance_ms": 3.1, "ok": True}]}],
                       "v2": []},
            "cells": {"v1": [cell(0, 0, 250, 10), cell(0, 1, 900, 200), cell(1, 0, 250, 60), cell(1, 1, 380, 900),
                             cell(1, 1, 400, 1100, repeat=2)],
                      "v2": [cell(0, 0, 250, 8), cell(0, 1, 1400, 100), cell(1, 0, 250, 58), cell(1, 1, 1200, 300)]}}
    (tmp_path / "latency-map.json").write_text(json.dumps(data))
    return tmp_path, data


def test_ratios_are_of_the_medians_over_the_repeats(made_up):
    _, data = made_up
    found = latencyreport.medians(data)
    assert found["v1"][(1, 1)]["complete_per_s"] == 390
    assert latencyreport.ratios(data, found, "v2", "complete_per_s")[1][1] == pytest.approx(1200 / 390)
    assert latencyreport.measured_ceilings(data, found, "v1") == [900, 390]


def test_the_prediction_table_uses_the_machine_where_it_bounds_lower(made_up):
    _, data = made_up
    rows = latencyreport.prediction_rows(data, latencyreport.medians(data))
    v1_at_50 = next(r for r in rows if r[0].startswith("v1") and "+50" in r[1])
    assert v1_at_50[2] == "400" and v1_at_50[3] == "web-api's look-up threads"
    v1_at_0 = next(r for r in rows if r[0].startswith("v1") and "+0" in r[1])
    assert v1_at_0[2] == "900" and v1_at_0[3].startswith("the machine")


def test_the_report_is_written_with_its_heat_maps(made_up):
    directory, _ = made_up
    latencyreport.render(directory)
    assert (directory / "map-v2-throughput.svg").read_text().startswith("<?xml")
    assert "![map-v2-p99](map-v2-p99.svg)" in (directory / "latency-map.md").read_text()
