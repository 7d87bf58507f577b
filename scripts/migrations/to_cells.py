"""One-off (issue 60): the summaries of the A/Bs (reactive-bench/ab/1), of the CPU maps (reactive-bench/cpu-map/2), of
the latency map (reactive-bench/latency-map/1) and of the bench (reactive-bench/summary/1) as cell documents (core.cells), and every marker of README.md and docs/*.md that named a figure of one by its old
path, named by its cell. Refuses to write unless each figure a marker names is the same at its new path.

    cd scripts && ../.tools/benchkit/bin/python -m migrations.to_cells"""
import json
import re

from benchkit import ROOT, figures, registry
from benchkit import BASELINE
from benchkit.core import cells, results, sizes
from benchkit.core.kinds import SUMMARIES
from benchkit.experiments.bench import summaries

OLD = "reactive-bench/ab/1"
OLD_MAP = "reactive-bench/cpu-map/2"
OLD_LATENCY = "reactive-bench/latency-map/1"
OLD_BENCH = "reactive-bench/summary/1"


def size_of(key, build):
    """The size an old document's build key names ("v3 at 0.5 CPU"), else its rounds' own, else none."""
    sized = [r.get("size") for rounds in build["rounds"].values() for r in rounds if r.get("size")]
    if sized:
        return sized[0]
    found = re.fullmatch(r"\S+ at ([\d.]+) CPU", key)
    return f"{float(found.group(1)):g}" if found else sizes.NO_LIMIT


def migrated(old):
    return {OLD: migrated_ab, OLD_MAP: migrated_map, OLD_LATENCY: migrated_latency,
            OLD_BENCH: migrated_bench}[old["schema"]](old)


def migrated_bench(old):
    """A bench's summary of one session: a cell per build and scenario, its rounds the runs' figures (a summary
    combined of several sessions is pooled again from theirs: main)."""
    head = {k: old[k] for k in ("name", "commit", "timestamp", "where", "on_kubernetes", "versions", "settled",
                                "equal_work", "load_settings", "open_rate", "curve")}
    return document_of(head, old["scenarios"])


# What a round of a cell keeps of an old bench's figures, by the cell document's names: its answers, and its CPU per
# request of each process (per complete answer for the whole system too).
FIGURES = {"ok_rps": "complete_per_s", "p50": "p50", "p99": "p99", "error_pct": "failed_pct",
           "degraded": "degraded", "shed": "shed"}
CPU = {results.WHOLE: "cpu_ms", results.PER_COMPLETE: "cpu_ms_per_complete",
       results.BACKGROUND_OFF: "cpu_ms_background_off", results.GENERATOR: "generator_cpu_ms",
       **{process: f"{process}_cpu_ms" for process in results.PROCESSES}}


def cell_rounds(build, rounds):
    """A build's rounds of one scenario in an old bench's document as a cell's rounds: the figures of each, the
    machine's speed before it and how far that drifted."""
    figures = [(new, build[kind][old]["rounds"]) for kind, names in (("figures", FIGURES), ("cpu_ms", CPU))
               for old, new in names.items() if old in build[kind]]
    rounds = rounds + [{"number": n, "calibration_seconds": None, "drift": None}  # runs measured without a speed
                       for n in range(len(rounds) + 1, build["runs"] + 1)]
    return [{"round": r["number"], "calibration_seconds": r["calibration_seconds"], "drift": r["drift"],
             **{new: values[index] for new, values in figures}} for index, r in enumerate(rounds[:build["runs"]])]


def document_of(head, scenarios):
    """The cell document of an old bench's scenarios ({scenario: {"builds": {version: {runs, figures, cpu_ms}},
    "rounds"}}), under what the run says of itself (head)."""
    summary = {"schema": cells.SCHEMA, "name": head.pop("name"), "design": summaries.DESIGN, "title": summaries.TITLE,
               **head, "compared": cells.BUILD, "reference": BASELINE, "modes": list(scenarios),
               "sizes": [sizes.NO_LIMIT],
               "rounds": max(b["runs"] for s in scenarios.values() for b in s["builds"].values()),
               "cells": [{"build": v, "mode": mode, "size": sizes.NO_LIMIT,
                          "rounds": cell_rounds(build, scenario["rounds"])}
                         for mode, scenario in scenarios.items() for v, build in scenario["builds"].items()]}
    summary["cells"] = cells.with_ratios(summary)
    return summary


def new_bench_path(old, path):
    """A marker's path into an old bench summary, as a path into its cell document."""
    keys = path.split(".")
    if keys[0] == "runs":
        return ".".join(["sessions", *keys[1:]])
    if keys[0] != "scenarios":
        return path
    mode, part, build, rest = keys[1], keys[2], keys[3], keys[4:]
    where = f"cells.[build={build},mode={mode}]"
    if part == "ratios":
        return ".".join([where, "ratios", FIGURES[rest[0]], *rest[1:]])
    if rest == ["runs"]:
        return "rounds"
    names = FIGURES if rest[0] == "figures" else CPU
    assert rest[2] == "median", path
    return ".".join([where, "medians", names[rest[1]]])


def latency_mode(old, row, load):
    """The mode of an old latency map's cell at a row and load, as latencymap.mode_name names it."""
    row, load = old["rows"][row], old["loads"][load]
    return f"{row['hop']} +{row['ms']:g} ms · {load['model']} {load['value']}"


def migrated_latency(old):
    """A latency map: each build at each row and load a cell of its repeats (rounds), in the order measured; its
    grid, checks and predictions kept; compared along the builds."""
    grid = {latency_mode(old, r, l): [r, l] for r in range(len(old["rows"])) for l in range(len(old["loads"]))}
    found = []
    for mode, (r, l) in grid.items():
        for build, cells_ in old["cells"].items():
            mine = sorted((c for c in cells_ if (c["row"], c["load"]) == (r, l)), key=lambda c: c["repeat"])
            found.append({"build": build, "mode": mode, "size": sizes.NO_LIMIT, "rounds": [
                {"size": sizes.NO_LIMIT, "round": c["repeat"], "settled": old["settled"][build],
                 **{k: v for k, v in c.items() if k not in ("row", "load", "repeat")}} for c in mine]})
    kept = {k: v for k, v in old.items() if k not in ("schema", "cells", "repeats", "settled", "name", "ratios")}
    document = {"name": old["name"], "schema": cells.SCHEMA, "design": "latency-map",
                "title": "When the services wait", "duration": old["duration"], "rows": old["rows"],
                "loads": old["loads"], "grid": grid, **kept, "compared": cells.BUILD, "reference": "v1",
                "modes": list(grid), "sizes": [sizes.NO_LIMIT], "rounds": old["repeats"], "cells": found,
                "ratios": old["ratios"]}
    document["cells"] = cells.with_ratios(document)
    return document


def new_latency_path(old, path):
    """A marker's path into an old latency map, as a path into its cell document."""
    keys = path.split(".")
    if keys[0] == "repeats":
        return "rounds"
    if keys[0] == "cells":
        cell = old["cells"][keys[1]][int(keys[2])]
        mode = latency_mode(old, cell["row"], cell["load"]).replace(" ", "_")
        same = sorted((c for c in old["cells"][keys[1]] if (c["row"], c["load"]) == (cell["row"], cell["load"])),
                      key=lambda c: c["repeat"])
        return ".".join([f"cells.[build={keys[1]},mode={mode}]", "rounds", str(same.index(cell)), *keys[3:]])
    return path


def migrated_map(old):
    """A CPU map: each build at each size a cell of its rounds, in round order; compared along the builds."""
    versions = list(old["cells"])
    found = [{"build": v, "mode": "", "size": size,
              "rounds": sorted((c for c in old["cells"][v] if c["size"] == size), key=lambda c: c["round"])}
             for size in old["sizes"] for v in versions]
    kept = {k: v for k, v in old.items() if k not in ("schema", "cells", "ratios", "against_no_limit", "rungs", "name")}
    document = {"name": old["name"], "schema": cells.SCHEMA, "design": "cpu-map",
                "title": "The comparison over CPU per service", **kept, "compared": cells.BUILD,
                "reference": "v1", "modes": [""], "cells": found}
    document["cells"] = cells.with_ratios(document)
    return document


def new_map_path(old, path):
    """A marker's path into an old CPU map, as a path into its cell document."""
    keys = path.split(".")
    if keys[0] == "rungs":
        size, part, build, rest = old["sizes"][int(keys[1])], keys[2], keys[3], keys[4:]
        rest = rest if part == "medians" else [*rest, "median"]
        return ".".join([f"cells.[build={build},size={size}]", part, *rest])
    if keys[0] == "cells":
        cell = old["cells"][keys[1]][int(keys[2])]
        same = sorted((c for c in old["cells"][keys[1]] if c["size"] == cell["size"]), key=lambda c: c["round"])
        return ".".join([f"cells.[build={keys[1]},size={cell['size']}]", "rounds", str(same.index(cell)), *keys[3:]])
    return path


def migrated_ab(old):
    a, b = old["modes"]
    found = []
    for key, build in old["builds"].items():
        name, size = key.split(" ")[0], size_of(key, build)
        found += [{"build": name, "mode": mode, "size": size, "rounds": build["rounds"][mode]} for mode in (a, b)]
    kept = {k: v for k, v in old.items() if k not in ("schema", "experiment", "modes", "builds")}
    document = {"name": old["name"], "schema": cells.SCHEMA, "design": old["experiment"], **kept,
                "compared": cells.MODE, "reference": a, "modes": [a, b],
                "sizes": list(dict.fromkeys(c["size"] for c in found)),
                "rounds": len(next(iter(old["builds"].values()))["rounds"][a]), "cells": found}
    document["cells"] = cells.with_ratios(document)
    return document


def old_at(summary, path):
    """The value at a path as the old figures.at read it: a number indexes a list, or a mapping in its order."""
    value = summary
    for key in path.split("."):
        if isinstance(value, list):
            value = value[int(key)]
        elif key not in value and key.isdigit():
            value = list(value.values())[int(key)]
        else:
            value = value[key]
    return value


def new_path(old, path):
    """A marker's path into an old summary, as a path into its cell document."""
    if old["schema"] == OLD_MAP:
        return new_map_path(old, path)
    if old["schema"] == OLD_LATENCY:
        return new_latency_path(old, path)
    if old["schema"] == OLD_BENCH:
        return new_bench_path(old, path)
    keys = path.split(".")
    if keys[0] != "builds":
        return path
    name = keys[1] if not keys[1].isdigit() else list(old["builds"])[int(keys[1])]
    build, size = name.split(" ")[0], size_of(name, old["builds"][name])
    a, b = old["modes"]
    if keys[2] == "ratios":
        mode, rest = b, keys[2:]
    else:  # rounds.<mode, or its position>.<n>.<figure>
        mode = old["modes"][int(keys[3])] if keys[3].isdigit() and keys[3] not in old["modes"] else keys[3]
        rest = ["rounds", *keys[4:]]
    where = f"build={build},mode={mode.replace(' ', '_')}" + (f",size={size}" if size != sizes.NO_LIMIT else "")
    return ".".join([f"cells.[{where}]", *rest])


def main():
    """Every old A/B summary migrated and every marker renamed, once each figure a marker names is the same value at
    its new path as at its old one. The tables are left as the old code rendered them: make test-docs renders them
    again from the migrated summaries and fails where one is not the same."""
    olds = {p.stem: json.loads(p.read_text()) for p in sorted(SUMMARIES.glob("*.json"))}
    olds = {name: data for name, data in olds.items() if data.get("schema") in (OLD, OLD_MAP, OLD_LATENCY, OLD_BENCH)}
    news = {name: migrated(old) for name, old in olds.items() if "runs" not in old}
    news |= {name: registry.pooled({run["name"]: news[run["name"]] for run in old["runs"]}, name)
             for name, old in olds.items() if "runs" in old}
    marker = re.compile(r"<!-- figure (\S+) (\S+) ")
    moved = []

    def renamed(match):
        name, path = match.group(1), match.group(2)
        if name not in olds:
            return match.group(0)
        path_now = new_path(olds[name], path)
        if old_at(olds[name], path) != figures.at(news[name], path_now):
            raise SystemExit(f"{name} {path}: {old_at(olds[name], path)} there, "
                             f"{figures.at(news[name], path_now)} at {path_now}")
        moved.append(path_now)
        return f"<!-- figure {name} {path_now} "

    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    texts = {page: marker.sub(renamed, page.read_text()) for page in pages}
    for name, new in news.items():
        (SUMMARIES / f"{name}.json").write_text(json.dumps(new, indent=2) + "\n")
    for page, text in texts.items():
        page.write_text(text)
    print(f"{len(news)} summaries migrated; {len(moved)} markers renamed, each the same figure")


if __name__ == "__main__":
    main()
