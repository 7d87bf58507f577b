"""What a fault run must show, as checks keyed by identifiers (chaos.json keeps them, tests read them;
schemas.chaos.CHECKS says what each means)."""
import statistics

from benchkit.core import samples
from benchkit import info
from benchkit.core.stats import percentile
from benchkit.schemas.chaos import described


OUTCOMES = samples.OUTCOMES


def counter_growth(before, after, counter):
    """How much one of web-api's counters grew during a run, summed over the pods that served from its start to its
    end; None when there are none (a new pod counts from zero, and its start-up counted too)."""
    common = set(before) & set(after or {})
    if not common:
        return None
    return sum(counter(after[pod]) - counter(before[pod]) for pod in common)


def replaces_web_api(fault):
    """Whether the fault gives web-api new pods (whose counters start from zero): its own rolling update, a
    redeploy of the whole build; not a kubelet restart, whose pods run on."""
    return fault.part == "web-api" or fault.inject == "redeploy"


def fault_checks(fault, restores_itself, replicas, run, counts, writes, during):
    """The checks that hold for some faults only: by how the part comes back, its replicas, and what it takes away."""
    found = {}
    if restores_itself:  # a part replaced by the platform stops gracefully: no write sees its connection dropped
        found["writes_201_or_503"] = \
            set(writes["statuses"]) <= {"201", "503"}
    # A rolling update or a pod deleted gracefully must not show at all where another replica serves; with one,
    # the new pod takes over alone and the reads need only stay answered (the counts show how many were degraded).
    if fault.reads_complete and (replicas > 1 or fault.even_alone):
        found["reads_all_complete"] = counts["complete"] == len(run["outcomes"]) > 0
        if run["circuit_openings"] is not None:
            found["no_circuit_opened"] = run["circuit_openings"] == 0
    if fault.reads_stay_ok:
        found["reads_all_200"] = \
            counts["shed"] + counts["unavailable"] + counts["error"] + counts["rejected"] + counts["failed"] == 0
    else:
        found["errors_fast"] = (percentile(during, 99) or 0) < 3500
    if fault.name == "kafka stopped":
        found["writes_all_201"] = writes["created"] == writes["sent"] > 0
    # authors gone (or, behind the proxy, every answer past the time-out, whatever the replicas) for a while: the
    # breaker cut it off
    if fault.part == "authors" and (fault.inject == "proxy-slow" or
                                    fault.inject in ("stop", "pause", "delete-pod", "kill-container") and replicas == 1):
        found["circuit_opened"] = run["circuit_openings"] > 0
    return found


def assess(fault, version, restores_itself, replicas, run):
    counts = {o: sum(1 for _, outcome in run["outcomes"] if outcome == o) for o in OUTCOMES}
    bad = [at for at, outcome in run["outcomes"] if outcome != "complete"]
    bad_after = [at for at in bad if at >= run["restoring"]]
    tail = max((at for at, _ in run["outcomes"]), default=run["ended"])
    recovered = not bad_after or tail - max(bad_after) >= 3  # at least 3 s of complete answers at the end
    recovery = max(0.0, max(bad_after) - run["restoring"]) if bad_after else 0.0
    # The steady state the fault was made in: no answer short of complete in the `before` seconds just before it
    # (the load waits for them, up to a limit; a build never steady fails here).
    errors_outside = [at for at in bad if run["steady_from"] <= at < run["injected"]]
    # On Kubernetes the fault lasts until the platform has made the part whole again.
    fault_end = run["restored"] if restores_itself else run["restoring"]
    during = [ms for at, ms, _ in run["durations"] if run["injected"] <= at < fault_end]

    delivered_ids = [e[1] for e in run["events"]]
    lost = sorted(set(run["created"]) - set(delivered_ids))
    duplicates = len(delivered_ids) - len(set(delivered_ids))
    # Stored although the client saw no 201 (it timed out first): an event nobody was promised.
    unconfirmed = len(set(delivered_ids) - set(run["created"]))
    last_event = max((at for at, *_ in run["events"]), default=None)
    write_statuses = {}
    for _, status, *_ in run["writes"]:
        write_statuses[str(status)] = write_statuses.get(str(status), 0) + 1
    writes = {"sent": len(run["writes"]), "created": len(run["created"]), "statuses": write_statuses}

    checks = {
        "no_errors_before": not errors_outside,
        "never_500": counts["error"] == 0 and not any(
            status not in ("0", "201", "503") for status in write_statuses),
        "recovered": recovered,
        "no_event_lost": not lost,
        "no_event_twice": duplicates == 0,
    }
    checks.update(fault_checks(fault, restores_itself, replicas, run, counts, writes, during))

    summary = {
        "fault": fault.name, "version": version, "replicas": replicas, "requests": len(run["outcomes"]), "outcomes": counts,
        "fault_seconds": round(run["restoring"] - run["injected"], 1),
        "restore_seconds": round(run["restored"] - run["restoring"], 1),
        "recovery_seconds": round(recovery, 1) if recovered else None,
        "p99_ms_during_fault": percentile(during, 99), "max_ms_during_fault": max(during, default=None),
        "writes": writes, "events": {"created": len(run["created"]), "delivered": len(set(delivered_ids) & set(run["created"])),
                                     "lost": len(lost), "duplicates": duplicates, "unconfirmed": unconfirmed,
                                     "last_delivered_after_restore_s":
                                         round(last_event - run["restoring"], 1) if last_event else None},
        "circuit_openings": run["circuit_openings"], "retries": run.get("retries"), "timeouts": run.get("timeouts"),
        "stream_reconnections": run["reconnections"],
        "cpu": cpu_summary(run.get("cpu"), run["outcomes"], run["injected"], fault_end),
        "checks": checks, "passed": all(checks.values()),
        "timeline": timeline(run),
    }
    mark = "PASS" if summary["passed"] else "FAIL"
    info(f"{mark} {fault.name} {version}: {counts}, recovery {summary['recovery_seconds']} s, "
         f"events {summary['events']['delivered']}/{summary['events']['created']}, lost {len(lost)}"
         + "".join(f"\n        FAIL {described(name, summary)}" for name, ok in checks.items() if not ok))
    return summary


def timeline(run):
    """Outcomes per second since the start, with the fault's window, for the chart."""
    seconds = {}
    for at, outcome in run["outcomes"]:
        second = int(at - run["started"])
        seconds.setdefault(second, dict.fromkeys(OUTCOMES, 0))[outcome] += 1
    return {"per_second": [seconds.get(s, dict.fromkeys(OUTCOMES, 0)) for s in range(max(seconds, default=-1) + 1)],
            "injected": run["injected"] - run["started"], "restoring": run["restoring"] - run["started"]}


def cpu_summary(samples, outcomes, start, end):
    """The machine's busy share during [start, end), and in the seconds with an answer that was not complete
    against those without; the cores of each part during [start, end)."""
    if not samples:
        return None
    bad_seconds = {int(at) for at, outcome in outcomes if outcome != "complete"}
    within = [s for s in samples if start <= s[0] < end]
    # a machine the platform cannot read (a cluster's nodes elsewhere): no busy share, the parts' cores still
    mean = lambda values: round(statistics.fmean(v), 3) if (v := [x for x in values if x is not None]) else None  # noqa: E731
    # a sample covers the second before it was taken
    hit = [busy for at, busy, _ in samples if int(at - 1) in bad_seconds or int(at) in bad_seconds]
    clean = [busy for at, busy, _ in samples if int(at - 1) not in bad_seconds and int(at) not in bad_seconds]
    parts = sorted({part for *_, cores in within for part in cores})
    return {"machine_busy_during_fault": mean([busy for _, busy, _ in within]),
            "machine_busy_max_during_fault": max((busy for _, busy, _ in within if busy is not None), default=None),
            "machine_busy_when_not_complete": mean(hit), "machine_busy_when_complete": mean(clean),
            "cores_during_fault": {part: mean([cores.get(part, 0) for *_, cores in within]) for part in parts},
            "per_second": [(round(at - samples[0][0], 1), busy) for at, busy, _ in samples]}
