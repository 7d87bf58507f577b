"""Each build at its best (make sweep, make sweep-cluster): its concurrency settings, one at a time.

The few settings that size a build's concurrency, varied one at a time on the local stack or in the cluster's pods, each candidate measured in the
closed model after the same warm-up, the candidates in an order drawn at random (reversed in the repeat after). A setting keeps its current value unless
another one answers clearly more (MARGIN); the next setting is swept from what was chosen. SWEEP_CPUS: every
candidate in a pod's size (platforms.Platform.size: a quota per service, the processors the JVM derives, what the
chart sizes by them), so that a build is tuned at the size the CPU map measures it. Each build
runs as it ships again at the end (platforms.Platform.restore); sweep.json (schema SCHEMA), sweep.md and sweep.html
say what was measured and chosen."""
import dataclasses
import json
import pathlib
import statistics

from benchkit import info, step
from benchkit.core.experiment import Measures, Publishes
from benchkit.core import calibration, design, documents, knobs, latency, sizes
from benchkit.core.kinds import Kind, document_publisher
from benchkit.core.knobs import knob, numbers, results_directory
from benchkit.core.load import Lengths
from benchkit.core.platform import LatencyProxy, counted_processors, sized_environment
from benchkit.core.design import Design
from benchkit.core.tunables import LATENCY_PROXY, LATENCY_SETTINGS, SETTINGS, settings_for


# A candidate replaces the current value only when it answers this much more: on a shared machine
# smaller differences are noise, and the value the build ships with needs no defence.
MARGIN = 0.05
# each candidate a cold start, as an A/B's cells: shorter than a bench's
LENGTHS = Lengths(iterations=150, warmup=300)
# what a candidate's row keeps of its round's figures (core.results.round_figures)
FIGURES = ("complete_per_s", "p50", "p99", "failed_pct", "degraded", "calibration_seconds")
SCHEMA = "reactive-bench/sweep/1"


def choose(measured, current):
    """measured: {value: [complete answers/s, …]}. The value with the highest median, if it beats the
    current value's median by more than MARGIN; else the current value."""
    medians = {value: statistics.median(rates) for value, rates in measured.items() if rates}
    best = max(medians, key=medians.get)
    if current in medians and medians[best] <= medians[current] * (1 + MARGIN):
        return current
    return best


def measured_of(runs, name):
    """{value: [complete answers/s of each repeat]} of one setting's runs, as choose takes them."""
    measured = {}
    for run in runs:
        if run["setting"] == name:
            measured.setdefault(run["value"], []).append(run["complete_per_s"])
    return measured


def sized_at(version, cpus):
    """What a pod of `cpus` CPUs gives the build's services (platforms.sized_environment, at the processors its JVMs
    count there); None without a size."""
    return sized_environment(version, counted_processors(cpus, None, None)) if cpus else None


def candidates(version, setting, chosen, settings, cpus, delay):
    """One setting's candidates as a Design (core.design): a mode per value, the settings chosen so far kept, each
    a cold start of the build at the sweep's size, warmed and measured by the core in the closed model, their order
    drawn at random for each pair of repeats; behind the latency proxy under a delay."""
    values = sorted({*setting.candidates, chosen[setting.name]})
    proxied = (LATENCY_PROXY,) if delay else ()
    return Design(f"sweep-{setting.label}", setting.name, "", (version,),
                  {str(value): {**chosen, setting.name: value, **({LATENCY_PROXY.name: "on"} if delay else {})}
                   for value in values}, sizes=(str(cpus) if cpus else sizes.NO_LIMIT,), settings=(*settings, *proxied),
                  as_deployed=True, lengths=LENGTHS)


def observed_latency(platform, version, delay):
    """The delay set on its hop and checked there, on each of the hop's proxies."""
    platform.latency().set(version, delay)
    observed = [latency.check_hop(delay, via, direct) for via, direct in platform.hop_addresses(version, delay.hop)]
    info(f"{delay.label}: observed " + ", ".join(f"+{c['added_ms']:.1f} ms" for c in observed)
         + ("" if all(c["ok"] for c in observed) else " — NOT the setting"))
    return observed


def sweep_build(version, platform, runs_dir, repeats, commit, settings, delay=None, cpus=None):
    """delay (latency.Setting): every candidate warmed up and measured behind the latency proxy with this latency on
    its hop, checked before each setting's candidates. With it, a candidate's warm-up is the load it is measured
    under: without it, look-ups beyond authors' admission (its edge's requests in flight) are shed while the JVMs
    are cold, and the warm-up never settles. cpus: every candidate in pods of that size; the value shipped is then
    what the build runs with there (v2's event loops per CPU)."""
    sized = sized_at(version, cpus)
    chosen = {s.name: s.current(version, sized) for s in settings}
    shipped = dict(chosen)
    rows = []
    for setting in settings:
        found = candidates(version, setting, chosen, settings, cpus, delay)
        observed = observed_latency(platform, version, delay) if delay else None
        iterations, warmup = found.lengths.resolved()

        def keep(build, variant, figures, setting=setting):
            value = dict(variant.values)[setting.name]
            rows.append({"version": version, "setting": setting.name, "property": setting.property, "value": value,
                         "repeat": figures["round"], "context": {k: v for k, v in chosen.items() if k != setting.name},
                         **{key: figures[key] for key in FIGURES}, **({"latency_observed": observed} if delay else {})})
        for group in found.groups():
            design.measure_group(design.Session(platform, found, runs_dir, keep, iterations, warmup), group, 0, repeats)
        if delay:
            platform.latency().clear(version)
        measured = measured_of(rows, setting.name)
        chosen[setting.name] = choose(measured, chosen[setting.name])
        info(f"{version}: {setting.name} -> {chosen[setting.name]} "
             f"(medians: {', '.join(f'{v}: {statistics.median(r):.0f}/s' for v, r in sorted(measured.items()))})")
    platform.restore(version)
    return {"commit": commit, "cpus": cpus, "shipped": shipped, "chosen": chosen, "runs": rows,
            "properties": {s.name: " and ".join((s.property, *s.also)) for s in settings},
            **({"latency": dataclasses.asdict(delay)} if delay else {})}


def rows_of(result):
    """The sweep table of one build: each candidate's median complete answers/s, p99 and failures."""
    table = [["setting", "value", "complete answers/s (each repeat)", "median", "p99 ms (median)", "failed %",
              "calibration s (each repeat)", "verdict"]]
    by_candidate = {}
    for run in result["runs"]:
        by_candidate.setdefault((run["setting"], run["value"]), []).append(run)
    speeds = {index: run["calibration_seconds"] for index, run in enumerate(result["runs"])
              if "calibration_seconds" in run}
    drifted_runs = {id(result["runs"][index]) for index in calibration.drifted(speeds)}
    settings = list(dict.fromkeys(setting for setting, _ in by_candidate))  # in the order swept
    # each setting's candidates by value, whatever order the rounds drew
    for (setting, value), runs in sorted(by_candidate.items(), key=lambda item: (
            settings.index(item[0][0]), not isinstance(item[0][1], (int, float)), item[0][1])):
        rates = [run["complete_per_s"] for run in runs]
        verdict = []
        if value == result["chosen"][setting]:
            verdict.append("chosen")
        if value == result["shipped"][setting]:
            verdict.append("shipped")
        observed = [check["added_ms"] for run in runs for check in run.get("latency_observed", ())]
        table.append([f"{setting} ({result['properties'][setting]})"
                      + (f", latency observed +{statistics.median(observed):.1f} ms" if observed else ""), str(value),
                      ", ".join(f"{rate:.0f}" for rate in rates), f"{statistics.median(rates):.0f}",
                      f"{statistics.median(run['p99'] for run in runs):.1f}",
                      f"{statistics.median(run['failed_pct'] for run in runs):.2f}",
                      ", ".join(f"{run['calibration_seconds']:.2f}" + (" (drifted)" if id(run) in drifted_runs else "")
                                for run in runs if "calibration_seconds" in run) or "–",
                      " and ".join(verdict)])
    return table


EXPLANATION = ("Each build's few concurrency settings, one at a time: every candidate runs in the same place (the "
               "local stack, or the build's pods under their CPU limits: the environment says where), "
               "after the same warm-up, in the closed model (USERS users, each sending its next request "
               "when the last one answered), the candidates in an order drawn at random (reversed in the repeat after). A setting keeps the "
               f"value the build ships with unless another answers more than {MARGIN:.0%} more complete answers per "
               "second (the median of its repeats); the next setting is swept with the values chosen before it. "
               "\"At its best\" means this: the highest throughput each build reaches on this machine by its own "
               "sizing, nothing else changed. The calibration job (the bench's measure of the machine's speed) runs "
               "right before each repeat of a setting's candidates; \"drifted\" marks a candidate measured while the "
               "machine was more than "
               f"{calibration.DRIFT_LIMIT:.0%} faster or slower than the median: weigh its figure accordingly.")


def verdict(version, result):
    """What the sweep chose, against what the build shipped with when swept and what it ships with now
    (its application.properties, the values a bench run measures)."""
    chosen = result["chosen"]
    commit = f" (swept at commit {result['commit']})" if result.get("commit") else ""
    under = f" under {latency.Setting(**result['latency']).label} per look-up" if result.get("latency") else ""
    under += f" in pods of {result['cpus']:g} CPU" if result.get("cpus") else ""
    text = f"{version}{commit}{under}: chosen {', '.join(f'{name} {value}' for name, value in chosen.items())}"
    moved = [f"{name} {result['shipped'][name]}" for name, value in chosen.items() if value != result["shipped"][name]]
    text += f", instead of {', '.join(moved)} then" if moved else ", what it shipped with then"
    sized = sized_at(version, result.get("cpus"))
    now = {s.name: s.current(version, sized) for group in (SETTINGS, LATENCY_SETTINGS) for s in group.get(version, ())
           if s.name in chosen}
    apart = [f"{result['properties'][name]}={now[name]}" for name, value in chosen.items()
             if name in now and now[name] != value]
    return text + ("; the build now ships other values: " + ", ".join(apart) + "." if apart
                   else "; the build ships these values now.")


def section(sweep):
    """The sweep as one section of another report (the bench's, when the demo is given SWEEP=<its results>)."""
    text = "\n\n".join([EXPLANATION] + [verdict(version, result) for version, result in sweep["builds"].items()])
    return ("Each build at its best", text, [(version, rows_of(result)) for version, result in sweep["builds"].items()])


def render(results, sweep):
    sections = [section(sweep)]
    environment = json.loads((results / "environment.json").read_text())
    sections.append(("Environment", "", [("", documents.key_value_rows(environment))]))
    documents.write(results, "sweep", "reactive-bench: each build at its best",
                    f"{environment.get('timestamp', '')}, commit {environment.get('git_commit', '')}", sections, {})


@dataclasses.dataclass(frozen=True)
class Spec:
    repeats: int = knob("SWEEP_REPEATS", 2, "how many times each candidate value is measured")
    only: tuple | None = knob("SWEEP_ONLY", None, "sweep only these settings (their names, comma-separated), e.g. "
                              "`pipelining limit` for a quick check", numbers(str))
    keep: pathlib.Path | None = knob("SWEEP_KEEP", None, "an earlier sweep's results directory: the builds not swept "
                                     "now keep their results from it", results_directory("sweep.json"))
    latency_authors_ms: float | None = knob("SWEEP_LATENCY_AUTHORS_MS", None, "sweep what latency makes matter: every "
                                            "candidate behind the latency proxy with this latency per author look-up "
                                            "(± `LATENCY_JITTER` of it)")
    cpus: float | None = knob("SWEEP_CPUS", None, "sweep every build at a pod's size: each service under a limit of "
                              "so many CPUs, as the CPU map gives it (a quota, the processors the JVM derives, what the "
                              "chart sizes by them); none: as the build runs", float)


def run(platform, spec, directory):
    """Each build's settings swept in turn; sweep.json, sweep.md and sweep.html."""
    versions = platform.versions
    runs_dir = directory / "runs"
    runs_dir.mkdir(parents=True, exist_ok=True)
    environment = platform.environment(platform.where, spec.repeats, True)
    # A setting the JVM or Quarkus derives from the cores is swept around what the services count there.
    cores = counted_processors(spec.cpus, None, platform.cores(versions[0]))
    environment["cores_seen_by_the_services"] = cores
    environment["cpus_per_service"] = spec.cpus
    settings = settings_for(cores)
    delay = None
    if spec.latency_authors_ms is not None:
        if platform.latency() is None:
            raise SystemExit(f"{platform.where}: no latency proxy to sweep behind (the local stack starts one: make toxiproxy)")
        delay = latency.Setting("authors", spec.latency_authors_ms, round(spec.latency_authors_ms * knobs.value("LATENCY_JITTER")))
        settings = LATENCY_SETTINGS
        environment["latency"] = dataclasses.asdict(delay)
    (directory / "environment.json").write_text(json.dumps(environment, indent=2))
    if spec.only:
        settings = {version: tuple(s for s in found if s.name in spec.only) for version, found in settings.items()}
    sweep = {"schema": SCHEMA, "cpus": spec.cpus, "builds": {}}
    if spec.keep:
        kept = json.loads((spec.keep / "sweep.json").read_text())
        if kept.get("cpus") != spec.cpus:
            raise SystemExit(f"{spec.keep}: swept at {kept.get('cpus') or 'no'} CPU per service, not "
                             f"{spec.cpus or 'no'} CPU (SWEEP_CPUS): its builds cannot join this sweep")
        sweep["builds"] = {version: result for version, result in kept["builds"].items() if version not in versions}
    try:
        for version in versions:
            sweep["builds"][version] = sweep_build(version, platform, runs_dir, spec.repeats,
                                                   environment.get("git_commit", ""), settings[version], delay,
                                                   spec.cpus)
            (directory / "sweep.json").write_text(json.dumps(sweep, indent=2))
    finally:
        platform.close()
    render(directory, sweep)
    step(f"Sweep: {directory / 'sweep.md'} and {directory / 'sweep.html'}")
    return directory / "sweep.json"


def consistency(summary):
    """Where a build's choices are not what its runs give: each setting in the order it was swept, from the value
    shipped, by choose."""
    problems = []
    for version, result in summary["builds"].items():
        chosen = dict(result["shipped"])
        for name in result["properties"]:
            measured = measured_of(result["runs"], name)
            if measured:
                chosen[name] = choose(measured, chosen[name])
        if chosen != result["chosen"]:
            problems.append(f"{version}: chosen {result['chosen']}, its runs give {chosen}")
    return problems


def choices_rows(summary):
    """Every build's sweep table, a column for the build in front."""
    rows = []
    for version, result in summary["builds"].items():
        header, *body = rows_of(result)
        rows = rows or [["build", *header]]
        rows += [[version, *row] for row in body]
    return rows


# under latency (SWEEP_LATENCY_AUTHORS_MS) its builds go through the latency proxy
MEASURES = Measures(Spec, run, needs=(LatencyProxy,), lengths=LENGTHS)
PUBLISHES = Publishes(kind=Kind("sweep", SCHEMA, SCHEMA, ("sweep.json",), document_publisher(SCHEMA, consistency),
                                consistency, {"sweep-choices": choices_rows}))
