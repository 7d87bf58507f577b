"""The report of a bench run (python -m benchkit report RESULTS): every build beside v1 with the ratio to
v1, the equal-work check, what the work cost per process, and the environment; report.md and a
self-contained report.html, each run's samples beside it. Every figure comes from results.json (results.py
writes it first): the report is a view of it. Exits 1 when the builds did not do the same work."""
import argparse
import json
import pathlib
import statistics
import sys

from benchkit import BASELINE, NAMES
from benchkit.core import calibration, charts, curve, documents, profile, results, sql
from benchkit.experiments.bench import document as rundoc, work
from benchkit.experiments.bench import summaries
from benchkit.experiments import sweep
from benchkit.core.results import BACKGROUND_OFF, GENERATOR, PER_COMPLETE, PROCESSES, WHOLE
from benchkit.core.stats import ratio

# (key, label, format): the results table, one row each
ROWS = [
    ("requests", "requests", "{:.0f}"),
    ("rps", "throughput (req/s)", "{:.1f}"),
    ("ok_rps", "complete answers / s", "{:.1f}"),
    ("avg", "latency avg of complete answers (ms)", "{:.1f}"),
    ("p50", "latency p50 of complete answers (ms)", "{:.1f}"),
    ("p90", "latency p90 of complete answers (ms)", "{:.1f}"),
    ("p95", "latency p95 of complete answers (ms)", "{:.1f}"),
    ("p99", "latency p99 of complete answers (ms)", "{:.1f}"),
    ("max", "latency max of complete answers (ms)", "{:.1f}"),
    ("p50_not_complete", "latency p50 of the other answers: degraded, shed, failed (ms)", "{:.1f}"),
    ("p99_not_complete", "latency p99 of the other answers (ms)", "{:.1f}"),
    ("error_pct", "failed (%)", "{:.2f}"),
    ("shed", "shed by the edge (503, in failed)", "{:.0f}"),
    ("degraded", "degraded answers (client)", "{:.0f}"),
    ("fallbacks", "author look-up fallbacks (web-api's counter)", "{:.0f}"),
    ("dropped", "unsent requests (open model: due, never sent)", "{:.0f}"),
]

READING = """How to read it: *closed* is the original study's model (virtual users each sending the next
request when the last one answered): throughput is what each build sustains, latency is what a saturated
system answers with. *open* sends requests at a fixed rate whatever the answers do, so slow answers
cannot hide queueing (coordinated omission): compare latency at the same load, and any unsent
requests. A ratio above 1 means the build has more of it than v1. "Complete answers / s" leaves out
failed and degraded answers (an author look-up fell back to nulls): it is the fair throughput when a build
degrades. Latencies are of the complete answers; the others' (degraded, shed, failed) are shown apart, so a build
that sheds fast does not look faster. Every measured run was preceded by the same warm-up; with RUNS > 1 each
figure is the median, ± half the spread between runs, and each ratio column is the ratio of the two medians in
its row. The headline ratio is another figure: the median of the per-round ratios (Rounds)."""

ROUNDS = ("The builds take turns, round by round, in an order drawn at random and reversed in the round after, so "
          "that drift of the machine hits each alike. Before each round a fixed CPU-bound job (the calibration) measures the "
          f"machine's speed; a round where it moved more than {calibration.DRIFT_LIMIT:.0%} from the median is "
          "flagged. The ratio below is the median of every round's ratio, with the lowest and highest round; the "
          "same median without the flagged rounds is given beside it, to show how much they weigh.")

COST_LOCAL = ("CPU used by each process during the run (from /proc), per web-api request, and the most memory "
              "each service held (peak RSS, reset before each run). The whole system is the build's three "
              "services, PostgreSQL and Kafka; the load generator is shown apart. The other builds keep running, idle (their outbox "
              "relays poll): what they used meanwhile is shown beside, as a share of the measured build's.")
COST_KUBERNETES = ("CPU used by each container during the run, from its own cgroup (cpu.stat or cpuacct.usage), per "
                   "web-api request; memory from the same cgroup, each figure named for what it is: the cgroup's "
                   "peak counts page cache and runs from the container's start (a container cannot reset it), the "
                   "anonymous memory is the JVM's own at the end of the run. The whole system is the build's three "
                   "pods, PostgreSQL and Kafka; the load generator runs in its own pod with its own CPU limit. The other builds' pods, "
                   "idle meanwhile, are shown beside. Restarts are counted "
                   "from the pods' status; a run with one is flagged above the results.")


PROFILES = ("A JFR recording of every service during one more closed run per build, after the measured ones "
            "(profiling costs a little, so it is not one of them): the share of CPU samples whose stack passes "
            "through each library. A sample counts for every library on its stack, so a column does not add "
            "up to 100 %. Each service's flame graph is linked below; the .folded files beside them are the "
            "collapsed stacks other flame-graph tools read, the .jfr files open in JDK Mission Control.")


def cell(figure, fmt):
    """A figure's median, ± half the spread of its rounds as a per cent of it."""
    if not figure or figure["median"] is None:
        return "–"
    value = figure["median"]
    half = 50 * (figure["high"] - figure["low"]) / value if value else 0.0
    return fmt.format(value) + (f" (±{half:.0f} %)" if half >= 0.5 else "")


def median(figure):
    return figure["median"] if figure else None


def header(versions, what=""):
    return [what] + [NAMES.get(v, v) for v in versions] + [f"{v} / {BASELINE} (of the medians)" for v in versions if v != BASELINE]


def results_table(data):
    """data: a scenario's builds ({version: BuildResult as results.json has it})."""
    versions = list(data)
    rows = [header(versions)]
    for key, label, fmt in ROWS:
        entries = [data[v]["figures"].get(key) for v in versions]
        if all(median(e) is None for e in entries):
            continue
        base = median(data.get(BASELINE, {}).get("figures", {}).get(key))
        rows.append([label] + [cell(e, fmt) for e in entries] +
                    [ratio(base, median(e)) for v, e in zip(versions, entries) if v != BASELINE])
    return rows


def cost_rows(data):
    versions = list(data)
    rows = [header(versions, "what")]

    def add(label, values, fmt):
        base = values[versions.index(BASELINE)] if BASELINE in versions else None
        rows.append([label] + [fmt(v) for v in values] +
                    [ratio(base, v) for version, v in zip(versions, values) if version != BASELINE])

    for process in (WHOLE, PER_COMPLETE, BACKGROUND_OFF, *PROCESSES, GENERATOR):
        entries = [median(data[v]["cpu_ms"].get(process)) for v in versions]
        if all(e is None for e in entries):
            continue  # not measured on this platform
        label = (f"CPU ms per {data[versions[0]]['target']} request, {process}" if process != PER_COMPLETE else
                 f"CPU ms per complete answer, {process.split(',')[0]}") + (" (the load generator)" if process == GENERATOR else "")
        add(label, entries, lambda value: "–" if value is None else f"{value:.3f}")
    if any(median(data[v]["idle_cpu_s"]) is not None for v in versions):
        rows.append(["CPU s of the other builds, idle meanwhile (share of the measured build's)"] +
                    [share_cell(median(data[v]["idle_cpu_s"]), median(data[v]["system_cpu_s"])) for v in versions] +
                    ["–"] * (len(versions) - 1))
    if any(median(data[v]["node_cpu_s"]) is not None for v in versions):
        rows.append(["CPU s of the node's own processes during the run (etcd, apiserver, kubelet, containerd, "
                     "kube-proxy, …; share of the measured build's)"] +
                    [share_cell(median(data[v]["node_cpu_s"]), median(data[v]["system_cpu_s"])) for v in versions] +
                    ["–"] * (len(versions) - 1))
    first = data[versions[0]]
    for figure, label in (("jit_cpu_seconds", "JIT compiler threads' CPU s during the run"),
                          ("jit_seconds", "JIT compile s during the run (elapsed, as HotSpot counts it)"),
                          ("gc_seconds", "GC pauses s during the run (wall clock)"),
                          ("gc_cpu_seconds", "GC threads' CPU s during the run")):
        for service in dict.fromkeys(name for v in versions for name in data[v].get("jvm", {})):
            add(f"{label}, {service}", [median(data[v].get("jvm", {}).get(service, {}).get(figure))
                                        for v in versions], lambda value: "–" if value is None else f"{value:.2f}")
    for name in dict.fromkeys(name for v in versions for name in data[v].get("throttling", {})):  # under a CPU quota
        rows.append([f"CFS: periods throttled / with the quota, throttled s, {name}"] +
                    [throttled_cell(data[v].get("throttling", {}).get(name)) for v in versions] +
                    ["–"] * (len(versions) - 1))
    for service, figures in first["memory_mib"].items():
        for label in figures:
            add(f"MiB, {service}: {label}", [data[v]["memory_mib"].get(service, {}).get(label) for v in versions],
                lambda value: "not readable on this kernel" if value is None else f"{value:.0f}")
    if first["on_kubernetes"]:  # pods can be restarted under the run
        rows.append(["pod restarts during the run (OOM kills say OOMKilled)"] +
                    ["; ".join(data[v]["restarts"]) or "none" for v in versions] + ["–"] * (len(versions) - 1))
    return rows


def rounds_rows(scenario):
    """One row per round: the builds' order, the machine's speed (the calibration job), each build's complete
    answers/s and latency p50, and the ratios to v1 within the round; and the headline lines: the median of the
    per-round ratios over every round, and without the drifted ones."""
    if not scenario["rounds"]:
        return None, []
    versions = sorted({v for r in scenario["rounds"] for v in r["complete_per_s"]})
    rows = [["round", "order", "calibration s"] + [f"{v} complete/s, p50 ms" for v in versions] +
            [f"{v} / {BASELINE} complete/s" for v in versions if v != BASELINE]]
    for r in scenario["rounds"]:
        flag = f" (moved {r['drift']:+.0%})" if r["drift"] is not None else ""
        row = [str(r["number"]), " → ".join(r["order"]), f"{r['calibration_seconds']:.2f}{flag}"]
        row += [f"{r['complete_per_s'][v]:.1f}, {r['p50_ms'][v]:.1f}" if v in r["complete_per_s"] else "–"
                for v in versions]
        row += [ratio(r["complete_per_s"].get(BASELINE), r["complete_per_s"].get(v)) for v in versions if v != BASELINE]
        rows.append(row)
    return rows, [headline_text(v, ratios[results.HEADLINE]) for v, ratios in scenario["ratios"].items()
                  if ratios[results.HEADLINE]["median"] is not None]


def headline_text(version, found):
    """"v2 / v1 complete answers/s, median of 3 rounds' ratios: 2.35× (2.16–2.67)", and the sensitivity line."""
    measured = [value for _, value in found["rounds"] if value is not None]
    text = (f"{version} / v1 complete answers/s, the median of {len(measured)} round{'s' if len(measured) > 1 else ''}' "
            f"ratios: {documents.ratio_text(found)}")
    if found["drifted_rounds"]:
        without = found["median_without_drifted"]
        text += (f"; without the drifted round{'s' if len(found['drifted_rounds']) > 1 else ''} "
                 f"{', '.join(map(str, found['drifted_rounds']))}: " + ("–" if without is None else f"{without:.2f}×"))
    return text


def throttled_cell(figures):
    if not figures:
        return "–"
    periods, throttled = median(figures["periods"]), median(figures["throttled"])
    share = f" ({100 * throttled / periods:.0f} %)" if periods else ""
    return f"{throttled:.0f} / {periods:.0f}{share}, {median(figures['throttled_seconds']):.2f} s"


WARMUP = ("Before its measured runs each build was warmed by the same rule: in windows of requests until the JIT "
          "had settled (its three JVMs spent at most 3 % of the window's CPU compiling) and the window's answers were "
          "complete (a cold look-up that times out opens the circuit, and the rest of the window falls back). What "
          "the JIT compiled and the GC collected meanwhile, and what CFS throttled, is start-up cost the warm-up took "
          "away from the measured runs.")


def window_text(window):
    jit = "–" if window["jit_share"] is None else f"{window['jit_share']:.1%}"
    return f"{window['iterations']}: {window['incomplete_share']:.0%}, {jit}"


def warmup_rows(environment):
    """The warm-up of each build: how long, how many attempts, JIT and GC seconds per service, throttling."""
    warmups = {v: w for v, w in (environment.get("warmup") or {}).items() if isinstance(w, dict)}
    if not warmups:
        return None
    versions = list(warmups)
    rows = [["what", *(NAMES.get(v, v) for v in versions)],
            ["seconds", *(f"{warmups[v]['seconds']:.0f}" for v in versions)],
            ["windows (requests per VU: incomplete answers, JIT share of the CPU)",
             *("; ".join(window_text(w) for w in warmups[v]["windows"]) for v in versions)],
            ["settled", *("yes" if warmups[v]["settled"] else "no" for v in versions)]]
    for figure, label in (("jit_cpu_seconds", "JIT compiler threads' CPU s"), ("jit_seconds", "JIT compile s (elapsed)"),
                          ("gc_seconds", "GC s"), ("compilations", "compilations")):
        for service in (warmups[versions[0]].get("jvm") or {}):
            cells = [((warmups[v].get("jvm") or {}).get(service) or {}).get(figure) for v in versions]
            rows.append([f"{label}, {service}", *("–" if c is None else f"{c:.2f}" if figure != "compilations"
                                                   else f"{c:.0f}" for c in cells)])
    for name in (warmups[versions[0]].get("throttling") or {}):
        cells = [((warmups[v].get("throttling") or {}).get(name)) for v in versions]
        rows.append([f"CFS: periods throttled / with the quota, {name}",
                     *("–" if not c else f"{c['throttled']} / {c['periods']}, {c['throttled_seconds']:.2f} s"
                       for c in cells)])
    return rows


def share_cell(seconds, system):
    """CPU seconds and their share of the measured build's whole system."""
    if seconds is None:
        return "–"
    return f"{seconds:.2f} ({100 * seconds / system:.1f} %)" if system else f"{seconds:.2f}"


def restart_warnings(table):
    """A line per scenario and build whose pods restarted mid-run: such a run is not comparable."""
    return [f"WARNING: {version} {scenario}: pods restarted during the run ({'; '.join(data[version]['restarts'])})"
            for scenario, data in table.items() for version in data if data[version]["restarts"]]


def chart_set(table):
    found = {}
    for scenario, data in table.items():
        found[f"latency-{scenario}"] = charts.grouped_bars(
            f"{scenario}: latency percentiles of complete answers", "ms",
            [(p, {v: median(data[v]["figures"][p]) for v in data}) for p in ("p50", "p90", "p95", "p99")])
    found["throughput"] = charts.grouped_bars(
        "Complete answers per second", "req/s",
        [(s, {v: median(d[v]["figures"]["ok_rps"]) for v in d}) for s, d in table.items()])
    return found


CURVE = ("Each build under the open model at the same ladder of arrival rates, from a tenth of the fastest "
         "build's closed-model maximum to beyond it, one short step each, the whole ladder repeated (CURVE_REPEATS). "
         "Latency of complete answers is drawn against what was achieved (complete answers per second), p50 solid, "
         "p99 dashed, on a log axis, the medians of the repeats. A build's knee is the highest rate it still carried "
         f"in every repeat: complete answers at {curve.CARRIED:.0%} of the rate or more, under {curve.DROPPED:.0%} "
         "of the requests unsent. Beyond it, latency is queueing.")


def curve_section(found):
    """The curve's table and chart from results.json's steps, and each build's knee."""
    if not found["steps"]:
        return None
    versions = sorted(found["knees"])
    rates = sorted({step["offered"] for step in found["steps"]})
    steps = {(step["offered"], step["version"]): step for step in found["steps"]}
    rows = [["offered req/s"] + [f"{v}: complete/s, p50 / p99 ms, unsent (each repeat)" for v in versions]]
    points = {v: [] for v in versions}
    for rate in rates:
        row = [str(rate)]
        for v in versions:
            step = steps.get((rate, v))
            if step is None:
                row.append("–")
                continue
            row.append("; ".join(f"{r['complete']:.0f}, {r['p50']:.1f} / {r['p99']:.1f}, {r['dropped']:.0f}"
                                 for r in step["repeats"]) + ("" if step["carried"] else " (not carried)"))
            points[v].append((rate, step))
        rows.append(row)
    lines, knees = [], {}
    for v in versions:
        rate = found["knees"][v]
        at = steps.get((rate, v))
        if at:
            p50 = median_of(r["p50"] for r in at["repeats"])
            p99 = median_of(r["p99"] for r in at["repeats"])
            knees[v] = (median_of(r["complete"] for r in at["repeats"]), p99)
            repeats = len(at["repeats"])
            lines.append(f"{v}: knee at {rate} requests/s, " +
                         (f"carried in each of {repeats} repeats (p50 {p50:.1f} ms, p99 {p99:.1f} ms, medians of "
                          "the repeats)" if repeats > 1 else f"in its one step (p50 {p50:.1f} ms, p99 {p99:.1f} ms)"))
        else:
            lines.append(f"{v}: carried none of the steps")
    chart = charts.latency_curve("Latency versus load (open model)", {
        v: [(median_of(r["complete"] for r in step["repeats"]), median_of(r["p50"] for r in step["repeats"]),
             median_of(r["p99"] for r in step["repeats"])) for _, step in points[v]] for v in versions}, knees)
    return rows, lines, chart


PLACEMENT = ("The node each pod of a build ran on, and where its load pods ran (each run's Job): on a cluster of "
             "several nodes a load pod beside the build takes the CPU it measures (the load-job chart prefers other "
             "nodes; LOAD_NODE_SELECTOR pins it: docs/kubernetes.md).")


def published_rows(data):
    """Where this run's headline ratios fall against the published run's of the same kind of platform (README.md),
    so that whoever reruns knows what they see: ([rows], the sentence above them), or None."""
    name, published = summaries.published_headline(data["on_kubernetes"])
    found = summaries.against_published(data, published)
    if not found:
        return None
    rows = [["build", "this run: ÷ v1, closed (lowest–highest round)", f"published, {name} (lowest–highest round)",
             "this run's median inside the published interval"]]
    for row in found:
        rows.append([NAMES.get(row["version"], row["version"]),
                     documents.ratio_text(row), documents.ratio_text(row["published"]), "yes" if row["inside"] else "NO"])
    text = (f"The README's answer for this kind of platform rests on {name} (docs/results/{name}.json), at the whole "
            "machine; one run lies from the next by more than its rounds spread, so a median outside the published "
            "interval says this machine, this hour or this commit differs, not that either run is wrong.")
    return rows, text


def median_of(values):
    return statistics.median(list(values))


def render(directory):
    """Writes results.json, then report.md and report.html from it; returns whether the builds did the same work."""
    rundoc.write(directory)
    data = rundoc.read(directory / "results.json")
    environment = data["environment"]
    table = {name: scenario["builds"] for name, scenario in data["scenarios"].items()}
    ladder = curve_section(data["curve"])
    work_rows, work_passed = work.rows(data["equal_work"]["scenarios"])
    verdict = ("PASS: the builds did the same work for every complete answer" if work_passed
               else "FAIL: the builds did NOT do the same work")
    round_tables, round_lines = [], []
    for name, scenario in data["scenarios"].items():
        rows, lines = rounds_rows(scenario)
        if rows:
            round_tables.append((f"Scenario: {name}", rows))
            round_lines += [f"{name}: {line}" for line in lines]
    parity = sql.rows(data["sql"])
    warmed = warmup_rows(environment)
    profiles = directory / "profiles" / "profile.json"
    profiled = json.loads(profiles.read_text()) if profiles.exists() else None
    swept = directory / "sweep.json"
    published = published_rows(data)
    sections = ([("Latency versus load", "\n\n".join([CURVE] + ladder[1]), [("", ladder[0])])] if ladder else [])
    sections += [("Results", "\n\n".join(restart_warnings(table) + [READING]),
                 [(f"Scenario: {s}", results_table(d)) for s, d in table.items()]),
                *([("Rounds", "\n\n".join([ROUNDS] + round_lines), round_tables)] if round_tables else []),
                *([("Against the published answer", published[1], [("", published[0])])] if published else []),
                *([sweep.section(json.loads(swept.read_text()))] if swept.exists() else []),
                ("Equal work", verdict + ".\n\n" + work.EXPLANATION, [("", work_rows)]),
                *([("SQL parity", sql.EXPLANATION, [("", parity)])] if parity else []),
                *([("Where the CPU goes", PROFILES, [("", profile.rows(profiled))])] if profiled else []),
                ("Cost", COST_KUBERNETES if data["on_kubernetes"] else COST_LOCAL,
                 [(f"Scenario: {s}", cost_rows(d)) for s, d in table.items()]),
                ("What the kernel counted", results.SCHEDULING_TEXT,
                 [(f"Scenario: {s}", results.scheduling_rows({v: b["scheduling"] for v, b in d.items()}))
                  for s, d in table.items() if any(b["scheduling"] for b in d.values())]),
                *([("Warm-up", WARMUP, [("", warmed)])] if warmed else []),
                *([("Where the pods ran", PLACEMENT, [("", rundoc.placement_rows(data["placement"]))])]
                  if data.get("placement") else []),
                ("Environment", f"Measured on: {data['where']}.", [("", documents.key_value_rows(environment))])]
    links = [(f"flame graph: {service} {version}", f"profiles/{version}-{service}.svg")
             for version, services in (profiled or {}).items() for service in services]
    documents.write(directory, "report", "reactive-bench: " + " vs ".join(NAMES.get(v, v) for v in data["versions"]),
                    f"{data['timestamp']}, commit {data['commit']}",
                    sections, {"Results": chart_set(table), **({"Latency versus load": {"latency-curve": ladder[2]}}
                                                               if ladder else {})}, links)
    return work_passed


def main(argv=None):
    parser = argparse.ArgumentParser(prog="benchkit report", description=__doc__.splitlines()[0])
    parser.add_argument("results", type=pathlib.Path)
    args = parser.parse_args(argv)
    passed = render(args.results)
    print(f"Report: {args.results / 'report.md'} and {args.results / 'report.html'}")
    if not passed:
        sys.exit("Equal work check FAILED: see the report's 'Equal work' section")
