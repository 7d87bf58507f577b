"""The tables a doc can show of a bench summary (summaries.KIND names them): rows of cells, the first row the
header."""
from benchkit import BASELINE, NAMES
from benchkit.core import results
from benchkit.core.documents import formatted, interval, ratio_text


def headline_table(summary, scenario_name="closed"):
    """Each build's complete answers/s, latency of complete answers, CPU per complete answer and the generator's,
    medians with the lowest and highest round; then v2/v1 and v3/v1 as the median of the per-round ratios."""
    scenario = summary["scenarios"][scenario_name]
    versions = list(scenario["builds"])
    rows = [["", *(NAMES.get(v, v) for v in versions)]]
    cells = {
        "complete answers / s (lowest–highest round)": lambda b: interval(b["figures"]["ok_rps"]),
        "latency p50 / p99 of complete answers (ms)":
            lambda b: f"{b['figures']['p50']['median']:.1f} / {b['figures']['p99']['median']:.1f}",
        "CPU ms per complete answer, whole system": lambda b: interval(b["cpu_ms"][results.PER_COMPLETE], "{:.2f}"),
        "CPU ms per request, the load generator": lambda b: interval(b["cpu_ms"][results.GENERATOR], "{:.2f}"),
    }
    for label, cell in cells.items():
        rows.append([label, *(cell(scenario["builds"][v]) for v in versions)])
    ratio_row = ["÷ v1, complete answers / s: the median of the rounds' ratios (lowest–highest)"]
    for v in versions:
        ratio = scenario["ratios"].get(v, {}).get(results.HEADLINE)
        ratio_row.append("1" if v == BASELINE else ratio_text(ratio))
    rows.append(ratio_row)
    drifted = sorted({n for r in scenario["ratios"].values() for n in r[results.HEADLINE]["drifted_rounds"]})
    if drifted:
        rows.append([f"the same without the drifted round{'s' if len(drifted) > 1 else ''} "
                     f"{', '.join(map(str, drifted))}",
                     *("1" if v == BASELINE else formatted(scenario["ratios"][v][results.HEADLINE]["median_without_drifted"],
                                                       "{:.2f}×") for v in versions)])
    return rows


def knees_table(summary):
    knees = summary["curve"]["knees"]
    return [["", *(NAMES.get(v, v) for v in knees)],
            ["the curve's knee, requests/s (" + (f"carried in each of {summary['curve']['repeats']} repeats)"
                                                  if summary["curve"]["repeats"] > 1 else "one step each, not repeated)"),
             *(formatted(knees[v], "{:,}") for v in knees)]]


def answer_table(summary):
    """The README's table: throughput when saturated with the ratios to v1, latency at the open model's rate, the
    curve's knee, CPU per complete answer and the generator's share of it."""
    closed, versions = summary["scenarios"]["closed"], summary["versions"]
    open_ = summary["scenarios"].get("open")
    rows = [["", *(NAMES.get(v, v) for v in versions)]]
    row = ["throughput when saturated (complete answers/s, closed; ÷ v1: the median of the rounds' ratios, lowest–highest)"]
    for v in versions:
        text = interval(closed["builds"][v]["figures"]["ok_rps"])
        ratio = closed["ratios"].get(v, {}).get(results.HEADLINE)
        row.append(text + (f"; **{ratio['median']:.2f}×** ({ratio['low']:.2f}–{ratio['high']:.2f})" if ratio else ""))
    rows.append(row)
    if open_:
        rate = (summary.get("open_rate") or "").split("/")[0] or "a fixed rate"
        rows.append([f"latency at {rate} requests/s (open), p50 / p99 of complete answers (ms)",
                     *(f"{open_['builds'][v]['figures']['p50']['median']:.1f} / "
                       f"{open_['builds'][v]['figures']['p99']['median']:.1f}" for v in versions)])
    knees = summary["curve"]["knees"]
    if knees:
        repeats = summary["curve"]["repeats"]
        rows.append(["highest rate carried (the curve's knee, " +
                     (f"in each of {repeats} repeats)" if repeats > 1 else "one step each, not repeated)"),
                     *(formatted(knees.get(v), "{:,}/s") for v in versions)])
    rows.append(["CPU per complete answer, whole system (ms)",
                 *(interval(closed["builds"][v]["cpu_ms"][results.PER_COMPLETE], "{:.2f}") for v in versions)])
    rows.append(["of which the load generator, per request (ms)",
                 *(formatted(closed["builds"][v]["cpu_ms"][results.GENERATOR]["median"], "{:.2f}") for v in versions)])
    return rows


def hops_table(summary):
    """Each downstream hop alone (closed, straight at the service): complete answers/s with the ratios to v1, and
    the service's own CPU per request."""
    versions = summary["versions"]
    rows = [["", *(NAMES.get(v, v) for v in versions)]]
    for hop, service in (("articles-alone", "articles"), ("authors-alone", "authors")):
        scenario = summary["scenarios"].get(hop)
        if not scenario:
            continue
        row = [f"{service} alone: complete answers/s; ÷ v1 (the median of the rounds' ratios, lowest–highest)"]
        for v in versions:
            ratio = scenario["ratios"].get(v, {}).get(results.HEADLINE)
            row.append(interval(scenario["builds"][v]["figures"]["ok_rps"]) +
                       (f"; {ratio_text(ratio)}" if ratio else ""))
        rows.append(row)
        rows.append([f"{service} alone: {service}' own CPU ms per request",
                     *(formatted(scenario["builds"][v]["cpu_ms"][service]["median"], "{:.3f}") for v in versions)])
    return rows


def cpu_table(summary, scenario_name="closed"):
    """CPU ms per web-api request of each process of the whole system (closed), medians of the rounds."""
    scenario, versions = summary["scenarios"][scenario_name], summary["versions"]
    rows = [["CPU ms per web-api request (closed)", *(NAMES.get(v, v) for v in versions)]]
    for process in (*results.PROCESSES, results.WHOLE, results.GENERATOR):
        rows.append([process if process != results.GENERATOR else "the load generator, apart",
                     *(formatted(scenario["builds"][v]["cpu_ms"][process]["median"], "{:.2f}") for v in versions)])
    return rows
