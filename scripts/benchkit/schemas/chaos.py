"""What a chaos run's document is, where the run that writes it and what publishes it both read it: a cell document
(core.cells) whose cells are a build meeting a fault (its mode) and whose rounds are what it did, each check keyed by
an identifier (what tests read) with what it means; and the summary's schema."""
import sys

from benchkit.core import buildsconf, cells

SCHEMA = "reactive-bench/chaos-summary/1"
FILE = "chaos.json"
DESIGN = "chaos"


def runs(document, path="chaos.json"):
    """What a chaos run did, as its report and its summary read it: {commit, timestamp, where, passed, runs}, the
    runs round after round, each round's faults in the order made (refused where the document is not chaos's)."""
    if (document.get("schema"), document.get("design")) != (cells.SCHEMA, DESIGN):
        sys.exit(f"{path}: schema {document.get('schema')!r}, design {document.get('design')!r}: not a chaos run's")
    made = sorted((r for c in document["cells"] for r in c["rounds"]), key=lambda r: (r["round"], r["place"]))
    return {**{key: document[key] for key in ("commit", "timestamp", "where")},
            "passed": all(r["passed"] for r in made), "runs": made}


# Each check's identifier (what chaos.json keys it by, and tests read) and what it means (what the report says).
CHECKS = {
    "no_errors_before": "steady before the fault: every answer complete in the seconds before it",
    "never_500": "never 500: a failure is 503 problem JSON",
    "recovered": "recovered (without restarting web-api, unless the fault is web-api's own)",
    "no_event_lost": "events lost = 0",
    "no_event_twice": "no event streamed twice",
    "writes_201_or_503": "writes: 201 or a 503 problem, never a dropped connection or a 502",
    "reads_all_complete": "every read complete (none failed, none degraded)",
    "no_circuit_opened": "no circuit opened",
    "reads_all_200": "every read answered 200 during the fault",
    "errors_fast": "errors fast: p99 during the fault < 3.5 s",
    "writes_all_201": "every write answered 201",
    "circuit_opened": "the circuit opened",
    "ready_afterwards": "still up and ready afterwards",
    "excess_shed": "excess turned away with 503 + Retry-After",
    "little_bound": "accepted: web-api's mean time within Little's bound ({max_in_flight} in flight / {accepted_rps} "
                    "req/s = {little_bound_ms} ms) + 10 %",
    "p99_no_growth": "accepted: p99 does not grow (last third <= 1.5 × first third + 50 ms)",
    "memory_bounded": "memory bounded: peak RSS < 1 GiB",
    "no_unanswered": "no request without an answer",
}


def described(check, result):
    """What a check of a result means, its figures filled in."""
    return CHECKS[check].format(max_in_flight=buildsconf.max_in_flight(), **result)
