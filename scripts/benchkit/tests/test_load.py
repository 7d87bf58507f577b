import base64
import gzip

from benchkit import ROOT
from benchkit.core import load, samples

HEADER = ",".join(samples.HEADER) + "\n"


def row(intended_ms, latency_ms, status=200, outcome="complete", size=1997, late_ms=0):
    return (f"{intended_ms * 1000},{(intended_ms + late_ms) * 1000},{latency_ms * 1000},{status},{outcome},{size}\n"
            if outcome != "unsent" else f"{intended_ms * 1000},,,0,unsent,0\n")


def run_of(rows):
    return samples.parse(HEADER + "".join(rows))


def test_every_figure_is_a_number_the_report_can_take_medians_of():
    figures = samples.summarize(run_of([row(1_000_000, 5), row(1_000_000, 0, outcome="unsent")]))
    # the latencies of answers that were not complete: none here, and never a 0 that was not measured
    assert figures.pop("p50_not_complete") is None and figures.pop("p99_not_complete") is None
    assert all(isinstance(value, (int, float)) for value in figures.values()), figures


def test_latency_percentiles_are_of_complete_answers_and_the_others_apart():
    figures = samples.summarize(run_of([row(1_000_000, 40), row(1_001_000, 50), row(1_002_000, 60),
                                        row(1_003_000, 1, status=503, outcome="shed"),
                                        row(1_004_000, 2, status=503, outcome="shed")]))
    assert (figures["p50"], figures["max"]) == (50.0, 60.0)  # the fast 503s do not pull them down
    assert (figures["p50_not_complete"], figures["p99_not_complete"]) == (1.0, 2.0)
    assert figures["shed"] == 2 and figures["complete"] == 3


def test_complete_answers_leave_out_failed_degraded_and_unsent():
    rows = [row(1_000_000 + i, 10) for i in range(850)]
    rows += [row(1_000_000 + i, 10, outcome="degraded") for i in range(50)]
    rows += [row(1_000_000 + i, 10, 503, "shed", 80) for i in range(80)]
    rows += [row(1_000_000 + i, 10, 0, "failed", 0) for i in range(20)]
    rows += [row(1_000_000 + i, 0, outcome="unsent") for i in range(7)]
    figures = samples.summarize(run_of(rows))
    assert figures["requests"] == 1000 and figures["complete"] == 850 and figures["degraded"] == 50
    assert figures["failed"] == 100 and figures["shed"] == 80 and figures["dropped"] == 7
    assert figures["bytes_min"] == figures["bytes_max"] == 1997, "only complete answers' sizes"


def test_rates_count_from_the_first_send_to_the_last_answer():
    figures = samples.summarize(run_of([row(1_000_000 + 10 * i, 5) for i in range(100)]))  # 100 in 0.995 s
    assert abs(figures["duration_s"] - 0.995) < 1e-9
    assert abs(figures["rps"] - 100 / 0.995) < 1e-6 and figures["ok_rps"] == figures["rps"]


def test_latency_counts_from_when_a_request_was_due_not_when_it_went_out():
    # a request sent 900 ms late that took 100 ms once sent: its latency is 1,000 ms
    figures = samples.summarize(run_of([row(1_000_000, 1000, late_ms=900)]))
    assert figures["max"] == 1000 and figures["p50"] == 1000


def test_percentiles_come_from_the_merged_samples():
    fast = [row(1_000_000 + i, 1) for i in range(90)]
    slow = [row(1_000_000 + i, 100) for i in range(10)]
    merged = samples.summarize(run_of(fast + slow))
    assert merged["p50"] == 1 and merged["p95"] == 100 and merged["requests"] == 100


def test_thresholds_are_evaluated_on_the_samples():
    def crossed(rows, scenario):
        return samples.crossed(samples.summarize(run_of(rows)), scenario)

    assert crossed([row(1_000_000 + i, 5) for i in range(200)], "closed") == []
    failing = crossed([row(1_000_000 + i, 5) for i in range(195)] + [row(1_000_000, 5, 500, "error")] * 5, "closed")
    assert any("failed 5 of 200" in t for t in failing)
    one_degraded = [row(1_000_000 + i, 5) for i in range(199)] + [row(1_000_000, 5, outcome="degraded")]
    assert crossed(one_degraded, "closed") == [], "1 in 200 is within 99 %"
    assert crossed(one_degraded, "smoke") == ["degraded 1, more than 0"]
    assert crossed([], "closed") == ["no request was sent"]
    unsent = [row(1_000_000 + i, 5) for i in range(150)] + [row(1_000_000 + i, 0, outcome="unsent") for i in range(50)]
    assert crossed(unsent, "closed") == ["complete 150 of 200 due, not above 99%"], "a request never sent is not complete"


def test_samples_from_a_job_log_round_trip():
    text = HEADER + row(1_000_000, 5)
    packed = base64.b64encode(gzip.compress(text.encode())).decode()
    lines = "\n".join(packed[i:i + 120] for i in range(0, len(packed), 120))
    log = f"v1 smoke: done\n{load.SAMPLES_BEGIN}\n{lines}\n{load.SAMPLES_END}\n"
    assert load.samples_from_log(log) == text
    assert load.samples_from_log("no samples here") is None


def test_another_format_is_refused():
    try:
        samples.parse("metric_name,timestamp,metric_value\n")
    except ValueError as refused:
        assert "not the samples' format" in str(refused)
    else:
        raise AssertionError("a file of another format was read as samples")


def test_the_generator_and_the_harness_share_the_format_markers_and_outcomes():
    go = "".join(path.read_text() for path in (ROOT / "load").glob("*.go"))
    assert f'sampleHeader = "{",".join(samples.HEADER)}\\n"' in go
    assert f'samplesBegin = "{load.SAMPLES_BEGIN}"' in go and f'samplesEnd   = "{load.SAMPLES_END}"' in go
    for outcome in (*samples.OUTCOMES, "unsent"):
        assert f'"{outcome}"' in go, outcome
    assert "exitUnreachable = 3" in go and load.UNREACHABLE == 3


def test_samples_are_read_on_as_they_are_written_a_half_written_line_only_once_whole(tmp_path):
    path = tmp_path / "samples.csv"
    reader = samples.Reader(path)
    assert reader.read().outcomes == [], "nothing written yet"
    path.write_text(HEADER + row(1_700_000_000_000, 500) + "1700000001000000,17000")
    assert reader.read().outcomes == [(1_700_000_000.5, "complete")]
    assert reader.durations == [(1_700_000_000.5, 500.0, "200")]
    with open(path, "a") as more:
        more.write("00001000000,20000,503,shed,80\n")
    assert reader.read().outcomes[-1] == (1_700_000_001.02, "shed")


def test_a_second_with_requests_outstanding_throughout_and_none_answered_is_a_stall():
    # one request every 100 ms from 0 to 3 s, then one that waits 2.5 s (sent at 3.0 s, answered at 5.5 s): seconds
    # 3 and 4 have it outstanding throughout and no answer; second 5 has its answer
    steady = [row(1_000_000 + 100 * i, 5) for i in range(30)]
    stuck = [row(1_003_000, 2_500)]
    after = [row(1_005_600 + 100 * i, 5) for i in range(5)]
    found = run_of(steady + stuck + after)
    assert samples.stalled_seconds(found) == [3, 4]
    assert samples.summarize(found)["stalled_seconds"] == 2
    assert samples.stalled_seconds(run_of(steady)) == []
