import json
import types

import pytest

from benchkit.core import cells, design, documents, knobs, protocol, results, tunables, verdicts
from benchkit.experiments import ab
from benchkit.publish import ab as publish_ab


def figures(rate, cpu, statements=1.0):
    return {"complete_per_s": rate, "p50": 10.0, "p99": 30.0, "cpu_ms": cpu,
            "cpu_ms_per_complete_background_off": cpu, "postgres_cpu_ms": cpu / 4, "data_services_cpu_ms": cpu / 2,
            "statements_per_request": statements, "data_statements_per_request": 1.0, "calibration_seconds": 2.0,
            "failed_pct": 0.0, "degraded": 0}


def a_b(modes, build="v1", size="0"):
    """The cell document of an A/B of one build: {mode: [its rounds]}, the first mode the reference."""
    document = {"compared": cells.MODE, "reference": next(iter(modes)), "modes": list(modes),
                "cells": [{"build": build, "mode": mode, "size": size, "rounds": rounds} for mode, rounds in modes.items()]}
    document["cells"] = cells.with_ratios(document)
    return document


def test_b_over_a_is_the_median_of_each_rounds_own_ratio():
    data = a_b({"transaction": [figures(400, 2.0), figures(500, 2.0), figures(300, 2.0)],
                "autocommit": [figures(440, 1.8), figures(500, 1.6), figures(390, 1.5)]})
    reference, b = data["cells"]
    assert "ratios" not in reference
    found = b["ratios"]["complete_per_s"]
    assert found["rounds"] == pytest.approx([1.1, 1.0, 1.3])
    assert (found["median"], found["low"], found["high"]) == pytest.approx((1.1, 1.0, 1.3))
    # not the ratio of the medians (440 / 400 = 1.1 here by chance; the CPU shows the difference)
    assert b["ratios"]["cpu_ms_per_complete_background_off"]["median"] == pytest.approx(0.8)


def test_the_table_shows_every_round_and_a_ratio_only_where_one_is_meant():
    data = a_b({"transaction": [figures(400, 2.0, 4.0)], "autocommit": [figures(440, 1.8, 2.0)]})
    rows = {row[1]: row for row in cells.table(data)[1:]}
    assert rows["complete answers/s"][0] == "v1 (imperative)"
    assert rows["complete answers/s"][2:] == ["400", "440", "1.10× (1.10–1.10)"]
    assert rows["statements sent per request, BEGIN and COMMIT included"][2:] == ["4.00", "2.00", "–"]
    sized = a_b({"transaction": [figures(400, 2.0)], "autocommit": [figures(440, 1.8)]}, "v3", "0.5")
    assert cells.table(sized)[1][0] == "v3 at 0.5 CPU"


def test_a_tampered_ratio_is_found():
    data = a_b({"transaction": [figures(400, 2.0)], "autocommit": [figures(440, 1.8)]})
    assert cells.consistency(data) == []
    data["cells"][1]["ratios"]["complete_per_s"]["median"] = 1.2
    assert cells.consistency(data)


def test_tls_tells_both_clients_and_only_the_data_services_restart():
    env = tunables.environments(ab.TLS.settings, ab.TLS.modes["require"])["authors"]
    assert env["QUARKUS_DATASOURCE_JDBC_ADDITIONAL_JDBC_PROPERTIES_SSLMODE"] == "require"
    assert env["QUARKUS_DATASOURCE_REACTIVE_POSTGRESQL_SSL_MODE"] == "require"
    assert env["QUARKUS_DATASOURCE_REACTIVE_TRUST_ALL"] == "true"
    assert tunables.environments(ab.TLS.settings, ab.TLS.modes["require"])["web-api"] == {}


def test_reads_switch_the_jdbc_builds_data_services_only():
    env = tunables.environments(ab.READS.settings, ab.READS.modes["autocommit"])
    assert env["articles"] == {"JDBC_READS": "autocommit"} == env["authors"]
    assert env["web-api"] == {}
    assert ab.READS.builds == ("v1", "v3")


def test_statements_per_request_count_begin_and_commit_apart(tmp_path):
    cost = {"version": "v1", "target": "web-api", "requests_served": {"web-api": 10},
            "sql": [{"database": "authors", "query": "BEGIN", "calls": 50},
                    {"database": "authors", "query": "select a from authors where name=$1", "calls": 50},
                    {"database": "authors", "query": "COMMIT", "calls": 50},
                    {"database": "articles", "query": "select * from article_events for update", "calls": 7}]}
    every, data = results.statement_counts(cost)
    assert every == pytest.approx(15.0)
    assert data == pytest.approx(5.0)


class Platform:
    """What a design's runner asks of a platform, each restart kept (the runner's own loop is what is tested)."""
    where = "here"

    def __init__(self, versions):
        self.versions, self.started, self.quotas = versions, [], []

    def environment(self, where, runs, warmup):
        return {"git_commit": "abc1234", "timestamp": "t", "where": where}

    def reconfigure(self, version, environments, fresh=False):
        self.started.append((version, None, environments.get("web-api", {}).get("SERVICE_BUILD"), fresh))
        return version

    def size(self, version, cpus, processors=None, environments=None, fresh=False):
        self.started.append((version, cpus, (environments or {}).get("web-api", {}).get("SERVICE_BUILD"), True))
        self.quotas.append((version, "size", cpus))
        return version

    lifts = True

    def lift(self, version):  # a quota can be lifted where one was set (as on the local stack)
        lifted = next((cpus for v, what, cpus in reversed(self.quotas) if v == version and what == "size"),
                      None) is not None
        self.quotas.append((version, "lift", lifted))
        return lifted

    def bind(self, version):
        self.quotas.append((version, "bind", None))

    def calibrate(self):
        return 2.0

    def restore(self, version):
        self.started.append((version, "restored"))

    def close(self):
        self.started.append("closed")


def measured_by(monkeypatch, rates, rounds=1, order_seed="measured-by"):
    # the rounds' orders drawn from a seed of the test's own: protocol.seed is cached for the process, and drawn from
    # the clock by whichever test asks first (the rates below are handed out in the order measured)
    monkeypatch.setattr(protocol, "seed", lambda: order_seed)
    monkeypatch.setattr(design, "seed", lambda: order_seed)
    monkeypatch.setattr(design, "warm_up", lambda version, build, runs_dir, warmup: {"settled": True})
    monkeypatch.setattr(design, "background", lambda builds: {v: {} for v in builds})
    # a rate per cell's label (the modes' order in a round is drawn), else the rates in the order measured
    given = rates.get if isinstance(rates, dict) else (lambda label, rates=iter(rates): next(rates))
    monkeypatch.setattr(design, "closed_round", lambda build, runs_dir, round_, iterations, label, *args: {
        **figures(given(label), 2.0), "label": label})
    monkeypatch.setattr(design, "open_round", lambda build, runs_dir, run, label, rate: {
        "open_p99": 10.0, "capacity_per_s": rate // 2})
    monkeypatch.setattr(design.knobs, "value", lambda name: rounds)
    # each fork a start of its own (protocol.fork reads it off the services: test_protocol)
    starts = iter(range(1, 10_000))
    monkeypatch.setattr(design, "fork", lambda build: {"web-api": {"started": float(next(starts)), "ready_s": 2.0},
                                                       "first_answer_s": 2.5})


def test_the_build_a_b_starts_each_mode_from_its_own_application_at_each_size(monkeypatch, tmp_path):
    # shipped and absent at no limit and at half a CPU: each mode restarted from a cold JVM with SERVICE_BUILD, sized
    # where a size is given, the closed round then the open one; a cell per build, mode and size
    measured_by(monkeypatch, {"tracing-absent-0-extension-off": 400, "tracing-absent-0-absent": 300,
                              "tracing-absent-0.5-extension-off": 440, "tracing-absent-0.5-absent": 310})
    platform = Platform(("v3",))
    data = json.loads(ab.run(platform, ab.Spec(variant="tracing-absent"), tmp_path).read_text())
    assert [(c["build"], c["mode"], c["size"]) for c in data["cells"]] == [
        ("v3", "extension off", "0"), ("v3", "absent", "0"), ("v3", "extension off", "0.5"), ("v3", "absent", "0.5")]
    # each size's two modes in the round's drawn order, the sizes one after the other
    assert [set(platform.started[:2]), set(platform.started[2:4]), *platform.started[4:]] == [
        {("v3", None, "", True), ("v3", None, "without-tracing", True)},
        {("v3", 0.5, "", True), ("v3", 0.5, "without-tracing", True)}, ("v3", "restored"), "closed"]
    half = data["cells"][3]
    assert half["rounds"][0]["size"] == "0.5" and half["rounds"][0]["label"] == "tracing-absent-0.5-absent"
    assert half["ratios"]["capacity_per_s"]["median"] == pytest.approx(155 / 220)  # 310 / 2 against 440 / 2
    assert cells.consistency(data) == []
    # measuring wrote the document alone; its report is publishing's, read from the document
    assert sorted(p.name for p in tmp_path.iterdir()) == ["runs", "tracing-absent.json"]
    publish_ab.write_report(tmp_path / "tracing-absent.json")
    written = (tmp_path / "tracing-absent.md").read_text()
    assert written.startswith(f"# reactive-bench: {ab.TRACING_ABSENT.title}") and (tmp_path / "tracing-absent.html").exists()
    assert documents.markdown_table(cells.table(data)) in written


def test_the_modes_order_is_drawn_and_reversed_in_the_round_after(monkeypatch, tmp_path):
    measured_by(monkeypatch, [400, 300, 440, 310], rounds=2)
    platform = Platform(("v1",))
    data = json.loads(ab.run(platform, ab.Spec(variant="tracing-absent", sizes=("0",)), tmp_path).read_text())
    started = [build for _, _, build, _ in platform.started[:-2]]
    assert sorted(started[:2]) == ["", "without-tracing"] and started[2:] == started[1::-1]
    # every round says where in it each cell was measured, and the document the seed its orders were drawn from
    assert {(r["round"], r["place"]) for c in data["cells"] for r in c["rounds"]} == {(1, 1), (1, 2), (2, 1), (2, 2)}
    assert data["order_seed"] == protocol.seed()


def test_the_sizes_of_an_a_b_can_be_chosen_and_an_unknown_one_is_refused():
    spec = knobs.spec_of(ab.Spec, "ab", {"AB_SIZES": "0.5"}, variant="against-commit")
    assert spec.sizes == ("0.5",)
    assert knobs.spec_of(ab.Spec, "ab", {}, variant="tls").sizes == ()
    with pytest.raises(SystemExit):
        knobs.spec_of(ab.Spec, "ab", {"AB_SIZES": "half"}, variant="tls")


def test_a_document_is_checked_by_the_modes_it_was_measured_with():
    # tracing-absent measured "shipped" against "absent" before the extension left the shipped builds
    data = a_b({"shipped": [figures(400, 2.0)], "absent": [figures(440, 1.8)]})
    assert data["cells"][1]["ratios"]["complete_per_s"]["median"] == pytest.approx(1.1)
    assert cells.consistency(data) == []


def test_an_a_b_s_verdicts_are_the_core_s_one_verdict_and_one_session_gives_none():
    """Every kind of result has the one verdict (verdicts.verdict): an A/B of one session, however its forks agree, gives
    no word; two sessions pooled with their noise floor give ahead, level or behind."""
    from benchkit.tests.test_verdicts import floor, rounds, session
    one = a_b({"extension off": [figures(400, 2.0), figures(420, 2.0)], "absent": [figures(440, 1.8), figures(430, 1.9)]})
    assert {row[3].split(" ", 2)[2] for row in verdicts.table(one)[1:]} == {"undecided: one session"}

    def tracing(timestamp, faster):  # absent answers about 1.5 times as many in every round, at the same CPU per answer
        return session(timestamp, {("v1", mode, size): rounds([rate * (faster if mode == "absent" else 1)] * 3, cpu=2.0)
                                   for mode in ("off", "absent") for size in ("0.5", "0") for rate in (1000,)},
                       design="tracing-absent", compared=cells.MODE, reference="off", modes=("off", "absent"))
    pooled = cells.pooled({"s1": tracing("2026-11-29T08:00:00+00:00", 1.5),
                           "s2": tracing("2026-11-29T11:00:00+00:00", 1.45)},
                          "pooled", floors={"f1": floor("2026-11-29T08:40:00+00:00"),
                                            "f2": floor("2026-11-29T11:40:00+00:00")})
    words = [row[3].split(" ", 2)[2] for row in verdicts.table(pooled)[1:] if row[0] == "v1 at 0.5 CPU"]
    assert words == ["ahead", "level", "ahead", "level"]  # answers/s, p99, capacity, CPU per answer


def test_a_design_s_phases_are_its_own_unless_iterations_or_warm_up_is_given_once_for_every_experiment(monkeypatch):
    from benchkit.experiments import cpumap
    monkeypatch.delenv("ITERATIONS", raising=False)
    monkeypatch.delenv("WARMUP_ITERATIONS", raising=False)
    the_map = cpumap.cpu_map(cpumap.Spec(sizes=("0.5",), keep=None), ("v1",))
    assert the_map.lengths == cpumap.MEASURES.lengths and the_map.lengths.resolved() == (50, 300)
    assert design.Design("plain", "", "", ("v1",)).lengths.resolved() == (300, 900)  # the load's, load/scenarios.json
    monkeypatch.setenv("ITERATIONS", "20")
    monkeypatch.setenv("WARMUP_ITERATIONS", "30")
    assert ab.LENGTHS.resolved() == the_map.lengths.resolved() == (20, 30)


def test_an_a_b_measures_with_the_lengths_its_experiment_declares(monkeypatch, tmp_path):
    measured = []
    monkeypatch.setattr(design, "run", lambda platform, chosen, directory, extra: measured.append(chosen))
    ab.run(types.SimpleNamespace(versions=("v1",)), ab.Spec(variant="noise-floor"), tmp_path)
    assert [d.lengths for d in measured] == [ab.MEASURES.lengths] and ab.NOISE_FLOOR.lengths != ab.LENGTHS


def test_a_long_run_says_where_it_is_and_the_rest_at_its_own_pace():
    assert design.progress(0, 3, 0, 30) == "group 1 of 3, 0 min so far"  # no pace before a group is measured
    # two groups in 40 minutes: the third at that pace
    assert design.progress(2, 3, 2, 2400) == "group 3 of 3, 40 min so far, about 20 min more at this pace"
    # a continued run: the first group was kept, the second took 30 minutes, two remain with this one
    assert design.progress(2, 4, 1, 1800) == "group 3 of 4, 30 min so far, about 60 min more at this pace"
