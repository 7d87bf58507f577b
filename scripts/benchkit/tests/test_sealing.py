"""A published summary is sealed at its first commit in its present form (sealing): the measured figures a kind's own
consistency cannot recompute, edited, fail the figures check unless an amendment names the commit, why, and the
paths; each tampering of the review that found the gap is caught. Needs the repository's history (a clone has it)."""
import copy
import json

import pytest

from benchkit import ROOT
from benchkit.publish import since
from benchkit.core import sealing

RESULTS = ROOT / "docs" / "results"


def known(commit):
    return since.known(ROOT, commit)


def published(name):
    path = RESULTS / f"{name}.json"
    summary = json.loads(path.read_text())
    first = since.first_alike(ROOT, path, sealing.alike(summary))
    if first is None:
        pytest.skip(f"{path.name} has no committed history here")
    return summary, first


def test_every_published_summary_is_what_it_was_or_says_why():
    for path in sorted(RESULTS.glob("*.json")):
        summary = json.loads(path.read_text())
        assert sealing.problems(summary, since.first_alike(ROOT, path, sealing.alike(summary)), known) == [], path.name


@pytest.mark.parametrize("name, change", [
    # a latency-map cell's degraded count (1,655 → 1,700), and its shed count lowered
    ("map-6cfbdd4", lambda s: s["cells"][91]["rounds"][0].update(degraded=1700)),
    ("map-6cfbdd4", lambda s: s["cells"][91]["rounds"][0].update(shed=0)),
    # a chaos run's recovery seconds (7.9 → 9.9), which the docs render
    ("chaos-bfcef8a", lambda s: s["faults"][0].update(recovery_seconds=9.9)),
    # every round of one session marked unsettled
    ("cpu-map-node-9579bff", lambda s: [r.update(settled=False) for c in s["cells"] for r in c["rounds"]]),
])
def test_a_measured_figure_edited_after_its_first_commit_is_caught(name, change):
    summary, first = published(name)
    edited = copy.deepcopy(summary)
    change(edited)
    problems = sealing.problems(edited, first, known)
    assert problems and "is not what it was when first committed" in problems[0], problems


def test_an_amendment_must_name_a_known_commit_why_and_the_paths_it_covers():
    summary, first = published("chaos-bfcef8a")
    edited = copy.deepcopy(summary)
    edited["faults"][0]["recovery_seconds"] = 9.9
    why = "recovery counted from the fault's end, not its start"
    edited[sealing.AMENDED] = [{"commit": first[0][:7], "why": why, "paths": ["faults.0.recovery_seconds"]}]
    assert sealing.problems(edited, first, known) == []
    edited[sealing.AMENDED] = [{"commit": first[0][:7], "why": why, "paths": ["faults.1"]}]
    assert sealing.problems(edited, first, known)  # covers another path
    edited[sealing.AMENDED] = [{"commit": "0badc0de", "why": why, "paths": ["faults.0"]}]
    assert sealing.problems(edited, first, known) == ["an amendment of 0badc0de: no commit of that name"]
    edited[sealing.AMENDED] = [{"commit": first[0][:7], "why": "", "paths": ["faults.0"]}]
    assert sealing.problems(edited, first, known)[0].endswith("says no why or no paths")
