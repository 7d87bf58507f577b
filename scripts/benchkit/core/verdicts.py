"""What a comparison's cells decide (core.decide, on a cell document of core.cells): each compared cell's estimate, its
95 % interval and its word on every figure a team reads off a comparison, the A/A's calibration of the method in each
session, and why a document's words cannot stand."""
import math

from benchkit import BASELINE, FLOOR, ROOT
from benchkit.core import decide, documents, sizes
from benchkit.core.cells import (A_A, FLOOR_DESIGN, FLOOR_SIDE, LABELS, MODE, builds, cell_of, compared, key,
                                 reference_of, sessions_of, sides)

# what a team reads off a comparison: what a build carries, the latency it gives at a load, what it costs; and which
# way is better for each (True: higher)
VERDICT_FIGURES = ("complete_per_s", "open_p99", "capacity_per_s", "cpu_ms_per_complete_background_off")
HIGHER_IS_BETTER = {"complete_per_s": True, "open_p99": False, "capacity_per_s": True,
                    "cpu_ms_per_complete_background_off": False, "peak_memory_mib": False}


def judged(document):
    """[(what the row names, side, figure's key, its label, side / reference, its verdict)] of every set of compared
    cells and figure of VERDICT_FIGURES that has a ratio: the one verdict every kind of result has (verdict)."""
    return [(name if len(sides(document)) == 2 else f"{name}: {cell[document['compared']]}", cell[document["compared"]],
             figure_key, LABELS[figure_key], cell["ratios"][figure_key], decided(document, cell, figure_key))
            for name, _, cells in compared(document) for cell in cells for figure_key in VERDICT_FIGURES
            if cell.get("ratios", {}).get(figure_key)]


def table(document):
    """Per set of compared cells and figure of VERDICT_FIGURES: side / reference, its interval and its verdict."""
    names = sides(document)
    a, b = names[0], (names[1] if len(names) == 2 else "each")
    return [["build", "figure", f"{b} / {a} (lowest–highest round)", f"{b} against {a}: estimate (95 % interval), word"],
            *([name, figure, documents.ratio_text(ratio), said] for name, _, _, figure, ratio, said in judged(document))]


# A published word rests on this many sessions at least (hours apart, everything started again): one session's
# interval speaks of that session alone, as a session is a level of variance of its own (core.simulate shows how often
# one session's word is wrong about the next).
QUOTED_SESSIONS = 2


def forked(document):
    """Whether a document's rounds are forks, every cell's services started from cold JVMs in every round: design.run
    says so ("forks"); before it did, every design that compared modes restarted every cell (two modes of one build
    cannot run at once), and no other did."""
    return document.get("forks", document["compared"] == MODE)


def confidence_of(document):
    """The confidence of a document's intervals: CONFIDENCE, its error split over the looks a run that measured until
    decided took at it (make answer: "looks", fixed before its first round; Bonferroni, so that however many looks
    were taken, a word is wrong at most as often as one look's)."""
    return 1 - (1 - decide.CONFIDENCE) / max(1, document.get("looks", 1))


def interval(document, cell, figure_key, session=None, confidence=None):
    """decide.Interval of a compared cell's ratio to its reference on one figure, its spread pooled over the
    document's compared cells of that figure (over one session's rounds alone, where one is named); None where it
    has too little to rest on."""
    found = {}
    for c in document["cells"]:
        ratio_ = (c.get("ratios") or {}).get(figure_key)
        if ratio_:
            rounds = [(r, v) for r, v in zip(c["rounds"], ratio_["rounds"])
                      if session is None or r.get("session", "") == session]
            found[key(c)] = decide.units_by_session([r for r, _ in rounds], [v for _, v in rounds], forked(document))
    return decide.intervals(found, confidence or confidence_of(document)).get(key(cell))


# what make answer's looks ask of every quoted cell: what a build carries, and what an answer costs it
QUOTED_FIGURES = ("complete_per_s", "cpu_ms_per_complete_background_off")


def quoted(document):
    """The builds an answer speaks of, each over the baseline: neither the baseline, nor its A/A, nor the floor."""
    return [v for v in builds(document) if v not in (BASELINE, A_A) and v not in FLOOR]


def undecided(document, size):
    """[(build, figure's key)] of the quoted cells at a size whose word is undecided."""
    return [(version, figure) for version in quoted(document) for figure in QUOTED_FIGURES
            if verdict(document, cell_of(document, version, size=size), figure) == decide.UNDECIDED]


def verdict(document, cell, figure_key):
    """A compared cell's word on one figure (decide.word, the better side as HIGHER_IS_BETTER says): undecided where
    it rests on fewer than QUOTED_SESSIONS sessions, or where a session's A/A failed its calibration (refusals)."""
    found = interval(document, cell, figure_key)
    if found is None or found.sessions < QUOTED_SESSIONS or refusals(document):
        return decide.UNDECIDED
    return decide.word(found, HIGHER_IS_BETTER.get(figure_key, True))


def decided(document, cell, figure_key):
    """"1.83× (1.60–2.09) ahead": a compared cell's estimate, its interval and its word (said)."""
    return " ".join(said(document, cell, figure_key))


def said(document, cell, figure_key):
    """("1.83× (1.60–2.09)", "ahead"): the estimate with its interval, and its word; an undecided cell's with the
    smallest effect its starts could have told apart, or why it has no word (("–", …) where it has no interval)."""
    found = interval(document, cell, figure_key)
    if found is None:
        return ("–", "(one start: no interval)") if cell.get("ratios", {}).get(figure_key) else ("–", "")
    word = verdict(document, cell, figure_key)
    if word == decide.UNDECIDED:
        refused = refusals(document)
        word += (": one session" if found.sessions < QUOTED_SESSIONS else f": {refused[0]}"
                 if refused == ["no A/A in the same sessions"] else ": a session's A/A failed" if refused
                 else f", detectable {decide.detectable(found):.2f}× either way")
    return f"{found.estimate:.2f}× ({found.low:.2f}–{found.high:.2f})", word


def a_a_of(document):
    """(the document that holds the A/A, its A/A cells): the document's own (cells.A_A, measured in the same forks: make
    answer), else its noise floor's (the floor's "A again" cells, or a noise-floor document's own); None without."""
    own = [c for c in document["cells"] if c["build"] == A_A]
    if own:
        return document, own
    floor = document.get("floor") or (document if document.get("design") == FLOOR_DESIGN else None)
    return (floor, [c for c in floor["cells"] if c["mode"] == FLOOR_SIDE]) if floor else None


def calibration(document):
    """[(session, size, figure's key, decide.Interval)] of a document's A/A (a_a_of: a build again over itself, every
    round a fork) in each of its sessions on each figure of VERDICT_FIGURES at each size. Each interval must contain
    1: the method, run on no difference, must find none. A session gives one interval per figure and size, so each is
    at 1 - 5 % / their number (Bonferroni): a sound session is refused 5 % of the time at most, where eight intervals
    at 95 % each would refuse a third of them (1 - 0.95⁸)."""
    found = a_a_of(document)
    if not found:
        return []
    source, aa = found
    confidence = 1 - (1 - confidence_of(source)) / max(1, len(aa) * len(VERDICT_FIGURES))
    return [(session, c["size"], figure_key, found)
            for session in sessions_of(source) for figure_key in VERDICT_FIGURES for c in aa
            if (found := interval(source, c, figure_key, session or None, confidence)) is not None]


def order_effect(document):
    """decide.Interval of the A/A's later fork in a round over its earlier one (a_a_of), over every round of every size
    and session (the drawn order puts either side first): where a build measured later in a round gains, this lies
    above 1. None without an A/A."""
    found, values = a_a_of(document), []
    for again in (found or (None, ()))[1]:
        source = found[0]
        reference = reference_of(again, source["cells"], source["compared"], source["reference"])
        for first, second in zip(reference["rounds"] if reference else (), again["rounds"]):
            if first.get("complete_per_s") and second.get("complete_per_s") and first.get("place") != second.get("place"):
                later = second["complete_per_s"] / first["complete_per_s"]
                values.append(math.log(later if second["place"] > first["place"] else 1 / later))
    return decide.pooled({"order": values}, method="forks")["order"] if len(values) > 1 else None


def refusals(document):
    """Why a document's words cannot stand: no A/A measured in its sessions, or each session whose A/A excludes 1 on
    a figure (calibration), as "noise-floor-x: the A/A 1.22× (1.07–1.39) complete answers/s at 0.5 CPU"."""
    found = a_a_of(document)
    if not found:
        return ["no A/A in the same sessions"]
    return [f"{session or found[0].get('name', '')}: the A/A {i.estimate:.2f}× ({i.low:.2f}–{i.high:.2f}) "
            f"{LABELS[figure_key]} at {sizes.label(size)}" for session, size, figure_key, i in calibration(document)
            if not i.low <= 1 <= i.high]




def landed(document, session, cell, figure_key):
    """(where, that session's estimate, the range predicted for it): whether another session, kept apart from the pool,
    landed "inside", "above" or "below" where the pooled sessions predict a next one (decide.predicted); its estimate
    is the geometric mean of its rounds' ratios. None where either has none."""
    found = interval(document, cell, figure_key)
    mine = next((c for c in session["cells"] if key(c) == key(cell)), None)
    values = [math.log(v) for v in ((mine or {}).get("ratios", {}).get(figure_key) or {}).get("rounds", ()) if v]
    if found is None or not values:
        return None
    estimate, (low, high) = math.exp(sum(values) / len(values)), decide.predicted(found)
    return ("above" if estimate > high else "below" if estimate < low else "inside"), estimate, (low, high)


def balance_of(document):
    """Kalibera and Jones's balance of a run's forks: the spread of its A/A's forks within a session, what its rounds
    cost, and the spread of runs on one start, from the published maps that measured their rounds so (the only runs
    that share their JVMs: decide.published_run_spread)."""
    return decide.balance(decide.published_run_spread(ROOT / "docs" / "results"),
                          decide.fork_spread([document], lambda cell: cell["build"] == A_A),
                          decide.costs([document]))
