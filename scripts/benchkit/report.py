"""The report of a bench run (python -m benchkit report RESULTS): every build beside v1 with the ratio to
v1, the equal-work check, what the work cost per process, and the environment; report.md and a
self-contained report.html, each run's samples beside it. Exits 1 when the builds did not do the
same work."""
import argparse
import json
import pathlib
import sys

from . import NAMES, calibration, charts, curve, documents, load, profile, sql, sweep, work
from .stats import max_or_none, median_and_spread, ratio

# (key, label, format): the results table, one row each
ROWS = [
    ("requests", "requests", "{:.0f}"),
    ("rps", "throughput (req/s)", "{:.1f}"),
    ("ok_rps", "complete answers / s", "{:.1f}"),
    ("avg", "latency avg (ms)", "{:.1f}"),
    ("p50", "latency p50 (ms)", "{:.1f}"),
    ("p90", "latency p90 (ms)", "{:.1f}"),
    ("p95", "latency p95 (ms)", "{:.1f}"),
    ("p99", "latency p99 (ms)", "{:.1f}"),
    ("max", "latency max (ms)", "{:.1f}"),
    ("error_pct", "failed (%)", "{:.2f}"),
    ("shed", "shed by the edge (503, in failed)", "{:.0f}"),
    ("degraded", "degraded answers (client)", "{:.0f}"),
    ("fallbacks", "author look-up fallbacks (web-api's counter)", "{:.0f}"),
    ("dropped", "dropped iterations", "{:.0f}"),
]
PROCESSES = ("web-api", "articles", "authors", "postgres", "kafka")
PER_COMPLETE = "whole system, per complete answer"
BACKGROUND_OFF = "whole system, the background rate taken off"
GENERATOR = "loadgen"

READING = """How to read it: *closed* is the original study's model (virtual users each sending the next
request when the last one answered): throughput is what each build sustains, latency is what a saturated
system answers with. *open* sends requests at a fixed rate whatever the answers do, so slow answers
cannot hide queueing (coordinated omission): compare latency at the same load, and any dropped
iterations. A ratio above 1 means the build has more of it than v1. "Complete answers / s" leaves out
failed and degraded answers (an author look-up fell back to nulls): it is the fair throughput when a build
degrades. Every measured run was preceded by the same warm-up; with RUNS > 1 each figure is the median,
± half the spread between runs."""

ROUNDS = ("The builds take turns, round by round, their order turned round every other round, so that drift of "
          "the machine hits each alike. Before each round a fixed CPU-bound job (the calibration) measures the "
          f"machine's speed; a round where it moved more than {calibration.DRIFT_LIMIT:.0%} from the median is flagged "
          "and left out of the ratio below.")

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


def read_runs(results):
    """Every measured run: its cost, the figures of its samples, and its build's background rate (measured once per bench)."""
    environment = json.loads((results / "environment.json").read_text())
    background = environment.get("background_cpu_per_s") or {}
    runs = []
    for cost_file in sorted((results / "runs").glob("*.cost.json")):
        cost = json.loads(cost_file.read_text())
        summary = json.loads(cost_file.with_name(cost_file.name.replace(".cost.json", ".json")).read_text())
        metrics = load.metrics(summary)
        metrics["fallbacks"] = cost["requests_served"].get("fallbacks", 0)
        runs.append({**cost, "metrics": metrics, "background_cpu_per_s": background.get(cost["version"])})
    if not runs:
        sys.exit(f"no runs in {results / 'runs'}")
    return runs


def aggregate(runs):
    """{scenario: {version: figures of its runs}} with medians and spreads, totals for the equal-work check."""
    table = {}
    for scenario in dict.fromkeys(run["scenario"] for run in runs):
        table[scenario] = {}
        for version in sorted({run["version"] for run in runs}):
            mine = [run for run in runs if run["scenario"] == scenario and run["version"] == version]
            if not mine:
                continue
            target = mine[0].get("target", "web-api")
            served = [run["requests_served"].get(target) or 0 for run in mine]
            per_request = [{process: 1000 * seconds / count if count else None
                            for process, seconds in run["cpu_seconds"].items()} for run, count in zip(mine, served)]
            for figures, run, count in zip(per_request, mine, served):
                system = sum(run["cpu_seconds"].values())
                figures["whole system"] = 1000 * system / count if count else None
                # A build that degrades must not look cheaper for the look-ups it skipped: per complete answer too.
                complete = run["metrics"]["complete"]
                figures[PER_COMPLETE] = 1000 * system / complete if complete else None
                working = system_without_background(run)
                figures[BACKGROUND_OFF] = 1000 * working / count if count and working is not None else None
                figures[GENERATOR] = 1000 * run["load_cpu_seconds"] / count if count and run.get("load_cpu_seconds") else None
            table[scenario][version] = {
                "runs": len(mine), "target": target,
                "metrics": {k: median_and_spread([run["metrics"][k] for run in mine]) for k in mine[0]["metrics"]},
                "totals": totals(mine),
                "cpu_ms": {process: median_and_spread([figures.get(process) for figures in per_request])
                           for process in per_request[0]},
                "memory_mib": {service: {label: max_or_none(run["memory_mib"][service][label] for run in mine)
                                         for label in figures}
                               for service, figures in (mine[0].get("memory_mib") or {}).items()},
                "idle_cpu": median_and_spread([run.get("idle_cpu_seconds") for run in mine]),
                "node_cpu": median_and_spread([sum(run["node_cpu_seconds"].values()) if run.get("node_cpu_seconds")
                                               else None for run in mine]),
                "system_cpu": median_and_spread([sum(run["cpu_seconds"].values()) for run in mine]),
                "jvm": nested_figures(mine, "jvm", ("jit_seconds", "jit_cpu_seconds", "gc_seconds")),
                "throttling": nested_figures(mine, "throttling", ("throttled", "periods", "throttled_seconds")),
                "restarts": [f"{container}: {r['restarts']}x ({r['last_reason'] or 'unknown reason'})"
                             for run in mine for container, r in (run.get("restarts") or {}).items()],
                "kubernetes": mine[0].get("restarts") is not None,
            }
    return table


def system_without_background(run):
    """The run's whole-system CPU seconds less what its processes use with no load over as long (None without a
    measured background rate)."""
    idle = run.get("background_cpu_per_s")
    if not idle:
        return None
    return sum(run["cpu_seconds"].values()) - sum(idle.get(p, 0) for p in run["cpu_seconds"]) * run["seconds"]


def nested_figures(runs, key, figures):
    """{name: {figure: (median, spread)}} of one per-process counter of the runs (jvm: JIT and GC seconds;
    throttling: CFS periods), only the names every run measured."""
    found = {}
    for name in (runs[0].get(key) or {}):
        values = [(run.get(key) or {}).get(name) for run in runs]
        if all(values):
            found[name] = {figure: median_and_spread([v.get(figure) for v in values]) for figure in figures}
    return found


def totals(runs):
    """What the equal-work check needs, summed over a build's runs of one scenario."""
    summed = {key: sum(run["metrics"][key] for run in runs) for key in ("requests", "complete", "degraded", "failed", "shed")}
    summed.update(target=runs[0].get("target", "web-api"),
                  articles=sum(run["requests_served"]["articles"] for run in runs),
                  authors=sum(run["requests_served"]["authors"] for run in runs),
                  expected_authors=runs[0]["expected_calls_per_request"]["authors"],
                  bytes_min=min(run["metrics"]["bytes_min"] for run in runs),
                  bytes_max=max(run["metrics"]["bytes_max"] for run in runs))
    return summed


def cell(entry, fmt):
    value, spread = entry
    if value is None:
        return "–"
    return fmt.format(value) + (f" (±{spread / 2:.0f} %)" if spread / 2 >= 0.5 else "")


def header(versions, what=""):
    return [what] + [NAMES.get(v, v) for v in versions] + [f"{v} / v1" for v in versions if v != "v1"]


def results_table(data):
    versions = list(data)
    rows = [header(versions)]
    for key, label, fmt in ROWS:
        entries = [data[v]["metrics"].get(key, (None, 0)) for v in versions]
        base = data.get("v1", {}).get("metrics", {}).get(key, (None, 0))[0]
        rows.append([label] + [cell(e, fmt) for e in entries] +
                    [ratio(base, e[0]) for v, e in zip(versions, entries) if v != "v1"])
    return rows


def cost_rows(data):
    versions = list(data)
    rows = [header(versions, "what")]

    def add(label, values, fmt):
        base = values[versions.index("v1")] if "v1" in versions else None
        rows.append([label] + [fmt(v) for v in values] +
                    [ratio(base, v) for version, v in zip(versions, values) if version != "v1"])

    for process in ("whole system", PER_COMPLETE, BACKGROUND_OFF, *PROCESSES, GENERATOR):
        entries = [data[v]["cpu_ms"].get(process, (None, 0)) for v in versions]
        if all(e[0] is None for e in entries):
            continue  # not measured on this platform
        label = (f"CPU ms per {data[versions[0]]['target']} request, {process}" if process != PER_COMPLETE else
                 f"CPU ms per complete answer, {process.split(',')[0]}") + (" (the load generator)" if process == GENERATOR else "")
        add(label, [e[0] for e in entries], lambda value: "–" if value is None else f"{value:.3f}")
    if any(data[v]["idle_cpu"][0] is not None for v in versions):
        rows.append(["CPU s of the other builds, idle meanwhile (share of the measured build's)"] +
                    [idle_cell(data[v]) for v in versions] + ["–"] * (len(versions) - 1))
    if any(data[v].get("node_cpu", (None, 0))[0] is not None for v in versions):
        rows.append(["CPU s of the node's own processes during the run (etcd, apiserver, kubelet, containerd, "
                     "kube-proxy, …; share of the measured build's)"] +
                    [share_cell(data[v]["node_cpu"][0], data[v]["system_cpu"][0]) for v in versions] +
                    ["–"] * (len(versions) - 1))
    first = data[versions[0]]
    for figure, label in (("jit_cpu_seconds", "JIT compiler threads' CPU s during the run"),
                          ("jit_seconds", "JIT compile s during the run (elapsed, as HotSpot counts it)"),
                          ("gc_seconds", "GC s during the run")):
        for service in dict.fromkeys(name for v in versions for name in data[v].get("jvm", {})):
            add(f"{label}, {service}", [data[v].get("jvm", {}).get(service, {}).get(figure, (None, 0))[0]
                                        for v in versions], lambda value: "–" if value is None else f"{value:.2f}")
    for name in dict.fromkeys(name for v in versions for name in data[v].get("throttling", {})):  # under a CPU quota
        rows.append([f"CFS: periods throttled / with the quota, throttled s, {name}"] +
                    [throttled_cell(data[v].get("throttling", {}).get(name)) for v in versions] +
                    ["–"] * (len(versions) - 1))
    for service, figures in first["memory_mib"].items():
        for label in figures:
            add(f"MiB, {service}: {label}", [data[v]["memory_mib"].get(service, {}).get(label) for v in versions],
                lambda value: "not readable on this kernel" if value is None else f"{value:.0f}")
    if first["kubernetes"]:  # pods can be restarted under the run
        rows.append(["pod restarts during the run (OOM kills say OOMKilled)"] +
                    ["; ".join(data[v]["restarts"]) or "none" for v in versions] + ["–"] * (len(versions) - 1))
    return rows


def rounds_rows(runs, scenario):
    """One row per round: the builds' order, the machine's speed (the calibration job), each build's
    complete answers/s and latency p50, and the ratios to v1 within the round. Rounds where the machine's
    speed moved more than the limit from the median are flagged."""
    mine = [run for run in runs if run["scenario"] == scenario and "calibration_seconds" in run]
    if not mine:
        return None, []
    versions = sorted({run["version"] for run in mine})
    by_round = {}
    for run in mine:
        by_round.setdefault(run["run"], {})[run["version"]] = run
    speed = {r: next(iter(builds.values()))["calibration_seconds"] for r, builds in by_round.items()}
    moved = calibration.drifted(speed)
    rows = [["round", "order", "calibration s"] + [f"{v} complete/s, p50 ms" for v in versions] +
            [f"{v} / v1 complete/s" for v in versions if v != "v1"]]
    ratios = {v: [] for v in versions if v != "v1"}
    for r, builds in sorted(by_round.items()):
        order = " → ".join(v for v, _ in sorted(builds.items(), key=lambda item: item[1].get("position", 0)))
        flag = f" (moved {moved[r]:+.0%}: not used)" if r in moved else ""
        row = [str(r), order, f"{speed[r]:.2f}{flag}"]
        row += [f"{builds[v]['metrics']['ok_rps']:.1f}, {builds[v]['metrics']['p50']:.1f}" if v in builds else "–"
                for v in versions]
        base = builds.get("v1", {}).get("metrics", {}).get("ok_rps")
        for v in ratios:
            value = builds.get(v, {}).get("metrics", {}).get("ok_rps")
            row.append(ratio(base, value))
            if base and value is not None and r not in moved:
                ratios[v].append(value / base)
        rows.append(row)
    summary = [f"{v} / v1 complete answers/s over the {len(values)} round{'s' if len(values) > 1 else ''} that passed: "
               f"{median_and_spread(values)[0]:.2f}× (±{median_and_spread(values)[1] / 2:.0f} %)"
               for v, values in ratios.items() if values]
    return rows, summary


def throttled_cell(figures):
    if not figures:
        return "–"
    periods, throttled = figures["periods"][0], figures["throttled"][0]
    share = f" ({100 * throttled / periods:.0f} %)" if periods else ""
    return f"{throttled:.0f} / {periods:.0f}{share}, {figures['throttled_seconds'][0]:.2f} s"


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


def idle_cell(figures):
    return share_cell(figures["idle_cpu"][0], figures["system_cpu"][0])


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
            f"{scenario}: latency percentiles", "ms",
            [(p, {v: data[v]["metrics"][p][0] for v in data}) for p in ("p50", "p90", "p95", "p99")])
    found["throughput"] = charts.grouped_bars(
        "Complete answers per second", "req/s", [(s, {v: d[v]["metrics"]["ok_rps"][0] for v in d}) for s, d in table.items()])
    return found


CURVE = ("Each build under the open model at the same ladder of arrival rates, from a tenth of the fastest "
         "build's closed-model maximum to beyond it, one short step each. Latency is drawn against what was "
         "achieved (complete answers per second), p50 solid, p99 dashed, on a log axis. A build's knee is the "
         f"highest rate it still carried: complete answers at {curve.CARRIED:.0%} of the rate or more, under "
         f"{curve.DROPPED:.0%} of the iterations dropped. Beyond it, latency is queueing.")


def curve_section(table):
    """The curve's table and chart from the steps' figures, and each build's knee."""
    steps = {rate: data for scenario, data in table.items() if (rate := curve.rate_of(scenario))}
    if not steps:
        return None
    versions = sorted({v for data in steps.values() for v in data})
    points, knees = {v: [] for v in versions}, {}
    rows = [["offered req/s"] + [f"{v}: complete/s, p50 / p99 ms, dropped" for v in versions]]
    for rate, data in sorted(steps.items()):
        row = [str(rate)]
        for v in versions:
            m = {k: value[0] for k, value in data[v]["metrics"].items()} if v in data else None
            if m is None:
                row.append("–")
                continue
            row.append(f"{m['ok_rps']:.0f}, {m['p50']:.1f} / {m['p99']:.1f}, {m['dropped']:.0f}")
            points[v].append({"offered": rate, "complete": m["ok_rps"], "dropped": m["dropped"],
                              "requests": m["requests"], "p50": m["p50"], "p99": m["p99"]})
        rows.append(row)
    lines = []
    for v in versions:
        rate = curve.knee(points[v])
        at = next((p for p in points[v] if p["offered"] == rate), None)
        if at:
            knees[v] = (at["complete"], at["p99"])
            lines.append(f"{v}: knee at {rate} requests/s (p50 {at['p50']:.1f} ms, p99 {at['p99']:.1f} ms)")
        else:
            lines.append(f"{v}: carried none of the steps")
    chart = charts.latency_curve("Latency versus load (open model)",
                                 {v: [(p["complete"], p["p50"], p["p99"]) for p in points[v]] for v in versions}, knees)
    return rows, lines, chart


def render(results):
    runs = read_runs(results)
    environment = json.loads((results / "environment.json").read_text())
    table = aggregate(runs)
    ladder = curve_section(table)
    # The curve's steps have a section of their own; equal work is judged over all of them at once.
    table = {scenario: data for scenario, data in table.items() if not curve.rate_of(scenario)}
    judged = {scenario: {v: d["totals"] for v, d in data.items()} for scenario, data in table.items()}
    steps = [run for run in runs if curve.rate_of(run["scenario"])]
    if steps:
        judged["curve (all steps)"] = {v: totals([run for run in steps if run["version"] == v])
                                       for v in sorted({run["version"] for run in steps})}
    work_rows, work_passed = work.rows(judged)

    verdict = ("PASS: the builds did the same work for every complete answer" if work_passed
               else "FAIL: the builds did NOT do the same work")
    kubernetes = any(d["kubernetes"] for data in table.values() for d in data.values())
    round_tables, round_lines = [], []
    for scenario in table:
        rows, lines = rounds_rows(runs, scenario)
        if rows:
            round_tables.append((f"Scenario: {scenario}", rows))
            round_lines += [f"{scenario}: {line}" for line in lines]
    parity = sql.rows(runs)
    warmed = warmup_rows(environment)
    profiles = results / "profiles" / "profile.json"
    profiled = json.loads(profiles.read_text()) if profiles.exists() else None
    swept = results / "sweep.json"
    sections = ([("Latency versus load", "\n\n".join([CURVE] + ladder[1]), [("", ladder[0])])] if ladder else [])
    sections += [("Results", "\n\n".join(restart_warnings(table) + [READING]),
                 [(f"Scenario: {s}", results_table(d)) for s, d in table.items()]),
                *([("Rounds", "\n\n".join([ROUNDS] + round_lines), round_tables)] if round_tables else []),
                *([sweep.section(json.loads(swept.read_text()))] if swept.exists() else []),
                ("Equal work", verdict + ".\n\n" + work.EXPLANATION, [("", work_rows)]),
                *([("SQL parity", sql.EXPLANATION, [("", parity)])]
                  if parity else []),
                *([("Where the CPU goes", PROFILES, [("", profile.rows(profiled))])] if profiled else []),
                ("Cost", COST_KUBERNETES if kubernetes else COST_LOCAL,
                 [(f"Scenario: {s}", cost_rows(d)) for s, d in table.items()]),
                *([("Warm-up", WARMUP, [("", warmed)])] if warmed else []),
                ("Environment", f"Measured on: {environment.get('where', '')}.",
                 [("", documents.key_value_rows(environment))])]
    links = [(f"flame graph: {service} {version}", f"profiles/{version}-{service}.svg")
              for version, services in (profiled or {}).items() for service in services]
    documents.write(results, "report", "reactive-bench: " + " vs ".join(NAMES.get(v, v) for v in
                                                                         sorted({r["version"] for r in runs})),
                    f"{environment.get('timestamp', '')}, commit {environment.get('git_commit', '')}",
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
