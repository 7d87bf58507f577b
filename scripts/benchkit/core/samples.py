"""The neutral per-request sample format every load generator's adapter writes (load/samples.go writes it as CSV),
and every figure computed from it: the summary of a run (summarize), the thresholds (crossed), timelines (Reader).
No figure comes from a generator's own averaging. Several instances' samples merge by concatenation: every
percentile is computed from the merged samples."""
import csv
import dataclasses
import io
import json
import pathlib
import statistics

from benchkit.core import stats

HEADER = ("intended_us", "start_us", "latency_us", "status", "outcome", "bytes")
# What an answer can be (load/scenario.go names them), and "unsent": due in an open run but never sent.
OUTCOMES = ("complete", "degraded", "shed", "unavailable", "error", "rejected", "failed")
SCENARIOS = json.loads((pathlib.Path(__file__).resolve().parents[3] / "load" / "scenarios.json").read_text())


@dataclasses.dataclass(frozen=True)
class Sample:
    intended_us: int  # when it was due, microseconds since the Unix epoch
    start_us: int | None  # when it was sent (None: unsent)
    latency_us: int | None  # from when it was due to its answer
    status: int  # 0: no answer
    outcome: str
    bytes: int

    @property
    def sent(self):
        return self.outcome != "unsent"

    @property
    def answered_s(self):
        """When its answer came (or its request gave up), in Unix seconds."""
        return (self.intended_us + self.latency_us) / 1e6


def parse(text, columns=None):
    """Samples from whole CSV lines; columns: the header when text has none."""
    rows = csv.reader(io.StringIO(text, newline=""))
    columns = columns or next(rows, None)
    if columns is not None and tuple(columns) != HEADER:
        raise ValueError(f"not the samples' format: columns {columns}, expected {HEADER}")
    found = []
    for values in rows:
        if not values:
            continue
        row = dict(zip(HEADER, values))
        sent = row["outcome"] != "unsent"
        found.append(Sample(int(row["intended_us"]), int(row["start_us"]) if sent else None,
                            int(row["latency_us"]) if sent else None, int(row["status"]), row["outcome"],
                            int(row["bytes"])))
    return found


def read(*paths):
    """The merged samples of one or more instances' files."""
    return [sample for path in paths for sample in parse(pathlib.Path(path).read_text())]


class Reader:
    """A samples file read as it grows: each read() takes the whole lines written since the one before (the
    generator flushes every second, so the last line may be half written). outcomes: [(time s, outcome)] by when
    the answer came; durations: [(time s, latency ms, status)]."""

    def __init__(self, path):
        self.path, self.offset, self.columns = pathlib.Path(path), 0, None
        self.outcomes, self.durations = [], []

    def read(self):
        try:
            with open(self.path, "rb") as file:
                file.seek(self.offset)
                written = file.read()
        except FileNotFoundError:  # not started writing
            return self
        whole = written[:written.rfind(b"\n") + 1]
        self.offset += len(whole)
        text = whole.decode()
        if self.columns is None and text:
            header, _, text = text.partition("\n")
            self.columns = header.split(",")
        outcomes, durations = timeline(parse(text, self.columns or HEADER))
        self.outcomes += outcomes
        self.durations += durations
        return self


def timeline(found):
    """The sent samples by when their answer came: [(time s, outcome)] and [(time s, latency ms, status)]."""
    sent = [sample for sample in found if sample.sent]
    return ([(s.answered_s, s.outcome) for s in sent],
            [(s.answered_s, s.latency_us / 1000, str(s.status)) for s in sent])


def summarize(samples):
    """The figures of one run the reports use, from its samples. Answers fall into kinds: complete, degraded (200
    with an author look-up that fell back), failed (an error status or no answer at all) and, within failed, shed
    (503 from the edge's in-flight limit); unsent requests (due in an open run, never sent) are counted apart.
    Latency counts from when each request was due; avg and the percentiles are of the complete answers, the
    others' p50 and p99 apart (None when every answer was complete)."""
    sent = [s for s in samples if s.sent]
    counts = {outcome: sum(1 for s in sent if s.outcome == outcome) for outcome in OUTCOMES}
    if sent:
        began = min(s.start_us for s in sent) / 1e6
        duration = max(s.answered_s for s in sent) - began
    else:
        duration = 0.0
    # Latency of the complete answers: a build that sheds or fails fast must not look faster for it; the others' apart.
    latencies = [s.latency_us / 1000 for s in sent if s.outcome == "complete"]
    others = [s.latency_us / 1000 for s in sent if s.outcome != "complete"]
    complete_bytes = [s.bytes for s in sent if s.outcome == "complete"]
    failed = len(sent) - counts["complete"] - counts["degraded"]
    figures = {
        "requests": len(sent), "rps": len(sent) / duration if duration else 0.0, "duration_s": duration,
        "complete": counts["complete"], "ok_rps": counts["complete"] / duration if duration else 0.0,
        "avg": statistics.fmean(latencies) if latencies else 0.0, "fastest": min(latencies, default=0.0),
        **{name: stats.percentile(latencies, p) or 0.0 for name, p in
           (("p50", 50), ("p90", 90), ("p95", 95), ("p99", 99), ("max", 100))},
        "p50_not_complete": stats.percentile(others, 50), "p99_not_complete": stats.percentile(others, 99),
        "failed": failed, "error_pct": 100 * failed / len(sent) if sent else 0.0, "degraded": counts["degraded"],
        "dropped": sum(1 for s in samples if not s.sent), "shed": counts["shed"],
        "bytes_min": min(complete_bytes, default=0), "bytes_max": max(complete_bytes, default=0),
        "bytes_avg": statistics.fmean(complete_bytes) if complete_bytes else 0.0,
        "stalled_seconds": len(stalled_seconds(samples)),
    }
    return figures


def stalled_seconds(samples):
    """The seconds of a run (counted from its first request sent) in which requests were outstanding throughout and
    none was answered: how a stall shows, whatever the checks of the run said."""
    sent = [s for s in samples if s.sent]
    if not sent:
        return []
    origin = min(s.start_us for s in sent) / 1e6
    answered = {int(s.answered_s - origin) for s in sent}
    outstanding = set()
    for s in sent:
        start, end = s.start_us / 1e6 - origin, s.answered_s - origin
        # the whole seconds [k, k + 1) that lie within [start, end)
        outstanding.update(range(int(start) + (start > int(start)), int(end)))
    return sorted(outstanding - answered)


def crossed(figures, scenario=None):
    """The thresholds of load/scenarios.json that a run's figures crossed, as sentences ([] when none)."""
    limits = {**SCENARIOS["thresholds"], **SCENARIOS["scenarios"].get(scenario or "", {}).get("thresholds", {})}
    requests = figures["requests"]
    due = requests + figures.get("dropped", 0)  # an open run's request that was due and never sent is not complete
    found = []
    if requests and figures["failed"] / requests >= limits["maxFailedRate"]:
        found.append(f"failed {figures['failed']} of {requests}, not below {limits['maxFailedRate']:.0%}")
    if due and figures["complete"] / due <= limits["minCompleteRate"]:
        found.append(f"complete {figures['complete']} of {due} due, not above {limits['minCompleteRate']:.0%}")
    if "maxDegraded" in limits and figures["degraded"] > limits["maxDegraded"]:
        found.append(f"degraded {figures['degraded']}, more than {limits['maxDegraded']}")
    if not requests:
        found.append("no request was sent")
    return found
