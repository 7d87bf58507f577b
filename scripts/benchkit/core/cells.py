"""The cell document every grid experiment writes (core.design), and what is read off it, written once for every
design: each cell's ratios to its reference cell round by round, the check that they are what its rounds give, its
table of rounds, and its verdicts.

A cell is a build in a mode at a size: {"build", "mode", "size", "rounds": [figures of each round], "ratios"}. Its
reference cell differs on the compared axis alone: the same build in the design's first mode (MODE: an A/B), or the
baseline build in the same mode at the same size (BUILD: the CPU map). A reference cell has no ratios."""
import datetime
import json
import sys

from benchkit import BASELINE, FLOOR, NAMES, SERVICES
from benchkit.core import documents, results, sealing, sizes

SCHEMA = "reactive-bench/cells/1"
MODE, BUILD = "mode", "build"  # the axes a design compares along
COORDINATES = ("build", "mode", "size")
A_A = f"{BASELINE} again"  # the cell of a design's A/A: the baseline measured a second time in the same forks

# (key, label, format, whether a ratio is shown): the figures of a cell's round, in the order a table shows them
FIGURES = (("complete_per_s", "complete answers/s", "{:.0f}", True),
           ("p50", "latency p50 ms, complete answers", "{:.1f}", True),
           ("p99", "latency p99 ms, complete answers", "{:.1f}", True),
           ("open_p99", "open model at the fixed rate: latency p99 ms", "{:.1f}", True),
           ("capacity_per_s", "capacity: the highest open rate with p99 under the bound, /s", "{:.0f}", True),
           ("cpu_ms_per_complete_background_off", "CPU ms per complete answer, whole system, background off",
            "{:.3f}", True),
           ("data_services_cpu_ms", "CPU ms per request, articles + authors", "{:.3f}", True),
           ("postgres_cpu_ms", "CPU ms per request, PostgreSQL", "{:.3f}", True),
           ("peak_memory_mib", "peak memory MiB, the three services' added up", "{:.0f}", True),
           ("proxy_cpu_ms", "CPU ms per request, the latency proxy (where in the path)", "{:.3f}", False),
           ("jaeger_cpu_ms", "CPU ms per request, Jaeger (where traced)", "{:.3f}", False),
           ("statements_per_request", "statements sent per request, BEGIN and COMMIT included", "{:.2f}", False),
           ("data_statements_per_request", "statements that read data per request", "{:.2f}", False),
           ("settled", "warm-up settled (the JIT under 3 % of the services' CPU)", "{}", False))
# the figures a cell has a ratio of, and a median: those a table shows with a ratio, and p50 at the fixed rate
RATIOS = (*(key for key, _, _, shown in FIGURES if shown), "open_p50")
# what a build is measured against the floor by (its multiples of the floor's, round by round): what it can answer
# and what an answer costs the whole system (the bench's; the CPU map's with the background taken off)
AGAINST_FLOOR = ("complete_per_s", "capacity_per_s", "cpu_ms_per_complete", "cpu_ms_per_complete_background_off")
DERIVED = ("medians", "ratios", "against_no_limit", "against_floor")  # what with_ratios computes of a cell's rounds
MEDIANS = (*RATIOS, "generator_cpu_ms")  # and a median alone: the load generator's CPU per request (the bench's)
LABELS = {key: name for key, name, _, _ in FIGURES}


def document(design, environment, rounds, extra, coordinates):
    """A design's document before its first round: every cell, in the order measured, with no rounds yet."""
    return {"schema": SCHEMA, "design": design.name, "title": design.title, "explanation": design.explanation,
            **(extra or {}), "compared": design.compared, "reference": design.reference,
            "modes": list(design.modes), "sizes": list(design.sizes), "rounds": rounds,
            "commit": environment["git_commit"], "timestamp": environment["timestamp"],
            "where": environment["where"], "environment": environment,
            "cells": [dict(zip(COORDINATES, found), rounds=[]) for found in coordinates]}


def cores(found):  # of the machine (or node) that measured, from a document (published or not) or its environment
    return (found.get("cores") or int(float(found.get("node_cpu") or 0))
            or (cores(found["environment"]) if "environment" in found else None))


def kept(document):  # what a published cell document keeps of the environment it leaves out: the machine's cores
    return {"cores": cores(document)}


# A cell's quota binds where a service was throttled in this share of its periods or more during the closed round.
QUOTA_BINDS = 0.05


def bound_by(cell, environment):
    """What held the build back in its closed round: "quota" where a service was throttled in QUOTA_BINDS of its
    periods or more, else "machine" (the cores shared with PostgreSQL, Kafka and the load generator); with the
    share of the cores the measured processes and the generator used."""
    throttled = {name: t["throttled"] / t["periods"] for name, t in (cell.get("throttling") or {}).items()
                 if name in SERVICES and t and t.get("periods")}
    machine = cores(environment)
    return {"by": "quota" if any(share >= QUOTA_BINDS for share in throttled.values()) else "machine",
            "throttled_share": throttled, "cores_busy_share": cell["cores_used"] / machine if machine else None}


def builds(document):
    """The builds of a document's cells, in the order measured."""
    return list(dict.fromkeys(c["build"] for c in document["cells"]))


def key(cell):
    """(build, mode, size): what names a cell in its document."""
    return tuple(cell[k] for k in COORDINATES)


def variant_name(mode, size):
    """"absent at 0.5 CPU", "at 1 CPU", "absent", "as shipped"."""
    at = f"at {sizes.label(size)}" if size != sizes.NO_LIMIT else ""
    return " ".join(part for part in (mode, at) if part) or "as shipped"


def reference_of(cell, cells, compared, reference):
    """The cell a cell is divided by (None for a reference cell, or where the document has none)."""
    if cell[compared] == reference:
        return None
    wanted = {**{k: cell[k] for k in COORDINATES}, compared: reference}
    return next((c for c in cells if all(c[k] == v for k, v in wanted.items())), None)


def with_ratios(document):
    """Its cells, each with the median of its rounds of every figure of RATIOS it has ("medians"), its ratios to its
    reference cell, round against round of the same number (results.ratios_by_round), where the same build in the
    same mode was measured with no limit, its ratios to that cell ("against_no_limit": what a size costs it), and
    where the floor was measured in the same mode at the same size, the figures of AGAINST_FLOOR over the floor's
    ("against_floor": how far a build is from the work itself)."""
    found = []
    for cell in document["cells"]:
        mine = {k: v for k, v in cell.items() if k not in DERIVED}
        mine["medians"] = {key: results.Figure.of("", [r.get(key) for r in cell["rounds"]]).median
                           for key in MEDIANS if any(key in r for r in cell["rounds"])}
        # the floor's cell beside it (the first floor measured there), unless it is the floor's own
        floor = None if cell["build"] in FLOOR else next(
            (found for found in (reference_of(cell, document["cells"], "build", b) for b in FLOOR) if found), None)
        for name, base, figures in (
                ("ratios", reference_of(cell, document["cells"], document["compared"], document["reference"]), RATIOS),
                ("against_no_limit", reference_of(cell, document["cells"], "size", sizes.NO_LIMIT), RATIOS),
                ("against_floor", floor, AGAINST_FLOOR)):
            if base is not None:
                keys = [k for k in figures if any(k in r for r in base["rounds"] + cell["rounds"])]
                mine[name] = results.ratios_by_round(zip(base["rounds"], cell["rounds"]), keys)
        found.append(mine)
    return found


def so_far(earlier, document):
    """A document as it stands, its ratios derived, pooled with earlier sessions ({name: document}; alone without)."""
    document = {**document, "cells": with_ratios(document)}
    return pooled({**earlier, "this session": document}, "the answer so far") if earlier else document


def cell_of(document, build, mode=None, size=None):
    """The one cell of a build (in a mode, at a size, where the document has several)."""
    return next(c for c in document["cells"] if c["build"] == build and mode in (None, c["mode"])
                and size in (None, c["size"]))


def figure(cell, *path):
    """{unit, median, low, high, rounds} of one figure over a cell's rounds: what each round holds at a key, or at a
    path of keys into what it holds (the bench's JIT seconds of a service: "jvm", service, figure); None where a round
    holds nothing there."""
    values = []
    for value in cell["rounds"]:
        for key in path:
            value = value.get(key) if isinstance(value, dict) else None
        values.append(value)
    return vars(results.Figure.of("", values))


# Sessions pooled into one document must be independent: separate starts of everything, at least this far apart.
POOLED_APART_HOURS = 1.0
SAME = ("design", "compared", "reference", "sizes", "on_kubernetes")  # what sessions pooled into one share


def refuse_unpoolable(sessions):
    """Exits unless the sessions ([(name, document)] in time order) are two cell documents or more of one design,
    none itself pooled, each at least POOLED_APART_HOURS after the one before."""
    if len(sessions) < 2 or any(d.get("schema") != SCHEMA or "sessions" in d for _, d in sessions):
        sys.exit("pool: two cell documents or more, none of them pooled already")
    for name in SAME:
        if len({json.dumps(d.get(name)) for _, d in sessions}) != 1:
            sys.exit(f"pool: the sessions differ in {name}: not one comparison")
    times = [datetime.datetime.fromisoformat(d["timestamp"]) for _, d in sessions]
    if any((later - earlier).total_seconds() < 3600 * POOLED_APART_HOURS for earlier, later in zip(times, times[1:])):
        sys.exit(f"pool: sessions less than {POOLED_APART_HOURS:g} h apart are not independent")


# The noise floor: the reference build measured again as if it were another build (the noise-floor A/B's second
# side), in the same sessions as the comparison it is the floor of, each within this many hours of its session.
FLOOR_DESIGN, FLOOR_SIDE, FLOOR_WITHIN_HOURS = "noise-floor", "A again", 3.0


def refuse_unmatched_floor(document, floor):
    """Exits unless the floor is the noise floor of the build each verdict is judged by (floor_build) at each of the
    document's sizes, measured in each of its sessions (within FLOOR_WITHIN_HOURS of it)."""
    if floor.get("design") != FLOOR_DESIGN:
        sys.exit(f"pool: a floor is the {FLOOR_DESIGN} design's, not {floor.get('design')}")
    missing = sorted({(floor_build(document, c), size) for c in document["cells"] for size in document["sizes"]} - {
        (c["build"], c["size"]) for c in floor["cells"] if c["mode"] == FLOOR_SIDE})
    if missing:
        sys.exit("pool: the floor has no " + ", ".join(f"{b} at {sizes.label(size)}" for b, size in missing))
    times = [[datetime.datetime.fromisoformat(s["timestamp"]) for s in d["sessions"]] for d in (document, floor)]
    if len(times[0]) != len(times[1]) or any(abs((a - b).total_seconds()) > 3600 * FLOOR_WITHIN_HOURS
                                             for a, b in zip(*times)):
        sys.exit(f"pool: the floor is measured in every session, within {FLOOR_WITHIN_HOURS:g} h of it: "
                 f"sessions {[str(t) for t in times[0]]}, floors {[str(t) for t in times[1]]}")


def pooled(named, name, extra=None, floors=None, again=None):
    """One document of several sessions of one design ({name: document}): every round of every session, renumbered
    in turn, each naming its session and its round there; every median and ratio again from all of them, so that an
    interval covers every round of every session. extra(sessions) gives what the design adds of its own and the modes
    it leaves out, with why ({mode: why}). floors: {name: noise-floor document} of the same sessions, pooled alike
    into the document's "floor" (what its verdicts are judged against); again: {name: document} of other sessions,
    kept apart ("again": does a session outside the pool land inside its intervals?). Refused unless the sessions are
    independent runs of one design."""
    sessions = sorted(named.items(), key=lambda item: item[1]["timestamp"])
    refuse_unpoolable(sessions)
    added, left_out = extra(sessions) if extra else ({}, {})
    first = sessions[0][1]
    every = [{key(c) for c in d["cells"]} for _, d in sessions]
    cells = [{k: v for k, v in c.items() if k in COORDINATES} | {"rounds": []} for c in first["cells"]
             if c["mode"] not in left_out and all(key(c) in keys for keys in every)]
    offset = 0
    for session, document in sessions:
        mine = {key(c): c for c in document["cells"]}
        for cell in cells:
            cell["rounds"] += [{**r, "round": offset + index, "session": session,
                                "session_round": r.get("round", index)}
                               for index, r in enumerate(mine[key(cell)]["rounds"], start=1)]
        offset += document["rounds"]
    whole = {**{k: v for k, v in first.items() if k not in ("name", "cells", sealing.AMENDED)},
             "name": name, "commit": ", ".join(dict.fromkeys(d["commit"] for _, d in sessions)),
             "timestamp": sessions[-1][1]["timestamp"], "rounds": offset,
             "modes": [mode for mode in first["modes"] if mode not in left_out],
             "sessions": [{"name": session, "commit": d["commit"], "timestamp": d["timestamp"], "rounds": d["rounds"]}
                          for session, d in sessions], "left_out": left_out, **added, "cells": cells}
    whole["cells"] = with_ratios(whole)
    if floors:
        floor = pooled(floors, f"{name}: the floor")
        refuse_unmatched_floor(whole, floor)
        whole["floor"] = {k: v for k, v in floor.items() if k not in ("environment", "explanation")}
    if again:
        whole["again"] = [held_out(whole, session, document) for session, document in sorted(
            again.items(), key=lambda item: item[1]["timestamp"])]
    return whole


def held_out(whole, name, document):
    """Another session of the design, kept apart from the pool (its cells that the pool has): what it gave, to be
    set beside the pooled intervals."""
    if document.get("design") != whole["design"] or name in {s["name"] for s in whole["sessions"]}:
        sys.exit(f"pool: {name} is not another session of {whole['design']}")
    keys = {key(c) for c in whole["cells"]}
    return {"name": name, "commit": document["commit"], "timestamp": document["timestamp"],
            "compared": document["compared"], "reference": document["reference"],
            "cells": [c for c in document["cells"] if key(c) in keys]}


def ratio(cell, key):
    """A cell's ratio of one figure to its reference cell (None where the document measured no reference: a map of
    v2 alone has no v1 to divide by)."""
    return cell.get("ratios", {}).get(key)


def same_forks(document):
    """Where a document says its rounds are forks and two rounds of a cell name one JVM start of a service (their
    "fork": each service's process_start_time_seconds; rounds before it was kept name none)."""
    if not document.get("forks"):
        return []
    found = []
    for c in document["cells"]:
        starts = [(r["fork"][service]["started"], service) for r in c["rounds"] if r.get("fork")
                  for service in r["fork"] if isinstance(r["fork"][service], dict) and r["fork"][service].get("started")]
        if len(starts) != len(set(starts)):
            found.append(f"{c['build']}, {variant_name(c['mode'], c['size'])}: two rounds name one start of a service,"
                         " though its rounds are forks")
    return found


def consistency(document):
    """Where a cell document's ratios (and its floor's, and those of each session kept apart) are not what its rounds
    give, or its forks are not ([] when none is)."""
    return [f"{c['build']}, {variant_name(c['mode'], c['size'])}: {key} not what its rounds give"
            for c, again in zip(document["cells"], with_ratios(document))
            for key in DERIVED if c.get(key) != again.get(key)] + same_forks(document) \
        + [f"floor: {problem}" for problem in (consistency(document["floor"]) if "floor" in document else [])] \
        + [f"{session['name']}: {problem}" for session in document.get("again", ()) for problem in consistency(session)]


def compared(document):
    """[(what a row names, reference cell, [other cells])]: the cells that differ on the compared axis alone, each
    set with its reference first, in the order measured."""
    axis, cells = document["compared"], document["cells"]
    found = []
    for cell in cells:
        if cell[axis] != document["reference"]:
            continue
        others = [c for c in cells if c is not cell and reference_of(c, cells, axis, document["reference"]) is cell]
        if axis == MODE:
            name = NAMES.get(cell["build"], cell["build"]) if cell["size"] == sizes.NO_LIMIT else \
                f"{cell['build']} {variant_name('', cell['size'])}"
        else:
            name = variant_name(cell["mode"], cell["size"])
        found.append((name, cell, others))
    return found


def sides(document):
    """The values of the compared axis, reference first."""
    axis = document["compared"]
    return list(dict.fromkeys([document["reference"], *(c[axis] for c in document["cells"])]))


def shown(value, fmt):
    if value is None:
        return "–"
    return ("yes" if value else "no") if isinstance(value, bool) else fmt.format(value)


def table(document):
    """Per set of compared cells and figure: each side's rounds, and each side over the reference as the median of
    the rounds' own ratios."""
    axis, names = document["compared"], sides(document)
    reference, others = names[0], names[1:]
    rows = [["build" if axis == MODE else "mode and size", "figure", *(f"{side} (each round)" for side in names),
             *(f"{side} / {reference}: the median of the rounds' ratios (lowest–highest)" for side in others)]]
    for name, base, cells in compared(document):
        by_side = {base[axis]: base, **{c[axis]: c for c in cells}}
        for key, figure, fmt, with_ratio in FIGURES:
            if all(r.get(key) is None for c in by_side.values() for r in c["rounds"]):
                continue  # a figure this design does not measure (the proxy's CPU where it is not in the path)
            rounds = [", ".join(shown(r.get(key), fmt) for r in by_side[s]["rounds"]) if s in by_side else "–"
                      for s in names]
            ratios = [documents.ratio_text(by_side[s].get("ratios", {}).get(key)) if with_ratio and s in by_side
                      else "–" for s in others]
            rows.append([name, figure, *rounds, *ratios])
    return rows


def floor_build(document, cell):  # the build whose floor judges a cell: the reference build, or an A/B's own build
    return cell["build"] if document["compared"] == MODE else document["reference"]


def sessions_of(document):  # the names of its sessions in time order ([""] for one not pooled)
    return [session["name"] for session in document.get("sessions", ())] or [""]


def in_session(cell, key, session, ratio=False):
    """{median, low, high} of one figure (or of its ratio to the reference) over a session's rounds of a cell."""
    values = cell["ratios"][key]["rounds"] if ratio else [r.get(key) for r in cell["rounds"]]
    return vars(results.Figure.of("", [value for r, value in zip(cell["rounds"], values)
                                       if r.get("session", "") == session]))
