"""chaos.md and chaos.html of a chaos run, from its chaos.json: the verdicts, the timelines, the overload rounds."""
import json

from benchkit.core import documents
from benchkit.publish import charts
from benchkit.core.samples import OUTCOMES
from benchkit.publish.chaos import summary
from benchkit.schemas.chaos import described, runs


def timeline_chart(title, entry):
    line = entry["timeline"]
    return charts.outcome_timeline(title, line["per_second"], line["injected"], line["restoring"], OUTCOMES)


def clean_runs(summary):
    """{version: its overload runs, where none stalled and there were several}."""
    return {v: found["run_count"] for v, found in summary["overload"].items()
            if found["run_count"] > 1 and not found["stalled_runs"]}


def what_clean_runs_exclude(runs):
    """What n runs without a stall say: the rule of three, a stall rate above 3/n per run excluded at 95 %; a rarer
    one is not."""
    return (f"{runs} runs without a stall exclude, at 95 % confidence, a stall in more than 1 run in {runs / 3:.0f} "
            f"(the rule of three: 3/{runs}); they do not exclude a rarer one.")


def cpu_table(faults):
    """How busy the machine was during each fault, and the cores each part used: a row per fault with the CPU
    recorder's figures."""
    percent = lambda share: "–" if share is None else f"{100 * share:.0f} %"  # noqa: E731
    rows = [["fault", "build", "machine busy during fault", "max", "busy in seconds with an incomplete answer",
             "busy in the other seconds", "cores per part during fault"]]
    for r in (r for r in faults if r.get("cpu")):
        c = r["cpu"]
        busiest = sorted(c["cores_during_fault"].items(), key=lambda item: -item[1])[:5]
        rows.append([r["fault"], r["version"], percent(c["machine_busy_during_fault"]),
                     percent(c["machine_busy_max_during_fault"]), percent(c["machine_busy_when_not_complete"]),
                     percent(c["machine_busy_when_complete"]),
                     ", ".join(f"{part} {cores:.2f}" for part, cores in busiest) or "–"])
    return rows


def render(path):
    """chaos.md and .html beside chaos.json: the tables of the summary a publish makes of it (summary.py), the CPU the
    recorder saw, every expectation, each fault's timeline; returns whether every expectation held."""
    directory, data = path.parent, runs(json.loads(path.read_text()), path)
    results, passed, where = data["runs"], data["passed"], data["where"]
    faults = [r for r in results if "timeline" in r]
    found = summary.summarize(data, "this run")  # as a publish reads chaos.json
    mark = lambda ok: "PASS" if ok else "FAIL"  # noqa: E731
    cpu_rows = cpu_table(faults)
    check_rows = [["fault", "build", "expectation", "verdict"]]
    for r in results:
        check_rows += [[r["fault"], r["version"], described(name, r), mark(ok)] for name, ok in r["checks"].items()]

    sections = [("Faults", "Each fault against each build, with the load on: the load generator reads at a steady rate, a writer "
                 "POSTs new articles, an SSE client follows the stream. 'complete' answers have every author "
                 "detail; 'degraded' ones are 200 with null author details (a look-up fell back); '503' "
                 "are problem JSON answers with Retry-After; 'other' are unexpected errors and requests that got "
                 "nothing. Recovery is the time from "
                 "giving the part back (restart command issued; on Kubernetes, the fault itself, since the platform "
                 "restores by itself) to the last answer that was not complete. 'reads retried': web-api's "
                 "second tries of its reads (articles' newest after a failure, an author look-up after its connection "
                 "failed; each a call of its own). 'calls timed out': web-api's calls to articles or authors that reached their time-out (1 s for a look-up, 1.5 s for a read, 3 s for a write): a degraded read with none came from a failed connection. "
                 "An event is delivered when the SSE client saw it; every 201 must be delivered.",
                 [("", summary.faults_table(found)), ("What web-api's own counters saw", summary.faults_calls_table(found))])]
    if len(cpu_rows) > 1:
        sections.append(("CPU", "How busy the machine's cores were, sampled once a second (everything on it: the "
                         "pods, the load generator, this harness), and where the kubelet runs here (the test node) the cores each "
                         "part's pods used, from their cgroups: whether answers that were not complete came with "
                         "cores that were all taken.", [("", cpu_rows)]))
    if found["overload"]:
        rounds = any(f["run_count"] > 1 for f in found["overload"].values())
        sections.append(("Overload", "An open-model arrival rate of twice what the build sustained in a short "
                         "closed-model probe just before. Beyond 200 requests in flight web-api turns requests away "
                         "at once with 503 + Retry-After, so those it accepts keep a bounded latency and memory: "
                         "by Little's law their mean time in web-api (its own timer) is at most 200 / the accepted "
                         "rate. A stalled second "
                         "is one with requests outstanding throughout and none answered, counted in every run "
                         "from the samples."
                         + "".join(f" {version}: {what_clean_runs_exclude(n)}" for version, n in clean_runs(found).items()),
                         [("", summary.overload_runs_table(found))]
                         + ([("Per build, over the rounds", summary.overload_table(found))] if rounds else [])))
    sections.append(("Expectations", "PASS: every expectation held." if passed else "FAIL: see below.",
                     [("", check_rows)]))
    charts = {f"chaos-{r['fault'].replace(' ', '-')}-{r['version']}": timeline_chart(f"{r['fault']}, {r['version']}", r)
              for r in faults}
    subtitle = f"{where}, {data['timestamp']}, commit {data['commit']}"
    versions = list(dict.fromkeys(r["version"] for r in results))
    documents.write(directory, "chaos", "reactive-bench: faults, " + " vs ".join(versions), subtitle, sections,
                    {"Faults": charts})
    return passed
