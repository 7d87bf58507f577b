"""What a comparison decides: an estimate of a cell's ratio to its reference, a 95 % interval for it, and one of four
words, read off the interval against one equivalence margin.

- The estimate is the geometric mean of the cell's independent ratios: its forks' (every round from cold JVMs), or,
  where its rounds share a start, one ratio per session (the geometric mean of that session's rounds).
- The interval: with two sessions or more, a random-effects interval over the sessions' means, on the log scale,
  whose variance is pooled over the document's cells of the same figure (a session is a level of variance of its
  own: a machine, an hour, a start of everything, so it is sampled as one, Kalibera and Jones 2013); with one session
  of forks, a t-interval over its forks' log ratios, pooled alike. The pooled variance is the estimate of one spread
  from every cell at once: its degrees of freedom add up over the cells, so two sessions of four cells have four.
  A hierarchical bootstrap is not used: with the handful of sessions a run here has, it cannot reach beyond the
  sessions it resamples, and its interval is too narrow (core.simulate.missed: it left the true effect out about three
  times as often as it should with two sessions, where this one keeps its 95 %).
- The words (the interval against MARGIN):
  ahead / behind: the interval lies wholly beyond the margin, on the better / worse side;
  level: the interval lies wholly inside the margin (equivalence, as two one-sided tests show it);
  undecided: any other case, shown with the smallest effect its forks could have called ahead (DETECTABLE_POWER).

Everything is on the log scale, where a ratio and its inverse are as far from 1."""
import dataclasses
import functools
import json
import math
import statistics

# The equivalence margin: two builds whose ratio lies within 1/MARGIN–MARGIN are level. Chosen from this machine's
# A/A (v1 against itself, every round a fresh start: noise-floor-55dd71c and -e4bf029): one start's complete
# answers/s lay 0.10 from its session's mean on the log scale (the forks' pooled standard deviation), so an effect
# under 10 % is smaller than what a team sees between two deployments of the same build, and not worth sizing by.
MARGIN = 1.10
CONFIDENCE = 0.95
# how often, at most, the words may say ahead or behind where there is no difference (core.simulate; its tests hold it)
WRONG_AT_MOST = 0.05
# the power at which undecided's detectable effect is given: the effect these forks would call ahead 4 times in 5
DETECTABLE_POWER = 0.80
AHEAD, LEVEL, BEHIND, UNDECIDED = "ahead", "level", "behind", "undecided"
WORDS = (AHEAD, LEVEL, BEHIND, UNDECIDED)


@dataclasses.dataclass(frozen=True)
class Interval:
    """A cell's estimate (a ratio), its interval, and what they rest on."""
    estimate: float
    low: float
    high: float
    units: int  # the independent ratios it rests on: forks, or sessions where a session's rounds share a start
    sessions: int
    df: int  # the degrees of freedom of the pooled spread
    standard_error: float  # of the log estimate
    method: str  # "sessions" (random effects over the sessions' means) or "forks" (one session's forks)


def word(interval, higher_is_better=True, margin=MARGIN):
    """The interval's word against the margin (see the module's text); undecided where there is none."""
    if interval is None:
        return UNDECIDED
    better = interval.low > margin if higher_is_better else interval.high < 1 / margin
    worse = interval.high < 1 / margin if higher_is_better else interval.low > margin
    if better:
        return AHEAD
    if worse:
        return BEHIND
    return LEVEL if 1 / margin < interval.low and interval.high < margin else UNDECIDED


def detectable(interval, margin=MARGIN):
    """The smallest ratio (above 1) that an interval of this spread would lie wholly beyond the margin for, with
    DETECTABLE_POWER: what undecided's forks could have told apart."""
    if interval is None:
        return None
    quantile = t_quantile(1 - (1 - CONFIDENCE) / 2, interval.df)
    power = t_quantile(DETECTABLE_POWER, interval.df)
    return math.exp(math.log(margin) + (quantile + power) * interval.standard_error)


def predicted(interval):
    """(low, high): where the next independent unit (a session's mean, or a fork) should land, at CONFIDENCE: the
    interval's estimate with the pooled spread of one unit added to the estimate's own error."""
    quantile = t_quantile(1 - (1 - CONFIDENCE) / 2, interval.df)
    half = quantile * interval.standard_error * math.sqrt(1 + interval.units)
    middle = math.log(interval.estimate)
    return math.exp(middle - half), math.exp(middle + half)


def units_by_session(rounds, ratios, forked):
    """{session: [log ratio of each independent unit]}: every round where the rounds are forks, else one unit per
    session, the mean of its rounds' logs (rounds on one start are not independent of each other)."""
    found = {}
    for measured, value in zip(rounds, ratios):
        if value:
            found.setdefault(measured.get("session", ""), []).append(math.log(value))
    return found if forked else {session: [statistics.fmean(values)] for session, values in found.items()}


def intervals(cells, confidence=CONFIDENCE):
    """{name: Interval or None} of cells that share one spread ({name: {session: [log ratios]}}, as
    units_by_session gives them): random effects over session means where the cells have two sessions or more, else
    a t-interval over one session's units; None where a cell has too little to estimate from, or the pooled spread
    has no degrees of freedom."""
    multi = {name: found for name, found in cells.items() if len(found) >= 2}
    if multi:
        result = pooled({name: [statistics.fmean(units) for units in found.values()] for name, found in multi.items()},
                        confidence=confidence)
        return {name: result.get(name) for name in cells}
    single = {name: next(iter(found.values())) for name, found in cells.items() if found}
    result = pooled(single, method="forks", confidence=confidence) if single else {}
    return {name: result.get(name) for name in cells}


def pooled(groups, method="sessions", confidence=CONFIDENCE):
    """{name: Interval}: each group's mean (on the log scale) with a t-interval whose variance is pooled over every
    group ({name: [values]}; a group of one value adds no degree of freedom but is given one too)."""
    df = sum(len(values) - 1 for values in groups.values())
    if df < 1:
        return {name: None for name in groups}
    spread = math.sqrt(sum((v - statistics.fmean(values)) ** 2 for values in groups.values() for v in values) / df)
    quantile = t_quantile(1 - (1 - confidence) / 2, df)
    found = {}
    for name, values in groups.items():
        mean, error = statistics.fmean(values), spread / math.sqrt(len(values))
        found[name] = Interval(math.exp(mean), math.exp(mean - quantile * error), math.exp(mean + quantile * error),
                               len(values), len(values) if method == "sessions" else 1, df, error, method)
    return found


def best_length(forking_s, measuring_s, run_spread, fork_spread):
    """Kalibera and Jones's balance of a two-level experiment ("Rigorous benchmarking in reasonable time", 2013): the
    measured part of a fork, as a multiple of today's, that gives the narrowest interval for the time spent. A fork
    costs forking_s (its start, warm-up and background) and measuring_s (its measured phases); run_spread is the
    spread of a measured run's log ratio among runs of the same forks (runs one after another on one start),
    fork_spread among forks. The spread a fork adds of its own is T² = fork² − run²; with a budget B, forks B / (c_f +
    L c_m) and a fork's variance T² + run² / L, the interval is narrowest at L = √(c_f run² / (c_m T²)). Below 1:
    measure shorter and fork more; above 1: measure longer in fewer forks. None where forks add nothing measurable
    (T² ≤ 0): longer runs win until the runs' own spread is gone."""
    added = fork_spread ** 2 - run_spread ** 2
    if added <= 0 or measuring_s <= 0:
        return None
    return math.sqrt(forking_s * run_spread ** 2 / (measuring_s * added))


# The spreads a rule is sized by, read off published summaries (simulate draws from them)

def log_ratios(cell, session=None):
    """The log of each round's ratio on complete answers/s of a cell (of one session's rounds, where named)."""
    ratios = (cell.get("ratios") or {}).get("complete_per_s", {}).get("rounds", ())
    return [math.log(v) for r, v in zip(cell["rounds"], ratios) if v and session in (None, r.get("session", ""))]


def pooled_within(groups):
    """(the standard deviation pooled within groups of values, its degrees of freedom); (None, 0) without any
    group of two."""
    squares, df = 0.0, 0
    for values in groups:
        if len(values) > 1:
            squares += sum((v - statistics.fmean(values)) ** 2 for v in values)
            df += len(values) - 1
    return (math.sqrt(squares / df) if df else None), df


def measured_spread(floors):
    """(between sessions, between forks): the standard deviations of the A/A's log ratio on complete answers/s, from
    noise-floor documents ({name: document}, every round a fork): the forks' pooled within their sessions; the
    sessions' from the spread of their means, less what the forks put into a mean (never below 0)."""
    groups = [(document.get("where", ""), cell["size"], log_ratios(cell))
              for document in floors.values() for cell in document["cells"]]
    groups = [group for group in groups if len(group[2]) > 1]
    fork, _ = pooled_within([values for *_, values in groups])
    by_size = {}
    for where, size, values in groups:
        by_size.setdefault((where, size), []).append(statistics.fmean(values))
    between, between_df = pooled_within(by_size.values())
    forks = statistics.fmean(len(values) for *_, values in groups)
    session = math.sqrt(max(0.0, between ** 2 - fork ** 2 / forks)) if between_df else 0.0
    return session, fork


def published(directory, design):
    """{name: summary} of a directory of published summaries that measured a design (their names begin with it)."""
    found = {path.stem: json.loads(path.read_text()) for path in sorted(directory.glob(f"{design}*.json"))}
    return {name: d for name, d in found.items() if d.get("design") == design}


def published_spread(directory):
    """measured_spread of every noise-floor summary in a directory of published summaries."""
    return measured_spread(published(directory, "noise-floor"))


def run_spread(maps):
    """The standard deviation of a measured run's log ratio on complete answers/s among the runs of the same forks,
    pooled within each cell: from CPU maps that measured every round on one start of each build (no "forks"), the
    only published runs that share their JVMs (v1's cells, over themselves, left out)."""
    return pooled_within([log_ratios(cell) for document in maps.values() if not document.get("forks")
                          for cell in document["cells"] if cell["build"] != "v1"])[0]


def published_run_spread(directory):
    """run_spread of every published CPU map."""
    return run_spread(published(directory, "cpu-map"))


def fork_spread(documents, cell_of_a_a):
    """The standard deviation of the A/A's log ratio among the forks of one session, pooled over the sessions and
    sizes of documents whose every round is a fork: their A/A's cells (cell_of_a_a(cell): whether a cell is one)."""
    return pooled_within([log_ratios(cell, session) for document in documents for cell in document["cells"]
                          if cell_of_a_a(cell)
                          for session in dict.fromkeys(r.get("session", "") for r in cell["rounds"])])[0]


def published_sessions(directory, design):
    """published of a design, of one session each (no round names the session it came from): a pooled summary's
    rounds are its sessions' own again."""
    return {name: d for name, d in published(directory, design).items()
            if not any("session" in r for c in d["cells"] for r in c["rounds"])}


def costs(documents):
    """{what: (its median seconds, how many rounds kept it)} of what the forked rounds of these documents spent
    (design.measure_rounds: "spent_s": forking, measuring, and where a quota was lifted for the warm-up,
    warming_without_quota and warming_under_quota); {} where none kept any."""
    kept = {}
    for spent in (r.get("spent_s") or {} for d in documents for c in d["cells"] for r in c["rounds"]):
        for what, seconds in spent.items():
            if seconds is not None:
                kept.setdefault(what, []).append(seconds)
    return {what: (statistics.median(seconds), len(seconds)) for what, seconds in kept.items()}


def balance(run, fork, spent):
    """What Kalibera and Jones's balance says of these spreads (of runs on one start, of forks) and costs (costs):
    {run_spread, fork_spread, forking_s, measuring_s, best_length, spent} (best_length None where forks add nothing
    measurable, or no costs were kept)."""
    forking, measuring = ((spent[what][0] if what in spent else None) for what in ("forking", "measuring"))
    length = best_length(forking, measuring, run, fork) if forking is not None and run and fork else None
    return {"run_spread": run, "fork_spread": fork, "forking_s": forking, "measuring_s": measuring,
            "best_length": length, "spent": spent}


def balance_said(found):
    """One line of what the balance says."""
    def spread(value):  # none where fewer than two runs, or forks, were there to spread (make answer's first round)
        return "not yet known" if value is None else f"{value:.3f}"
    said = (f"Kalibera and Jones: runs on one start spread {spread(found['run_spread'])}, forks "
            f"{spread(found['fork_spread'])} (log ratio)")
    if found["forking_s"] is None:
        return said + "; no round kept its costs yet"
    said += f"; a fork costs {found['forking_s']:.0f} s to start and warm, {found['measuring_s']:.0f} s to measure"
    if found["best_length"] is None:
        return said + ": forks add nothing measurable beyond the runs' own spread, so longer runs in fewer forks"
    return said + f": the narrowest interval for the time measures {found['best_length']:.2f}× as long per fork"


@functools.lru_cache(maxsize=None)
def t_quantile(p, df):
    """The p-quantile of Student's t with df degrees of freedom (bisection on its distribution function)."""
    low, high = -1e3, 1e3
    for _ in range(200):
        middle = (low + high) / 2
        low, high = (middle, high) if t_cdf(middle, df) < p else (low, middle)
    return (low + high) / 2


def t_cdf(t, df):
    """Student's t distribution function, from the regularized incomplete beta function."""
    tail = 0.5 * incomplete_beta(df / 2, 0.5, df / (df + t * t))
    return 1 - tail if t > 0 else tail


def incomplete_beta(a, b, x):
    """The regularized incomplete beta function I_x(a, b), by its continued fraction (Lentz's method), on whichever
    side of the mean it converges fast."""
    if x <= 0 or x >= 1:
        return 0.0 if x <= 0 else 1.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x))
    if x > (a + 1) / (a + b + 2):
        return 1 - incomplete_beta(b, a, 1 - x)
    tiny, c, d = 1e-300, 1.0, 1 - (a + b) * x / (a + 1)
    d = 1 / (d if abs(d) > tiny else tiny)
    fraction = d
    for m in range(1, 300):
        for numerator in (m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
                          -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))):
            d = 1 + numerator * d
            d = 1 / (d if abs(d) > tiny else tiny)
            c = 1 + numerator / c
            c = c if abs(c) > tiny else tiny
            fraction *= c * d
        if abs(c * d - 1) < 1e-15:
            break
    return front * fraction / a
