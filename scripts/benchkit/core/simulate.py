"""How often a rule's word is right, on synthetic forks: `python -m benchkit simulate` prints it, the tests hold it.

A cell's log ratio in fork f of session s is log(effect) + b_s + e_sf: b_s the session's own shift (a machine, an hour,
a start of everything), e_sf the fork's, both normal, with the spreads this machine's A/A measured (decide.measured_spread:
v1 against itself, every round a fork, in the published noise floors). A table pools its spread over CELLS cells of
one figure, so each trial draws that many, and judges the first.

Two rules are run on the same draws:
- decide (core.decide, the rule the tables use): the random-effects interval over the sessions' means against the
  equivalence margin;
- the rule before it (extremes): the A/A's farthest round as a band either side of 1, and ahead only where the
  cell's lowest round lies beyond it; no word from fewer than 2 sessions or 6 rounds, and "sessions disagree" where two
  sessions' ranges do not overlap. Kept here alone, to show why it went;
- decide's interval over the forks of one session, and a hierarchical bootstrap: the two other ways, and why neither is
  the answer's."""
import functools
import math
import random
import statistics

from benchkit.core import decide
from benchkit.core.cells import A_A

CELLS = 4  # the compared cells of one figure in an answer table (v2 and v3 over v1, at two sizes)
EFFECTS = (1.0, 1.05, 1.3, 1.5)
SESSIONS = (2, 4, 8, 16, 32)  # each of FORKS forks: the data grows session by session, as runs are added
FORKS = 3
TRIALS = 2000
DISAGREE = "sessions disagree"
ONE_SESSION = "decide, all in one session"
BOOTSTRAP = "hierarchical bootstrap"
BOOTSTRAP_RESAMPLES = 200
BOOTSTRAP_SESSIONS = SESSIONS[:3]  # resampling is slow in Python: the few sessions where it matters


def draw(rng, effect, sessions, forks, session_spread, fork_spread):
    """{session: [log ratio of each fork]} of one cell."""
    found = {}
    for s in range(sessions):
        shift = rng.gauss(0, session_spread)
        found[s] = [math.log(effect) + shift + rng.gauss(0, fork_spread) for _ in range(forks)]
    return found


def decide_rule(rng, effect, sessions, forks, session_spread, fork_spread):
    cells = {i: draw(rng, effect if i == 0 else 1.0, sessions, forks, session_spread, fork_spread)
             for i in range(CELLS)}
    return decide.word(decide.intervals(cells)[0])


def extremes_rule(rng, effect, sessions, forks, session_spread, fork_spread):
    """The rule before core.decide, on the same kind of draws (the cell, and the A/A as its floor)."""
    cell = draw(rng, effect, sessions, forks, session_spread, fork_spread)
    floor = draw(rng, 1.0, sessions, forks, session_spread, fork_spread)
    if sessions < 2 or sessions * forks < 6:
        return decide.UNDECIDED
    if max(min(v) for v in cell.values()) > min(max(v) for v in cell.values()):
        return DISAGREE
    farthest = max(abs(v) for values in floor.values() for v in values)
    every = [v for values in cell.values() for v in values]
    if min(every) > farthest:
        return decide.AHEAD
    return decide.BEHIND if max(every) < -farthest else decide.LEVEL


def one_session_rule(rng, effect, sessions, forks, session_spread, fork_spread):
    """decide's interval on one session of sessions × forks forks: a t-interval over forks, which cannot see the
    session's own shift (why a published word rests on QUOTED_SESSIONS sessions)."""
    cells = {i: draw(rng, effect if i == 0 else 1.0, 1, sessions * forks, session_spread, fork_spread)
             for i in range(CELLS)}
    return decide.word(decide.intervals(cells)[0])


def bootstrap_interval(rng, cell, resamples=BOOTSTRAP_RESAMPLES):
    """A hierarchical bootstrap's 95 % interval of a cell ({session: [log ratios]}): sessions resampled, then forks
    within each (Kalibera and Jones's other way)."""
    found = list(cell.values())
    means = sorted(statistics.fmean(statistics.fmean(rng.choice(picked) for _ in picked)
                                    for picked in (rng.choice(found) for _ in found)) for _ in range(resamples))
    tail = int((1 - decide.CONFIDENCE) / 2 * resamples)
    middle = statistics.fmean(v for values in found for v in values)
    return decide.Interval(math.exp(middle), math.exp(means[tail]), math.exp(means[-1 - tail]),
                           sum(map(len, found)), len(found), len(found) - 1, 0.0, "bootstrap")


def bootstrap_rule(rng, effect, sessions, forks, session_spread, fork_spread):
    """The bootstrap's interval against the same margin: why core.decide does not use it while sessions are few."""
    return decide.word(bootstrap_interval(rng, draw(rng, effect, sessions, forks, session_spread, fork_spread)))


def missed(how, effect, sessions, session_spread, fork_spread, trials=TRIALS, seed=1):
    """How often an interval ("decide" or BOOTSTRAP) of a cell leaves the true effect out."""
    rng = random.Random(f"{seed}-missed-{how}-{effect}-{sessions}")
    misses = 0
    for _ in range(trials):
        cells = {i: draw(rng, effect if i == 0 else 1.0, sessions, FORKS, session_spread, fork_spread)
                 for i in range(CELLS)}
        found = bootstrap_interval(rng, cells[0]) if how == BOOTSTRAP else decide.intervals(cells)[0]
        misses += not found.low <= effect <= found.high
    return misses / trials


RULES = {"decide": decide_rule, "extremes": extremes_rule, ONE_SESSION: one_session_rule, BOOTSTRAP: bootstrap_rule}


@functools.lru_cache(maxsize=None)
def shares(rule, effect, sessions, forks, session_spread, fork_spread, trials=TRIALS, seed=1):
    """{word: share of trials} of a rule at a true effect, with that much data (the same draws for the same seed)."""
    rng = random.Random(f"{seed}-{rule}-{effect}-{sessions}-{forks}")
    words = [RULES[rule](rng, effect, sessions, forks, session_spread, fork_spread) for _ in range(trials)]
    return {word: words.count(word) / trials for word in (*decide.WORDS, DISAGREE)}


def decided_share(found):
    return found[decide.AHEAD] + found[decide.BEHIND] + found[decide.LEVEL]


def table(session_spread, fork_spread, trials=TRIALS):
    """Rows of each rule at each effect and amount of data: the shares of ahead, level, behind, undecided and
    (the old rule) sessions disagree."""
    rows = [["rule", "true effect", "sessions × forks", "ahead", "level", "behind", "undecided", DISAGREE]]
    for rule in RULES:
        for effect in EFFECTS:
            for sessions in BOOTSTRAP_SESSIONS if rule == BOOTSTRAP else SESSIONS:
                found = shares(rule, effect, sessions, FORKS, session_spread, fork_spread, trials)
                rows.append([rule, f"{effect:.2f}", f"1 × {sessions * FORKS}" if rule == ONE_SESSION
                             else f"{sessions} × {FORKS}",
                             *(f"{found[w]:.1%}" for w in (decide.AHEAD, decide.LEVEL, decide.BEHIND,
                                                            decide.UNDECIDED, DISAGREE))])
    return rows


def main(args):
    """Prints the table at this machine's measured spread (the published noise floors)."""
    from benchkit import ROOT
    from benchkit.core.documents import markdown_table
    session_spread, fork_spread = decide.published_spread(ROOT / "docs" / "results")
    trials = int(args[0]) if args else TRIALS
    print(f"this machine's A/A: {session_spread:.3f} between sessions, {fork_spread:.3f} between forks (log ratio); "
          f"margin {decide.MARGIN:g}, {trials} trials each, {CELLS} cells pooled")
    print(markdown_table(table(session_spread, fork_spread, trials)))
    # the balance make answer prints, over every published session of it: its A/A's forks, its costs
    answers = decide.published_sessions(ROOT / "docs" / "results", "answer").values()
    forks = decide.fork_spread(answers, lambda cell: cell["build"] == A_A)
    print(decide.balance_said(decide.balance(decide.published_run_spread(ROOT / "docs" / "results"), forks,
                                             decide.costs(answers))))
