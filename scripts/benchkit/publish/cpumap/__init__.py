"""What is published of the CPU map and make answer (experiments.cpumap measures them): the tables and heat maps a
doc may show of their cell document, the check a map's rounds must pass, and a run's report, all read from the
document alone."""
import dataclasses
import json

from benchkit import BASELINE, NAMES, info, step
from benchkit.publish.kinds import Publishes
from benchkit.core import cells as celldoc, documents, results, verdicts
from benchkit.publish import charts
from benchkit.core.cells import builds
from benchkit.core.sizes import NO_LIMIT, label
from benchkit.schemas.cpumap import POOLED
from benchkit.publish.cpumap.answer import (ANSWER_TEXT, STARTS_TEXT, again_rows, answer_rows, balance_rows,
                                            costs_rows, floor_sentences, floor_rows, order_rows, sentences,
                                            sessions_rows, starts_rows)

# what each round keeps of a build at a size that a table shows, with a ratio to v1
FIGURES = (("complete_per_s", "closed model: complete answers/s", "{:.0f}"),
           ("p50", "closed model: latency p50 ms", "{:.1f}"), ("p99", "closed model: latency p99 ms", "{:.1f}"),
           ("open_p50", "open model at the fixed rate: latency p50 ms", "{:.1f}"),
           ("open_p99", "open model at the fixed rate: latency p99 ms", "{:.1f}"),
           ("capacity_per_s", "capacity: the highest open rate with p99 under the bound, /s", "{:.0f}"),
           ("cpu_ms_per_complete_background_off", "CPU ms per complete answer, background off", "{:.3f}"),
           ("peak_memory_mib", "peak memory MiB, the three services' added up", "{:.0f}"))


def write_report(path):
    """<design>.md and .html beside the document; of make answer's, the answer as it stands printed (pooled with the
    earlier sessions it names: schemas.cpumap.POOLED, where there are any)."""
    data = json.loads(path.read_text())
    directory, name = path.parent, data["design"]
    documents.write(directory, name, f"reactive-bench: {data['title'].lower()}",
                    f"{data['timestamp']}, commit {data['commit']}, {data['where']}",
                    [("The answer", ANSWER_TEXT, [("", answer_rows(data))]),
                     ("Each build by CPU per service", data["explanation"], [("", table(data))]),
                     ("What each fork took to start", STARTS_TEXT,
                      [("", starts_rows(data))]),
                     ("Each rung against no limit", AGAINST, [("", against_no_limit_rows(data))]),
                     ("What the kernel counted", results.SCHEDULING_TEXT,
                      [(label(size), results.scheduling_rows(scheduling(data, size))) for size in data["sizes"]]),
                     ("What each JVM saw and chose", "", [(size, ergonomics_rows(found))
                                                           for size, found in data["ergonomics"].items()]),
                     ("Environment", "", [("", documents.key_value_rows(data["environment"]))])], {})
    step(f"{data['title']}: {directory / name}.md and .html")
    if name == "answer":
        pooled = directory / POOLED
        found = json.loads(pooled.read_text()) if pooled.exists() else celldoc.so_far({}, data)
        info(f"The answer so far ({len(celldoc.sessions_of(found))} session(s)):")
        print(documents.markdown_table(answer_rows(found)))


AGAINST = ("What each rung does to a build against the same build with no limit, in the same run: its rounds are "
           "paired by number (the rungs are measured one after the other, so a pair is minutes apart).")


def table(document):
    versions = builds(document)
    rows = [["size", "figure", *(NAMES.get(v, v) for v in versions),
             *(f"{v} / {BASELINE}" for v in versions if v != BASELINE)]]
    for size in document["sizes"]:
        found = {v: celldoc.cell_of(document, v, size=size) for v in versions}
        for key, name, fmt in FIGURES:
            if all(r.get(key) is None for v in versions for r in found[v]["rounds"]):
                continue  # a figure not measured then (peak memory, before its rounds kept it)
            rows.append([label(size), name, *(documents.interval(celldoc.figure(found[v], key), fmt) for v in versions),
                         *(documents.ratio_text(celldoc.ratio(found[v], key)) for v in versions if v != BASELINE)])
        rows.append([label(size), "held back by", *(bound_text(found[v]["rounds"]) for v in versions),
                     *("–" for v in versions if v != BASELINE)])
    return rows


def bound_text(cells):
    """What held a build back at a size over its rounds: "quota (web-api throttled in 41% of periods)", or "not its
    quota (the processes used 97% of the cores)": the machine's cores, shared, or the closed model's own pace; each
    figure the median of the rounds; "quota" where most rounds say so."""
    bounds = [c["bound_by"] for c in cells if c.get("bound_by")]
    if not bounds:
        return "–"
    if sum(b["by"] == "quota" for b in bounds) * 2 > len(bounds):
        name = max(bounds[0]["throttled_share"], key=lambda n: results.Figure.of("", [b["throttled_share"].get(n)
                                                                                       for b in bounds]).median)
        share = results.Figure.of("", [b["throttled_share"].get(name) for b in bounds]).median
        return f"quota ({name} throttled in {share:.0%} of periods)"
    busy = results.Figure.of("", [b["cores_busy_share"] for b in bounds]).median
    return "not its quota" + (f" (the processes used {busy:.0%} of the cores)" if busy is not None else "")


def scheduling(document, size):
    """{version: {process: {figure: Figure as data}}} of the kernel's counts over the rounds at one size."""
    found = {}
    for version in builds(document):
        rounds = celldoc.cell_of(document, version, size=size)["rounds"]
        readings = [r["scheduling"] for r in rounds if r.get("scheduling")]
        found[version] = {process: {key: dataclasses.asdict(results.Figure.of("", [r[process].get(key) for r in readings]))
                                    for key, _ in results.SCHEDULING + results.THREADS}
                          for process in (readings[0] if readings else {})}
    return found


def ergonomics_rows(found):
    """{version: {service: what its JVM saw and chose}} as rows: one per service and build, its threads by kind."""
    flat = {(version, service): {**{k: v for k, v in seen.items() if k != "threads"}, **(seen.get("threads") or {})}
            for version, services in found.items() for service, seen in services.items()}
    keys = list(dict.fromkeys(key for seen in flat.values() for key in seen))
    return [["build", "service", *(key.replace("_", " ") for key in keys)],
            *([version, service, *("–" if seen.get(key) is None else str(seen[key]) for key in keys)]
              for (version, service), seen in flat.items())]


# what a rung does to a build against the same build with no limit: what a pod's size costs it
UNLIMITED = ("complete_per_s", "cpu_ms_per_complete_background_off")


def headline_rows(document):
    """Per rung, each build over v1: what it carries at most (closed) and its capacity under the p99 bound."""
    versions = [v for v in builds(document) if v != BASELINE]
    rows = [["CPU per service", *(f"{v} / {BASELINE}: {what}" for v in versions
                                  for what in ("answers/s, closed", "capacity at the p99 bound"))]]
    for size in document["sizes"]:
        rows.append([label(size), *(documents.ratio_text(celldoc.ratio(celldoc.cell_of(document, v, size=size), key))
                                    for v in versions for key in ("complete_per_s", "capacity_per_s"))])
    return rows


def against_no_limit_rows(document):
    versions = builds(document)
    rows = [["rung", "figure", *(f"{NAMES.get(v, v)}: rung / no limit" for v in versions)]]
    if NO_LIMIT not in document["sizes"]:
        return rows
    for size in document["sizes"]:
        if size == NO_LIMIT:
            continue
        for key in UNLIMITED:
            name = next(name for k, name, _ in FIGURES if k == key)
            rows.append([label(size), name, *(documents.ratio_text(
                celldoc.cell_of(document, v, size=size)["against_no_limit"][key]) for v in versions)])
    return rows


# the figures a heat map shows: what a team sizes pods by, and what each answer costs
HEAT = (("complete_per_s", "closed: answers/s"), ("capacity_per_s", "capacity at p99"), ("open_p99", "p99 at fixed rate"),
        ("cpu_ms_per_complete_background_off", "CPU per answer"))


def heat_map(version):
    """A summary's heat map of one build over v1: a row per rung, a column per HEAT figure, each cell the median of the
    rounds' ratios."""
    def draw(summary):
        return charts.ratio_heat_map(f"{version} / {BASELINE} by CPU per service", [label(r) for r in summary["sizes"]],
                                     [name for _, name in HEAT],
                                     [[(celldoc.ratio(celldoc.cell_of(summary, version, size=r), key) or {}).get("median")
                                       for key, _ in HEAT] for r in summary["sizes"]])
    return draw


def map_consistency(document):
    """Where a CPU map's rounds are not what it says they are: a cell measured in another number of rounds than the
    map (none: a rung it did not reach), rounds of one session whose warm-up settled and did not (a build is warmed
    once per size), a round held back by other than its throttling and the machine's cores give."""
    machine = {"cores": celldoc.cores(document)}
    return [f"{c['build']} at {label(c['size'])}: {len(c['rounds'])} rounds, not {document['rounds']}"
            for c in document["cells"] if len(c["rounds"]) not in (0, document["rounds"])] + \
        [f"{c['build']} at {label(c['size'])}: its rounds of one session say its one warm-up settled and did not"
         for c in document["cells"] if not verdicts.forked(document) and any(
             len({r["settled"] for r in c["rounds"] if r.get("session") == session}) > 1
             for session in {r.get("session") for r in c["rounds"]})] + \
        [f"{c['build']} at {label(c['size'])}, round {r['round']}: held back by other than its throttling gives"
         for c in document["cells"] for r in c["rounds"] if "bound_by" in r and r["bound_by"] != celldoc.bound_by(r, machine)]


# what a doc may show of a CPU map's cell document (the registry's cell Kind)
PUBLISHES = Publishes(
    run_files=("cpu-map.json", "answer.json"),
    tables={"cpu-map": table, "cpu-map-headline": headline_rows, "cpu-map-against-no-limit": against_no_limit_rows,
            "cpu-map-answer": answer_rows, "cpu-map-sentences": sentences, "cpu-map-starts": starts_rows,
            "cpu-map-order": order_rows, "cpu-map-floor": floor_rows, "cpu-map-sessions": sessions_rows,
            "cpu-map-again": again_rows, "cpu-map-balance": balance_rows, "cpu-map-costs": costs_rows,
            "cpu-map-floor-sentences": floor_sentences},
    charts={f"cpu-map-{version}": heat_map(version) for version in ("v2", "v3")},
    consistency={"cpu-map": map_consistency, "answer": map_consistency}, report=write_report)
