"""A verdict is a word read off a cell's interval against the equivalence margin (core.decide), and the answer table
shows it: none from one session, none where an A/A failed its calibration or none was measured; a floor pools only
with the sessions it was measured in."""
import random

import pytest

from benchkit.core import cells, decide, results, verdicts
from benchkit.publish import cpumap as publish_cpumap

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
    """A noise-floor session: A and A again at each size, each first in every other round (its place in it)."""
    found = {**{("v1", "A", size): rounds((1000, 1000, 1000), cpu=2.0) for size in SIZES},
             **{("v1", "A again", size): rounds(again, cpu=2.0) for size in SIZES}}
    for (_, mode, _), each in found.items():
        for r in each:
            r["place"] = 1 + (r["round"] % 2 == (mode == "A"))
    return session(timestamp, found, design="noise-floor", compared=cells.MODE, reference="A", modes=("A", "A again"))


def pooled(*sessions, floors=None):
    return cells.pooled({f"s{i}": d for i, d in enumerate(sessions)}, "pooled",
                        floors=floors and {f"f{i}": d for i, d in enumerate(floors)})


def two_sessions(v2_rates=(1700, 1750, 1800)):
    """Two sessions whose v2 differs a little (so that the pooled spread is not 0), each with its A/A."""
    later = tuple(rate - 50 for rate in v2_rates)
    return pooled(cpu_map("2026-11-29T08:00:00+00:00", v2_rates=v2_rates),
                  cpu_map("2026-11-29T11:00:00+00:00", v2_rates=later),
                  floors=[floor("2026-11-29T08:40:00+00:00"), floor("2026-11-29T11:40:00+00:00")])


def verdict(document, build, key, size="0.5"):
    return verdicts.verdict(document, cells.cell_of(document, build, size=size), key)


def test_words_come_from_the_interval_against_the_margin():
    document = two_sessions()
    assert verdict(document, "v2", "complete_per_s") == "ahead"  # 1.72× (about 1.69–1.76): beyond 1.10
    assert verdict(document, "v2", "cpu_ms_per_complete_background_off") == "ahead"  # half the CPU: lower is better
    assert verdict(document, "v3", "capacity_per_s") == "behind"  # 300 against v1's 500
    assert verdict(document, "v2", "open_p99") == "level"  # the same p99: an interval inside the margin
    assert verdict(document, "v3", "complete_per_s") == "level"
    found = verdicts.interval(document, cells.cell_of(document, "v2", size="0.5"), "complete_per_s")
    # two sessions' means, the spread pooled over the four compared cells: 4 degrees of freedom
    assert (found.sessions, found.units, found.df, found.method) == (2, 2, 4, "sessions")
    assert found.low < 1.72 < found.high and found.low > decide.MARGIN


def test_a_ratio_inside_the_margin_is_level_though_every_round_is_above_one():
    # 1.02 to 1.04 in every round of both sessions: above 1 each time, and shown within 1/1.10 to 1.10
    document = two_sessions(v2_rates=(1020, 1030, 1040))
    assert verdict(document, "v2", "complete_per_s") == "level"


def test_one_session_or_no_a_a_gives_no_word():
    one = cpu_map("2026-11-29T08:00:00+00:00")
    # a CPU map's rounds share a start: one session is one independent ratio per cell, and no interval
    assert verdicts.interval(one, cells.cell_of(one, "v2", size="0.5"), "complete_per_s") is None
    assert verdict(one, "v2", "complete_per_s") == "undecided"
    assert verdicts.decided(one, cells.cell_of(one, "v2", size="0.5"), "complete_per_s") == "– (one start: no interval)"
    without = pooled(cpu_map("2026-11-29T08:00:00+00:00"), cpu_map("2026-11-29T11:00:00+00:00", v2_rates=(1700,) * 3))
    assert verdicts.refusals(without) == ["no A/A in the same sessions"]
    assert verdict(without, "v2", "complete_per_s") == "undecided"


def test_sessions_far_apart_leave_the_cell_undecided_with_what_it_could_have_told_apart():
    document = pooled(cpu_map("2026-11-29T08:00:00+00:00", v2_rates=(1000, 1050, 1100)),
                      cpu_map("2026-11-29T11:00:00+00:00", v2_rates=(1400, 1450, 1500)),
                      floors=[floor("2026-11-29T08:40:00+00:00"), floor("2026-11-29T11:40:00+00:00")])
    cell = cells.cell_of(document, "v2", size="0.5")
    assert verdict(document, "v2", "complete_per_s") == "undecided"
    found = verdicts.interval(document, cell, "complete_per_s")
    assert found.low < decide.MARGIN < found.high
    assert verdicts.decided(document, cell, "complete_per_s").endswith(
        f", detectable {decide.detectable(found):.2f}× either way")
    assert decide.detectable(found) > found.estimate  # a larger effect than this one would have been told apart


def test_a_session_whose_a_a_excludes_one_is_refused_and_no_word_stands():
    # A again answered more than A in every fork of one session: the method found a difference where there is none
    biased = [floor("2026-11-29T08:40:00+00:00", again=(1300, 1350, 1400)), floor("2026-11-29T11:40:00+00:00")]
    document = pooled(cpu_map("2026-11-29T08:00:00+00:00"),
                      cpu_map("2026-11-29T11:00:00+00:00", v2_rates=(1650, 1700, 1750)), floors=biased)
    # complete answers/s and the capacity (half of it in these rounds), at each size
    assert [r.split(":")[0] for r in verdicts.refusals(document)] == ["f0"] * 4
    assert "complete answers/s at 0.5 CPU" in verdicts.refusals(document)[0]
    assert verdict(document, "v2", "complete_per_s") == "undecided"
    assert verdicts.decided(document, cells.cell_of(document, "v2", size="0.5"),
                         "complete_per_s").endswith("undecided: a session's A/A failed")
    row = [r for r in publish_cpumap.answer_rows(document) if r[1].startswith("v1 again")][0]
    assert row[2].endswith("excludes 1 in 1 session(s) of 2")
    assert publish_cpumap.sentences(document)[-1][0].startswith("No word stands: 4 A/A interval(s) exclude 1 (f0: ")


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
    rows = publish_cpumap.answer_rows(two_sessions())
    assert rows[0] == ["CPU per service", "build", "complete answers/s, closed", "capacity under the p99 bound",
                       "CPU per complete answer", "p99 at the fixed rate", "peak memory", "what it rests on"]
    half = [row for row in rows if row[0] == "0.5 CPU (the quota binds)"]
    assert [row[1] for row in half] == ["v2 / v1", "v3 / v1", "v1 again / v1: the A/A"]
    found = verdicts.interval(two_sessions(), cells.cell_of(two_sessions(), "v2", size="0.5"), "complete_per_s")
    assert half[0][2] == f"{found.estimate:.2f}× ({found.low:.2f}–{found.high:.2f}) ahead"
    assert half[0][-1] == "6 rounds on 2 starts (2 sessions)" and half[2][-1] == "6 forks (2 sessions)"
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
    rows = publish_cpumap.floor_rows(two_sessions())
    assert [row[:2] for row in rows[1:]] == [["0.5 CPU", "f0"], ["0.5 CPU", "f1"], ["no limit", "f0"], ["no limit", "f1"]]
    assert rows[1][2] == "1.00× (0.98–1.03)"


def test_a_session_whose_machine_differed_says_so_and_keeps_its_absolutes_apart():
    document = pooled(cpu_map("2026-11-29T08:00:00+00:00"), cpu_map("2026-11-29T11:00:00+00:00", slower=1.5),
                      floors=[floor("2026-11-29T08:40:00+00:00"), floor("2026-11-29T11:40:00+00:00")])
    rows = publish_cpumap.sessions_rows(document)
    first = [row for row in rows if row[0] == "s0" and row[2] == "0.5 CPU" and row[3] == "v1"][0]
    second = [row for row in rows if row[0] == "s1" and row[2] == "0.5 CPU" and row[3] == "v1"][0]
    assert first[1:] == ["1.00", "0.5 CPU", "v1", "1,000", "2.000", "differed: calibration -20%, CPU per answer -20%"]
    assert second[4:] == ["1,000", "3.000", "differed: calibration +20%, CPU per answer +20%"]
    # the ratios still pool: v2 over v1 is the same in both sessions
    assert verdict(document, "v2", "complete_per_s") == "ahead"
    alike = publish_cpumap.sessions_rows(two_sessions())
    assert {row[-1] for row in alike[1:]} == {"within the others' drift"}


def test_a_session_kept_apart_is_set_beside_where_the_pool_predicts_a_next_one():
    later = cpu_map("2026-11-29T18:00:00+00:00", v2_rates=(1500, 1600, 1650))
    document = cells.pooled({"s0": cpu_map("2026-11-29T08:00:00+00:00"),
                             "s1": cpu_map("2026-11-29T11:00:00+00:00", v2_rates=(1650, 1700, 1750))},
                            "pooled", floors={"f0": floor("2026-11-29T08:40:00+00:00"),
                                              "f1": floor("2026-11-29T11:40:00+00:00")}, again={"s2": later})
    assert cells.consistency(document) == []
    cell = cells.cell_of(document, "v2", size="0.5")
    where, estimate, (low, high) = verdicts.landed(document, document["again"][0], cell, "complete_per_s")
    # fewer answers than the pooled sessions predict for a next one: the range is wider than the mean's interval
    found = verdicts.interval(document, cell, "complete_per_s")
    assert where == "below" and estimate < low < found.low < found.high < high
    assert estimate == pytest.approx((1.5 * 1.6 * 1.65) ** (1 / 3))
    row = [r for r in publish_cpumap.again_rows(document) if r[:3] == ["s2", "0.5 CPU", "v2 / v1"]][0]
    assert row[3] == f"{estimate:.2f}×, below the {low:.2f}–{high:.2f} the pool predicts"
    cells.cell_of(document["again"][0], "v2", size="0.5")["ratios"]["complete_per_s"]["median"] = 1.7
    assert cells.consistency(document) == ["s2: v2, at 0.5 CPU: ratios not what its rounds give"]
    with pytest.raises(SystemExit, match="not another session"):
        cells.pooled({"s0": cpu_map("2026-11-29T08:00:00+00:00"), "s1": cpu_map("2026-11-29T11:00:00+00:00")}, "x",
                     again={"s2": floor("2026-11-29T18:00:00+00:00")})


def test_a_sound_session_s_a_a_is_refused_5_per_cent_of_the_time_at_most():
    """A session's A/A gives an interval per figure and size (eight here): each at 95 % would refuse a third of sound
    sessions; verdicts.calibration holds a session's chance of a refusal at 5 % (Bonferroni)."""
    rng = random.Random(78)
    refused, trials = 0, 400
    for _ in range(trials):
        document = floor("2026-11-29T08:40:00+00:00", again=tuple(1000 * rng.lognormvariate(0, 0.15) for _ in range(3)))
        refused += bool(verdicts.refusals(document))
    assert refused / trials <= decide.WRONG_AT_MOST
    loose = sum(1 for _ in range(trials) if any(
        not i.low <= 1 <= i.high for session, size, key, i in [
            (s, c["size"], k, verdicts.interval(d, c, k, s or None)) for d in [floor(
                "2026-11-29T08:40:00+00:00", again=tuple(1000 * rng.lognormvariate(0, 0.15) for _ in range(3)))]
            for s in cells.sessions_of(d) for k in verdicts.VERDICT_FIGURES for c in d["cells"] if c["mode"] == "A again"]
        if i is not None))
    assert loose / trials > 2 * decide.WRONG_AT_MOST  # what one 95 % interval per figure and size would refuse


def test_the_order_of_a_round_is_measured_on_the_a_a():
    document = two_sessions()
    found = verdicts.order_effect(document["floor"])
    assert found.units == 12 and found.low <= 1 <= found.high
    row = publish_cpumap.order_rows(document)[1]
    assert row == [f"{found.estimate:.2f}× ({found.low:.2f}–{found.high:.2f})", "12"]
