"""chaos.json, chaos.md and chaos.html of a chaos run: the verdicts, the timelines, the overload rounds."""
import datetime
import json
import statistics

from benchkit.core import charts, documents
from benchkit.core.provenance import git_commit
from benchkit.experiments.chaos.verdicts import OUTCOMES, described

SCHEMA = "reactive-bench/chaos/1"  # chaos.json: the run's verdicts, each check keyed by an identifier


def timeline_chart(title, entry):
    line = entry["timeline"]
    return charts.outcome_timeline(title, line["per_second"], line["injected"], line["restoring"], OUTCOMES)


def overload_rounds(overloads):
    """Per build, when it ran overload more than once: how many runs stalled (a second with requests outstanding
    throughout and none answered), how many had a degraded answer, which failed a check and their stalled seconds,
    and the medians of what each run measured."""
    by_version = {}
    for r in overloads:
        by_version.setdefault(r["version"], []).append(r)
    if all(len(runs) < 2 for runs in by_version.values()):
        return []
    rows = [["build", "runs", "runs that stalled (stalled seconds)", "runs with a degraded answer", "degraded answers",
             "runs that failed a check: the checks, stalled seconds", "median accepted req/s", "median accepted p99 ms"]]
    for version, runs in by_version.items():
        stalled = [r for r in runs if r.get("stalled_seconds")]
        failed = [f"{', '.join(name for name, ok in r.get('checks', {}).items() if not ok)}: {r.get('stalled_seconds')}"
                  for r in runs if not r["passed"]]
        rows.append([version, len(runs), f"{len(stalled)} ({sum(r['stalled_seconds'] for r in stalled)})",
                     sum(1 for r in runs if r["outcomes"]["degraded"] > 0), sum(r["outcomes"]["degraded"] for r in runs),
                     "; ".join(failed) or "none", round(statistics.median(r["accepted_rps"] for r in runs)),
                     round(statistics.median(r["accepted_p99_ms"] or 0 for r in runs))])
    return rows


def clean_runs(overloads):
    """{version: its overload runs, where none stalled and there were several}."""
    found = {}
    for r in overloads:
        found.setdefault(r["version"], []).append(r)
    return {v: len(runs) for v, runs in found.items() if len(runs) > 1 and not any(r.get("stalled_seconds") for r in runs)}


def what_clean_runs_exclude(runs):
    """What n runs without a stall say: the rule of three, a stall rate above 3/n per run excluded at 95 %; a rarer
    one is not."""
    return (f"{runs} runs without a stall exclude, at 95 % confidence, a stall in more than 1 run in {runs / 3:.0f} "
            f"(the rule of three: 3/{runs}); they do not exclude a rarer one.")


def render(results, directory, where):
    faults = [r for r in results if "timeline" in r]
    overloads = [r for r in results if "timeline" not in r]
    mark = lambda ok: "PASS" if ok else "FAIL"  # noqa: E731
    fault_rows = [["fault", "build", "replicas", "requests", "complete", "degraded", "503", "500", "no answer", "p99 during fault ms",
                   "recovery s", "writes 201 / sent", "events delivered / created", "events lost", "circuit opened",
                   "reads retried", "calls timed out", "stream reconnected", "verdict"]]
    for r in faults:
        o, e, w = r["outcomes"], r["events"], r["writes"]
        fault_rows.append([r["fault"], r["version"], r.get("replicas", 1), r["requests"], o["complete"], o["degraded"],
                           o["shed"] + o["unavailable"], o["error"], o["failed"], f"{r['p99_ms_during_fault'] or 0:.0f}",
                           "not recovered" if r["recovery_seconds"] is None else f"{r['recovery_seconds']:.1f}",
                           f"{w['created']} / {w['sent']}", f"{e['delivered']} / {e['created']}", e["lost"],
                           "–" if r["circuit_openings"] is None else f"{r['circuit_openings']:.0f}×",
                           "–" if r.get("retries") is None else f"{r['retries']:.0f}",
                           "–" if r.get("timeouts") is None else f"{r['timeouts']:.0f}",
                           f"{r.get('stream_reconnections', 0)}×", mark(r["passed"])])
    overload_rows = [["build", "sustains req/s", "offered req/s", "answered req/s", "accepted req/s", "complete",
                      "degraded", "shed 503", "other errors", "accepted mean ms (client)", "in web-api ms", "Little's bound ms",
                      "accepted p99 ms", "web-api peak RSS MiB", "stalled seconds", "verdict"]]
    for r in overloads:
        o = r["outcomes"]
        overload_rows.append([r["version"], r["capacity_rps"], r["offered_rps"], r["achieved_rps"], r["accepted_rps"],
                              o["complete"], o["degraded"], o["shed"], o["unavailable"] + o["error"] + o["failed"] + o["rejected"],
                              f"{r['accepted_mean_ms']:.1f}", f"{r['server_mean_ms']:.1f}", f"{r['little_bound_ms']:.0f}",
                              f"{r['accepted_p99_ms'] or 0:.0f}",
                              r["peak_rss_mib"], "–" if r.get("stalled_seconds") is None else r["stalled_seconds"],
                              mark(r["passed"])])
    round_rows = overload_rounds(overloads)
    percent = lambda share: "–" if share is None else f"{100 * share:.0f} %"  # noqa: E731
    cpu_rows = [["fault", "build", "machine busy during fault", "max", "busy in seconds with an incomplete answer",
                 "busy in the other seconds", "cores per part during fault"]]
    for r in (r for r in faults if r.get("cpu")):
        c = r["cpu"]
        busiest = sorted(c["cores_during_fault"].items(), key=lambda item: -item[1])[:5]
        cpu_rows.append([r["fault"], r["version"], percent(c["machine_busy_during_fault"]),
                         percent(c["machine_busy_max_during_fault"]), percent(c["machine_busy_when_not_complete"]),
                         percent(c["machine_busy_when_complete"]),
                         ", ".join(f"{part} {cores:.2f}" for part, cores in busiest) or "–"])
    check_rows = [["fault", "build", "expectation", "verdict"]]
    for r in results:
        check_rows += [[r["fault"], r["version"], described(name, r), mark(ok)] for name, ok in r["checks"].items()]
    passed = all(r["passed"] for r in results)

    sections = [("Faults", "Each fault against each build, with the load on: the load generator reads at a steady rate, a writer "
                 "POSTs new articles, an SSE client follows the stream. 'complete' answers have every author "
                 "detail; 'degraded' ones are 200 with null author details (a look-up fell back); '503' "
                 "are problem JSON answers with Retry-After, '500' would be unexpected errors; 'no answer' are requests that got nothing. Recovery is the time from "
                 "giving the part back (restart command issued; on Kubernetes, the fault itself, since the platform "
                 "restores by itself) to the last answer that was not complete. 'reads retried': web-api's "
                 "second tries of its reads (articles' newest after a failure, an author look-up after its connection "
                 "failed; each a call of its own). 'calls timed out': web-api's calls to articles or authors that reached their time-out (1 s for a look-up, 1.5 s for a read, 3 s for a write): a degraded read with none came from a failed connection. "
                 "'stream reconnected': how often the SSE "
                 "client had to connect again (its web-api pod stopped), sending Last-Event-ID. "
                 "An event is delivered when the SSE client saw it; every 201 must be delivered.",
                 [("", fault_rows)])]
    if len(cpu_rows) > 1:
        sections.append(("CPU", "How busy the machine's cores were, sampled once a second (everything on it: the "
                         "pods, the load generator, this harness), and where the kubelet runs here (the test node) the cores each "
                         "part's pods used, from their cgroups: whether answers that were not complete came with "
                         "cores that were all taken.", [("", cpu_rows)]))
    if overloads:
        sections.append(("Overload", "An open-model arrival rate of twice what the build sustained in a short "
                         "closed-model probe just before. Beyond 200 requests in flight web-api turns requests away "
                         "at once with 503 + Retry-After, so those it accepts keep a bounded latency and memory: "
                         "by Little's law their mean time in web-api (its own timer) is at most 200 / the accepted "
                         "rate. The client's mean adds its side: its own scheduling at thousands of requests a "
                         "second on the same cores, and the connection queue ahead of the edge. A stalled second "
                         "is one with requests outstanding throughout and none answered, counted in every run "
                         "from the samples."
                         + "".join(f" {version}: {what_clean_runs_exclude(n)}" for version, n in clean_runs(overloads).items()),
                         [("", overload_rows)] + ([("Per build, over the rounds", round_rows)] if round_rows else [])))
    sections.append(("Expectations", "PASS: every expectation held." if passed else "FAIL: see below.",
                     [("", check_rows)]))
    charts = {f"chaos-{r['fault'].replace(' ', '-')}-{r['version']}": timeline_chart(f"{r['fault']}, {r['version']}", r)
              for r in faults}
    subtitle = f"{where}, {datetime.datetime.now().isoformat(timespec='seconds')}, commit {git_commit()}"
    versions = list(dict.fromkeys(r["version"] for r in results))
    documents.write(directory, "chaos", "reactive-bench: faults, " + " vs ".join(versions), subtitle, sections,
                           {"Faults": charts})
    (directory / "chaos.json").write_text(json.dumps({
        "schema": SCHEMA, "commit": git_commit(), "timestamp": datetime.datetime.now(datetime.timezone.utc).isoformat(
            timespec="seconds"), "where": where, "passed": passed, "runs": results}, indent=2, default=str))
    return passed
