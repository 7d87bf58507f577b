"""A bench run's results as data (results.json, schema SCHEMA): every figure with its unit, its rounds and the
interval they span; the ratios to v1 as the median of the per-round ratios over every round, the rounds where the
machine's speed drifted named beside as a sensitivity line (never silently dropped); equal work, the warm-up's
settling, the curve's knees. report.py renders Markdown and HTML from this file only, and tests read its fields.

    python -m benchkit results RESULTS     writes RESULTS/results.json from RESULTS/runs and environment.json
    python -m benchkit results --resummarize RESULTS
                                           first computes every run's figures again from its kept samples (runs/*.csv),
                                           by today's definitions (after a change to samples.summarize)"""
import argparse
import dataclasses
import json
import pathlib
import statistics
import sys

from benchkit import BASELINE
from benchkit.core import calibration, curve, samples, sql
from benchkit.core.results import (HEADLINE, METRICS, SCHEDULING, THREADS, Figure, per_request_cpu, read_runs,
                                   scheduling_per_complete)
from benchkit.core.stats import max_or_none
from benchkit.experiments.bench import work

SCHEMA = "reactive-bench/results/1"


@dataclasses.dataclass
class Ratio:
    """A build's figure over v1's: the median of the per-round ratios over every round, their lowest and highest,
    and the same median without the rounds where the machine drifted (a sensitivity line)."""
    figure: str
    median: float | None
    low: float | None
    high: float | None
    rounds: list  # per round (round number, ratio or None)
    drifted_rounds: list
    median_without_drifted: float | None

    @classmethod
    def of(cls, figure, per_round, drifted):
        """From (round number, ratio or None) per round and the numbers of the rounds that drifted."""
        measured = [r for _, r in per_round if r is not None]
        kept = [r for number, r in per_round if r is not None and number not in drifted]
        return cls(figure=figure, median=statistics.median(measured) if measured else None,
                   low=min(measured, default=None), high=max(measured, default=None), rounds=per_round,
                   drifted_rounds=sorted(drifted), median_without_drifted=statistics.median(kept) if kept else None)


@dataclasses.dataclass
class BuildResult:
    version: str
    target: str
    runs: int
    figures: dict  # metric -> Figure
    cpu_ms: dict  # process (or WHOLE, PER_COMPLETE, BACKGROUND_OFF, GENERATOR) -> Figure, per target request
    memory_mib: dict  # service -> {figure named for what it is: the highest of the runs, MiB}
    idle_cpu_s: Figure
    node_cpu_s: Figure
    system_cpu_s: Figure
    jvm: dict  # service -> {jit_seconds, jit_cpu_seconds, gc_seconds, gc_cpu_seconds: Figure}
    throttling: dict  # container -> {throttled, periods, throttled_seconds: Figure}
    scheduling: dict  # process -> {figure of SCHEDULING (per complete answer) and THREADS: Figure}
    restarts: list  # "container: N x (reason)"
    on_kubernetes: bool
    totals: dict  # what the equal-work check counts over the runs


@dataclasses.dataclass
class Round:
    number: int
    order: list  # the builds in the order they ran
    calibration_seconds: float
    drift: float | None  # relative distance from the median calibration, where beyond calibration.DRIFT_LIMIT
    complete_per_s: dict  # version -> complete answers/s
    p50_ms: dict  # version -> latency p50 of complete answers


@dataclasses.dataclass
class Scenario:
    name: str
    builds: dict  # version -> BuildResult
    ratios: dict  # version -> {metric: Ratio}
    rounds: list  # [Round], where the runs carry their calibration


@dataclasses.dataclass
class CurveStep:
    offered: int
    version: str
    repeats: list  # per repeat: {complete, p50, p99, dropped, requests, carried}
    carried: bool  # in every repeat


@dataclasses.dataclass
class Results:
    schema: str
    commit: str
    timestamp: str
    where: str
    on_kubernetes: bool
    versions: list
    settled: dict  # version -> whether its warm-up settled (None: no warm-up)
    scenarios: dict  # name -> Scenario
    curve: dict  # {"steps": [CurveStep], "knees": {version: offered rate or None}}
    equal_work: dict  # {"passed": bool, "scenarios": {scenario: {version: totals}}}
    sql: dict  # {version: [{database, statement, calls_per_request}]} where pg_stat_statements was read
    environment: dict
    placement: dict = dataclasses.field(default_factory=dict)  # placement(): where the pods ran, in a cluster


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


def nested(runs, key, figures):
    """{name: {figure: Figure}} of one per-process counter of the runs (jvm: JIT and GC seconds; throttling: CFS
    periods), only the names every run measured."""
    found = {}
    for name in (runs[0].get(key) or {}):
        values = [(run.get(key) or {}).get(name) for run in runs]
        if all(values):
            found[name] = {figure: Figure.of("s" if "seconds" in figure else "count", [v.get(figure) for v in values])
                           for figure in figures}
    return found


def build_result(version, mine):
    mine = sorted(mine, key=lambda run: run["run"])
    cpu = [per_request_cpu(run) for run in mine]
    memory = {service: {label: max_or_none(run["memory_mib"][service][label] for run in mine) for label in figures}
              for service, figures in (mine[0].get("memory_mib") or {}).items()}
    return BuildResult(
        version=version, target=mine[0].get("target", "web-api"), runs=len(mine),
        figures={key: Figure.of(unit, [run["metrics"].get(key) for run in mine]) for key, unit in METRICS.items()
                 if key in mine[0]["metrics"]},
        cpu_ms={process: Figure.of("CPU ms per request", [c.get(process) for c in cpu]) for process in cpu[0]},
        memory_mib=memory,
        idle_cpu_s=Figure.of("CPU s", [run.get("idle_cpu_seconds") for run in mine]),
        node_cpu_s=Figure.of("CPU s", [sum(run["node_cpu_seconds"].values()) if run.get("node_cpu_seconds") else None
                                       for run in mine]),
        system_cpu_s=Figure.of("CPU s", [sum(run["cpu_seconds"].values()) for run in mine]),
        jvm=nested(mine, "jvm", ("jit_seconds", "jit_cpu_seconds", "gc_seconds", "gc_cpu_seconds")),
        throttling=nested(mine, "throttling", ("throttled", "periods", "throttled_seconds")),
        scheduling=nested([{"scheduling": scheduling_per_complete(run)} for run in mine], "scheduling",
                          [key for key, _ in SCHEDULING + THREADS]),
        restarts=[f"{container}: {r['restarts']}x ({r['last_reason'] or 'unknown reason'})"
                  for run in mine for container, r in (run.get("restarts") or {}).items()],
        on_kubernetes=mine[0].get("restarts") is not None,
        totals=totals(mine))


def rounds_of(mine):
    """The scenario's rounds, where its runs carry the machine's speed measured before each."""
    by_round = {}
    for run in mine:
        if "calibration_seconds" in run:
            by_round.setdefault(run["run"], {})[run["version"]] = run
    speed = {r: next(iter(builds.values()))["calibration_seconds"] for r, builds in by_round.items()}
    moved = calibration.drifted(speed)
    return [Round(number=r, order=[v for v, _ in sorted(builds.items(), key=lambda item: item[1].get("position", 0))],
                  calibration_seconds=speed[r], drift=moved.get(r),
                  complete_per_s={v: run["metrics"]["ok_rps"] for v, run in builds.items()},
                  p50_ms={v: run["metrics"]["p50"] for v, run in builds.items()})
            for r, builds in sorted(by_round.items())]


def ratio_of(metric, base_runs, runs, drifted):
    """version / v1 of one metric, round by round (the rounds both measured)."""
    base = {run["run"]: run["metrics"].get(metric) for run in base_runs}
    per_round = []
    for run in sorted(runs, key=lambda r: r["run"]):
        value, reference = run["metrics"].get(metric), base.get(run["run"])
        per_round.append((run["run"], value / reference if reference and value is not None else None))
    return Ratio.of(metric, per_round, drifted)


def scenario_result(name, runs):
    mine = [run for run in runs if run["scenario"] == name]
    versions = sorted({run["version"] for run in mine})
    by_version = {v: [run for run in mine if run["version"] == v] for v in versions}
    rounds = rounds_of(mine)
    drifted = {r.number for r in rounds if r.drift is not None}
    ratios = {}
    if BASELINE in by_version:
        ratios = {v: {metric: ratio_of(metric, by_version[BASELINE], by_version[v], drifted)
                      for metric in (HEADLINE, "p50", "p99")}
                  for v in versions if v != BASELINE}
    return Scenario(name=name, builds={v: build_result(v, by_version[v]) for v in versions}, ratios=ratios,
                    rounds=rounds)


def curve_result(runs):
    """Each step of the curve per build, over its repeats; a step is carried only when every repeat carried it,
    and a build's knee is the highest rate below the first step it did not carry."""
    steps = {}
    for run in runs:
        rate = curve.rate_of(run["scenario"])
        if rate:
            steps.setdefault((rate, run["version"]), []).append(run)
    found = []
    for (rate, version), mine in sorted(steps.items()):
        repeats = []
        for run in sorted(mine, key=lambda r: r["run"]):
            m = run["metrics"]
            point = {"complete": m["ok_rps"], "p50": m["p50"], "p99": m["p99"], "dropped": m["dropped"],
                     "requests": m["requests"]}
            repeats.append({**point, "carried": curve.carried(rate, point)})
        found.append(CurveStep(offered=rate, version=version, repeats=repeats,
                               carried=all(r["carried"] for r in repeats)))
    knees = {version: curve.knee({s.offered: s.repeats for s in found if s.version == version})
             for version in sorted({step.version for step in found})}
    return {"steps": found, "knees": knees, "repeats": min((len(s.repeats) for s in found), default=0)}


def compute(directory):
    """Results of a bench run's folder (its runs/ and environment.json)."""
    runs = read_runs(directory)
    environment = json.loads((directory / "environment.json").read_text())
    names = [name for name in dict.fromkeys(run["scenario"] for run in runs) if not curve.rate_of(name)]
    scenarios = {name: scenario_result(name, runs) for name in names}
    judged = {name: {v: b.totals for v, b in s.builds.items()} for name, s in scenarios.items()}
    steps = [run for run in runs if curve.rate_of(run["scenario"])]
    if steps:  # equal work is judged over all the curve's steps at once
        judged["curve (all steps)"] = {v: totals([run for run in steps if run["version"] == v])
                                       for v in sorted({run["version"] for run in steps})}
    warmups = {v: w for v, w in (environment.get("warmup") or {}).items() if isinstance(w, dict)}
    versions = sorted({run["version"] for run in runs})
    return Results(
        schema=SCHEMA, commit=environment.get("git_commit", ""), timestamp=environment.get("timestamp", ""),
        where=environment.get("where", ""),
        on_kubernetes=any(b.on_kubernetes for s in scenarios.values() for b in s.builds.values()),
        versions=versions, settled={v: (warmups[v]["settled"] if v in warmups else None) for v in versions},
        scenarios=scenarios, curve=curve_result(runs),
        equal_work={"passed": work.rows(judged)[1], "scenarios": judged},
        sql=sql.as_data(sql.per_request(runs)), environment=environment, placement=placement(runs))


def placement(runs):
    """{version: {"build": {node: [its pods]}, "load": {node: how many of the build's load pods ran there}}} over a
    cluster's runs ({} where no scheduler placed anything): what shared a node with what."""
    found = {}
    for run in runs:
        build = found.setdefault(run["version"], {"build": {}, "load": {}})
        for pod, node in (run.get("nodes") or {}).items():
            pods = build["build"].setdefault(node, [])
            pods += [] if pod in pods else [pod]
        for pod in run.get("load_pods") or []:
            if pod.get("node"):
                build["load"][pod["node"]] = build["load"].get(pod["node"], 0) + 1
    return {version: where for version, where in found.items() if where["build"] or where["load"]}


def placement_rows(found):
    """Per build and node: its pods there, and how many of its load pods ran there."""
    rows = [["build", "node", "the build's pods", "its load pods (runs)"]]
    for version, where in found.items():
        for node in sorted({*where["build"], *where["load"]}):
            rows.append([version, node, ", ".join(sorted(where["build"].get(node, []))) or "–",
                         str(where["load"].get(node, 0))])
    return rows


def write(directory):
    """Computes and writes directory/results.json; returns it as the plain data a renderer reads."""
    data = dataclasses.asdict(compute(directory))
    (directory / "results.json").write_text(json.dumps(data, indent=2))
    return data


def read(path):
    """A results.json, refused when it is not this schema."""
    data = json.loads(pathlib.Path(path).read_text())
    if data.get("schema") != SCHEMA:
        raise SystemExit(f"{path}: schema {data.get('schema')!r}, not {SCHEMA}")
    return data


def resummarize(directory):
    """Every run's summary figures computed again from its samples (runs/NAME.csv beside runs/NAME.json); returns how
    many. A run without its samples is refused: its figures could not be what the others' are."""
    count = 0
    for summary_file in sorted((directory / "runs").glob("*.json")):
        if summary_file.name.endswith(".cost.json"):
            continue
        kept = summary_file.with_suffix(".csv")
        if not kept.exists():
            sys.exit(f"{summary_file}: no samples beside it ({kept.name}): its figures cannot be computed again")
        summary = json.loads(summary_file.read_text())
        summary["figures"] = samples.summarize(samples.read(kept))
        summary["thresholds_crossed"] = samples.crossed(summary["figures"], summary.get("scenario"))
        summary_file.write_text(json.dumps(summary, indent=2))
        count += 1
    return count


def main(argv=None):
    parser = argparse.ArgumentParser(prog="benchkit results", description=__doc__.splitlines()[0])
    parser.add_argument("results", type=pathlib.Path)
    parser.add_argument("--resummarize", action="store_true",
                        help="compute every run's figures again from its kept samples first")
    args = parser.parse_args(argv)
    if args.resummarize:
        print(f"{resummarize(args.results)} runs summarized again from their samples")
    write(args.results)
    print(f"Results: {args.results / 'results.json'}")
