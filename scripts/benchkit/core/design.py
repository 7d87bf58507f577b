"""A grid experiment as data, and the one runner that measures any of them.

A Design declares its builds, its modes (each a set of settings' values: an A/B's sides), its sizes (CPU per
service), the load phases each cell is measured in (the closed model, then the open model: the fixed rate and the
capacity ladder), and which axis it compares: the modes of each build (an A/B) or the builds at each mode and size
(the CPU map). `run` measures every cell (a build in a mode at a size) the same way on any platform: after the core's
warm-up and its background, in rounds whose order on the compared axis is drawn at random (reversed in the
round after). It writes one cell document (core.cells), whatever the design."""
import dataclasses
import json
import pathlib
import time
from typing import Callable

from benchkit import BASELINE, info, step
from benchkit.core import cells as celldoc, knobs, load, sizes
from benchkit.core.protocol import background, closed_round, fork, open_round, order, seed, warm_up
from benchkit.core.tunables import environments

CLOSED, OPEN = "closed", "open"  # the phases: every cell has the closed one; the open one after it (rate and ladder)
AS_SHIPPED = ""  # the mode of a design that compares builds as they ship


@dataclasses.dataclass(frozen=True)
class Variant:
    """What a cell's build runs with besides its code: a mode (its settings' values) at a size."""
    mode: str = AS_SHIPPED
    size: str = sizes.NO_LIMIT
    values: tuple = ()  # ((setting's name, value), …): what the mode sets


@dataclasses.dataclass(frozen=True)
class Design:
    name: str
    title: str
    explanation: str
    builds: tuple
    modes: dict = dataclasses.field(default_factory=lambda: {AS_SHIPPED: {}})  # {mode: {setting's name: value}}
    sizes: tuple = (sizes.NO_LIMIT,)
    compared: str = celldoc.MODE  # MODE: each build's modes against its first; BUILD: each build against BASELINE
    phases: tuple = (CLOSED,)
    settings: tuple = ()  # the tunables.Setting the modes' values set
    # EACH_CELL: every cell from a cold JVM in every round (two modes of one build cannot run at once), one build's
    # rounds after another's; EACH_ROUND: every build of a size from cold JVMs in every round, the builds in the round's
    # drawn order (every round a fork of each, as the CPU map measures them); EACH_SIZE: every build started once at a
    # size, warmed once, then measured round after round; AS_RUNNING: every build as it runs (deployed, or as the
    # experiment started it), warmed once
    restart: str = "each cell"
    # at NO_LIMIT: False, no limit (in pods, the chart's limit taken off: the CPU map's and the A/Bs' whole machine);
    # True, every build under the limits it was deployed with (the sweep without a size tunes the pods as they run)
    as_deployed: bool = False
    ergonomics: bool = False  # whether what each JVM saw and chose is kept, per size, after its warm-up (EACH_SIZE)
    # What a design may add to the runner, each None unless given: arrange(build, variant, round), called before each
    # cell is measured (the latency map sets its row's latency on the proxy there); again(document, size), the modes
    # whose cells at that size are measured once more after the rounds, up to extra_rounds times (the latency map's cells
    # whose repeats disagree; make answer's, while a cell it quotes is undecided). arrange is called in round 0 too,
    # for a build's first cell before it is first warmed (where builds are not forks); in a round, it returns True
    # where it restarted the build (chaos moves a build behind the latency proxy for the faults made there): the
    # runner warms it again
    arrange: object = None
    again: object = None
    extra_rounds: int = 0
    lengths: load.Lengths = load.Lengths()  # its phases' own lengths, where not the load's (its experiment's)
    # the A/A in the same forks: the baseline measured a second time in every round, as a cell of its own (cells.A_A),
    # its ratio to the baseline the one with no cause
    a_a: bool = False
    rounds: int = None  # how many rounds: RUNS where None (chaos counts its own)
    # False: the cells in the order the design lists them, every round (what compares nothing: chaos's faults in turn)
    drawn: bool = True
    # each mode's rounds all before the next mode's, where modes are measured one after another (the bench's
    # scenarios: the open model's rate follows every closed round); else every mode in every round
    in_turn: bool = False
    # whether each build's background (its processes' CPU with no load) is measured once it is warm: what CPU per
    # answer with the background off needs; chaos and the latency map measure no CPU per answer
    quiet: bool = True

    @property
    def reference(self):
        return next(iter(self.modes)) if self.compared == celldoc.MODE else BASELINE

    def measured(self):
        """The builds measured, as cells name them: the design's, and the A/A's second slot of the baseline."""
        return (*self.builds, *((celldoc.A_A,) if self.a_a else ()))

    def groups(self):
        """[[(build, Variant)]]: what is started together, in the order it is measured."""
        found = []
        for size in self.sizes:
            variants = [Variant(mode, size, tuple(values.items())) for mode, values in self.modes.items()]
            if self.restart == EACH_CELL:
                found += [[(build, variant) for variant in variants] for build in self.measured()]
            else:
                found.append([(build, variant) for variant in variants for build in self.measured()])
        return found


@dataclasses.dataclass
class Session:
    """What a run of a design carries from round to round: the platform it measures on, the design, its phases'
    lengths, where its runs' files go, what it keeps of each cell's round (keep(build, variant, figures)), the document
    being written (what each JVM chose is kept there, where the design asks), and the builds warmed so far ({build:
    (the running build, its warm-up, its background)}: those measured as they run, or started once at a size)."""
    platform: object
    design: Design
    runs_dir: pathlib.Path
    keep: Callable
    iterations: int = None
    warmup: int = None
    document: dict = dataclasses.field(default_factory=dict)
    running: dict = dataclasses.field(default_factory=dict)

    def chose(self, build, it, size):
        """What a JVM chose, kept once per build and size after its first warm-up (the threads it starts on demand
        exist by then), where the design keeps it."""
        if self.design.ergonomics:
            seen = self.document["ergonomics"].setdefault(sizes.label(size), {})
            if build not in seen:
                seen[build] = it.ergonomics()


def slot(build):
    """The build whose services a cell runs on: its own, or the baseline's for the A/A's cell."""
    return BASELINE if build == celldoc.A_A else build


EACH_CELL, EACH_ROUND, EACH_SIZE, AS_RUNNING = "each cell", "each round", "each size", "as running"
FORKED = (EACH_CELL, EACH_ROUND)  # the restarts that make every round a fork: cold JVMs, warmed again


def in_round(design, group, round_, position):
    """A group's cells in one round, in the order drawn for it (protocol.order): drawn in odd rounds, reversed in the
    even round after, so that each pair of rounds puts every cell once before and once after every other (on a
    warmer or a quieter machine). The builds of each group and variant draw their own orders (their pairs counted on
    from the group's position: an offset of whole pairs, so that a group's rounds 1 and 2 stay one pair)."""
    variants = list(dict.fromkeys(variant for _, variant in group))
    if not design.drawn:
        return list(group)
    if design.compared == celldoc.MODE:
        return [(build, variant) for variant in order(variants, round_) for build, v in group if v == variant]
    return [(build, variant) for index, variant in enumerate(variants)
            for build in order([b for b, v in group if v == variant], round_ + 2 * (position + index))]


def started(platform, design, build, variant):
    """The build's services restarted from a cold JVM in the variant's mode, at its size (at none: without a limit, or as
    deployed where the design says so)."""
    if design.restart == AS_RUNNING:
        return platform.build(slot(build))
    environment = environments(design.settings, dict(variant.values)) if design.settings else {}
    if variant.size == sizes.NO_LIMIT and design.as_deployed:
        return platform.reconfigure(slot(build), environment, fresh=True)
    # fresh: a cell measured again at the size it already runs at starts from a cold JVM as well (the noise floor)
    return platform.size(slot(build), *sizes.given(variant.size), environments=environment or None,
                         fresh=design.restart in FORKED)


def warmed(build, running, runs_dir, warmup, platform=None):
    """The core's warm-up (none where its length is 0: a smoke run measures cold JVMs, and says so). Given the
    platform, the build's quota is lifted for the warm-up where it can be (Platform.lift), set again after it, and the
    build warmed again under it, from a window a third as long, until the rule holds there too: what is measured is
    warm at its quota, and the first warm-up is kept under "before_quota"."""
    if not warmup:
        return {"settled": None}
    lifted = platform is not None and platform.lift(slot(build))
    warm = warm_up(build, running, runs_dir, warmup)
    if lifted:
        platform.bind(slot(build))
        warm = {**warm_up(f"{build}-under-its-quota", running, runs_dir, max(1, warmup // 3)), "before_quota": warm}
    return warm


def prepared(session, build, it, platform=None):
    """(its Build, its warm-up, its background) of a build just started alone: a fork, or a build an arrange
    restarted (platform given: its quota lifted for the warm-up where it can be)."""
    return it, warmed(build, it, session.runs_dir, session.warmup, platform), quiet(session.design, {build: it})[build]


def quiet(design, builds):
    """{build: its processes' background, CPU s/s with no load} of builds just warmed, in one quiet window for them all
    (each idles as it would alone: nothing is loaded), where the design measures CPU ({} of each where not). No window
    where none was started: a design after another (the bench's curve and profile) finds every build warm and read."""
    idle = background(builds) if design.quiet and builds else {}
    return {build: idle.get(build, {}) for build in builds}


def warms_before_quota(design, platform):
    """Whether a design's forks warm with their quota lifted (WARM_BEFORE_QUOTA) on this platform: in pods a limit is
    set at a start, and nothing is lifted there, whatever the knob."""
    return design.restart in FORKED and bool(knobs.value("WARM_BEFORE_QUOTA")) and platform.lifts


def label(design, variant, build=None):
    """What a cell's runs are called in the results directory (the A/A's apart from its baseline's)."""
    again = "again" if build == celldoc.A_A else ""
    return "-".join(part.replace(" ", "-") for part in (design.name, variant.size, variant.mode, again) if part)


def measured(session, build, variant, round_, place, speed):
    """One cell's figures in one round, on the build as the session runs it, phase after phase: the closed model, the
    open model after it (its rate and ladder follow the closed one's), or a design's own phase(build, runs_dir, round,
    variant, label, facts), facts being what a measured run keeps of its round (the machine's speed, the build's place
    in the round)."""
    design, runs_dir = session.design, session.runs_dir
    it, warm, idle = session.running[build]
    figures, name = {"settled": warm["settled"]}, label(design, variant, build)
    for phase in design.phases:
        if phase == CLOSED:
            figures.update(closed_round(it, runs_dir, round_, session.iterations, name, idle, speed, warm))
        elif phase == OPEN:
            figures.update(open_round(it, runs_dir, round_, name, figures["complete_per_s"]))
        else:
            figures.update(phase(it, runs_dir, round_, variant, name, {"calibration_seconds": speed, "position": place}))
    return {"size": variant.size, "round": round_, "place": place, **figures}


def run(platform, design, directory, extra=None, on_cell=None, kept=None, leave=True, running=None):
    """Every cell of the design in RUNS rounds: <design>.json (celldoc.SCHEMA) written after each group, its
    document returned. extra: what the experiment adds to the document; on_cell(figures, environment): what it adds
    to a cell's round; kept: the document of a run of the same design that stopped half-way, whose finished groups are
    kept (continued). Every build is left as it ships, whatever happened; unless leave is False, for an experiment
    of several designs that leaves them so itself at its end (the sweep's settings, one design after another).
    running: the builds an earlier design of the same session warmed, as they run ({build: (its Build, warm-up,
    background)}), measured as they are; the builds this one warms are added to it, and left open for the next."""
    rounds, (iterations, warmup) = design.rounds or knobs.value("RUNS"), design.lengths.resolved()
    runs_dir = directory / "runs"
    runs_dir.mkdir(parents=True, exist_ok=True)
    environment = platform.environment(platform.where, rounds, True)
    groups = design.groups()
    document = celldoc.document(design, environment, rounds,
                                {"iterations": iterations, "order_seed": seed(),
                                 "forks": design.restart in FORKED,
                                 "warmed_before_quota": warms_before_quota(design, platform),
                                 **(extra or {})},
                                [(build, variant.mode, variant.size) for group in groups for build, variant in group])
    if design.ergonomics:
        document["ergonomics"] = {}
    if kept:
        document = continued(kept, document)

    def rounds_of(build, variant):
        """The rounds kept so far of a build's cell in a variant (the document's own list, whatever rewrote it)."""
        return next(c for c in document["cells"] if celldoc.key(c) == (build, variant.mode, variant.size))["rounds"]

    began, measured_groups = time.monotonic(), 0
    try:
        for position, group in enumerate(groups):
            named = f"{', '.join(dict.fromkeys(b for b, _ in group))} at {sizes.label(group[0][1].size)}"
            if all(len(rounds_of(build, variant)) == rounds for build, variant in group):
                step(f"{named}: kept")
                continue
            step(f"{named}: {progress(position, len(groups), measured_groups, time.monotonic() - began)}")
            measured_groups += 1
            def keep(build, variant, figures):  # each cell's round kept at once: a run stopped half-way shows it
                rounds_of(build, variant).append({**figures, **(on_cell(figures, environment) if on_cell else {})})
                (directory / f"{design.name}.json").write_text(json.dumps(document, indent=2))
            session = Session(platform, design, runs_dir, keep, iterations, warmup, document,
                              {} if running is None else running)
            try:
                measure_group(session, group, position, rounds)
            finally:  # the Builds it opened on builds as they run, unless the next design of the session measures them
                for it, *_ in session.running.values() if design.restart == AS_RUNNING and running is None else ():
                    it.close()
            document["cells"] = celldoc.with_ratios(document)
            (directory / f"{design.name}.json").write_text(json.dumps(document, indent=2))
    finally:
        for build in design.builds if leave else ():
            platform.restore(build)
        if leave:
            platform.close()
    return document


def progress(position, groups, measured, seconds):
    """Where a run of many groups is, for its log: this group's place, the time so far, and the rest at the pace of
    the groups this run has measured (a continued run's kept groups took none of it)."""
    said = f"group {position + 1} of {groups}, {seconds / 60:.0f} min so far"
    if not measured:
        return said
    return f"{said}, about {seconds / measured * (groups - position) / 60:.0f} min more at this pace"


def measure_group(session, group, position, rounds):
    """A group's rounds, each cell's figures given to the session's keep(build, variant, figures)."""
    platform, design = session.platform, session.design
    if design.restart not in FORKED:  # every build of the group started, then each warmed, once
        if design.arrange:  # arranged for its first cell before then (round 0): its warm-up is under it
            for build in dict.fromkeys(build for build, _ in group):
                design.arrange(build, next(variant for b, variant in group if b == build), 0)
        # builds an earlier design of the session warmed are measured as they are
        started_ = {build: started(platform, design, build, variant) for build, variant in group
                    if build not in session.running}
        warm = {build: warmed(build, it, session.runs_dir, session.warmup) for build, it in started_.items()}
        idle = quiet(design, started_)
        session.running.update({build: (it, warm[build], idle[build]) for build, it in started_.items()})
        for build, it in started_.items():
            session.chose(build, it, group[0][1].size)
    if design.in_turn:  # each mode's rounds before the next mode's
        for variant in dict.fromkeys(variant for _, variant in group):
            measure_rounds(session, [(b, v) for b, v in group if v == variant], position, range(1, rounds + 1))
    else:
        measure_rounds(session, group, position, range(1, rounds + 1))
    for extra in range(1, design.extra_rounds + 1 if rounds > 1 else 1):
        disagree = design.again(session.document, group[0][1].size)
        wanted = [(build, variant) for build, variant in group if variant.mode in disagree]
        if not wanted:
            break
        info(f"round {rounds + extra}: {len(wanted)} cell(s) measured again ({design.name}: their rounds disagree)")
        measure_rounds(session, wanted, position, (rounds + extra,))


def measure_rounds(session, cells, position, numbers):
    """The cells' rounds of these numbers, the machine's speed measured before each, on the builds the session has
    warmed (a build measured from a cold JVM in every round is started and warmed here, cell by cell, and its fork's
    identity and start kept with its figures: protocol.fork)."""
    platform, design, running = session.platform, session.design, session.running
    for round_ in numbers:
        speed = platform.calibrate()
        info(f"round {round_}: the calibration job took {speed:.2f} s")
        for place, (build, variant) in enumerate(in_round(design, cells, round_, position), start=1):
            step(f"{build}: {design.name}, {celldoc.variant_name(variant.mode, variant.size)}, "
                 f"round {round_}/{max(numbers)}")
            identity, began = None, time.monotonic()
            if design.restart in FORKED:
                it = started(platform, design, build, variant)
                # its start and first answer under its quota, as a pod's; then warmed with it lifted (WARM_BEFORE_QUOTA:
                # a JIT starved by a quota took most of a fork's minutes) and again under it
                identity = fork(it)
                lifting = platform if warms_before_quota(design, platform) else None
                running[build] = prepared(session, build, it, lifting)
                session.chose(build, it, variant.size)
            if design.arrange and design.arrange(build, variant, round_):  # it restarted the build: warmed again
                running.pop(build)[0].close()
                running[build] = prepared(session, build, started(platform, design, build, variant))
            warm = running[build][1]
            ready = time.monotonic()
            figures = measured(session, build, variant, round_, place, speed)
            # what a fork cost: its start, warm-up and background, and its measured phases (the costs that Kalibera
            # and Jones weigh against the spread of forks and of runs: decide.best_length)
            spent = {"forking": round(ready - began, 1), "measuring": round(time.monotonic() - ready, 1),
                     **({"warming_without_quota": warm["before_quota"].get("seconds"),
                         "warming_under_quota": warm.get("seconds")} if "before_quota" in warm else {})}
            session.keep(build, variant, {**figures, **({"fork": identity} if identity else {}),
                                          **({"spent_s": spent} if design.restart in FORKED else {})})


def continued(kept, document):
    """The document of a run that stopped half-way, to be continued by this one: refused unless it measured the same
    design the same way; a group it began and did not finish is measured again, whole; where and when the rest was
    measured is added."""
    same = ("design", "rounds", "compared", "modes", "iterations", "forks", "warmed_before_quota")
    if any(kept.get(key) != document.get(key) for key in same):
        raise SystemExit("that run measured " + ", ".join(f"{key} {kept.get(key)}" for key in same)
                         + "; this one " + ", ".join(f"{key} {document.get(key)}" for key in same))
    cells = {celldoc.key(c): c for c in kept["cells"]}
    if not set(cells) <= {celldoc.key(c) for c in document["cells"]}:
        raise SystemExit(f"that run measured cells this one does not: {sorted(set(cells))}")
    finished = {size for size in document["sizes"]
                if all(len(c["rounds"]) == document["rounds"] for key, c in cells.items() if key[2] == size)
                and any(key[2] == size for key in cells)}
    return {**document, "cells": [
        {**c, "rounds": cells[celldoc.key(c)]["rounds"]} if c["size"] in finished else c
        for c in document["cells"]],
        **({"ergonomics": {name: seen for name, seen in kept["ergonomics"].items()
                           if name in {sizes.label(size) for size in finished}}} if "ergonomics" in kept else {}),
        "continued": {key: document[key] for key in ("commit", "timestamp", "where")},
        **{key: kept[key] for key in ("commit", "timestamp", "where")}}
