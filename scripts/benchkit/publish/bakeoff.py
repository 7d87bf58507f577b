"""The load generators' bake-off, as history: `make bakeoff` measured loadgen, vegeta and wrk against one build (CPU
per request, coordinated omission) and chose loadgen; it was retired once decided, and its code is in git's history.
What stays is its summary (docs/results/bakeoff.json), which docs/load-generator.md shows: its tables, and the check
that each figure is still what the summary's own runs give. Nothing here measures, and no new summary of it can be
published."""
import statistics

from benchkit.publish.kinds import Kind
from benchkit.core.stats import close

SCHEMA = "bakeoff/1"
# How the bake-off ran (its summary keeps the rounds and their length, not these)
BAKEOFF_USERS = 100
BAKEOFF_RATE = 300
STALL_RATE, STALL_SECONDS, STALL_AT, STALL_RUN = 200, 1.0, 3.0, 8
CANDIDATES = (("wrk", "closed"), ("vegeta", "closed"), ("loadgen", "closed"), ("vegeta", "open"), ("loadgen", "open"))


def summarize(runs):
    """Per candidate and model, over the rounds: CPU ms per request (median, lowest, highest), over wrk's in the same
    round (closed only), its share of the machine's CPU per request, the target's rate, and the rate one core of the
    candidate could drive (1,000 / its CPU ms per request)."""
    summary = []
    for name, model in sorted({(r["generator"], r["model"]) for r in runs}):
        mine = [r for r in runs if (r["generator"], r["model"]) == (name, model)]
        over_wrk = [r["cpu_ms_per_request"] / w["cpu_ms_per_request"] for r in mine for w in runs
                    if w["generator"] == "wrk" and w["round"] == r["round"]] if model == "closed" else []
        cpu = [r["cpu_ms_per_request"] for r in mine]
        summary.append({"generator": name, "model": model, "cpu_ms_per_request": statistics.median(cpu),
                        "cpu_ms_low": min(cpu), "cpu_ms_high": max(cpu),
                        "times_wrk": statistics.median(over_wrk) if over_wrk else None,
                        "share_of_machine": statistics.median(r["cpu_ms_per_request"] / r["machine_cpu_ms_per_request"]
                                                              for r in mine),
                        "rate": statistics.median(r["rate"] for r in mine),
                        "one_core_rate": 1000 / statistics.median(cpu)})
    return summary


def passed(stall):
    """The coordinated-omission verdict from its counts."""
    return bool(stall["due_during_stall"]) and not stall["hid_the_stall"] and stall["recorded"] >= stall["expected"]


def consistency(document):
    """Where the bake-off's summary or verdicts are not what its runs and counts give ([] when none is)."""
    problems = []
    expected = summarize(document["runs"])
    if len(document["summary"]) != len(expected):
        problems.append("summary: not one entry per candidate and model of its runs")
    for found, again in zip(document["summary"], expected):
        for key, value in again.items():
            if not (value == found.get(key) or (isinstance(value, float) and close(found.get(key), value))):
                problems.append(f"summary {found['generator']} {found['model']} {key}: {found.get(key)} is not what "
                                f"its runs give, {value}")
    rounds = {r["round"] for r in document["runs"]}
    if rounds != set(range(1, document["rounds"] + 1)) or len(document["runs"]) != len(CANDIDATES) * len(rounds):
        problems.append(f"runs: not every candidate in each of its {document['rounds']} rounds")
    for name, stall in document["coordinated_omission"].items():
        if stall["passed"] != passed(stall):
            problems.append(f"coordinated omission {name}: the verdict is not what its counts give")
    return problems


def table(document):
    """The cost of each candidate, as docs/load-generator.md shows it."""
    rows = [["generator", "model", "CPU ms per request (lowest–highest round)", "over wrk, same round",
             "share of the machine's CPU per request", "target's rate /s", "one core of it drives /s"]]
    for s in sorted(document["summary"], key=lambda s: (s["model"], s["cpu_ms_per_request"])):
        label = document["generators"][s["generator"]].split(" [")[0].replace("debian/", "")
        rows.append([label, "closed" if s["model"] == "closed" else f"open, {BAKEOFF_RATE}/s",
                     f"{s['cpu_ms_per_request']:.3f} ({s['cpu_ms_low']:.3f}–{s['cpu_ms_high']:.3f})",
                     f"{s['times_wrk']:.1f}×" if s["times_wrk"] else "", f"{s['share_of_machine']:.0%}",
                     f"{s['rate']:,.0f}", f"{s['one_core_rate']:,.0f}" if s["model"] == "closed" else ""])
    return rows


def stall_table(document):
    """The coordinated-omission test of each candidate with an open model."""
    rows = [["generator", "at most in flight", "its latency counts from", "requests due during the stall",
             "of them hiding it", "recorded of due", "unsent", "longest latency it reports (ms)",
             "longest from when due (ms)", "verdict"]]
    for name, s in document["coordinated_omission"].items():
        rows.append([name, f"{s['in_flight']:,}" if "in_flight" in s else "no cap", s.get("counts_from", "–"),
                     f"{s['due_during_stall']:,}", f"{s['hid_the_stall']:,}", f"{s['recorded']:,} of {s['expected']:,}",
                     f"{s['unsent']:,}", f"{s['max_latency_ms']:,.0f}",
                     f"{s['max_latency_from_due_ms']:,.0f}" if "max_latency_from_due_ms" in s else "–",
                     "pass" if s["passed"] else "FAIL"])
    return rows


def retired(found, name, directory=None):
    raise SystemExit("the bake-off is history: make bakeoff was retired once loadgen was chosen, and nothing "
                     "publishes a new run of it (its code: git log -- scripts/benchkit/experiments/bakeoff)")


KIND = Kind("bakeoff", SCHEMA, SCHEMA, (), retired, consistency, {"bakeoff": table, "bakeoff-stall": stall_table})
