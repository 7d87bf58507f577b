"""A verdict is a word from every round of every session against the noise floor's, and the answer table shows it:
ahead or behind only beyond every round of the floor, none from too few sessions or rounds, none where sessions
disagree; a floor pools only with the sessions it was measured in."""
import pytest

from benchkit.core import cells, results
from benchkit.experiments import cpumap

SIZES = ("0.5", "0")


def rounds(rates, cpu=1.0, p99=10.0, capacity=None, memory=900.0, speed=1.0):
    """A cell's rounds: one per rate of complete answers/s, the other figures as given."""
    return [{"round": index, "complete_per_s": rate, "cpu_ms_per_complete_background_off": cpu, "open_p99": p99,
             "capacity_per_s": capacity if capacity is not None else rate / 2, "peak_memory_mib": memory,
             "calibration_seconds": speed} for index, rate in enumerate(rates, start=1)]


def session(timestamp, cells_by_key, design="cpu-map", compared=cells.BUILD, reference="v1", modes=("",)):
    """A session's cell document: {(build, mode, size): rounds}."""
    document = {"schema": cells.SCHEMA, "design": design, "compared": compared, "reference": reference,
                "modes": list(modes), "sizes": list(SIZES), "rounds": 3, "commit": "abc1234",
                "timestamp": timestamp, "where": "local", "environment": {"cores": 2}, "on_kubernetes": None,
                "cells": [{"build": b, "mode": m, "size": s, "rounds": r} for (b, m, s), r in cells_by_key.items()]}
    document["cells"] = cells.with_ratios(document)
    return document


def cpu_map(timestamp, v2_rates=(1700, 1750, 1800), v1_rates=(1000, 1000, 1000), slower=1.0):
    """A CPU map session; slower: its machine's (the calibration job's seconds, every process's CPU per answer)."""
    return session(timestamp, {
        **{("v1", "", size): rounds(v1_rates, cpu=2.0 * slower, speed=slower) for size in SIZES},
        **{("v2", "", size): rounds(v2_rates, cpu=1.0 * slower, capacity=600, speed=slower) for size in SIZES},
        **{("v3", "", size): rounds(v1_rates, cpu=2.0 * slower, capacity=300, speed=slower) for size in SIZES}})


def floor(timestamp, again=(980, 1000, 1030)):
    return session(timestamp, {**{("v1", "A", size): rounds((1000, 1000, 1000), cpu=2.0) for size in SIZES},
                               **{("v1", "A again", size): rounds(again, cpu=2.0) for size in SIZES}},
                   design="noise-floor", compared=cells.MODE, reference="A", modes=("A", "A again"))


def pooled(*sessions, floors=None):
    return cells.pooled({f"s{i}": d for i, d in enumerate(sessions)}, "pooled",
                        floors=floors and {f"f{i}": d for i, d in enumerate(floors)})


def two_sessions(**given):
    return pooled(cpu_map("2026-11-29T08:00:00+00:00", **given), cpu_map("2026-11-29T11:00:00+00:00", **given),
                  floors=[floor("2026-11-29T08:40:00+00:00"), floor("2026-11-29T11:40:00+00:00")])


def verdict(document, build, key, size="0.5"):
    return cells.verdict(document, cells.cell_of(document, build, size=size), key)


def test_ahead_and_behind_only_beyond_every_round_of_the_floor():
    document = two_sessions()
    assert verdict(document, "v2", "complete_per_s") == "ahead"
    assert verdict(document, "v2", "cpu_ms_per_complete_background_off") == "ahead"  # half the CPU: lower is better
    assert verdict(document, "v3", "capacity_per_s") == "behind"  # 300 against v1's 500
    assert verdict(document, "v2", "open_p99") == "level"  # the same p99: within the floor
    assert verdict(document, "v3", "complete_per_s") == "level"


def test_a_ratio_inside_the_floor_s_spread_is_level_though_every_round_is_above_one():
    # 1.02 to 1.04 in every round of both sessions: above 1 each time, yet within the floor's 0.98 to 1.03
    document = two_sessions(v2_rates=(1020, 1030, 1040))
    assert verdict(document, "v2", "complete_per_s") == "level"


def test_no_verdict_from_one_session_or_without_a_floor():
    one = cpu_map("2026-11-29T08:00:00+00:00")
    assert verdict(one, "v2", "complete_per_s") == "no verdict (too few sessions)"
    without = pooled(cpu_map("2026-11-29T08:00:00+00:00"), cpu_map("2026-11-29T11:00:00+00:00"))
    assert verdict(without, "v2", "complete_per_s") == "no verdict (no floor)"


def test_sessions_whose_intervals_do_not_overlap_are_said_to_disagree_not_averaged():
    document = pooled(cpu_map("2026-11-29T08:00:00+00:00", v2_rates=(1200, 1250, 1300)),
                      cpu_map("2026-11-29T11:00:00+00:00", v2_rates=(1600, 1700, 1800)),
                      floors=[floor("2026-11-29T08:40:00+00:00"), floor("2026-11-29T11:40:00+00:00")])
    assert verdict(document, "v2", "complete_per_s") == "sessions disagree"


def test_a_floor_pools_only_with_the_sessions_it_was_measured_in():
    first, second = cpu_map("2026-11-29T08:00:00+00:00"), cpu_map("2026-11-29T11:00:00+00:00")
    with pytest.raises(SystemExit, match="every session"):  # one floor for two sessions
        pooled(first, second, floors=[floor("2026-11-29T08:40:00+00:00"), floor("2026-11-29T23:40:00+00:00")])
    with pytest.raises(SystemExit, match="noise-floor"):
        pooled(first, second, floors=[cpu_map("2026-11-29T08:40:00+00:00"), cpu_map("2026-11-29T11:40:00+00:00")])
    narrow = [floor("2026-11-29T08:40:00+00:00"), floor("2026-11-29T11:40:00+00:00")]
    for document in narrow:
        document["sizes"] = ["0"]
        document["cells"] = [c for c in document["cells"] if c["size"] == "0"]
    with pytest.raises(SystemExit, match="no v1 at 0.5 CPU"):
        pooled(first, second, floors=narrow)


def test_a_floor_s_ratios_are_checked_like_the_cells():
    document = two_sessions()
    assert cells.consistency(document) == []
    cells.cell_of(document["floor"], "v1", "A again", "0.5")["ratios"]["complete_per_s"]["high"] = 0.99
    assert cells.consistency(document) == ["floor: v1, A again at 0.5 CPU: ratios not what its rounds give"]


def test_the_answer_has_the_sizes_whose_quota_binds_the_whole_machine_and_the_floor():
    rows = cpumap.answer_rows(two_sessions())
    assert rows[0] == ["CPU per service", "build", "complete answers/s, closed", "capacity under the p99 bound",
                       "CPU per complete answer", "p99 at the fixed rate", "peak memory", "rounds (sessions)"]
    half = [row for row in rows if row[0] == "0.5 CPU (the quota binds)"]
    assert [row[1] for row in half] == ["v2 / v1", "v3 / v1", "v1 again / v1: the noise floor"]
    assert half[0][2] == "1.75× (1.70–1.80) ahead" and half[0][-1] == "6 (2)"
    # one CPU for each of three services is more than two cores: the machine binds there, not the quota
    assert [row[0] for row in rows if row[1].startswith("not measured here")] == ["1 CPU", "2 CPU"]
    assert [row[1] for row in rows if row[0] == "no limit (the whole machine)"][:2] == ["v2 / v1", "v3 / v1"]


def test_peak_memory_is_the_services_peaks_added_up():
    local = {"memory_mib": {s: {"peak RSS during the run (VmHWM, reset before it)": 300.0}
                            for s in ("web-api", "articles", "authors")}}
    assert results.peak_memory_mib(local) == 900.0
    pods = {"memory_mib": {"web-api": {"cgroup peak since start, page cache included (memory.peak)": 400.0,
                                       "anonymous memory at the end (memory.stat)": 250.0}}}
    assert results.peak_memory_mib(pods) == 400.0
    local["memory_mib"]["authors"] = {"peak RSS during the run (VmHWM, reset before it)": None}
    assert results.peak_memory_mib(local) is None
    assert results.peak_memory_mib({}) is None


def test_the_floor_is_shown_for_each_session_at_each_size():
    rows = cpumap.floor_rows(two_sessions())
    assert [row[:2] for row in rows[1:]] == [["0.5 CPU", "f0"], ["0.5 CPU", "f1"], ["no limit", "f0"], ["no limit", "f1"]]
    assert rows[1][2] == "1.00× (0.98–1.03)"


def test_a_session_whose_machine_differed_says_so_and_keeps_its_absolutes_apart():
    document = pooled(cpu_map("2026-11-29T08:00:00+00:00"), cpu_map("2026-11-29T11:00:00+00:00", slower=1.5),
                      floors=[floor("2026-11-29T08:40:00+00:00"), floor("2026-11-29T11:40:00+00:00")])
    rows = cpumap.sessions_rows(document)
    first = [row for row in rows if row[0] == "s0" and row[2] == "0.5 CPU" and row[3] == "v1"][0]
    second = [row for row in rows if row[0] == "s1" and row[2] == "0.5 CPU" and row[3] == "v1"][0]
    assert first[1:] == ["1.00", "0.5 CPU", "v1", "1,000", "2.000", "differed: calibration -20%, CPU per answer -20%"]
    assert second[4:] == ["1,000", "3.000", "differed: calibration +20%, CPU per answer +20%"]
    # the ratios still pool: v2 over v1 is the same in both sessions
    assert verdict(document, "v2", "complete_per_s") == "ahead"
    alike = cpumap.sessions_rows(two_sessions())
    assert {row[-1] for row in alike[1:]} == {"within the others' drift"}


def test_a_session_kept_apart_is_set_beside_the_pooled_intervals():
    later = cpu_map("2026-11-29T18:00:00+00:00", v2_rates=(1500, 1600, 1650))
    document = cells.pooled({"s0": cpu_map("2026-11-29T08:00:00+00:00"), "s1": cpu_map("2026-11-29T11:00:00+00:00")},
                            "pooled", floors={"f0": floor("2026-11-29T08:40:00+00:00"),
                                              "f1": floor("2026-11-29T11:40:00+00:00")}, again={"s2": later})
    assert cells.consistency(document) == []
    row = [r for r in cpumap.again_rows(document) if r[:3] == ["s2", "0.5 CPU", "v2 / v1"]][0]
    assert row[3] == "1.60× (1.50–1.65), below the pooled 1.75× (1.70–1.80)"  # fewer answers than every pooled round
    assert row[5] == "0.50× (0.50–0.50), inside the pooled 0.50× (0.50–0.50)"
    cells.cell_of(document["again"][0], "v2", size="0.5")["ratios"]["complete_per_s"]["median"] = 1.7
    assert cells.consistency(document) == ["s2: v2, at 0.5 CPU: ratios not what its rounds give"]
    with pytest.raises(SystemExit, match="not another session"):
        cells.pooled({"s0": cpu_map("2026-11-29T08:00:00+00:00"), "s1": cpu_map("2026-11-29T11:00:00+00:00")}, "x",
                     again={"s2": floor("2026-11-29T18:00:00+00:00")})


def test_the_floor_s_band_lies_either_side_of_one_whichever_side_of_the_a_a_came_out_ahead():
    # A again answered more than A in every round (a JIT that compiled better in those starts): which side is A is
    # chance, so the band is 1 / 1.30 to 1.30, and a ratio of 1 in every round is level, not behind
    lucky = [floor("2026-11-29T08:40:00+00:00", again=(1110, 1200, 1300)),
             floor("2026-11-29T11:40:00+00:00", again=(1150, 1250, 1200))]
    document = pooled(cpu_map("2026-11-29T08:00:00+00:00"), cpu_map("2026-11-29T11:00:00+00:00"), floors=lucky)
    assert cells.band(cells.floor_of(document, {"size": "0.5"}), "complete_per_s") == pytest.approx((1 / 1.3, 1.3))
    assert verdict(document, "v3", "complete_per_s") == "level"  # 1.00 in every round
    assert verdict(document, "v2", "complete_per_s") == "ahead"  # 1.70 to 1.80: beyond 1.30
    row = [r for r in cpumap.answer_rows(document) if r[1].startswith("v1 again")][0]
    assert row[2] == "1.20× (1.11–1.30), band 0.77–1.30"
