"""The bake-off's published summary is checked as every other: its table from its runs, its verdicts from their
counts; each edit below fails."""
import json

from benchkit import ROOT
from benchkit.experiments import bakeoff


def published():
    return json.loads((ROOT / "docs" / "results" / "bakeoff.json").read_text())


def test_the_published_bake_off_is_what_its_runs_give():
    assert bakeoff.consistency(published()) == []


def test_a_changed_figure_a_dropped_run_or_a_flipped_verdict_fails():
    changed = published()
    changed["summary"][0]["cpu_ms_per_request"] *= 0.9  # loadgen's closed cost, typed lower by hand
    assert any("loadgen closed cpu_ms_per_request" in p for p in bakeoff.consistency(changed))
    dropped = published()
    dropped["runs"] = [r for r in dropped["runs"] if not (r["round"] == 2 and r["generator"] == "vegeta")]
    assert any("not every candidate" in p for p in bakeoff.consistency(dropped))
    flipped = published()
    flipped["coordinated_omission"]["loadgen"]["hid_the_stall"] = 3
    assert bakeoff.consistency(flipped) == ["coordinated omission loadgen: the verdict is not what its counts give"]


def test_the_doc_s_table_shows_each_candidate_once_per_model():
    rows = bakeoff.table(published())
    assert [(r[0].split()[0], r[1]) for r in rows[1:]] == [
        ("wrk", "closed"), ("loadgen", "closed"), ("vegeta", "closed"), ("loadgen", "open, 300/s"), ("vegeta", "open, 300/s")]


def capped_run(stall_start=3.0, stall_end=4.0, rate=200, cap=20):
    """An open run's samples at `rate` for the bake-off's stall run, at most `cap` in flight: the target answers in
    1 ms but not during the stall; the requests due meanwhile wait for a free place and go out late. Times in s."""
    from benchkit.core import samples
    rows, free = [], [0.0] * cap  # when each place in flight is free again
    for k in range(bakeoff.STALL_RATE * bakeoff.STALL_RUN):
        due = k / rate
        place = min(range(cap), key=free.__getitem__)
        sent = max(due, free[place])
        answered = max(sent, stall_end) + 0.001 if stall_start <= sent < stall_end else sent + 0.001
        free[place] = answered
        rows.append(samples.Sample(int(due * 1e6), int(sent * 1e6), int((answered - due) * 1e6), 200, "complete", 10))
    return rows


def test_with_a_cap_in_flight_a_latency_counted_from_sending_hides_the_stall():
    rows = capped_run()
    from_due = bakeoff.stall_assessment(rows, 3.0, 4.0, counts_from="due")
    from_sent = bakeoff.stall_assessment(rows, 3.0, 4.0, counts_from="sent")
    assert from_due["passed"] and from_due["hid_the_stall"] == 0
    assert not from_sent["passed"] and from_sent["hid_the_stall"] > 100, "the backlog sent after the stall looks fast"
    assert from_due["max_latency_from_due_ms"] == from_sent["max_latency_from_due_ms"] > 1000


def test_vegeta_s_requests_are_due_by_its_schedule_not_when_it_sent_them():
    # seq 0 sent at t0 and answered in 1 ms; seq 2, due 10 ms later at 200/s, sent 500 ms late, answered in 1 ms
    t0 = 1_700_000_000_000_000_000
    encoded = "\n".join(f"{t0 + sent_ms * 1_000_000},200,{1_000_000},0,10,,,,{seq},GET,http://x,"
                        for seq, sent_ms in ((0, 0), (1, 5), (2, 510)))
    rows = bakeoff.vegeta_samples(encoded, rate=200)
    assert [r.intended_us - rows[0].intended_us for r in rows] == [0, 5000, 10000]
    assert rows[2].latency_us == 501_000 and bakeoff.reported_us(rows[2], "sent") == 1_000
