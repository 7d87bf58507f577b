"""A chaos run's summary, committed beside the docs (docs/results/<name>.json): every fault run's outcome and every
overload run's, checked against its runs; the tables a doc can show of it."""
import json
import statistics
import sys

from benchkit import NAMES
from benchkit.publish.kinds import SUMMARIES, Kind, within, written
from benchkit.core.documents import formatted, interval
from benchkit.core.cells import SCHEMA as CELLS
from benchkit.schemas.chaos import DESIGN, FILE, SCHEMA, runs


def chaos_runs(chaos_dirs):
    """One chaos.json of one or several chaos runs at the same commit (one build at a time at two replicas): their
    runs together, passed when all passed, the first run's time."""
    found = []
    for chaos_dir in chaos_dirs:
        path = within(chaos_dir, FILE)
        found.append(runs(json.loads(path.read_text()), path))
    if len({data["commit"] for data in found}) != 1:
        sys.exit(f"{', '.join(map(str, chaos_dirs))}: chaos runs of different commits")
    return {**found[0], "passed": all(data["passed"] for data in found),
            "runs": [run for data in found for run in data["runs"]]}


def publish_chaos(chaos_json, name, directory=SUMMARIES):
    """A summary of a chaos run's chaos.json (or of several runs', a list; each the file or its directory), as
    docs/results/<name>.json."""
    return written(summarize(chaos_runs(chaos_json if isinstance(chaos_json, (list, tuple)) else [chaos_json]), name),
                   name, directory)


def summarize(data, name):
    """The summary of a chaos.json's runs: every fault run's outcome and every overload run's, with the stalls
    counted per build (the run's own report shows its tables too)."""
    failed = lambda r: sorted(check for check, ok in r["checks"].items() if not ok)  # noqa: E731
    faults = [{"fault": r["fault"], "version": r["version"], "replicas": r.get("replicas", 1),
               "requests": r["requests"], "outcomes": r["outcomes"], "recovery_seconds": r["recovery_seconds"],
               "p99_ms_during_fault": r.get("p99_ms_during_fault"),
               "writes": {k: r["writes"][k] for k in ("sent", "created")},
               "events": {k: r["events"][k] for k in ("created", "delivered", "lost", "duplicates")},
               "circuit_openings": r.get("circuit_openings"),
               # web-api's own counters: second tries of its reads, calls that reached their time-out
               "retries": r.get("retries"), "timeouts": r.get("timeouts"),
               "machine_busy": {k: (r.get("cpu") or {}).get(f"machine_busy_{k}")
                                for k in ("during_fault", "when_not_complete", "when_complete")},
               "passed": r["passed"], "failed_checks": failed(r)} for r in data["runs"] if "timeline" in r]
    overload = {}
    for r in (r for r in data["runs"] if "timeline" not in r):
        overload.setdefault(r["version"], {"runs": []})["runs"].append({
            "passed": r["passed"], "failed_checks": failed(r), "stalled_seconds": r.get("stalled_seconds"),
            "degraded": r["outcomes"]["degraded"], "accepted_rps": r["accepted_rps"],
            "accepted_p99_ms": r["accepted_p99_ms"],
            **{k: r.get(k) for k in ("capacity_rps", "offered_rps", "server_mean_ms", "little_bound_ms",
                                     "peak_rss_mib")},
            "shed": r["outcomes"]["shed"], "complete": r["outcomes"]["complete"]})
    for found in overload.values():
        found.update(overload_counts(found["runs"]))
    return {"schema": SCHEMA, "name": name, "commit": data["commit"], "timestamp": data["timestamp"],
            "where": data["where"], "passed": data["passed"], "faults": faults, "overload": overload}


def overload_counts(runs):
    """What a build's overload runs add up to: the runs that stalled and their stalled seconds, the runs with a
    degraded answer, the runs that failed a check, and the accepted rate and p99 over the runs."""
    rates = [r["accepted_rps"] for r in runs]
    p99s = [r["accepted_p99_ms"] for r in runs if r["accepted_p99_ms"] is not None]
    return {"run_count": len(runs), "stalled_runs": sum(1 for r in runs if r["stalled_seconds"]),
            "stalled_seconds": sum(r["stalled_seconds"] or 0 for r in runs),
            "degraded_runs": sum(1 for r in runs if r["degraded"]),
            "failed_runs": sum(1 for r in runs if not r["passed"]),
            "accepted_rps": {"median": statistics.median(rates), "low": min(rates), "high": max(rates)},
            "accepted_p99_ms": {"median": statistics.median(p99s) if p99s else None, "low": min(p99s, default=None),
                                "high": max(p99s, default=None)}}


def evidence(fault):
    """[(check, the figure it judges, whether that figure fails it)] of a fault run: what the figures it shows say of
    its verdict (checks.py decides each from the run's every request; the summary keeps the figures)."""
    writes = fault["writes"]
    found = [("recovered", f"recovery {fault['recovery_seconds']} s", fault["recovery_seconds"] is None),
             ("no_event_lost", f"{fault['events']['lost']} events lost", fault["events"]["lost"] > 0),
             ("no_event_twice", f"{fault['events']['duplicates']} events twice", fault["events"]["duplicates"] > 0)]
    if fault["fault"] == "kafka stopped":  # the one fault whose writes must all be answered 201
        found.append(("writes_all_201", f"writes {writes['created']} / {writes['sent']}",
                      not writes["created"] == writes["sent"] > 0))
    if fault["outcomes"].get("error"):  # an answer of 500 fails never_500, whatever else
        found.append(("never_500", f"{fault['outcomes']['error']} errors", True))
    return found


def chaos_consistency(summary):
    """Where a chaos summary's counts and verdicts are not what its runs give: each build's counts of its overload
    runs, each run's verdict against its failed checks, events lost, outcomes against requests, events created
    against writes answered, the figures each fault run shows against the checks they decide, the whole verdict."""
    problems = []
    for version, found in summary["overload"].items():
        if {k: v for k, v in found.items() if k != "runs"} != overload_counts(found["runs"]):
            problems.append(f"overload {version}: the counts are not what its runs give")
    runs = [*summary["faults"], *(r for found in summary["overload"].values() for r in found["runs"])]
    for run in runs:
        if run["passed"] != (run["failed_checks"] == []):
            problems.append(f"{run.get('fault', 'overload')} {run.get('version', '')}: passed is not what its "
                            "failed checks say")
    for fault in summary["faults"]:
        events, named = fault["events"], f"{fault['fault']} {fault['version']}"
        if events["lost"] != events["created"] - events["delivered"]:
            problems.append(f"{named}: events lost are not created less delivered")
        if sum(fault["outcomes"].values()) != fault["requests"]:
            problems.append(f"{named}: its outcomes do not add up to its requests")
        if events["created"] != fault["writes"]["created"]:
            problems.append(f"{named}: events created are not the writes answered 201")
        problems += [f"{named}: {figure} is not what its failed check {check!r} says"
                     for check, figure, failed in evidence(fault) if failed != (check in fault["failed_checks"])]
    if summary["passed"] != all(run["passed"] for run in runs):
        problems.append("passed: not what its runs give")
    return problems



def faults_table(summary):
    """Each fault against each build: its answers, the p99 during the fault, its recovery, its writes and events,
    the circuit's openings, its verdict (and the checks it failed)."""
    rows = [["fault", "build", "replicas", "requests", "complete / degraded / 503 / other", "p99 during fault ms",
             "recovery s", "writes 201 / sent", "events delivered / created (lost)", "circuit opened", "verdict"]]
    for f in summary["faults"]:
        o = f["outcomes"]
        other = f["requests"] - o["complete"] - o["degraded"] - o["shed"] - o["unavailable"]
        rows.append([f["fault"], f["version"], str(f["replicas"]), f"{f['requests']:,}",
                     f"{o['complete']:,} / {o['degraded']:,} / {o['shed'] + o['unavailable']:,} / {other:,}",
                     formatted(f.get("p99_ms_during_fault"), "{:,.0f}"), formatted(f["recovery_seconds"], "{:.1f}"),
                     f"{f['writes']['created']} / {f['writes']['sent']}" if "writes" in f else "–",
                     f"{f['events']['delivered']} / {f['events']['created']} ({f['events']['lost']})",
                     formatted(f.get("circuit_openings"), "{:.0f}×"),
                     "PASS" if f["passed"] else "FAIL: " + ", ".join(f["failed_checks"])])
    return rows


def faults_calls_table(summary):
    """What web-api's own counters saw of each fault: its reads tried a second time (a look-up whose connection
    failed, articles' newest after a failure), its calls that reached their time-out, its circuit's openings."""
    rows = [["fault", "build", "requests", "complete / degraded", "reads retried", "calls timed out", "circuit opened"]]
    for f in summary["faults"]:
        o = f["outcomes"]
        rows.append([f["fault"], f["version"], f"{f['requests']:,}", f"{o['complete']:,} / {o['degraded']:,}",
                     formatted(f.get("retries"), "{:,.0f}"), formatted(f.get("timeouts"), "{:,.0f}"),
                     formatted(f.get("circuit_openings"), "{:.0f}×")])
    return rows


def faults_cpu_table(summary):
    """How busy the whole machine was during each fault, and in the seconds with an incomplete answer against the
    others (the harness's recorder, once a second)."""
    rows = [["fault", "build", "replicas", "machine busy during the fault", "in seconds with an incomplete answer",
             "in the other seconds"]]
    for f in summary["faults"]:
        busy = f.get("machine_busy") or {}
        rows.append([f["fault"], f["version"], str(f["replicas"]),
                     *(formatted(busy.get(k), "{:.0%}") for k in ("during_fault", "when_not_complete", "when_complete"))])
    return rows


def overload_runs_table(summary):
    """Every overload run: what the build sustained and was offered, what it accepted and turned away, web-api's own
    mean time per accepted request against Little's bound, the accepted p99, web-api's peak RSS, stalled seconds."""
    rows = [["build", "sustains req/s", "offered req/s", "accepted req/s", "complete", "degraded", "shed 503",
             "in web-api ms (Little's bound)", "accepted p99 ms", "web-api peak RSS MiB", "stalled s", "verdict"]]
    for version, found in summary["overload"].items():
        for r in found["runs"]:
            rows.append([NAMES.get(version, version), formatted(r.get("capacity_rps"), "{:,}"),
                         formatted(r.get("offered_rps"), "{:,}"), f"{r['accepted_rps']:,}",
                         formatted(r.get("complete"), "{:,}"), f"{r['degraded']:,}", formatted(r.get("shed"), "{:,}"),
                         f"{formatted(r.get('server_mean_ms'), '{:.1f}')} "
                         f"({formatted(r.get('little_bound_ms'), '{:.0f}')})",
                         formatted(r["accepted_p99_ms"], "{:.0f}"), formatted(r.get("peak_rss_mib"), "{}"),
                         formatted(r["stalled_seconds"], "{}"),
                         "PASS" if r["passed"] else "FAIL: " + ", ".join(r["failed_checks"])])
    return rows


def overload_table(summary):
    """Per build, its overload runs: how many stalled (and their stalled seconds), had a degraded answer, failed a
    check; the accepted rate and p99 over the runs."""
    rows = [["build", "overload runs", "runs that stalled (stalled seconds)", "runs with a degraded answer",
             "runs that failed a check", "accepted requests/s (lowest–highest run)", "accepted p99 ms (lowest–highest)"]]
    for version, found in summary["overload"].items():
        rows.append([NAMES.get(version, version), str(found["run_count"]),
                     f"{found['stalled_runs']} ({found['stalled_seconds']})", str(found["degraded_runs"]),
                     str(found["failed_runs"]), interval(found["accepted_rps"]), interval(found["accepted_p99_ms"])])
    return rows


KIND = Kind("chaos", SCHEMA, CELLS, (FILE,), publish_chaos, chaos_consistency,
            {"faults": faults_table, "faults-calls": faults_calls_table, "faults-cpu": faults_cpu_table,
             "overload": overload_table, "overload-runs": overload_runs_table}, several=True, design=DESIGN)
