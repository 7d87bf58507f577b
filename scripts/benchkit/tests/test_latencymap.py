"""The latency map's grid, its Little's-law predictions and its report, on figures made up for the purpose."""
import dataclasses
import json

import pytest

from benchkit.core import delays, knobs
from benchkit.experiments import latencymap
from benchkit.schemas import latencymap as mapdoc
from benchkit.publish import latencymap as publish_latencymap
from benchkit.publish.latencymap import report as latencyreport


def test_the_grid_comes_from_the_environment(monkeypatch):
    monkeypatch.setenv("LATENCY_AUTHORS_MS", "0,20")
    monkeypatch.setenv("LATENCY_DATABASE_MS", "5")
    monkeypatch.setenv("LATENCY_JITTER", "0.1")
    monkeypatch.setenv("MAP_RATES", "300")
    monkeypatch.setenv("MAP_USERS", "100,400")
    rows, loads = latencymap.grid(knobs.spec_of(latencymap.Spec, "latencymap"))
    assert rows == [delays.Setting("authors", 0, 0), delays.Setting("authors", 20, 2), delays.Setting("database", 5, 0)]
    assert [(load.model, load.value) for load in loads] == [("open", 300), ("closed", 100), ("closed", 400)]
    assert loads[0].settings("10s") == ("open", {"RATE": "300", "DURATION": "10s", "MAX_USERS": "1000"})
    assert loads[2].settings("10s")[1]["MAX_DURATION"] == "10s"


def test_little_s_law_names_the_tightest_pool():
    at_50 = delays.Setting("authors", 50)
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
    # a slow database: each query holds a connection of its pool, reactive or JDBC alike (five authors queries per
    # request), so the smallest pool bounds: v2's 5 reactive connections, v3's 10 JDBC, v1's 20
    slow = delays.Setting("database", 5)
    assert latencymap.predicted_ceiling("v2", slow) == {**latencymap.predicted_ceiling("v2", slow), "ceiling": 200,
                                                         "bound_by": "authors' reactive connections"}
    assert latencymap.predicted_ceiling("v3", slow)["ceiling"] == 400
    assert latencymap.predicted_ceiling("v1", slow)["ceiling"] == 800
    assert latencymap.predicted_ceiling("v1", delays.Setting("authors", 0)) is None


def test_a_sweep_s_choice_is_what_the_build_runs_with_and_what_little_s_law_counts(monkeypatch):
    sweep = {"builds": {"v1": {"chosen": {"look-ups in flight": 250}}, "v3": {"chosen": {"authors connections": 500}}}}
    environment, properties = latencymap.tuned(sweep)
    assert environment["v1"]["web-api"] == {"WEB_API_AUTHOR_LOOKUPS_MAX_CONCURRENCY": "250",
                                            "QUARKUS_REST_CLIENT_AUTHORS_CONNECTION_POOL_SIZE": "250"}
    assert environment["v3"] == {"web-api": {"QUARKUS_REST_CLIENT_AUTHORS_CONNECTION_POOL_SIZE": "500"},
                                 "articles": {}, "authors": {}}
    at_50 = delays.Setting("authors", 50)
    shipped = latencymap.predicted_ceiling("v1", at_50)["ceiling"]
    assert latencymap.pools("v1", properties)["web-api's look-up threads"] == 250
    assert latencymap.predicted_ceiling("v1", at_50, properties)["ceiling"] > shipped
    assert latencymap.pools("v2", properties) == {**latencymap.pools("v2"), "web-api's connections to authors": 100}  # as it ships


def cell(row, load, complete, p99, repeat=1):
    """A made-up cell whose counts add up as a map's do: the made-up map's open load (its first) sends 250/s for its
    10 s, the closed one what was answered."""
    peaks = {s: {"threads": 40, "connections": 10} for s in ("web-api", "articles", "authors")}
    return {"row": row, "load": load, "repeat": repeat, "complete_per_s": complete,
            "requests": 2500 if load == 0 else complete * 10, "p50": p99 / 4,
            "p99": p99, "degraded": 0, "shed": 0, "failed": 0, "unsent": 0, "peaks": peaks,
            "peak_rss_mib": {"web-api": 300}, "cpu_seconds": {"web-api": 1.5, "proxy": 0.5}}


def as_cells(data):
    """A grid of made-up cells ({build: [cell of a row, a load and a repeat]}) as the cell document the map writes."""
    from benchkit.core import cells as celldoc
    grid = {latencymap.mode_name(delays.Setting(**row), latencymap.Load(**load)): [r, l]
            for r, row in enumerate(data["rows"]) for l, load in enumerate(data["loads"])}
    found = [{"build": build, "mode": mode, "size": "0", "rounds": [
        {"size": "0", "round": c["repeat"], **{k: v for k, v in c.items() if k not in ("row", "load", "repeat")}}
        for c in cells if [c["row"], c["load"]] == at]} for mode, at in grid.items() for build, cells in data["cells"].items()]
    document = {**{k: v for k, v in data.items() if k != "cells"}, "schema": celldoc.SCHEMA, "design": "latency-map",
                "grid": grid, "compared": celldoc.BUILD, "reference": "v1", "modes": list(grid), "sizes": ["0"],
                "rounds": data["rounds"], "cells": found}
    document["cells"] = celldoc.with_ratios(document)
    return document


def published(data):
    return {**as_cells(data), "ratios": mapdoc.ratio_grid(data)}


def twice(*cells):
    return [{**c, "repeat": repeat} for c in cells for repeat in (1, 2)]


@pytest.fixture
def made_up(tmp_path):
    rows = [delays.Setting("authors", 0), delays.Setting("authors", 50, 5)]
    data = {"commit": "abc1234", "timestamp": "2026-11-26T00:00:00+00:00",
            "where": "made up", "environment": {"runs": 2}, "rounds": 2, "duration": "10s",
            "rows": [{"hop": r.hop, "ms": r.ms, "jitter_ms": r.jitter_ms} for r in rows],
            "loads": [{"model": "open", "value": 250}, {"model": "closed", "value": 400}],
            "pools": {v: latencymap.pools(v) for v in ("v1", "v2")}, "rule": latencymap.rule(),
            "predicted": {v: [latencymap.predicted_ceiling(v, r) for r in rows] for v in ("v1", "v2")},
            "checks": {"v1": [{"repeat": 1, "row": 1, "hops": [{"added_ms": 50.4, "low_ms": 45.0, "high_ms": 53.1, "ok": True}]}],
                       "v2": []},
            # two repeats of every cell, as RUNS=2 measures them (one of v1's differs: its medians are of both)
            "cells": {"v1": [*twice(cell(0, 0, 250, 10), cell(0, 1, 900, 200), cell(1, 0, 250, 60)),
                             cell(1, 1, 380, 900), cell(1, 1, 400, 1100, repeat=2)],
                      "v2": twice(cell(0, 0, 250, 8), cell(0, 1, 1400, 100), cell(1, 0, 250, 58), cell(1, 1, 1200, 300))}}
    (tmp_path / "latency-map.json").write_text(json.dumps(as_cells(data)))
    return tmp_path, data


def test_ratios_are_the_medians_of_the_repeats_own_ratios(made_up):
    _, data = made_up
    found = latencyreport.medians(data)
    assert found["v1"][(1, 1)]["complete_per_s"] == 390
    # v2's 1,200 in both repeats over v1's 380 and 400: 3.16 and 3.00, their median 3.08 (not 1,200 / 390)
    assert mapdoc.ratios(data, "v2", "complete_per_s")[1][1] == pytest.approx((1200 / 380 + 1200 / 400) / 2)
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


def test_a_doc_s_heat_map_is_drawn_from_its_summary_and_a_changed_picture_fails_the_check(made_up):
    from benchkit import figures
    root, data = made_up
    summaries = root / "docs" / "results"
    summaries.mkdir(parents=True)
    (summaries / "map-made-up.json").write_text(json.dumps({**published(data), "name": "map-made-up"}))
    doc = root / "docs" / "results.md"
    doc.write_text("<!-- chart map-made-up map-v2-throughput -->![v2/v1](figures/map-made-up-map-v2-throughput.svg)"
                   "<!-- /chart -->\n")
    assert any("is not what its summary draws" in p for p in figures.check(root, summaries))  # not drawn yet
    drawn = figures.pictures(doc.read_text(), {"map-made-up": published(data)}, "results.md", root)
    (picture, svg), = drawn.items()
    assert picture == root / "docs/figures/map-made-up-map-v2-throughput.svg" and "3.08×" in svg  # 1200 / 390
    picture.parent.mkdir(parents=True)
    picture.write_text(svg)
    assert figures.check(root, summaries) == []
    picture.write_text(svg.replace("3.08×", "3.80×"))
    assert any("is not what its summary draws" in p for p in figures.check(root, summaries))


def test_the_sweep_that_chose_the_map_s_settings_is_kept_and_tabled_with_its_choice(made_up):
    _, data = made_up
    run = {"setting": "look-ups in flight", "property": "p", "p99": 80.0, "failed_pct": 0.0, "context": {},
           "calibration_seconds": 1.0}
    from benchkit.tests.test_sweep import swept
    sweep = swept("v1", {"commit": "abc", "latency": {"hop": "authors", "ms": 50, "jitter_ms": 5},
                         "shipped": {"look-ups in flight": 100}, "chosen": {"look-ups in flight": 250}},
                  [{**run, "value": 100, "repeat": 1, "complete_per_s": 370, "degraded": 0},
                   {**run, "value": 250, "repeat": 1, "complete_per_s": 560, "degraded": 2},
                   {**run, "value": 250, "repeat": 2, "complete_per_s": 600, "degraded": 0}])
    kept = latencymap.sweep_kept(sweep)
    assert "context" not in kept["v1"]["runs"][0] and kept["v1"]["chosen"] == {"look-ups in flight": 250}
    rows = latencyreport.sweep_rows({**data, "sweep": kept})
    assert rows[1][2:] == ["100", "370", "370", "0", "shipped"]
    assert rows[2][2:] == ["250", "560, 600", "580", "2, 0", "chosen"]


def test_a_published_map_s_ratios_are_what_its_cells_give(made_up):
    from benchkit.publish import registry as publishing
    _, data = made_up
    good = published(data)
    assert good["ratios"]["throughput"]["v2"][1][1] == round((1200 / 380 + 1200 / 400) / 2, 3)
    assert publishing.consistency(good) == []
    changed = json.loads(json.dumps(good))
    changed["ratios"]["throughput"]["v2"][1][1] = 3.5
    assert publishing.consistency(changed)


def test_the_proxy_s_own_cost_is_read_from_the_cells_with_no_latency_added(made_up):
    _, data = made_up
    rows = latencyreport.proxy_rows({**data, "cells": {v: [{**c, "cpu_seconds": {"proxy": 0.5, "system": 2.0}} for c in cells]
                                                       for v, cells in data["cells"].items()}})
    # row 0 (no latency) only, each of its cells: 0.5 s of the proxy over 2,500 requests (250/s for 10 s) and over
    # the 9,000 of v1's 900/s, a quarter of the system's
    assert [r[1:] for r in rows[1:5]] == [["open 250/s", "2,500", "0.200", "25%"]] * 2 + [
        ["closed 400 users", "9,000", "0.056", "25%"]] * 2  # each repeat's own
    assert len(rows) == 1 + 8
    # a run's own cells count each process: the same figures
    assert latencyreport.proxy_rows(data)[1][1:] == ["open 250/s", "2,500", "0.200", "25%"]


def a_short_map(fastest_at_20):
    """A map as e2e's short one: rows 0 and +20 ± 2 ms on the look-ups, one load, one repeat, one build."""
    hop = {"hop": "authors", "setting_ms": 0, "added_ms": 0.2, "direct_floor_ms": 0.3, "proxied_floor_ms": 0.5,
           "low_ms": -0.6, "high_ms": 2.1, "samples": 60, "ok": True}
    return {"rows": [{"hop": "authors", "ms": 0, "jitter_ms": 0}, {"hop": "authors", "ms": 20, "jitter_ms": 2}],
            "loads": [{"model": "open", "value": 40}], "rounds": 1,
            "own": {"v1": [hop]}, "checks": {"v1": [{"repeat": 1, "row": 1, "hops": [hop]}]},
            "cells": {"v1": [{**cell(0, 0, 40, 20), "fastest": 4.0}, {**cell(1, 0, 40, 60), "fastest": fastest_at_20}]}}


def test_a_map_holds_where_every_answer_waited_its_row_s_latency():
    assert all(holds for _, holds in publish_latencymap.verdicts(as_cells(a_short_map(18.5))))


def test_a_build_that_bypassed_its_proxy_fails_the_map_however_spread_its_answers():
    """Its answers at +20 ms: a p50 of 15 and a p99 of 60 on a busy machine (a p50 floor of 18 ms, or above the row
    with nothing added, could pass), but its fastest in 4 ms: faster than any answer that waited 18 ms."""
    found = dict(publish_latencymap.verdicts(as_cells(a_short_map(4.0))))
    assert [sentence for sentence, holds in found.items() if not holds] == [
        "no complete answer faster than its row's latency less the jitter (faster: [('v1', 'authors', 20, 0, 4.0)])"]


def test_a_map_with_a_missing_cell_or_a_proxy_that_costs_too_much_fails():
    short = a_short_map(19.0)
    short["cells"]["v1"].pop()
    short["own"]["v1"][0] = {**short["own"]["v1"][0], "added_ms": 2.5, "proxied_floor_ms": 2.8, "ok": False}
    found = publish_latencymap.verdicts(as_cells(short))
    assert [holds for _, holds in found] == [True, False, False, True]
    # the failing check named in its figures, where a failure's excerpt shows it
    assert "v1 authors 0 ms: added 2.5 (floors 0.3 -> 2.8), bounds -0.6..2.1, 60 round trips" in found[1][0]


def test_a_map_s_predictions_are_what_its_pools_give_by_its_rule(made_up):
    """A changed prediction, a changed pool or a changed rule fails the check: the prediction is computed again from
    the map alone."""
    from benchkit.publish import registry as publishing
    _, data = made_up
    good = published(data)
    assert publishing.consistency(good) == []
    changed = json.loads(json.dumps(good))
    changed["predicted"]["v1"][1]["ceiling"] += 1
    assert publishing.consistency(changed)
    changed = json.loads(json.dumps(good))
    changed["pools"]["v2"]["web-api's connections to authors"] = 400
    assert publishing.consistency(changed)
    changed = json.loads(json.dumps(good))
    changed["rule"][0]["holds"] = 2
    assert publishing.consistency(changed)


def test_a_prediction_revised_after_the_run_is_kept_beside_the_original_and_the_row_says_so(made_up):
    from benchkit.publish import registry as publishing
    _, data = made_up
    revised = json.loads(json.dumps(published(data)))
    pools = {v: {**p, "web-api's connections to authors": 25} for v, p in revised["pools"].items()}
    rows = [delays.Setting(r["hop"], r["ms"], r["jitter_ms"]) for r in revised["rows"]]
    revision = {"commit": "def5678", "why": "a pool counted twice", "rule": revised["rule"], "pools": pools,
                "predicted": {v: [mapdoc.predict(pools[v], revised["rule"], dataclasses.asdict(r)) for r in rows]
                              for v in pools}}
    revised["revisions"] = [revision]
    assert publishing.consistency(revised) == []
    grid = mapdoc.as_grid(revised)
    row = next(r for r in latencyreport.prediction_rows(grid, latencyreport.medians(grid))
               if r[0].startswith("v2") and "+50" in r[1])
    assert row[2] == "100" and "at def5678: a pool counted twice" in row[3] and "predicted 400/s" in row[3], row
    assert publishing.consistency({**revised, "revisions": [{**revision, "why": ""}]}), "a revision says why"
    revision["predicted"]["v2"][1]["ceiling"] = 99
    assert publishing.consistency(revised), "a revision is checked as the original is"


def test_a_cell_s_spread_and_its_ratio_interval_come_from_its_repeats(made_up):
    _, data = made_up
    # one repeat of each cell but v1's under 50 ms and 400 users
    data = {**data, "cells": {"v1": [c for c in data["cells"]["v1"] if c["repeat"] == 1 or (c["row"], c["load"]) == (1, 1)],
                              "v2": [c for c in data["cells"]["v2"] if c["repeat"] == 1]}}
    assert latencyreport.spreads(data)["v1"][(1, 1)] == pytest.approx(10 / 390)  # 380 and 400, 10 from 390 each
    assert latencyreport.spreads(data)["v1"][(0, 0)] is None  # one repeat: no spread to tell
    assert mapdoc.ratio_interval(data, "v2", 1, 1) == [round(1200 / 380, 3)] * 2  # v2 has repeat 1 only
    wide = {**data, "cells": {**data["cells"], "v1": [*data["cells"]["v1"], cell(0, 0, 300, 10, repeat=2)]}}
    assert mapdoc.unsettled(as_cells(wide)) == set()  # 250 and 300: 25 from 275, 9 %
    wide["cells"]["v1"].append(cell(0, 0, 400, 10, repeat=3))
    assert mapdoc.unsettled(as_cells(wide)) == {"authors +0 ms · open 250"}  # 250, 300, 400: 50 from 300, 17 %
    table = latencyreport.spread_rows(wide, mapdoc.SPREAD_LIMIT)
    assert table[1][1].startswith("v1 16.7%! (3), v2 – (1)")  # the cell that never agreed is marked
    assert table[2][2].startswith("v1 2.6% (2)")  # 380 and 400


def test_the_map_repeats_again_only_the_cells_whose_repeats_disagree(tmp_path, monkeypatch):
    """Three rounds of a grid of one row and two loads, on the core's runner; at the second load v1's rounds disagree
    (100, 200, 150), so that load alone is measured again, for every build, up to EXTRA_REPEATS more, until they
    agree; the row's latency is set and checked once per build and round, before its first cell."""
    from benchkit.core import design
    rates = {0: iter([500, 500, 500, 500, 500]), 1: iter([100, 200, 150, 150, 150])}
    set_on = []

    def fake_cell(build, row, load, runs_dir, repeat, duration):
        position = [l.value for l in loads].index(load.value)
        value = next(rates[position]) if build == "v1" else 600
        return {k: v for k, v in cell(0, position, value, 10, repeat).items() if k not in ("row", "load", "repeat")}

    class Proxy:
        def clear(self, version): pass
        def set(self, version, row): set_on.append(version)

    class Version(str):  # a build as the runner opens it, and closes it at the end
        def close(self): pass

    class Platform:
        where = "here"
        def through_proxy(self, version): return True
        def build(self, version): return Version(version)
        def environment(self, where, repeats, warmup): return {"git_commit": "abc", "timestamp": "t", "where": where}
        def hop_addresses(self, version, hop): return []
        def calibrate(self): return 1.0
        def restore(self, version): pass
        def close(self): pass
        def plugin(self, kind): return self  # its latency proxy: itself

    rows, loads = [delays.Setting("authors", 20, 2)], [latencymap.Load("open", 100), latencymap.Load("closed", 10)]
    monkeypatch.setattr(latencymap, "grid", lambda spec: (rows, loads))
    monkeypatch.setattr(latencymap, "cell", fake_cell)
    monkeypatch.setattr(design, "warm_up", lambda *a: {"settled": True})
    monkeypatch.setattr(design, "background", lambda builds: {v: {} for v in builds})
    monkeypatch.setattr(design.knobs, "value", lambda name: 3)
    shipped = latencymap.pools("v1")
    monkeypatch.setattr(latencymap, "pools", lambda version, tuned=None: shipped)
    monkeypatch.setattr(latencyreport, "render", lambda directory: directory / "latency-map.html")
    latencymap.run_map(Platform(), Proxy(), latencymap.Spec(), ["v1", "v2"], tmp_path)
    document = mapdoc.as_grid(json.loads((tmp_path / "latency-map.json").read_text()))
    repeats = sorted(c["repeat"] for c in document["cells"]["v1"] if c["load"] == 1)
    assert sorted(c["repeat"] for c in document["cells"]["v1"] if c["load"] == 0) == [1, 2, 3]
    # 100, 200, 150: 50 from 150 at the median; with a fourth 150, 25; with a fifth, 0: settled after two more
    assert repeats == [1, 2, 3, 4, 5] and document["unsettled"] == []
    assert sorted(c["repeat"] for c in document["cells"]["v2"] if c["load"] == 1) == [1, 2, 3, 4, 5]
    assert sorted(set_on) == ["v1"] * 5 + ["v2"] * 5 and document["ratios"]["throughput"]["v2"][0] == [1.2, 4.0]
    # each build's own hops checked with no latency before it was warmed (the runner's round 0), and kept
    assert json.loads((tmp_path / "latency-map.json").read_text())["own"] == {"v1": [], "v2": []}


def test_a_published_map_s_repeats_and_counts_are_checked():
    """What the map's tables show straight from its rounds: how many repeats a cell had (RUNS, then more while they
    disagree), which cells never agreed, and each round's requests, unsent, degraded, failed and shed answers."""
    from benchkit.publish import registry as publishing
    from benchkit.core import cells as celldoc
    found = publishing.loaded()["map-6cfbdd4"]
    assert publishing.consistency(found) == []

    def problems_after(edit):
        changed = json.loads(json.dumps(found))
        edit(changed)
        return publishing.consistency(changed)
    repeated = next(c for c in found["cells"] if len(c["rounds"]) > found["rounds"])
    index = found["cells"].index(repeated)
    # a repeat left out (its medians, ratios and the cells that disagree recomputed without it): fewer than the rule
    # measured
    def left_out(d):
        d["cells"][index]["rounds"].pop()
        d["cells"] = celldoc.with_ratios(d)
        d["ratios"] = mapdoc.ratio_grid(mapdoc.as_grid(d))
        d["unsettled"] = sorted(d["grid"][mode] for mode in mapdoc.unsettled(d))
    assert [p.endswith("rounds of every build, as its repeats' spread asks")
            for p in problems_after(left_out) if p.startswith(repeated["mode"])] == [True]
    assert problems_after(lambda d: d.update(unsettled=d["unsettled"][1:]))
    opened = next(i for i, c in enumerate(found["cells"]) if " · open " in c["mode"])
    for figure, value in (("requests", 1), ("unsent", 5), ("shed", 10 ** 6), ("degraded", 10 ** 6)):
        problems = problems_after(lambda d: d["cells"][opened]["rounds"][0].update(
            {figure: d["cells"][opened]["rounds"][0][figure] + value}))
        assert len(problems) == 1 and problems[0].endswith("do not add up"), figure


def test_a_map_s_own_prediction_is_sealed_at_its_first_commit_and_a_revision_names_a_commit_git_knows():
    """A pool and its prediction edited together give each other back (predictions_problems passes): what the run
    wrote is the summary as first committed, and a prediction revised after the run is a revision of a real commit."""
    from benchkit import ROOT
    from benchkit.publish import registry as publishing
    from benchkit.publish import since
    from benchkit.figures import first_of
    predict = mapdoc.predict
    path = ROOT / "docs" / "results" / "map-6cfbdd4.json"
    found, first = publishing.loaded()["map-6cfbdd4"], lambda: first_of(ROOT, path)
    known = lambda commit: since.known(ROOT, commit)  # noqa: E731
    assert publishing.sealed(found, first, known) == []
    edited = json.loads(json.dumps(found))
    edited["pools"]["v2"]["web-api's connections to authors"] = 500
    edited["predicted"]["v2"] = [predict(edited["pools"]["v2"], edited["rule"], row) for row in edited["rows"]]
    assert publishing.consistency(edited) == []  # consistent with itself
    assert publishing.sealed(edited, first, known) == [
        "the run's own prediction is not what it was when first committed: a revised one goes in revisions, with its "
        "commit and why"]
    revised = publishing.loaded()["lookups-250-6a3dbfb"]
    assert revised["revisions"] and publishing.sealed(revised, lambda: first_of(ROOT, path.with_name(
        "lookups-250-6a3dbfb.json")), known) == []
    made_up = {**revised, "revisions": [{**revised["revisions"][0], "commit": "0badc0de"}]}
    assert publishing.sealed(made_up, lambda: None, known) == ["the revision of 0badc0de: no commit of that name"]
