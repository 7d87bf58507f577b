"""Each knob has one default, declared once (knobs.py): every knob the harness reads is declared, every declared knob
is read, and nothing outside knobs.py reads a setting of a user's from the environment itself."""
import re

from benchkit import ROOT
from benchkit.core import knobs

HARNESS = [path for path in (ROOT / "scripts" / "benchkit").rglob("*.py") if "tests" not in path.parts]
# Read from the environment outside knobs.py, and why: plumbing one script hands the next, and the load's own
# settings, whose defaults load/scenarios.json holds (load.setting).
ELSEWHERE = {"LOCAL_DIR", "NODE_DIR", "NODE_PROCESSES", "RATE"}


def knobs_read():
    return {name for path in HARNESS
            for name in re.findall(r"(?:knobs\.value|numbers)\(\s*[\"']([A-Z][A-Z0-9_]+)[\"']", path.read_text())}


def test_every_knob_read_is_declared_and_every_declared_knob_is_read():
    assert knobs_read() - set(knobs.BY_NAME) == set(), "read but not declared in knobs.py"
    assert set(knobs.BY_NAME) - knobs_read() == set(), "declared in knobs.py and never read"
    assert len(knobs.BY_NAME) == len(knobs.KNOBS), "a knob declared twice"


def test_nothing_else_reads_a_users_setting_from_the_environment():
    found = {}
    for path in HARNESS:
        if path.name != "knobs.py":
            text = path.read_text()
            for name in re.findall(r"environ(?:\.get)?\(\s*[\"']([A-Z][A-Z0-9_]+)[\"']", text) + \
                    re.findall(r"[\"']([A-Z][A-Z0-9_]+)[\"'] (?:not )?in os\.environ", text):
                found.setdefault(name, path.name)
    assert set(found) - ELSEWHERE == set(), f"read outside knobs.py: {found}"


def test_a_knob_is_its_default_unless_given_and_parsed_when_given():
    assert knobs.value("RUNS", {}) == 3 and knobs.value("RUNS", {"RUNS": "5"}) == 5
    assert knobs.value("LATENCY_JITTER", {"LATENCY_JITTER": ""}) == 0.1  # empty: not given
    assert knobs.value("LOAD_IMAGE", {}) is None
    assert knobs.rows("ab")[1][:2] == ["`AB_ITERATIONS`", "150"]
