"""The comparison over CPU per service (make cpu-map, make cpu-map-cluster): every build at each CPU limit.

Every build with each service under a limit of each size of the ladder, given as a pod gets it (a CPU quota and the processor count the JVM derives from
it; locally a cgroup of its own per service), then warmed, its background measured, and measured in the closed model
in rounds, the builds' order turned round between rounds. Per size: each build's complete answers/s and CPU per
complete answer, its ratio to v1 round by round, and what each JVM saw and chose there (processors, GC, compiler and
pool threads). Writes cpu-map.json (schema SCHEMA), cpu-map.md and cpu-map.html."""
import dataclasses
import json

from benchkit import BASELINE, NAMES, step
from benchkit.core import documents, knobs, results
from benchkit.core.kinds import Kind, document_publisher
from benchkit.core.knobs import knob, numbers
from benchkit.core.protocol import background, closed_round, order, warm_up

SCHEMA = "reactive-bench/cpu-map/1"
# what each round keeps of a build at a size (results.round_figures), and which of them get a ratio to v1
FIGURES = (("complete_per_s", "complete answers/s", "{:.0f}"), ("p50", "latency p50 ms", "{:.1f}"),
           ("p99", "latency p99 ms", "{:.1f}"),
           ("cpu_ms_per_complete_background_off", "CPU ms per complete answer, background off", "{:.3f}"))


@dataclasses.dataclass(frozen=True)
class Spec:
    sizes: tuple = knob("CPU_MAP_SIZES", (0.5, 1.0, 2.0, 0.0), "the ladder: CPUs per service's JVM, each a limit as a "
                        "pod's (0: no limit)", numbers(float))
    iterations: int = knob("CPU_MAP_ITERATIONS", 150, "measured requests per user of each build at each size in each "
                           "round (the closed model's users)")
    warmup: int = knob("CPU_MAP_WARMUP_ITERATIONS", 300, "the first warm-up window's requests per user after each "
                       "build is restarted at a size")


def label(size):
    return f"{size:g} CPU" if size else "no limit"


def run(platform, spec, directory):
    """Every size of the ladder, every build: cpu-map.json, .md and .html."""
    rounds, versions = knobs.value("RUNS"), platform.versions
    runs_dir = directory / "runs"
    runs_dir.mkdir(parents=True, exist_ok=True)
    environment = platform.environment(platform.where, rounds, True)
    document = {"schema": SCHEMA, "commit": environment["git_commit"], "timestamp": environment["timestamp"],
                "where": environment["where"], "environment": environment, "sizes": list(spec.sizes),
                "rounds": rounds, "iterations": spec.iterations, "ergonomics": {}, "cells": {v: [] for v in versions}}
    try:
        for index, size in enumerate(spec.sizes):
            step(f"{label(size)} per service ({index + 1} of {len(spec.sizes)}): {', '.join(versions)}")
            builds = {version: platform.size(version, size or None) for version in versions}
            warmed = {version: warm_up(version, build, runs_dir, spec.warmup) for version, build in builds.items()}
            idle = background(builds)
            # after the warm-up: the threads a JVM starts on demand exist by now
            document["ergonomics"][label(size)] = {version: build.ergonomics() for version, build in builds.items()}
            for round_ in range(1, rounds + 1):
                speed = platform.calibrate()
                for version in order(versions, round_ + index):
                    step(f"{version}: {label(size)}, round {round_}/{rounds}")
                    document["cells"][version].append({"size": size, "round": round_, **closed_round(
                        builds[version], runs_dir, round_, spec.iterations, f"cpu-{size:g}", idle[version], speed,
                        warmed[version])})
            document["ratios"] = ratios(document)
            (directory / "cpu-map.json").write_text(json.dumps(document, indent=2))
    finally:
        for version in versions:
            platform.restore(version)
        platform.close()
    documents.write(directory, "cpu-map", "reactive-bench: the comparison over CPU per service",
                    f"{environment['timestamp']}, commit {environment['git_commit']}, {environment['where']}",
                    [("Each build by CPU per service", EXPLANATION, [("", table(document))]),
                     ("What the kernel counted", results.SCHEDULING_TEXT,
                      [(label(size), results.scheduling_rows(scheduling(document, size))) for size in spec.sizes]),
                     ("What each JVM saw and chose", "", [(size, ergonomics_rows(found))
                                                           for size, found in document["ergonomics"].items()]),
                     ("Environment", "", [("", documents.key_value_rows(environment))])], {})
    step(f"The CPU map: {directory / 'cpu-map.md'} and .html")
    return directory / "cpu-map.json"


EXPLANATION = ("Each build with every service's JVM limited to the size of the row, as a pod's CPU limit is: a CFS "
               "quota, and the processors the JVM counts (the quota rounded up), which size its GC, compiler and "
               "pools; PostgreSQL and Kafka unlimited. Each figure is the median of the rounds with the lowest and "
               "highest; a ratio is the median of the rounds' own ratios to v1 at the same size.")


def ratios(document):
    """{size label: {version: {figure: the per-round ratios to v1}}}."""
    found = {}
    for size in document["sizes"]:
        base = {c["round"]: c for c in document["cells"].get(BASELINE, []) if c["size"] == size}
        found[label(size)] = {version: results.ratios_by_round(
            [(base.get(c["round"]), c) for c in cells if c["size"] == size], [key for key, _, _ in FIGURES])
            for version, cells in document["cells"].items() if version != BASELINE}
    return found


def table(document):
    versions = list(document["cells"])
    rows = [["size", "figure", *(NAMES.get(v, v) for v in versions),
             *(f"{v} / {BASELINE}" for v in versions if v != BASELINE)]]
    for size in document["sizes"]:
        for key, name, fmt in FIGURES:
            cells = [results.Figure.of("", [c[key] for c in document["cells"][v] if c["size"] == size])
                     for v in versions]
            ratio = [document["ratios"][label(size)][v][key] for v in versions if v != BASELINE]
            rows.append([label(size), name, *(documents.interval(dataclasses.asdict(c), fmt) for c in cells),
                         *(documents.ratio_text(r) for r in ratio)])
    return rows


def scheduling(document, size):
    """{version: {process: {figure: Figure as data}}} of the kernel's counts over the rounds at one size."""
    found = {}
    for version, cells in document["cells"].items():
        readings = [c["scheduling"] for c in cells if c["size"] == size and c.get("scheduling")]
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


def consistency(summary):
    return [] if summary["ratios"] == ratios(summary) else ["ratios: not what its rounds give"]


KIND = Kind("cpu-map", SCHEMA, SCHEMA, ("cpu-map.json",), document_publisher(SCHEMA, consistency), consistency, {"cpu-map": table})
