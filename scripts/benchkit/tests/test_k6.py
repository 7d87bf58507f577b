import threading
import time

import pytest

from benchkit import k6


def summary(requests=1000, failed_rate=0.0, degraded=0, shed=0, seconds=10):
    failed = round(failed_rate * requests)
    outcomes = {"complete": requests - failed - degraded, "degraded": degraded, "shed": shed, "unavailable": failed - shed}
    return {"state": {"testRunDurationMs": seconds * 1000}, "metrics": {
        "http_reqs": {"values": {"count": requests, "rate": requests / seconds}},
        "http_req_failed": {"values": {"rate": failed_rate}},
        "degraded_responses": {"values": {"count": degraded}},
        **{f"request_outcomes{{outcome:{o}}}": {"values": {"count": count}} for o, count in outcomes.items()},
        "http_req_duration": {"values": {"avg": 5, "med": 4, "p(90)": 8, "p(95)": 9, "p(99)": 12, "max": 30}},
        "response_bytes": {"values": {"min": 1997, "max": 1997, "avg": 1997}},
    }}


def test_complete_answers_leave_out_failed_and_degraded():
    figures = k6.metrics(summary(requests=1000, failed_rate=0.1, degraded=50, shed=80))
    assert figures["failed"] == 100 and figures["degraded"] == 50 and figures["shed"] == 80
    assert figures["complete"] == 850
    assert figures["ok_rps"] == 85.0 and figures["rps"] == 100.0
    assert figures["p50"] == 4 and figures["p99"] == 12


def test_the_reachability_probe_of_setup_is_no_part_of_the_figures():
    # setup()'s probe: one more request in http_reqs and http_req_duration, a slow one; the scenario's own
    # sub-metrics and the outcome counters leave it out
    found = summary(requests=1000, failed_rate=0.01, shed=10)
    found["metrics"].update({
        "http_reqs": {"values": {"count": 1001, "rate": 100.1}},
        "http_req_failed": {"values": {"rate": 0.5}},
        "http_req_duration": {"values": {"avg": 900, "med": 4, "p(90)": 8, "p(95)": 9, "p(99)": 12, "max": 5000}},
        "http_req_failed{scenario:closed}": {"values": {"rate": 0.01}},
        "http_req_duration{scenario:closed}": {"values": {"avg": 4, "med": 3, "p(90)": 7, "p(95)": 8, "p(99)": 11,
                                                          "max": 20}}})
    figures = k6.metrics(found)
    assert figures["requests"] == 1000 and figures["failed"] == 10 and figures["complete"] == 990
    assert figures["rps"] == 100.0 and figures["max"] == 20 and figures["p99"] == 11


def test_missing_metrics_read_as_zero():
    figures = k6.metrics({"metrics": {}})
    assert figures["requests"] == 0 and figures["ok_rps"] == 0.0 and figures["dropped"] == 0


def test_summary_from_a_job_log():
    log = f"text summary\n{k6.SUMMARY_BEGIN}\n{{\"metrics\": {{}}}}\n{k6.SUMMARY_END}\n"
    assert k6.summary_from_log(log).strip() == '{"metrics": {}}'
    assert k6.summary_from_log("no summary here") is None


def test_the_script_and_the_harness_share_the_markers_and_outcomes():
    script = k6.SCRIPT.read_text()
    assert f"'{k6.SUMMARY_BEGIN}'" in script and f"'{k6.SUMMARY_END}'" in script
    assert "const OUTCOMES = [" + ", ".join(f"'{o}'" for o in k6.OUTCOMES) + "];" in script


def test_read_samples(tmp_path):
    csv = tmp_path / "k6.csv"
    csv.write_text("metric_name,timestamp,metric_value,status,extra_tags\n"
                   "http_req_duration,1700000000000,12.5,200,\n"
                   "request_outcomes,1700000000500,1,,outcome=degraded\n")
    outcomes, durations = k6.read_samples(csv)
    assert outcomes == [(1700000000.5, "degraded")]
    assert durations == [(1700000000.0, 12.5, "200")]


def test_samples_are_read_on_as_k6_writes_them_a_half_written_line_only_once_whole(tmp_path):
    csv = tmp_path / "k6.csv"
    samples = k6.Samples(csv)
    assert samples.read().outcomes == [], "k6 has not written yet"
    csv.write_text("metric_name,timestamp,metric_value,status,extra_tags\n"
                   "request_outcomes,1700000000500,1,,outcome=complete\n"
                   "request_outcomes,17000000010")
    assert samples.read().outcomes == [(1700000000.5, "complete")]
    with csv.open("a") as file:
        file.write("00,1,,outcome=shed\n")
    assert samples.read().outcomes == [(1700000000.5, "complete"), (1700000001.0, "shed")]

# A stand-in for the k6 binary: runs until SIGINT, then writes its summary and exits as k6 does (105); says when
# it listens for the signal (a file beside the summary).
STAND_IN = """#!/usr/bin/env python3
import json, os, pathlib, signal, sys, time
summary = pathlib.Path(os.environ["SUMMARY_FILE"])
def stop(*_):
    summary.write_text(json.dumps({"metrics": {}}))
    sys.exit(105)
signal.signal(signal.SIGINT, stop)
summary.with_suffix(".listening").touch()
time.sleep(float(os.environ.get("STAND_IN_SECONDS", "120")))
sys.exit(105)
"""


def stand_in(tmp_path):
    binary = tmp_path / "k6"
    binary.write_text(STAND_IN)
    binary.chmod(0o755)
    return binary


def test_a_run_stopped_on_purpose_ends_at_once_with_its_summary(tmp_path):
    stop = threading.Event()

    def stop_once_listening():
        while not (tmp_path / "summary.listening").exists():
            time.sleep(0.05)
        stop.set()
    threading.Thread(target=stop_once_listening, daemon=True).start()
    # Without the stop it would run 120 s: returning at all is the proof
    code, _ = k6.run(stand_in(tmp_path), "v1", "steady", "http://127.0.0.1:1", tmp_path / "summary.json", stop=stop)
    assert code == 0 and (tmp_path / "summary.json").exists()


def test_a_run_stopped_by_anyone_else_fails(tmp_path):
    with pytest.raises(SystemExit, match="k6 failed \\(105\\)"):
        k6.run(stand_in(tmp_path), "v1", "steady", "http://127.0.0.1:1", tmp_path / "summary.json",
               {"STAND_IN_SECONDS": "0.1"})
