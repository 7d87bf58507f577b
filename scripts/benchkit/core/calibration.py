"""The machine's speed, measured between rounds with a fixed CPU-bound job (each platform's calibrate: the local
stack's in platforms.local, a Job in a cluster), so that a report can tell a slower build from a slower machine: the
rounds whose speed drifted from the rest."""
import statistics

# A round whose machine speed is this far from the median of all rounds is flagged in the report.
DRIFT_LIMIT = 0.10


def drifted(seconds_by_round):
    """{round: seconds} -> {round: relative difference from the median}, only those beyond DRIFT_LIMIT."""
    if not seconds_by_round:
        return {}
    middle = statistics.median(seconds_by_round.values())
    return {r: s / middle - 1 for r, s in seconds_by_round.items() if abs(s / middle - 1) > DRIFT_LIMIT}
