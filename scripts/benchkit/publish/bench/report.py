"""The report of a bench run (python -m benchkit report RESULTS): every build beside v1 with the ratio to
v1, the equal-work check, what the work cost per process, and the environment; report.md and a
self-contained report.html, each run's samples beside it. Every figure comes from bench.json, the run's cell document
(experiments/bench/document.py writes it): the report is a view of it. Exits 1 when the builds did not do the same work."""
import argparse
import json
import pathlib
import statistics
import sys

from benchkit import NAMES
from benchkit.core import calibration, curve, documents, layers, results, sql
from benchkit.publish import charts
from benchkit.publish import sweep
from benchkit.publish.bench import summaries, tables
from benchkit.schemas import work
from benchkit.schemas.bench import FILE

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
            "collapsed stacks other flame-graph tools read, the .jfr files open in JDK Mission Control. Layer by layer, "
            "each sample counts once, for the innermost frame on its stack that belongs to a layer (a frame of the JDK "
            "counts for its caller), and each JVM's CPU during that run, less its GC's and JIT's, is split by those "
            "shares: CPU ms per complete answer, added up over the three services, PostgreSQL and Kafka apart.")


FLOOR_TEXT = ("The floor (v0) does the same work as every build, the same read with the same statements and bytes, in "
              "plain Vert.x: no Quarkus, CDI, JAX-RS, ORM or object mapping on its path, and nothing a product needs "
              "beyond answering (no fault tolerance, writes, stream or tracing). Measured in the same rounds as the "
              "builds, closed model: each build's figure over the floor's round by round, the median of those ratios "
              "with the lowest and highest round. What a build spends beyond the floor is its framework's and its "
              "paradigm's; what the floor spends, no build can remove.")


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


def restart_warnings(table):
    """A line per scenario and build whose pods restarted mid-run: such a run is not comparable."""
    return [f"WARNING: {version} {scenario}: pods restarted during the run ({'; '.join(tables.restarts(found))})"
            for scenario, data in table.items() for version, found in data.items() if tables.restarts(found)]


def chart_set(table):
    found = {}
    for scenario, data in table.items():
        found[f"latency-{scenario}"] = charts.grouped_bars(
            f"{scenario}: latency percentiles of complete answers", "ms",
            [(p, {v: tables.median(tables.figure(data[v], p)) for v in data}) for p in ("p50", "p90", "p95", "p99")])
    found["throughput"] = charts.grouped_bars(
        "Complete answers per second", "req/s",
        [(s, {v: tables.median(tables.figure(d[v], "complete_per_s")) for v in d}) for s, d in table.items()])
    return found


CURVE = ("Each build under the open model at the same ladder of arrival rates, from a tenth of the fastest "
         "build's closed-model maximum to beyond it, one short step each, the whole ladder repeated (CURVE_REPEATS). "
         "Latency of complete answers is drawn against what was achieved (complete answers per second), p50 solid, "
         "p99 dashed, on a log axis, the medians of the repeats. A build's knee is the highest rate it still carried "
         f"in every repeat: complete answers at {curve.CARRIED:.0%} of the rate or more, under {curve.DROPPED:.0%} "
         "of the requests unsent. Beyond it, latency is queueing.")


def curve_section(found):
    """The curve's table and chart from the run's ladder (document.ladder), and each build's knee."""
    ladder = found["sessions"][0] if found["sessions"] else None
    if not ladder:
        return None
    versions = sorted(ladder)
    rates = sorted({int(rate) for steps in ladder.values() for rate in steps})
    rows = [["offered req/s"] + [f"{v}: complete/s, p50 / p99 ms, unsent (each repeat)" for v in versions]]
    for rate in rates:
        row = [str(rate)]
        for v in versions:
            repeats = ladder[v].get(str(rate))
            row.append("–" if repeats is None else
                       "; ".join(f"{r['complete']:.0f}, {r['p50']:.1f} / {r['p99']:.1f}, {r['dropped']:.0f}"
                                 for r in repeats) +
                       ("" if all(curve.carried(rate, r) for r in repeats) else " (not carried)"))
        rows.append(row)
    lines, knees = [], {}
    for v in versions:
        rate = found["knees"].get(v)
        if rate is None:
            lines.append(f"{v}: carried none of the steps")
            continue
        at_knee = ladder[v][str(rate)]
        p50, p99 = (median_of(r[key] for r in at_knee) for key in ("p50", "p99"))
        knees[v] = (median_of(r["complete"] for r in at_knee), p99)
        lines.append(f"{v}: knee at {rate} requests/s, " +
                     (f"carried in each of {len(at_knee)} repeats (p50 {p50:.1f} ms, p99 {p99:.1f} ms, medians of "
                      "the repeats)" if len(at_knee) > 1 else f"in its one step (p50 {p50:.1f} ms, p99 {p99:.1f} ms)"))
    chart = charts.latency_curve("Latency versus load (open model)", {
        v: [(median_of(r["complete"] for r in repeats), median_of(r["p50"] for r in repeats),
             median_of(r["p99"] for r in repeats)) for _, repeats in sorted(ladder[v].items(), key=lambda i: int(i[0]))]
        for v in versions}, knees)
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
    """report.md and report.html from the run's bench.json; returns whether the builds did the same work."""
    data = json.loads((directory / FILE).read_text())
    environment = data["environment"]
    table = tables.scenarios_of(data)
    ladder = curve_section(data["curve"])
    work_rows, work_passed = work.rows(data["work"])
    verdict = ("PASS: the builds did the same work for every complete answer" if work_passed
               else "FAIL: the builds did NOT do the same work")
    round_tables, round_lines = [], []
    for name, found in table.items():
        rows, lines = tables.rounds_rows(found)
        if rows:
            round_tables.append((f"Scenario: {name}", rows))
            round_lines += [f"{name}: {line}" for line in lines]
    parity = sql.rows(data["sql"])
    warmed = warmup_rows(environment)
    profiles = directory / "profiles" / "profile.json"
    profiled = json.loads(profiles.read_text()) if profiles.exists() else None
    swept = directory / "sweep.json"
    published = published_rows(data)
    against_floor = tables.floor_table(data)
    sections = ([("Latency versus load", "\n\n".join([CURVE] + ladder[1]), [("", ladder[0])])] if ladder else [])
    sections += [("Results", "\n\n".join(restart_warnings(table) + [READING]),
                 [(f"Scenario: {s}", tables.results_table(d)) for s, d in table.items()]),
                *([("Rounds", "\n\n".join([ROUNDS] + round_lines), round_tables)] if round_tables else []),
                *([("Against the floor", FLOOR_TEXT, [("", against_floor)])] if against_floor else []),
                *([("Against the published answer", published[1], [("", published[0])])] if published else []),
                *([sweep.section(json.loads(swept.read_text()))] if swept.exists() else []),
                ("Equal work", verdict + ".\n\n" + work.EXPLANATION, [("", work_rows)]),
                *([("SQL parity", sql.EXPLANATION, [("", parity)])] if parity else []),
                *([("Where the CPU goes", PROFILES, [("", layers.rows(profiled))] +
                    ([("Layer by layer", tables.layers_table(data))] if data.get("profile") else []))]
                  if profiled else []),
                ("Cost", COST_KUBERNETES if data["on_kubernetes"] else COST_LOCAL,
                 [(f"Scenario: {s}", tables.cost_rows(d)) for s, d in table.items()]),
                ("What the kernel counted", results.SCHEDULING_TEXT,
                 [(f"Scenario: {s}", results.scheduling_rows(tables.scheduling(d)))
                  for s, d in table.items() if any(c["rounds"][0].get("scheduling") for c in d.values())]),
                *([("Warm-up", WARMUP, [("", warmed)])] if warmed else []),
                *([("Where the pods ran", PLACEMENT, [("", tables.placement_rows(data["placement"]))])]
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
