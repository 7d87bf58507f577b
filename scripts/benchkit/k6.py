"""k6: the one runner for a local k6 process, and the reading of what k6 wrote (its summary JSON and its
per-request CSV samples). The in-cluster runner (kube.K6Job) reads the same summary out of a Job's log."""
import csv
import io
import os
import re
import resource
import signal
import subprocess
import sys
import time

from . import ROOT, info

SCRIPT = ROOT / "k6" / "articles.js"
# The load settings a user may pass through the environment (k6/articles.js reads them).
SETTINGS = ("VUS", "ITERATIONS", "RATE", "DURATION", "WARMUP_ITERATIONS", "MAX_VUS", "MAX_DURATION")
# SUMMARY_FILE=- makes k6/articles.js print its summary JSON into the log between these lines.
SUMMARY_BEGIN = "----- k6 summary json -----"
SUMMARY_END = "----- end of k6 summary json -----"
# k6 exits 99 when thresholds are crossed: the summary is still written and the report says why.
THRESHOLDS_CROSSED = 99
# k6 exits 105 when a signal stopped it; it still writes its summary and flushes its outputs first.
STOPPED_BY_SIGNAL = 105
# What k6/articles.js tags each request with (request_outcomes{outcome:…}).
OUTCOMES = ("complete", "degraded", "shed", "unavailable", "error", "rejected", "failed")


def settings_from_environment():
    return {key: os.environ[key] for key in SETTINGS if key in os.environ}


def run(k6, version, scenario, base_url, summary, settings=None, samples=None, dashboard=None, stop=None):
    """Runs k6/articles.js once against base_url. summary: where its summary JSON goes (the console
    output goes beside it, as .log); samples: a CSV of every request, for timelines; dashboard: k6's own
    HTML report of the run; stop: a threading.Event that ends the run early (SIGINT, as Ctrl+C does: k6 still
    writes its summary and samples). Returns (exit code, CPU seconds k6 itself used)."""
    env = {**os.environ, "VERSION": version, "SCENARIO": scenario, "BASE_URL": base_url,
           "SUMMARY_FILE": str(summary), "K6_NO_USAGE_REPORT": "true",
           **{key: str(value) for key, value in (settings or {}).items()}}
    outputs = []
    if samples:
        env["K6_CSV_TIME_FORMAT"] = "unix_milli"
        outputs = ["--out", f"csv={samples}"]
    if dashboard:  # the export needs the dashboard, not its web server (port -1)
        env.update(K6_WEB_DASHBOARD="true", K6_WEB_DASHBOARD_PORT="-1", K6_WEB_DASHBOARD_EXPORT=str(dashboard))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.monotonic()
    log = summary.with_suffix(".log")
    with open(log, "w") as output:
        process = subprocess.Popen([k6, "run", "--quiet", "--no-color", *outputs, str(SCRIPT)],
                                   env=env, stdout=output, stderr=subprocess.STDOUT)
        stopped = False
        try:
            next_progress = started + 15
            while (code := process.poll()) is None:
                if stop is not None and stop.is_set() and not stopped:
                    process.send_signal(signal.SIGINT)
                    stopped = True
                if time.monotonic() >= next_progress:
                    info(f"… {version} {scenario}: {time.monotonic() - started:.0f}s")
                    next_progress += 15
                time.sleep(0.2)
        finally:
            if process.poll() is None:  # interrupted or failed: never leave k6 running
                process.terminate()
                process.wait(timeout=30)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if stopped and code == STOPPED_BY_SIGNAL:
        code = 0
    if code not in (0, THRESHOLDS_CROSSED) or not summary.exists():
        sys.exit(f"k6 failed ({code}) for {version} {scenario}; see {log}:\n{log.read_text()[-2000:]}")
    return code, (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)


def console_tail(text, lines=3):
    """The last lines k6 printed (its short text summary), indented for the progress output."""
    return "".join("    " + line for line in text.splitlines(keepends=True)[-lines:])


def summary_from_log(log):
    """The summary JSON a Job printed between the markers, or None."""
    if SUMMARY_BEGIN not in log:
        return None
    return log.split(SUMMARY_BEGIN, 1)[1].split(SUMMARY_END, 1)[0]


def metrics(summary):
    """The figures of one k6 summary the report uses. Answers fall into four kinds: complete, degraded
    (200 with an author look-up that fell back), failed (k6's http_req_failed: an error status or no
    answer at all) and, within failed, shed (503 from the edge's in-flight limit)."""
    found = summary["metrics"]

    def value(name, stat, default=0.0):
        return found.get(name, {}).get("values", {}).get(stat, default)

    def own(name):  # the scenario's own requests (k6/articles.js's thresholds put them in), not setup()'s probe
        return next((key for key in found if key.startswith(f"{name}{{scenario:")), name)

    duration = summary.get("state", {}).get("testRunDurationMs", 0) / 1000
    # request_outcomes by outcome: in the summary because k6/articles.js sets a threshold on each
    outcomes = {outcome: value(f"request_outcomes{{outcome:{outcome}}}", "count") for outcome in OUTCOMES}
    requests = sum(outcomes.values()) or value("http_reqs", "count")
    failed = round(value(own("http_req_failed"), "rate") * requests)
    degraded = value("degraded_responses", "count")
    complete = max(requests - failed - degraded, 0)
    latency = own("http_req_duration")
    return {
        "requests": requests, "rps": requests / duration if duration else 0.0,
        "complete": complete, "ok_rps": complete / duration if duration else 0.0,
        "avg": value(latency, "avg"), "p50": value(latency, "med"), "p90": value(latency, "p(90)"),
        "p95": value(latency, "p(95)"), "p99": value(latency, "p(99)"), "max": value(latency, "max"),
        "failed": failed, "error_pct": 100 * value("http_req_failed", "rate"), "degraded": degraded,
        "dropped": value("dropped_iterations", "count"), "shed": outcomes["shed"],
        "bytes_min": value("response_bytes", "min"), "bytes_max": value("response_bytes", "max"),
        "bytes_avg": value("response_bytes", "avg"),
    }


class Samples:
    """k6's CSV output, read as it grows: each read() takes the whole lines written since the one before (k6 writes
    its samples out every second, so the last line may be half written). outcomes: [(time s, outcome)];
    durations: [(time s, duration ms, status)]."""

    def __init__(self, path):
        self.path, self.offset, self.columns = path, 0, None
        self.outcomes, self.durations = [], []

    def read(self):
        try:
            with open(self.path, "rb") as file:
                file.seek(self.offset)
                written = file.read()
        except FileNotFoundError:  # k6 has not started writing
            return self
        whole = written[:written.rfind(b"\n") + 1]
        self.offset += len(whole)
        rows = csv.reader(io.StringIO(whole.decode(), newline=""))
        if self.columns is None:
            self.columns = next(rows, None)
        for values in rows:
            row = dict(zip(self.columns, values))
            at = int(row["timestamp"]) / 1000
            if row["metric_name"] == "request_outcomes":
                tag = re.search(r"outcome=(\w+)", row.get("extra_tags") or "")
                self.outcomes.append((at, tag.group(1) if tag else "failed"))
            elif row["metric_name"] == "http_req_duration":
                self.durations.append((at, float(row["metric_value"]), row["status"]))
        return self


def read_samples(path):
    """[(time s, outcome)] and [(time s, duration ms, status)] from k6's CSV output, once k6 has ended."""
    samples = Samples(path).read()
    return samples.outcomes, samples.durations
