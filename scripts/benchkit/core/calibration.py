"""The machine's speed, measured between rounds with a fixed CPU-bound job, so that a report can tell a
slower build from a slower machine. The job hashes the same 128 MiB with SHA-256 a few times on every
core at once (hashlib runs in C: it measures the CPU, not the interpreter) and takes a few seconds."""
import os
import statistics
import subprocess
import sys
import time

JOB = "import hashlib; data = bytes(128 << 20); [hashlib.sha256(data).digest() for _ in range(16)]"
# A round whose machine speed is this far from the median of all rounds is flagged in the report.
DRIFT_LIMIT = 0.10


def measure(cores=None):
    """Seconds the job took on every core at once (the slowest core's), lower is faster."""
    cores = cores or os.cpu_count() or 1
    started = time.monotonic()
    jobs = [subprocess.Popen([sys.executable, "-c", JOB]) for _ in range(cores)]
    for job in jobs:
        if job.wait() != 0:
            raise SystemExit("the calibration job failed")
    return time.monotonic() - started


def drifted(seconds_by_round):
    """{round: seconds} -> {round: relative difference from the median}, only those beyond DRIFT_LIMIT."""
    if not seconds_by_round:
        return {}
    middle = statistics.median(seconds_by_round.values())
    return {r: s / middle - 1 for r, s in seconds_by_round.items() if abs(s / middle - 1) > DRIFT_LIMIT}
