"""The CPU map's answer, what a team sizes pods by (the tables README.md opens with): at each size whose quota binds
here, and at the whole machine, each build over v1 with its estimate, interval and word (core.verdicts), the A/A that
calibrates them, the answer in one sentence per size, each session's floor and own absolutes, the sessions kept apart,
and what each fork took to start."""
import statistics

from benchkit import BASELINE, FLOOR, SERVICES
from benchkit.core import calibration, cells as celldoc, documents, results, verdicts
from benchkit.core.cells import builds
from benchkit.core.sizes import LADDER, NO_LIMIT, binds, given, label
from benchkit.core.verdicts import quoted


# what a team sizes pods by, each build over v1: the answer's columns
ANSWER = (("complete_per_s", "complete answers/s, closed"), ("capacity_per_s", "capacity under the p99 bound"),
          ("cpu_ms_per_complete_background_off", "CPU per complete answer"), ("open_p99", "p99 at the fixed rate"),
          ("peak_memory_mib", "peak memory"))


ANSWER_TEXT = ("Each build over v1 at the sizes a pod's quota binds on this machine, and at the whole machine: the "
               "estimate (the geometric mean of the cell's independent ratios), its 95 % interval, and its word "
               "(core.decide): ahead or behind where the interval lies wholly beyond the equivalence margin, level "
               "where it lies wholly inside it, else undecided, with the smallest effect its starts could have told "
               "apart. A word rests on two sessions or more, hours apart (make docs-figures COMBINE=… FLOOR=… pools "
               "them), each of whose A/A (v1 again over v1) contains 1.")


def quota_binds(document, size):
    """Whether a pod's quota binds at this size where the document was measured (binds)."""
    return binds(size, celldoc.cores(document))


def measured_in(document, cell):
    """"6 rounds on 2 starts (2 sessions)", "6 forks (2 sessions)": what a cell's ratio rests on, and in how many of
    its rounds its warm-up or its reference's did not settle."""
    reference = celldoc.reference_of(cell, document["cells"], document["compared"], document["reference"]) or cell
    unsettled = sum(r.get("settled") is False or b.get("settled") is False
                    for r, b in zip(cell["rounds"], reference["rounds"]))
    sessions = len({r.get("session", "") for r in cell["rounds"]})
    rounds = (f"{len(cell['rounds'])} forks" if verdicts.forked(document)
              else f"{len(cell['rounds'])} rounds on {sessions} starts")
    return (f"{rounds} ({sessions} session{'s' * (sessions != 1)})"
            + (f", {unsettled} with a warm-up unsettled" if unsettled else ""))


def answer_sizes(document):
    """[(size, why it is not a pod's answer here, or None)]: the ladder's sizes whose quota binds on this machine, and
    the whole machine; the others named with why (the machine's cores run out before their quota binds)."""
    found = []
    for size in [*(r for r in LADDER if not r.endswith("p") and r != NO_LIMIT), NO_LIMIT]:
        if size != NO_LIMIT and not quota_binds(document, size):
            why = "not a pod's answer here" if size in document["sizes"] else "not measured here"
            found.append((size, f"{why}: {len(SERVICES)} services × {label(size)} need "
                                f"{len(SERVICES) * given(size)[0]:g} CPUs of the machine's {celldoc.cores(document) or 'few'} "
                                f"cores, which run out before the quota binds; `CPU_MAP_SIZES={size} make "
                                "cpu-map-cluster` measures it on a cluster whose nodes can give it"))
        elif size in document["sizes"]:
            found.append((size, None))
    return found


def answer_rows(document):
    """The answer a team sizes pods by: at each size whose quota binds here, and at the whole machine, each build over
    v1 on every ANSWER figure (verdicts.decided: estimate, interval, word), and the A/A (v1 again over v1), each of
    whose sessions calibrates the method (its interval contains 1); the ladder's other sizes, which the machine cannot
    give three services, named with what measures them on a cluster."""
    rows = [["CPU per service", "build", *(name for _, name in ANSWER), "what it rests on"]]
    found = verdicts.a_a_of(document)
    for size, why in answer_sizes(document):
        if why:
            rows.append([label(size), why, *("" for _ in ANSWER), ""])
            continue
        where = f"{label(size)}" + (" (the whole machine)" if size == NO_LIMIT else " (the quota binds)")
        for version in (v for v in builds(document) if v not in (BASELINE, celldoc.A_A)):
            cell = celldoc.cell_of(document, version, size=size)
            name = f"{version} (the floor)" if version in FLOOR else version
            rows.append([where, f"{name} / {BASELINE}",
                         *(verdicts.decided(document, cell, key) for key, _ in ANSWER), measured_in(document, cell)])
        cell = found and next((c for c in found[1] if c["size"] == size), None)
        if cell:
            rows.append([where, f"{BASELINE} again / {BASELINE}: the A/A",
                         *(a_a(found[0], cell, key) for key, _ in ANSWER), measured_in(found[0], cell)])
    return rows


def a_a(floor, cell, key):
    """The A/A's interval on one figure over every session, and, on a figure the method is judged by, whether each
    session's own (verdicts.calibration) contains 1."""
    found = verdicts.interval(floor, cell, key)
    if found is None:
        return "–"
    own = [i for _, size, k, i in verdicts.calibration(floor) if size == cell["size"] and k == key]
    failed = sum(1 for i in own if not i.low <= 1 <= i.high)
    said = (f", excludes 1 in {failed} session(s) of {len(own)}" if failed
            else ", contains 1 in every session" if own else "")
    # each session's is at 1 - 5 % over its intervals, so it can contain 1 where the one shown, at the table's
    # confidence over every session, does not: a shift the sessions share is said, not hidden
    if own and not found.low <= 1 <= found.high:
        said += " (each at its calibration's confidence); this interval excludes 1"
    return f"{found.estimate:.2f}× ({found.low:.2f}–{found.high:.2f}){said}"


def order_rows(document):
    """Whether a build gains from its place in a round: the A/A's later fork over its earlier one (the same build,
    restarted twice in a round, in an order drawn at random), over every round of every size and session."""
    found = verdicts.order_effect(document)
    return [["the A/A's later fork in a round over its earlier one", "forks"],
            [f"{found.estimate:.2f}× ({found.low:.2f}–{found.high:.2f})" if found else "–",
             str(found.units) if found else "0"]]


def sentences(document):
    """The answer in one sentence per size (rendered from the words, never typed): what v2 and v3 carry and what an
    answer costs them, each against v1."""
    rows = [["The answer, by CPU per service (v2 reactive, v3 virtual threads, each over v1 imperative)"]]
    for size, why in answer_sizes(document):
        if why:
            continue
        said = []
        for version in quoted(document):
            cell = celldoc.cell_of(document, version, size=size)
            (rate, rate_word), (cpu, cpu_word) = (verdicts.said(document, cell, key)
                                                  for key in ("complete_per_s", CPU_PER_ANSWER))
            said.append(f"{version} answers {rate} as many requests per second as v1 ({rate_word}), at {cpu} its CPU "
                        f"per answer ({cpu_word})")
        where = "with no limit (the whole machine)" if size == NO_LIMIT else f"at {label(size)} per service"
        rows.append([f"{where[0].upper()}{where[1:]}, " + "; ".join(said) + "."])
    refused = verdicts.refusals(document)
    if refused:
        rows.append([f"No word stands: {len(refused)} A/A interval(s) exclude 1 ({refused[0]})."])
    return rows


def floor_rows(document):
    """The A/A in each session, at each size: v1 again over v1 on every ANSWER figure, over that session's rounds (the
    document's own A/A, measured in the same forks, else its noise floor's: verdicts.a_a_of)."""
    rows = [["CPU per service", "session", *(name for _, name in ANSWER)]]
    holder, cells = verdicts.a_a_of(document) or (None, ())
    for size in document["sizes"]:
        for cell in (c for c in cells if c["size"] == size):
            for session in celldoc.sessions_of(holder):
                rows.append([label(size), session, *(documents.ratio_text(celldoc.in_session(cell, key, session, True))
                                                     if celldoc.ratio(cell, key) else "–" for key, _ in ANSWER)])
    return rows


def again_rows(document):
    """Each session kept apart from the pool, set beside it: its own estimate on every ANSWER figure, and whether it
    landed where the pooled sessions predict a next one (verdicts.landed)."""
    rows = [["session", "CPU per service", "build", *(name for _, name in ANSWER)]]
    for session in document.get("again", ()):
        for cell in document["cells"]:
            if cell["build"] == BASELINE or not any(celldoc.key(c) == celldoc.key(cell) for c in session["cells"]):
                continue
            rows.append([session["name"], label(cell["size"]), f"{cell['build']} / {BASELINE}",
                         *(landed_text(verdicts.landed(document, session, cell, key)) for key, _ in ANSWER)])
    return rows


def landed_text(found):
    if found is None:
        return "–"
    where, estimate, (low, high) = found
    return f"{estimate:.2f}×, {where} the {low:.2f}–{high:.2f} the pool predicts"


CPU_PER_ANSWER = "cpu_ms_per_complete_background_off"


def sessions_rows(document):
    """Each session's own absolutes at each size (complete answers/s, CPU per complete answer: the medians of its
    rounds), and whether its machine differed from the others': its calibration, or a build's CPU per answer, more
    than calibration.DRIFT_LIMIT from the median of every session's rounds. Ratios pool across sessions; these do not."""
    every = statistics.median(r["calibration_seconds"] for c in document["cells"] for r in c["rounds"]
                              if r.get("calibration_seconds"))
    rows = [["session", "calibration s", "CPU per service", "build", "complete answers/s", "CPU ms per complete answer",
             "this session's machine"]]
    for session in celldoc.sessions_of(document):
        speed = statistics.median(r["calibration_seconds"] for c in document["cells"] for r in c["rounds"]
                                  if r.get("session", "") == session and r.get("calibration_seconds"))
        for size in document["sizes"]:
            for version in builds(document):
                cell = celldoc.cell_of(document, version, size=size)
                cpu, whole = celldoc.in_session(cell, CPU_PER_ANSWER, session), celldoc.figure(cell, CPU_PER_ANSWER)
                apart = [f"{what} {mine / theirs - 1:+.0%}" for what, mine, theirs in (
                    ("calibration", speed, every), ("CPU per answer", cpu["median"], whole["median"]))
                    if mine and theirs and abs(mine / theirs - 1) > calibration.DRIFT_LIMIT]
                rows.append([session or document.get("name", ""), f"{speed:.2f}", label(size), version,
                             documents.interval(celldoc.in_session(cell, "complete_per_s", session)),
                             documents.interval(cpu, "{:.3f}"),
                             "differed: " + ", ".join(apart) if apart else "within the others' drift"])
    return rows


STARTS_TEXT = ("Each service's seconds from its JVM's start to ready, web-api's to its first complete answer, and each "
               "service's peak memory in MiB during the closed round, over a build's forks at a size (the median, the "
               "lowest and highest): what a readiness probe, a start-up budget and a pod's memory limit are sized by.")


def over_floor(document):
    """The document as if every build were compared with the floor (v0) measured in the same forks: each cell's ratios
    its ratios to the floor's cell of the same round (cells.with_ratios: "against_floor"); the floor and the A/A left
    out. Its intervals are read as the answer's are (verdicts.interval)."""
    return {**document, "cells": [{**c, "ratios": c["against_floor"]} for c in document["cells"]
                                  if c.get("against_floor") and c["build"] != celldoc.A_A]}


def floor_sentences(document):
    """How far each build is from the floor, in one sentence per size: what an answer costs it in CPU, and what it
    carries, each over the floor's in the same forks, with its interval; empty where the floor was not in them."""
    view = over_floor(document)
    rows = [["How far each build is from the floor (v0, plain Vert.x, measured in the same forks)"]]
    for size, why in answer_sizes(document) if view["cells"] else ():
        cells = [c for c in view["cells"] if c["size"] == size]
        if why or not cells:
            continue
        def said(cell, key):
            found = verdicts.interval(view, cell, key)
            return f"{found.estimate:.2f}× ({found.low:.2f}–{found.high:.2f})" if found else "–"
        where = f"At {label(size)} per service" if size != NO_LIMIT else "With no limit"
        rows.append([f"{where}, an answer costs " + ", ".join(f"{c['build']} {said(c, CPU_PER_ANSWER)}" for c in cells)
                     + " the floor's CPU, and " + ", ".join(f"{c['build']} answers {said(c, 'complete_per_s')}"
                                                            for c in cells) + " as many requests per second as it."])
    return rows


def starts_rows(document):
    """What each build's forks took to start, in absolutes (a team sizes a readiness probe, a start-up budget and a
    pod's memory limit by them): per size and build, each service's seconds from its JVM's start to ready, web-api's
    to its first complete answer, and each service's settled peak memory in MiB, each the median of the forks with
    the lowest and highest. Empty where the rounds kept no fork (the map's rounds before they were forks)."""
    rows = [["CPU per service", "build", *(f"{s}: start to ready, s" for s in SERVICES),
             "web-api: start to first complete answer, s", *(f"{s}: peak MiB" for s in SERVICES), "forks"]]
    for size in document["sizes"]:
        for version in builds(document):
            forks = [r for r in celldoc.cell_of(document, version, size=size)["rounds"] if r.get("fork")]
            if not forks:
                continue
            spread = [[(r["fork"].get(s) or {}).get("ready_s") for r in forks] for s in SERVICES] + \
                [[r["fork"].get("first_answer_s") for r in forks]] + \
                [[(r.get("peak_memory_mib_by_service") or {}).get(s) for r in forks] for s in SERVICES]
            rows.append([label(size), version, *(documents.interval(vars(results.Figure.of("", values)),
                                                                    "{:.1f}" if i <= len(SERVICES) else "{:.0f}")
                                                 for i, values in enumerate(spread)), str(len(forks))])
    return rows


def costs_cell(seconds, forks):
    """A cost's median (lowest–highest), with how many forks kept it where fewer than the row's did; – where none."""
    if not seconds:
        return "–"
    shown = documents.interval(vars(results.Figure.of("", seconds)), "{:.0f}")
    return shown if len(seconds) == forks else f"{shown} ({len(seconds)} fork{'s' * (len(seconds) != 1)})"


def costs_rows(document):
    """What a fork cost at each size, in seconds: its start, warm-up and background, and of it the warm-up without its
    quota and then under it where the quota was lifted (WARM_BEFORE_QUOTA), and its measured phases; each the median of
    the size's forks with the lowest and highest (their spent_s). What the lift saves is read between two runs that
    differ in it alone. Empty where no round kept its costs."""
    parts = (("forking", "a fork's start, warm-up and background"),
             ("warming_without_quota", "of it, warming without its quota"), ("warming_under_quota", "then under it"),
             ("measuring", "its measured phases"))
    rows = []
    for size in document["sizes"]:
        spent = [r["spent_s"] for c in document["cells"] if c["size"] == size for r in c["rounds"] if r.get("spent_s")]
        if spent:
            rows.append([label(size), *(costs_cell([s[key] for s in spent if s.get(key) is not None], len(spent))
                                        for key, _ in parts), str(len(spent))])
    return [["CPU per service", *(f"{what}, s" for _, what in parts), "forks"], *rows] if rows else []


def balance_rows(document):
    """balance_of, as a table: the spreads, the costs (and of a fork whose quota was lifted for its warm-up, how long
    it warmed without it and then under it), and the measured part of a fork that would give the narrowest interval
    for the time spent."""
    found = verdicts.balance_of(document)
    best, spent = found["best_length"], found["spent"]
    warming = ("–" if "warming_without_quota" not in spent else
               "{:.0f} without its quota, then {:.0f} under it ({} forks)".format(
                   spent["warming_without_quota"][0], spent["warming_under_quota"][0],
                   spent["warming_without_quota"][1]))
    return [["runs on one start: spread of a log ratio (the published maps)", "forks of a session: spread (the A/A)",
             "a fork's start, warm-up and background, s (median)", "of it, a quota's fork warming, s (median)",
             "its measured phases, s (median)", "the measured part that gives the narrowest interval for the time"],
            [*(f"{found[key]:.3f}" if found[key] else "–" for key in ("run_spread", "fork_spread")),
             f"{found['forking_s']:.0f}" if found["forking_s"] else "–", warming,
             f"{found['measuring_s']:.0f}" if found["measuring_s"] else "–",
             f"{best:.1f}× today's" if best else "none: forks add no spread of their own beyond the runs'"
             if found["forking_s"] else "–"]]
