import json

import pytest

from benchkit.core import cells
from benchkit import figures
from benchkit.publish import registry as publishing
from benchkit.experiments.bench import document as results
from benchkit.publish.chaos import summary as chaos_summary
from benchkit.tests.test_report import write_run


def published(tmp_path):
    """A summary of a three-round run (v2 answering 1.5, 1.6 and 3.0 times v1's, the third round drifted) and a
    README that quotes it."""
    bench = tmp_path / "bench"
    runs = bench / "runs"
    runs.mkdir(parents=True)
    (bench / "environment.json").write_text(json.dumps({"git_commit": "abc1234", "timestamp": "t", "where": "here"}))
    for run, seconds, v2 in ((1, 2.0, 1500), (2, 2.1, 1600), (3, 2.6, 3000)):
        write_run(runs, "v1", "closed", run, calibration_seconds=seconds)
        write_run(runs, "v2", "closed", run, requests=v2, authors=5 * v2, calibration_seconds=seconds)
    results.write(bench)
    summaries = tmp_path / "docs" / "results"
    path = publishing.publish(bench, "demo", summaries)
    readme = tmp_path / "README.md"
    readme.write_text("v2 answers <!-- figure demo cells.[build=v2,mode=closed].ratios.complete_per_s.median {:.2f}× -->?"
                      "<!-- /figure --> as much as v1.\n\n<!-- figures demo headline -->\n<!-- /figures -->\n"
                      "\n<!-- figures demo cpu -->\n<!-- /figures -->\n")
    readme.write_text(figures.rendered(readme.read_text(), publishing.loaded(summaries), "README.md"))
    return path, readme, summaries


def test_a_summary_is_rendered_into_the_docs_and_checked_against_them(tmp_path):
    path, readme, summaries = published(tmp_path)
    summary = json.loads(path.read_text())
    assert cells.cell_of(summary, "v2", "closed")["ratios"]["complete_per_s"]["median"] == 1.6
    text = readme.read_text()
    assert "-->1.60×<!--" in text
    assert "| complete answers / s (lowest–highest round) | 100 | 160 (150–300) |" in text
    assert "| the same without the drifted round 3 | 1 | 1.55× |" in text
    assert "| whole system | 2.25 | 1.41 |" in text  # CPU ms per request, each build's (the median round)
    assert figures.check(tmp_path, summaries) == []


def test_a_changed_digit_in_a_doc_fails_the_check(tmp_path):
    _, readme, summaries = published(tmp_path)
    readme.write_text(readme.read_text().replace("-->1.60×<!--", "-->1.61×<!--"))
    problems = figures.check(tmp_path, summaries)
    assert len(problems) == 1 and "README.md: a figure is not its summary's" in problems[0]
    readme.write_text(readme.read_text().replace("-->1.61×<!--", "-->1.60×<!--").replace("160 (150–300)", "160 (150–301)"))
    assert figures.check(tmp_path, summaries)


def test_a_summary_whose_ratio_is_not_what_its_rounds_give_fails(tmp_path):
    path, _, summaries = published(tmp_path)
    summary = json.loads(path.read_text())
    closed = cells.cell_of(summary, "v2", "closed")
    closed["ratios"]["complete_per_s"]["median"] = 1.55  # the kept rounds' median, unsaid
    path.write_text(json.dumps(summary))
    assert any("v2, closed: ratios not what its rounds give" in p for p in figures.check(tmp_path, summaries))
    closed["ratios"]["complete_per_s"]["median"] = 1.6
    closed["rounds"][1]["complete_per_s"] = 158.0
    path.write_text(json.dumps(summary))
    problems = figures.check(tmp_path, summaries)
    assert any("v2, closed: medians not what its rounds give" in p for p in problems), problems


def test_a_changed_interval_a_dropped_round_or_cleared_drift_flags_fail(tmp_path):
    """What the docs bracket a ratio with, how many rounds it rests on and which rounds drifted are checked as its
    median is: each edit below, left alone by the median, fails."""
    path, _, summaries = published(tmp_path)
    original = json.loads(path.read_text())

    def problems_after(edit):
        summary = json.loads(json.dumps(original))
        edit(cells.cell_of(summary, "v2", "closed"))
        path.write_text(json.dumps(summary))
        return figures.check(tmp_path, summaries)

    def narrower(cell):
        cell["ratios"]["complete_per_s"]["low"] = 1.55
    assert any("v2, closed: ratios not what its rounds give" in p for p in problems_after(narrower))

    def dropped(cell):  # the last round dropped, its ratio and median taken again: still 1.55, not the 1.6
        cell["rounds"] = cell["rounds"][:-1]
        cell["ratios"] = cells.with_ratios({**original, "cells": [
            c if c["build"] == "v1" else cell for c in original["cells"]]})[1]["ratios"]
    assert any("closed: not one round of each build per round of the scenario" in p for p in problems_after(dropped))

    def cleared(cell):
        for r in cell["rounds"]:
            r["drift"] = None
    assert any("closed: drifted rounds [] are not the rounds the machine drifted in, [3]" in p
               for p in problems_after(cleared))
    path.write_text(json.dumps(original))
    assert figures.check(tmp_path, summaries) == []


def test_an_unknown_summary_or_path_fails_loudly(tmp_path):
    _, readme, summaries = published(tmp_path)
    readme.write_text("<!-- figure nothing scenarios.closed {:.1f} -->1<!-- /figure -->")
    with pytest.raises(SystemExit):
        figures.check(tmp_path, summaries)


def test_a_summary_of_no_known_schema_fails_the_check_instead_of_being_skipped(tmp_path):
    _, _, summaries = published(tmp_path)
    (summaries / "stray.json").write_text(json.dumps({"schema": "reactive-bench/results/9", "ratio": 2.0}))
    assert figures.check(tmp_path, summaries) == [
        "docs/results/stray.json: schema 'reactive-bench/results/9': no kind publishes it, so nothing checks it"]


def chaos_run(tmp_path):
    tmp_path.mkdir(parents=True, exist_ok=True)
    overload = lambda stalled, passed, rps: {  # noqa: E731
        "fault": "overload (2x capacity)", "version": "v3", "outcomes": {"complete": 9000, "degraded": 0, "shed": 4000},
        "accepted_rps": rps, "accepted_p99_ms": 90, "stalled_seconds": stalled, "passed": passed,
        "capacity_rps": 700, "offered_rps": 1400, "server_mean_ms": 150.2, "little_bound_ms": 400.0, "peak_rss_mib": 380,
        "checks": {"p99_no_growth": passed, "memory_bounded": True}}
    fault = {"fault": "authors stopped", "version": "v2", "replicas": 1, "requests": 100, "timeline": [],
             "outcomes": {"complete": 60, "degraded": 30, "shed": 5, "unavailable": 2, "error": 3}, "recovery_seconds": 4.4,
             "passed": False, "checks": {"never_500": False}, "p99_ms_during_fault": 28.5, "circuit_openings": 3, "retries": 12, "timeouts": 4,
             "cpu": {"machine_busy_during_fault": 0.91, "machine_busy_when_not_complete": 1.0,
                     "machine_busy_when_complete": 0.62},
             "writes": {"sent": 12, "created": 10, "statuses": {"201": 10, "503": 2}},
             "events": {"created": 10, "delivered": 10, "lost": 0, "duplicates": 0, "unconfirmed": 0}}
    directory = tmp_path / "chaos"
    directory.mkdir()
    (directory / "chaos.json").write_text(json.dumps(chaos_document(
        [fault, overload(0, True, 500), overload(2, False, 480), overload(0, True, 520)])))
    return directory


def chaos_document(made, rounds=None):
    """The cell document a chaos run writes of what it made (each a fault's or an overload's verdicts), a cell per
    fault and build, its rounds in turn (rounds: each one's round, 1, 2, … by default)."""
    found = {}
    for number, r in zip(rounds or range(1, len(made) + 1), made):
        mode = "overload" if "timeline" not in r else r["fault"]
        found.setdefault((mode, r["version"]), []).append({"size": "", "round": number, "place": 1, **r})
    return {"schema": "reactive-bench/cells/1", "design": "chaos", "commit": "abc1234", "timestamp": "t",
            "where": "here", "compared": "mode", "cells": [
                {"build": build, "mode": mode, "size": "", "rounds": rounds} for (mode, build), rounds in found.items()]}


def test_a_chaos_summary_counts_the_stalls_and_is_checked_against_its_runs(tmp_path):
    summaries = tmp_path / "docs" / "results"
    path = chaos_summary.publish_chaos(chaos_run(tmp_path), "chaos", summaries)
    summary = json.loads(path.read_text())
    v3 = summary["overload"]["v3"]
    assert (v3["stalled_runs"], v3["stalled_seconds"], v3["failed_runs"]) == (1, 2, 1)
    assert v3["accepted_rps"] == {"median": 500, "low": 480, "high": 520}
    readme = tmp_path / "README.md"
    readme.write_text("<!-- figures chaos overload -->\n<!-- /figures -->\n<!-- figures chaos faults -->\n<!-- /figures -->\n"
                      "<!-- figures chaos overload-runs -->\n<!-- /figures -->\n"
                      "<!-- figures chaos faults-cpu -->\n<!-- /figures -->\n"
                      "<!-- figures chaos faults-calls -->\n<!-- /figures -->\n")
    readme.write_text(figures.rendered(readme.read_text(), publishing.loaded(summaries), "README.md"))
    text = readme.read_text()
    assert "| v3 (virtual threads) | 3 | 1 (2) | 0 | 1 | 500 (480–520) | 90 |" in text
    assert "| authors stopped | v2 | 1 | 100 | 60 / 30 / 7 / 3 | 28 | 4.4 | 10 / 12 | 10 / 10 (0) | 3× | FAIL: never_500 |" in text
    assert ("| v3 (virtual threads) | 700 | 1,400 | 480 | 9,000 | 0 | 4,000 | 150.2 (400) | 90 | 380 | 2 | "
            "FAIL: p99_no_growth |") in text
    assert "| authors stopped | v2 | 1 | 91% | 100% | 62% |" in text
    assert "| authors stopped | v2 | 100 | 60 / 30 | 12 | 4 | 3× |" in text
    assert figures.check(tmp_path, summaries) == []
    v3["stalled_runs"] = 0  # a stall left out
    path.write_text(json.dumps(summary))
    assert figures.check(tmp_path, summaries)


def test_a_chaos_summary_s_verdicts_and_counts_are_what_its_runs_give(tmp_path):
    summaries = tmp_path / "docs" / "results"
    path = chaos_summary.publish_chaos(chaos_run(tmp_path), "chaos", summaries)
    original = json.loads(path.read_text())
    assert publishing.consistency(original) == []

    def problems_after(edit):
        changed = json.loads(json.dumps(original))
        edit(changed)
        return publishing.consistency(changed)
    assert problems_after(lambda d: d["faults"][0].update(passed=not d["faults"][0]["passed"]))
    assert problems_after(lambda d: d["faults"][0]["events"].update(lost=0, delivered=0))
    assert problems_after(lambda d: d["faults"][0].update(requests=d["faults"][0]["requests"] + 1))
    assert problems_after(lambda d: d.update(passed=True)) == ["passed: not what its runs give"]
    # each figure a fault's row shows against the check it decides, and the writes against the events
    assert problems_after(lambda d: d["faults"][0].update(recovery_seconds=None)) == [
        "authors stopped v2: recovery None s is not what its failed check 'recovered' says"]
    assert problems_after(lambda d: d["faults"][0]["events"].update(duplicates=1)) == [
        "authors stopped v2: 1 events twice is not what its failed check 'no_event_twice' says"]
    assert problems_after(lambda d: d["faults"][0]["writes"].update(created=9)) == [
        "authors stopped v2: events created are not the writes answered 201"]
    assert problems_after(lambda d: d["faults"][0].update(failed_checks=[], passed=True)) == [
        "authors stopped v2: 3 errors is not what its failed check 'never_500' says"]


def test_an_ab_summary_is_rendered_and_checked_against_its_rounds(tmp_path):
    rounds = {"transaction": [{key: 2.0 for key, *_ in cells.FIGURES}],
              "autocommit": [{key: 3.0 for key, *_ in cells.FIGURES}]}
    run = tmp_path / "reads-run"
    run.mkdir()
    document = {"schema": cells.SCHEMA, "design": "reads", "modes": list(rounds), "commit": "abc1234",
                "compared": cells.MODE, "reference": "transaction", "environment": {"a": 1},
                "cells": [{"build": "v1", "mode": mode, "size": "0", "rounds": found} for mode, found in rounds.items()]}
    document["cells"] = cells.with_ratios(document)
    (run / "reads.json").write_text(json.dumps(document))
    summaries = tmp_path / "docs" / "results"
    path = publishing.publish(run, "reads", summaries)
    assert "environment" not in json.loads(path.read_text())
    readme = tmp_path / "README.md"
    readme.write_text("<!-- figures reads ab -->\n<!-- /figures -->\n"
                      "<!-- figure reads cells.[build=v1,mode=autocommit].ratios.complete_per_s.median {:.2f}× -->"
                      "<!-- /figure -->\n")
    readme.write_text(figures.rendered(readme.read_text(), publishing.loaded(summaries), "README.md"))
    assert "| v1 (imperative) | complete answers/s | 2 | 3 | 1.50× (1.50–1.50) |" in readme.read_text()
    assert "-->1.50×<!-- /figure -->" in readme.read_text()
    assert figures.check(tmp_path, summaries) == []
    tampered = json.loads(path.read_text())
    tampered["cells"][1]["rounds"][0]["complete_per_s"] = 4.0
    path.write_text(json.dumps(tampered))
    assert figures.check(tmp_path, summaries)


def test_a_path_picks_one_item_of_a_list_by_its_values_and_refuses_an_ambiguous_one():
    summary = {"cells": [{"build": "v3", "mode": "extension off", "size": "0.5", "x": 1},
                         {"build": "v3", "mode": "absent", "size": "0.5", "x": 2}]}
    assert figures.at(summary, "cells.[build=v3,mode=absent,size=0.5].x") == 2
    assert figures.at(summary, "cells.[mode=extension_off].x") == 1
    with pytest.raises(KeyError):
        figures.at(summary, "cells.[build=v3].x")


def test_several_chaos_runs_make_one_summary_of_one_commit(tmp_path):
    first, second = chaos_run(tmp_path / "a"), chaos_run(tmp_path / "b")
    summary = json.loads(publishing.publish(f"{first},{second}", "both", tmp_path / "docs").read_text())
    assert len(summary["faults"]) == 2 and summary["overload"]["v3"]["run_count"] == 6
    data = json.loads((second / "chaos.json").read_text())
    (second / "chaos.json").write_text(json.dumps({**data, "commit": "def5678"}))
    with pytest.raises(SystemExit, match="different commits"):
        publishing.publish(f"{first},{second}", "both", tmp_path / "docs")
    bench = tmp_path / "bench"
    bench.mkdir()
    (bench / "bench.json").write_text("{}")
    with pytest.raises(SystemExit, match="only by chaos"):  # a kind that does not pool runs (Kind.several)
        publishing.publish(f"{bench},{bench}", "both", tmp_path / "docs")


def run_summary(tmp_path, name, timestamp, v2_requests, seconds=(2.0, 2.1, 2.05)):
    bench = tmp_path / name
    runs = bench / "runs"
    runs.mkdir(parents=True)
    (bench / "environment.json").write_text(json.dumps({"git_commit": name, "timestamp": timestamp, "where": "here"}))
    for run, (calibration, v2) in enumerate(zip(seconds, v2_requests), start=1):
        write_run(runs, "v1", "closed", run, calibration_seconds=calibration)
        write_run(runs, "v2", "closed", run, requests=v2, authors=5 * v2, calibration_seconds=calibration)
    results.write(bench)
    return json.loads(publishing.publish(bench, name, tmp_path / "docs" / "results").read_text())


def test_a_headline_of_two_independent_runs_covers_every_round_of_both(tmp_path):
    morning = run_summary(tmp_path, "aaa1111", "2026-11-26T08:00:00+00:00", (1500, 1600, 1550))
    evening = run_summary(tmp_path, "bbb2222", "2026-11-26T14:00:00+00:00", (1300, 1400, 1700))
    both = publishing.pooled({"aaa1111": morning, "bbb2222": evening}, "demo-both")
    closed = cells.cell_of(both, "v2", "closed")
    ratio = closed["ratios"]["complete_per_s"]
    assert (ratio["low"], ratio["high"], len(ratio["rounds"])) == (1.3, 1.7, 6)
    assert ratio["median"] == 1.525  # of all six rounds' ratios, not a median of the runs' medians
    assert [r["session"] for r in closed["rounds"]] == ["aaa1111"] * 3 + ["bbb2222"] * 3
    assert [r["round"] for r in closed["rounds"]] == [1, 2, 3, 4, 5, 6] and publishing.consistency(both) == []
    assert [r["rounds"] for r in both["sessions"]] == [3, 3] and both["rounds"] == 6


def test_runs_at_different_open_rates_leave_the_open_model_out_of_their_headline(tmp_path):
    morning = run_summary(tmp_path, "aaa1111", "2026-11-26T08:00:00+00:00", (1500, 1600, 1550))
    evening = run_summary(tmp_path, "bbb2222", "2026-11-26T14:00:00+00:00", (1300, 1400, 1700))
    for summary, rate in ((morning, "820/s: 80 %"), (evening, "530/s: 80 %")):
        summary["cells"] += [{**c, "mode": "open"} for c in summary["cells"]]
        summary["modes"], summary["open_rate"] = ["closed", "open"], rate
    both = publishing.pooled({"aaa1111": morning, "bbb2222": evening}, "demo-both")
    assert "open" not in both["modes"] and {c["mode"] for c in both["cells"]} == {"closed"}
    assert both["left_out"] == {"open": "each run at its own rate: 820/s: 80 %; 530/s: 80 %"}
    evening["open_rate"] = morning["open_rate"]
    both = publishing.pooled({"aaa1111": morning, "bbb2222": evening}, "demo-both")
    assert "open" in both["modes"] and both["left_out"] == {} and both["open_rate"] == "820/s: 80 %"


def test_runs_too_close_together_or_not_comparable_are_not_combined(tmp_path):
    import pytest
    morning = run_summary(tmp_path, "aaa1111", "2026-11-26T08:00:00+00:00", (1500, 1600, 1550))
    soon = run_summary(tmp_path, "bbb2222", "2026-11-26T08:20:00+00:00", (1300, 1400, 1700))
    with pytest.raises(SystemExit, match="not independent"):
        publishing.pooled({"aaa1111": morning, "bbb2222": soon}, "x")
    elsewhere = {**soon, "timestamp": "2026-11-26T14:00:00+00:00", "on_kubernetes": True}
    with pytest.raises(SystemExit, match="differ in on_kubernetes"):
        publishing.pooled({"aaa1111": morning, "bbb2222": elsewhere}, "x")
    with pytest.raises(SystemExit, match="differ in design"):
        publishing.pooled({"aaa1111": morning, "bbb2222": {**elsewhere, "on_kubernetes": False, "design": "cpu-map"}}, "x")
    with pytest.raises(SystemExit, match="differ in versions"):
        publishing.pooled({"aaa1111": morning, "bbb2222": {**elsewhere, "on_kubernetes": False, "versions": ["v1"]}}, "x")


def test_a_table_is_drawn_only_from_a_summary_of_its_kind(tmp_path):
    _, readme, summaries = published(tmp_path)
    readme.write_text("<!-- figures demo faults -->\n<!-- /figures -->\n")
    with pytest.raises(SystemExit, match="no table faults of it"):
        figures.rendered(readme.read_text(), publishing.loaded(summaries), "README.md")
    readme.write_text("<!-- figures demo headline -->\n<!-- /figures -->\n")
    assert "v2 (reactive)" in figures.rendered(readme.read_text(), publishing.loaded(summaries), "README.md")


def test_every_kind_is_found_by_what_its_run_wrote_and_unknown_ones_are_refused(tmp_path):
    assert len({kind.summary_schema for kind in publishing.KINDS}) == len(publishing.KINDS)
    assert len({name for kind in publishing.KINDS for name in kind.tables}) == sum(len(kind.tables) for kind in publishing.KINDS)
    unknown = tmp_path / "other.json"
    unknown.write_text(json.dumps({"schema": "something/1"}))
    with pytest.raises(SystemExit, match="no kind publishes it"):
        publishing.publish(unknown, "x", tmp_path / "docs")
    with pytest.raises(SystemExit, match="nothing to publish"):
        publishing.publish(tmp_path, "x", tmp_path / "docs")
    assert publishing.consistency({"schema": "something/1"}) == ["schema 'something/1': no kind publishes it"]
