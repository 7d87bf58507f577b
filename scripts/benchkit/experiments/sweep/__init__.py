"""Each build at its best (make sweep, make sweep-cluster): its concurrency settings, one at a time.

The few settings that size a build's concurrency, varied one at a time on the local stack or in the cluster's pods, each candidate measured in the
closed model after the same warm-up, the candidates in an order drawn at random (reversed in the repeat after). A setting keeps its current value unless
another one answers clearly more (schemas.sweep.MARGIN); the next setting is swept from what was chosen. SWEEP_CPUS: every
candidate in a pod's size (platforms.Platform.size: a quota per service, the processors the JVM derives, what the
chart sizes by them), so that a build is tuned at the size the CPU map measures it. Each build
runs as it ships again at the end (platforms.Platform.restore); sweep.json, a cell document (schemas.sweep), says what
was measured and chosen (its report: publish.sweep)."""
import dataclasses
import json
import pathlib
import statistics
import types

from benchkit import info
from benchkit.core.experiment import Measures
from benchkit.core import cells, delays, design, knobs, latency, sizes
from benchkit.core.knobs import knob, numbers, results_directory
from benchkit.core.load import Lengths
from benchkit.core.plugins import LatencyProxy
from benchkit.core.sizes import counted_processors, sized_at
from benchkit.core.design import Design
from benchkit.core.tunables import LATENCY_PROXY, LATENCY_SETTINGS, settings_for
from benchkit.schemas.sweep import DESIGN, FILE, choose, measured_of

# each candidate a cold start, as an A/B's cells: shorter than a bench's
LENGTHS = Lengths(iterations=150, warmup=300)
# what a candidate's cell keeps of its rounds' figures (core.results.round_figures)
FIGURES = ("round", "complete_per_s", "p50", "p99", "failed_pct", "degraded", "calibration_seconds")
TITLE = "Each build at its best: its concurrency settings, one at a time"


def candidates(version, setting, chosen, settings, cpus, delay, repeats):
    """One setting's candidates as a Design (core.design): a mode per value, the settings chosen so far kept, each
    a cold start of the build at the sweep's size, warmed and measured by the core in the closed model, their order
    drawn at random for each pair of repeats; behind the latency proxy under a delay."""
    values = sorted({*setting.candidates, chosen[setting.name]})
    proxied = (LATENCY_PROXY,) if delay else ()
    return Design(f"sweep-{version}-{setting.label}", setting.name, "", (version,),
                  {str(value): {**chosen, setting.name: value, **({LATENCY_PROXY.name: "on"} if delay else {})}
                   for value in values}, sizes=(str(cpus) if cpus else sizes.NO_LIMIT,), settings=(*settings, *proxied),
                  as_deployed=True, lengths=LENGTHS, rounds=repeats)


def observed_latency(platform, version, delay):
    """The delay set on its hop and checked there, on each of the hop's proxies."""
    proxy = platform.plugin(LatencyProxy)
    proxy.latency().set(version, delay)
    observed = [latency.check_hop(delay, via, direct) for via, direct in proxy.hop_addresses(version, delay.hop)]
    info(f"{delay.label}: observed " + ", ".join(f"+{c['added_ms']:.1f} ms" for c in observed)
         + ("" if all(c["ok"] for c in observed) else " — NOT the setting"))
    return observed


def sweep_build(version, platform, directory, repeats, commit, settings, delay=None, cpus=None):
    """(what the build shipped, chose and sets: its entry of the document's "builds", its candidates' cells). delay
    (delays.Setting): every candidate warmed up and measured behind the latency proxy with this latency on its hop,
    checked before each setting's candidates. With it, a candidate's warm-up is the load it is measured under: without
    it, look-ups beyond authors' admission (its edge's requests in flight) are shed while the JVMs are cold, and the
    warm-up never settles. cpus: every candidate in pods of that size; the value shipped is then what the build runs
    with there (v2's event loops per CPU)."""
    sized = sized_at(version, cpus)
    chosen = {s.name: s.current(version, sized) for s in settings}
    shipped = dict(chosen)
    found = []
    for setting in settings:
        swept = candidates(version, setting, chosen, settings, cpus, delay, repeats)
        observed = observed_latency(platform, version, delay) if delay else None
        # the candidates' own cell document (sweep-<build>-<setting>.json), the build left as the sweep runs it
        document = design.run(platform, swept, directory, {"context": dict(chosen)}, leave=False)
        for cell in document["cells"]:
            value = dict(swept.modes[cell["mode"]])[setting.name]
            found.append({"build": version, "mode": f"{setting.name} {value}", "size": cell["size"],
                          "setting": setting.name, "property": setting.property, "value": value,
                          "context": {k: v for k, v in chosen.items() if k != setting.name},
                          **({"latency_observed": observed} if delay else {}),
                          "rounds": [{key: figures[key] for key in FIGURES} for figures in cell["rounds"]]})
        if delay:
            platform.plugin(LatencyProxy).latency().clear(version)
        measured = measured_of({"cells": found}, version, setting.name)
        chosen[setting.name] = choose(measured, chosen[setting.name])
        info(f"{version}: {setting.name} -> {chosen[setting.name]} "
             f"(medians: {', '.join(f'{v}: {statistics.median(r):.0f}/s' for v, r in sorted(measured.items()))})")
    platform.restore(version)
    return {"commit": commit, "cpus": cpus, "shipped": shipped, "chosen": chosen,
            "properties": {s.name: " and ".join((s.property, *s.also)) for s in settings},
            **({"latency": dataclasses.asdict(delay)} if delay else {})}, found


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
    """Each build's settings swept in turn: sweep.json."""
    versions = platform.versions
    directory.mkdir(parents=True, exist_ok=True)
    environment = platform.environment(platform.where, spec.repeats, True)
    # A setting the JVM or Quarkus derives from the cores is swept around what the services count there.
    cores = counted_processors(spec.cpus, None, platform.cores(versions[0]))
    environment["cores_seen_by_the_services"] = cores
    environment["cpus_per_service"] = spec.cpus
    settings = settings_for(cores)
    delay = None
    if spec.latency_authors_ms is not None:
        if platform.plugin(LatencyProxy).latency() is None:
            raise SystemExit(f"{platform.where}: no latency proxy to sweep behind (the local stack starts one: make toxiproxy)")
        delay = delays.Setting("authors", spec.latency_authors_ms, round(spec.latency_authors_ms * knobs.value("LATENCY_JITTER")))
        settings = LATENCY_SETTINGS
        environment["latency"] = dataclasses.asdict(delay)
    (directory / "environment.json").write_text(json.dumps(environment, indent=2))
    if spec.only:
        settings = {version: tuple(s for s in found if s.name in spec.only) for version, found in settings.items()}
    # a candidate is judged against its setting's value so far, not against one mode of the document: no reference
    shape = types.SimpleNamespace(name=DESIGN, title=TITLE, explanation=__doc__, compared=cells.MODE, reference=None,
                                  modes={}, sizes=(str(spec.cpus) if spec.cpus else sizes.NO_LIMIT,))
    sweep = cells.document(shape, environment, spec.repeats, {"cpus": spec.cpus, "builds": {}}, ())
    if spec.keep:
        kept = json.loads((spec.keep / FILE).read_text())
        if kept.get("cpus") != spec.cpus:
            raise SystemExit(f"{spec.keep}: swept at {kept.get('cpus') or 'no'} CPU per service, not "
                             f"{spec.cpus or 'no'} CPU (SWEEP_CPUS): its builds cannot join this sweep")
        sweep["builds"] = {version: result for version, result in kept["builds"].items() if version not in versions}
        sweep["cells"] = [cell for cell in kept["cells"] if cell["build"] in sweep["builds"]]
    try:
        for version in versions:
            sweep["builds"][version], swept = sweep_build(version, platform, directory, spec.repeats,
                                                          environment.get("git_commit", ""), settings[version], delay,
                                                          spec.cpus)
            sweep["cells"] += swept
            sweep["modes"] = list(dict.fromkeys(cell["mode"] for cell in sweep["cells"]))
            sweep["cells"] = cells.with_ratios(sweep)
            (directory / FILE).write_text(json.dumps(sweep, indent=2))
    finally:
        platform.close()
    return directory / FILE


MEASURES = Measures(Spec, run, needs=(LatencyProxy,), lengths=LENGTHS)
