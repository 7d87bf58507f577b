"""The tables of a bench's cell document (a cell per build and scenario), rows of cells, the first row the header:
those a doc can show of a bench summary (TABLES names them), then those a run's report shows (report.py)."""
import statistics

from benchkit import BASELINE, FLOOR, NAMES, floor_last
from benchkit.core import documents, layers
from benchkit.core.cells import cell_of, figure
from benchkit.core.documents import formatted, interval, ratio_text
from benchkit.core.results import BACKGROUND_OFF, GENERATOR, PER_COMPLETE, PROCESSES, SCHEDULING, THREADS, WHOLE
from benchkit.core.stats import ratio
from benchkit.publish.bench import public


def builds(summary, scenario):
    return [c["build"] for c in summary["cells"] if c["mode"] == scenario]


def without_drifted(cell):
    """The median of a cell's ratios of complete answers/s over the rounds whose machine did not drift."""
    kept = [ratio for ratio, r in zip(cell["ratios"]["complete_per_s"]["rounds"], cell["rounds"])
            if r.get("drift") is None and ratio is not None]
    return statistics.median(kept) if kept else None


def headline_table(summary, scenario="closed"):
    """Each build's complete answers/s, latency of complete answers, CPU per complete answer and the generator's,
    medians with the lowest and highest round; then v2/v1 and v3/v1 as the median of the per-round ratios, and the
    same without the rounds where the machine drifted."""
    versions = builds(summary, scenario)
    found = {v: cell_of(summary, v, scenario) for v in versions}
    rows = [["", *(NAMES.get(v, v) for v in versions)]]
    shown = {
        "complete answers / s (lowest–highest round)": lambda c: interval(figure(c, "complete_per_s")),
        "latency p50 / p99 of complete answers (ms)": lambda c: f"{c['medians']['p50']:.1f} / {c['medians']['p99']:.1f}",
        "CPU ms per complete answer, whole system": lambda c: interval(figure(c, "cpu_ms_per_complete"), "{:.2f}"),
        "CPU ms per request, the load generator": lambda c: interval(figure(c, "generator_cpu_ms"), "{:.2f}"),
    }
    for label, text in shown.items():
        rows.append([label, *(text(found[v]) for v in versions)])
    rows.append(["÷ v1, complete answers / s: the median of the rounds' ratios (lowest–highest)",
                 *("1" if v == BASELINE else ratio_text(found[v].get("ratios", {}).get("complete_per_s"))
                   for v in versions)])
    drifted = [r["round"] for r in found[versions[0]]["rounds"] if r.get("drift") is not None]
    if drifted:
        rows.append([f"the same without the drifted round{'s' if len(drifted) > 1 else ''} "
                     f"{', '.join(map(str, drifted))}",
                     *("1" if v == BASELINE else formatted(without_drifted(found[v]), "{:.2f}×") for v in versions)])
    return rows


def knees_table(summary):
    knees = summary["curve"]["knees"]
    return [["", *(NAMES.get(v, v) for v in knees)],
            ["the curve's knee, requests/s (" + (f"carried in each of {summary['curve']['repeats']} repeats)"
                                                  if summary["curve"]["repeats"] > 1 else "one step each, not repeated)"),
             *(formatted(knees[v], "{:,}") for v in knees)]]


def hops_table(summary):
    """Each downstream hop alone (closed, straight at the service): complete answers/s with the ratios to v1, and
    the service's own CPU per request."""
    versions = summary["versions"]
    rows = [["", *(NAMES.get(v, v) for v in versions)]]
    for hop, service in (("articles-alone", "articles"), ("authors-alone", "authors")):
        if hop not in summary["modes"]:
            continue
        found = {v: cell_of(summary, v, hop) for v in versions}
        rows.append([f"{service} alone: complete answers/s; ÷ v1 (the median of the rounds' ratios, lowest–highest)",
                     *(interval(figure(found[v], "complete_per_s")) +
                       (f"; {ratio_text(found[v]['ratios']['complete_per_s'])}" if "ratios" in found[v] else "")
                       for v in versions)])
        rows.append([f"{service} alone: {service}' own CPU ms per request",
                     *(formatted(figure(found[v], f"{service}_cpu_ms")["median"], "{:.3f}") for v in versions)])
    return rows


def cpu_table(summary, scenario="closed"):
    """CPU ms per web-api request of each process of the whole system (closed), medians of the rounds."""
    versions = summary["versions"]
    found = {v: cell_of(summary, v, scenario) for v in versions}
    rows = [["CPU ms per web-api request (closed)", *(NAMES.get(v, v) for v in versions)]]
    for name, key in (*((p, f"{p}_cpu_ms") for p in ("web-api", "articles", "authors", "postgres", "kafka")),
                      ("whole system", "cpu_ms"), ("the load generator, apart", "generator_cpu_ms")):
        rows.append([name, *(formatted(figure(found[v], key)["median"], "{:.2f}") for v in versions)])
    return rows


def floor_measured(summary, scenario):
    """The floor's version where the summary measured it in the scenario, else None."""
    return next((v for v in builds(summary, scenario) if v in FLOOR), None)


def floor_table(summary, scenario="closed"):
    """Each build against the floor (v0: the same read in plain Vert.x), measured in the same rounds: its complete
    answers/s and whole-system CPU per complete answer, medians with the lowest and highest round, then as multiples of
    the floor's (the median of the rounds' ratios, lowest–highest), and the CPU an answer costs beyond the floor's (of
    the medians). None where the floor was not measured."""
    floor = floor_measured(summary, scenario)
    if not floor:
        return None
    shown = floor_last(builds(summary, scenario))
    found = {v: cell_of(summary, v, scenario) for v in shown}
    against = {v: found[v].get("against_floor", {}) for v in shown}
    floor_cpu = figure(found[floor], "cpu_ms_per_complete")["median"]
    return [["", *(NAMES.get(v, v) for v in shown)],
            ["complete answers / s (lowest–highest round)", *(interval(figure(found[v], "complete_per_s")) for v in shown)],
            ["÷ the floor's: the median of the rounds' ratios (lowest–highest)",
             *("1" if v in FLOOR else ratio_text(against[v].get("complete_per_s")) for v in shown)],
            ["CPU ms per complete answer, whole system",
             *(interval(figure(found[v], "cpu_ms_per_complete"), "{:.2f}") for v in shown)],
            ["× the floor's: the median of the rounds' ratios (lowest–highest)",
             *("1" if v in FLOOR else ratio_text(against[v].get("cpu_ms_per_complete")) for v in shown)],
            ["CPU ms per complete answer beyond the floor's (of the medians)",
             *("–" if v in FLOOR or floor_cpu is None else
               formatted(figure(found[v], "cpu_ms_per_complete")["median"] - floor_cpu, "{:+.2f}") for v in shown)]]


def public_table(summary, scenario="closed"):
    """The floor measured here (its whole-system CPU per complete answer, median with the lowest and highest round)
    against what public runs on other hardware make of this request's work (public.py), as a multiple of each end of
    their estimate. None where the floor was not measured."""
    floor = floor_measured(summary, scenario)
    if not floor:
        return None
    measured = figure(cell_of(summary, floor, scenario), "cpu_ms_per_complete")
    rows = [["CPU ms per complete answer", "ms", "measured here ÷ it"],
            [f"{NAMES.get(floor, floor)}, measured here, the whole system (lowest–highest round)",
             interval(measured, "{:.2f}"), "1"]]
    for label, (low, high) in (("the public estimate, the best JVM stacks", public.ESTIMATE_BEST_JVM_MS),
                               ("the public estimate, native servers", public.ESTIMATE_NATIVE_MS)):
        rows.append([label, f"{low:.2f}–{high:.2f}", "–" if measured["median"] is None else
                     f"{measured['median'] / high:.1f}–{measured['median'] / low:.1f}×"])
    return rows


def layers_table(summary):
    """Where an answer's CPU goes, layer by layer, in each build and the floor (core.layers.layer_rows), of the
    profiled run's; None where the run kept no profile."""
    return layers.layer_rows(summary["profile"]) if summary.get("profile") else None


TABLES = {"headline": headline_table, "knees": knees_table, "hops": hops_table,
          "cpu": cpu_table, "floor": floor_table, "layers": layers_table, "public": public_table}


# The run report's tables (report.py): every figure of a scenario, what it cost, its rounds.
# (key, label, format): the results table, one row each
ROWS = [
    ("requests", "requests", "{:.0f}"),
    ("rps", "throughput (req/s)", "{:.1f}"),
    ("complete_per_s", "complete answers / s", "{:.1f}"),
    ("avg", "latency avg of complete answers (ms)", "{:.1f}"),
    ("p50", "latency p50 of complete answers (ms)", "{:.1f}"),
    ("p90", "latency p90 of complete answers (ms)", "{:.1f}"),
    ("p95", "latency p95 of complete answers (ms)", "{:.1f}"),
    ("p99", "latency p99 of complete answers (ms)", "{:.1f}"),
    ("max", "latency max of complete answers (ms)", "{:.1f}"),
    ("p50_not_complete", "latency p50 of the other answers: degraded, shed, failed (ms)", "{:.1f}"),
    ("p99_not_complete", "latency p99 of the other answers (ms)", "{:.1f}"),
    ("failed_pct", "failed (%)", "{:.2f}"),
    ("shed", "shed by the edge (503, in failed)", "{:.0f}"),
    ("degraded", "degraded answers (client)", "{:.0f}"),
    ("fallbacks", "author look-up fallbacks (web-api's counter)", "{:.0f}"),
    ("dropped", "unsent requests (open model: due, never sent)", "{:.0f}"),
]

def cell(found, fmt):
    """A figure's median, ± half the spread of its rounds as a per cent of it."""
    if not found or found["median"] is None:
        return "–"
    value = found["median"]
    half = 50 * (found["high"] - found["low"]) / value if value else 0.0
    return fmt.format(value) + (f" (±{half:.0f} %)" if half >= 0.5 else "")


def median(found):
    return found["median"] if found else None


def scenarios_of(document):
    """{scenario: {version: its cell}}."""
    found = {}
    for c in document["cells"]:
        found.setdefault(c["mode"], {})[c["build"]] = c
    return found


def header(versions, what=""):
    return [what] + [NAMES.get(v, v) for v in versions] + [f"{v} / {BASELINE} (of the medians)" for v in versions if v != BASELINE]


def results_table(data):
    """data: a scenario's cells ({version: cell})."""
    versions = list(data)
    rows = [header(versions)]
    for key, label, fmt in ROWS:
        entries = [figure(data[v], key) for v in versions]
        if all(median(e) is None for e in entries):
            continue
        base = median(figure(data[BASELINE], key)) if BASELINE in data else None
        rows.append([label] + [cell(e, fmt) for e in entries] +
                    [ratio(base, median(e)) for v, e in zip(versions, entries) if v != BASELINE])
    return rows


CPU = {WHOLE: "cpu_ms", PER_COMPLETE: "cpu_ms_per_complete", BACKGROUND_OFF: "cpu_ms_background_off",
       **{process: f"{process}_cpu_ms" for process in PROCESSES}, GENERATOR: "generator_cpu_ms"}


def cost_rows(data):
    versions = list(data)
    rows = [header(versions, "what")]

    def add(label, values, fmt):
        base = values[versions.index(BASELINE)] if BASELINE in versions else None
        rows.append([label] + [fmt(v) for v in values] +
                    [ratio(base, v) for version, v in zip(versions, values) if version != BASELINE])

    target = data[versions[0]]["rounds"][0]["work"]["target"]
    for process, key in CPU.items():
        entries = [median(figure(data[v], key)) for v in versions]
        if all(e is None for e in entries):
            continue  # not measured on this platform
        label = (f"CPU ms per {target} request, {process}" if process != PER_COMPLETE else
                 f"CPU ms per complete answer, {process.split(',')[0]}") + (" (the load generator)" if process == GENERATOR else "")
        add(label, entries, lambda value: "–" if value is None else f"{value:.3f}")
    for key, label in (("idle_cpu_s", "CPU s of the other builds, idle meanwhile"),
                       ("node_cpu_s", "CPU s of the node's own processes during the run (etcd, apiserver, kubelet, "
                                      "containerd, kube-proxy, …")):
        if any(median(figure(data[v], key)) is not None for v in versions):
            rows.append([f"{label} (share of the measured build's)"] +
                        [share_cell(median(figure(data[v], key)), median(figure(data[v], "system_cpu_s"))) for v in versions] +
                        ["–"] * (len(versions) - 1))
    first = data[versions[0]]["rounds"][0]
    for counted, label in (("jit_cpu_seconds", "JIT compiler threads' CPU s during the run"),
                           ("jit_seconds", "JIT compile s during the run (elapsed, as HotSpot counts it)"),
                           ("gc_seconds", "GC pauses s during the run (wall clock)"),
                           ("gc_cpu_seconds", "GC threads' CPU s during the run")):
        for service in first.get("jvm") or {}:
            add(f"{label}, {service}", [median(figure(data[v], "jvm", service, counted)) for v in versions],
                lambda value: "–" if value is None else f"{value:.2f}")
    for name in first.get("throttling") or {}:  # under a CPU quota
        rows.append([f"CFS: periods throttled / with the quota, throttled s, {name}"] +
                    [throttled_cell({f: figure(data[v], "throttling", name, f) for f in ("periods", "throttled",
                                                                                      "throttled_seconds")})
                     for v in versions] + ["–"] * (len(versions) - 1))
    for service, figures in (first.get("memory_mib") or {}).items():
        for label in figures:
            add(f"MiB, {service}: {label}", [figure(data[v], "memory_mib", service, label)["high"] for v in versions],
                lambda value: "not readable on this kernel" if value is None else f"{value:.0f}")
    if first.get("restarts") is not None:  # pods can be restarted under the run
        rows.append(["pod restarts during the run (OOM kills say OOMKilled)"] +
                    ["; ".join(restarts(data[v])) or "none" for v in versions] + ["–"] * (len(versions) - 1))
    return rows


def restarts(found):
    """"container: N x (reason)" of every restart in a cell's runs."""
    return [f"{container}: {r['restarts']}x ({r['last_reason'] or 'unknown reason'})"
            for run in found["rounds"] for container, r in (run.get("restarts") or {}).items()]


def scheduling(data):
    """{version: {process: {figure: Figure as data}}} of a scenario's cells, for results.scheduling_rows."""
    return {v: {process: {key: figure(c, "scheduling", process, key) for key, _ in SCHEDULING + THREADS}
                for process in c["rounds"][0].get("scheduling") or {}} for v, c in data.items()}


def rounds_rows(data):
    """One row per round: the builds' order, the machine's speed (the calibration job), each build's complete
    answers/s and latency p50, and the ratios to v1 within the round; and the headline lines: the median of the
    per-round ratios over every round, and without the drifted ones."""
    versions = list(data)
    by_round = {}
    for v, c in data.items():
        for r in c["rounds"]:
            if r["calibration_seconds"] is not None:
                by_round.setdefault(r["round"], {})[v] = r
    if not by_round:
        return None, []
    rows = [["round", "order", "calibration s"] + [f"{v} complete/s, p50 ms" for v in versions] +
            [f"{v} / {BASELINE} complete/s" for v in versions if v != BASELINE]]
    for number, mine in sorted(by_round.items()):
        first = next(iter(mine.values()))
        flag = f" (moved {first['drift']:+.0%})" if first["drift"] is not None else ""
        row = [str(number), " → ".join(sorted(mine, key=lambda v: mine[v].get("place") or 0)),
               f"{first['calibration_seconds']:.2f}{flag}"]
        row += [f"{mine[v]['complete_per_s']:.1f}, {mine[v]['p50']:.1f}" if v in mine else "–" for v in versions]
        row += [ratio((mine.get(BASELINE) or {}).get("complete_per_s"), (mine.get(v) or {}).get("complete_per_s"))
                for v in versions if v != BASELINE]
        rows.append(row)
    return rows, [headline_text(v, c) for v, c in data.items()
                  if c.get("ratios", {}).get("complete_per_s", {}).get("median") is not None]


def headline_text(version, found):
    """"v2 / v1 complete answers/s, median of 3 rounds' ratios: 2.35× (2.16–2.67)", and the sensitivity line."""
    ratios = found["ratios"]["complete_per_s"]
    measured = [value for value in ratios["rounds"] if value is not None]
    text = (f"{version} / v1 complete answers/s, the median of {len(measured)} round{'s' if len(measured) > 1 else ''}' "
            f"ratios: {documents.ratio_text(ratios)}")
    drifted = [r["round"] for r in found["rounds"] if r.get("drift") is not None]
    if drifted:
        without = without_drifted(found)
        text += (f"; without the drifted round{'s' if len(drifted) > 1 else ''} {', '.join(map(str, drifted))}: "
                 + ("–" if without is None else f"{without:.2f}×"))
    return text


def throttled_cell(figures):
    if not figures or median(figures["periods"]) is None:
        return "–"
    periods, throttled = median(figures["periods"]), median(figures["throttled"])
    share = f" ({100 * throttled / periods:.0f} %)" if periods else ""
    return f"{throttled:.0f} / {periods:.0f}{share}, {median(figures['throttled_seconds']):.2f} s"


def share_cell(seconds, system):
    """CPU seconds and their share of the measured build's whole system."""
    if seconds is None:
        return "–"
    return f"{seconds:.2f} ({100 * seconds / system:.1f} %)" if system else f"{seconds:.2f}"


def placement_rows(found):
    """Per build and node: its pods there, and how many of its load pods ran there."""
    rows = [["build", "node", "the build's pods", "its load pods (runs)"]]
    for version, where in found.items():
        for node in sorted({*where["build"], *where["load"]}):
            rows.append([version, node, ", ".join(sorted(where["build"].get(node, []))) or "–",
                         str(where["load"].get(node, 0))])
    return rows
