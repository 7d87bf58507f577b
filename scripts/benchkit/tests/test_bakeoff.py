"""The bake-off, history: its published summary is checked as every other (its table from its runs, its verdicts from
their counts; each edit below fails), and no new run of it is published."""
import json

import pytest

from benchkit import ROOT

from benchkit.publish import registry as publishing
from benchkit.publish import bakeoff


def published():
    return json.loads((ROOT / "docs" / "results" / "bakeoff.json").read_text())


def test_the_published_bake_off_is_what_its_runs_give():
    assert bakeoff.consistency(published()) == []
    assert publishing.consistency(published()) == []  # the registry knows it by its schema still


def test_a_changed_figure_a_dropped_run_or_a_flipped_verdict_fails():
    changed = published()
    changed["summary"][0]["cpu_ms_per_request"] *= 0.9  # loadgen's closed cost, typed lower by hand
    assert any("loadgen closed cpu_ms_per_request" in p for p in bakeoff.consistency(changed))
    dropped = published()
    dropped["runs"] = [r for r in dropped["runs"] if not (r["round"] == 2 and r["generator"] == "vegeta")]
    assert any("not every candidate" in p for p in bakeoff.consistency(dropped))
    flipped = published()
    flipped["coordinated_omission"]["loadgen"]["hid_the_stall"] = 3
    assert bakeoff.consistency(flipped) == ["coordinated omission loadgen: the verdict is not what its counts give"]


def test_the_doc_s_table_shows_each_candidate_once_per_model():
    rows = bakeoff.table(published())
    assert [(r[0].split()[0], r[1]) for r in rows[1:]] == [
        ("wrk", "closed"), ("loadgen", "closed"), ("vegeta", "closed"), ("loadgen", "open, 300/s"), ("vegeta", "open, 300/s")]


def test_a_bake_off_run_is_not_published_any_more(tmp_path):
    run = tmp_path / "bakeoff.json"
    run.write_text(json.dumps(published()))
    with pytest.raises(SystemExit, match="history"):
        publishing.publish(run, "bakeoff-again", tmp_path)
    assert not (tmp_path / "bakeoff-again.json").exists()
