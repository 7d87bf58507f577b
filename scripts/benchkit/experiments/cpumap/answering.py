"""make answer: the CPU map at the sizes whose quota binds on the platform, and the whole machine, every round a fork
of every build, with the A/A (v1 again) and the floor (v0, where it runs) in the same forks; at each size, rounds are
added while a cell the answer quotes is undecided, up to ANSWER_LOOKS looks at the data or its share of
ANSWER_MINUTES. The looks are fixed before the first round and the document says how many: every interval is at
1 - 5 %/looks (Bonferroni), so that however early it stops, a word is wrong at most as often as one look's.

A word rests on two sessions (verdicts.QUOTED_SESSIONS): a first run can only narrow its intervals; ANSWER_WITH names
earlier runs, an hour apart or more, which each look pools with this one. The end prints the table, the cells still
undecided with what their forks could have told apart, and the command that would decide them."""
import dataclasses
import json
import time

from benchkit import BASELINE, ROOT, info
from benchkit.core import cells as celldoc, decide, verdicts
from benchkit.core.sizes import LADDER, NO_LIMIT, binds, label
from benchkit.core.verdicts import QUOTED_FIGURES, quoted, undecided
from benchkit.schemas.cpumap import POOLED



def sizes_binding(cores, wanted=LADDER):
    """The answer's rows on a platform of this many cores: the ladder's sizes whose quota binds, and no limit (of
    those wanted: CPU_MAP_SIZES, where given)."""
    return tuple(size for size in (*(s for s in LADDER if s != NO_LIMIT and binds(s, cores)), NO_LIMIT)
                 if size in wanted)


def earlier_sessions(spec):
    return {path.name: json.loads((path / "answer.json").read_text()) for path in spec.answer_with}


def design_of(the_map, spec, began):
    """The map as make answer measures it: named "answer", the A/A in its forks, rounds added at a size while a
    quoted cell is undecided (again), ANSWER_LOOKS looks in all."""
    earlier = earlier_sessions(spec)

    def again(document, size):
        return {""} if keep_going(document, size, earlier, spec, began) else set()
    return dataclasses.replace(the_map, name="answer", title="The answer", a_a=True, again=again,
                               extra_rounds=max(0, spec.answer_looks - 1))


def keep_going(document, size, earlier, spec, began):
    """A look at a size: each quoted cell's interval and word so far, and the time left at this size; whether to add a
    round (a quoted cell undecided, and time left)."""
    found = celldoc.so_far(earlier, document)
    spent = (time.monotonic() - began) / 60
    budget = spec.answer_minutes * (spec.sizes.index(size) + 1) / len(spec.sizes)
    for version in quoted(found):
        cell = celldoc.cell_of(found, version, size=size)
        info(f"look at {label(size)}: {version} / {BASELINE} " + "; ".join(
            f"{celldoc.LABELS[key]} {verdicts.decided(found, cell, key)}" for key in QUOTED_FIGURES))
    info(f"{max(0.0, budget - spent):.0f} min left at {label(size)}"
         + (", one session: words need another an hour apart (ANSWER_WITH)" if not earlier else ""))
    return bool(undecided(found, size)) and spent < budget


def as_typed(path):
    """A results directory as a user types it where make runs (the checkout's root), else as it is."""
    return str(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path)


def conclude(data, spec, directory):
    """The answer as it stands, pooled with the earlier sessions (answer-pooled.json: its report prints its table),
    the cells still undecided with their detectable effect, and the command that would decide them."""
    found = celldoc.so_far(earlier_sessions(spec), data)
    if spec.answer_with:
        (directory / POOLED).write_text(json.dumps(found, indent=2))
    left = [(size, version, key) for size in spec.sizes for version, key in undecided(found, size)]
    for size, version, key in left:
        info(f"undecided: {version} / {BASELINE} at {label(size)}, {celldoc.LABELS[key]}: "
             f"{verdicts.decided(found, celldoc.cell_of(found, version, size=size), key)}")
    if left:
        runs = ",".join(map(as_typed, (*spec.answer_with, directory)))
        target = "answer-cluster" if data.get("where", "").startswith("Kubernetes") else "answer"  # where it measured
        info(f"to decide them, in an hour or more: make {target} ANSWER_WITH={runs}")
    # whether this run's forks were balanced against its measured runs, at its own costs and its A/A's spread
    info(decide.balance_said(verdicts.balance_of(found)))
    return found
