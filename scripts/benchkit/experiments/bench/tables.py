"""The tables a doc can show of a bench summary (a cell document: a cell per build and scenario; TABLES names them):
rows of cells, the first row the header."""
import statistics

from benchkit import BASELINE, NAMES
from benchkit.core.cells import cell_of, figure
from benchkit.core.documents import formatted, interval, ratio_text


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


def answer_table(summary):
    """The README's table: throughput when saturated with the ratios to v1, latency at the open model's rate, the
    curve's knee, CPU per complete answer and the generator's share of it."""
    versions = summary["versions"]
    closed = {v: cell_of(summary, v, "closed") for v in versions}
    rows = [["", *(NAMES.get(v, v) for v in versions)]]
    row = ["throughput when saturated (complete answers/s, closed; ÷ v1: the median of the rounds' ratios, lowest–highest)"]
    for v in versions:
        ratio = closed[v].get("ratios", {}).get("complete_per_s")
        row.append(interval(figure(closed[v], "complete_per_s")) +
                   (f"; **{ratio['median']:.2f}×** ({ratio['low']:.2f}–{ratio['high']:.2f})" if ratio else ""))
    rows.append(row)
    if "open" in summary["modes"]:
        rate = (summary.get("open_rate") or "").split("/")[0] or "a fixed rate"
        opened = {v: cell_of(summary, v, "open")["medians"] for v in versions}
        rows.append([f"latency at {rate} requests/s (open), p50 / p99 of complete answers (ms)",
                     *(f"{opened[v]['p50']:.1f} / {opened[v]['p99']:.1f}" for v in versions)])
    knees = summary["curve"]["knees"]
    if knees:
        repeats = summary["curve"]["repeats"]
        rows.append(["highest rate carried (the curve's knee, " +
                     (f"in each of {repeats} repeats)" if repeats > 1 else "one step each, not repeated)"),
                     *(formatted(knees.get(v), "{:,}/s") for v in versions)])
    rows.append(["CPU per complete answer, whole system (ms)",
                 *(interval(figure(closed[v], "cpu_ms_per_complete"), "{:.2f}") for v in versions)])
    rows.append(["of which the load generator, per request (ms)",
                 *(formatted(closed[v]["medians"].get("generator_cpu_ms"), "{:.2f}") for v in versions)])
    return rows


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


TABLES = {"headline": headline_table, "knees": knees_table, "answer": answer_table, "hops": hops_table,
          "cpu": cpu_table}
