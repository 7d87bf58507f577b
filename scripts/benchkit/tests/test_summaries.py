"""Every committed summary (docs/results/) is of a kind the registry knows and is what its own rounds give; a summary
combined from independent runs is, byte for byte, what combining those runs' committed summaries gives today."""
import json

from benchkit import registry
from benchkit.core.kinds import SUMMARIES
from benchkit.experiments.bench import summaries


def test_every_committed_summary_is_of_a_known_kind_and_consistent():
    files = sorted(SUMMARIES.glob("*.json"))
    found = registry.loaded()
    assert sorted(found) == sorted(path.stem for path in files), "a summary of no kind the registry knows"
    assert {name: registry.consistency(summary) for name, summary in found.items() if registry.consistency(summary)} == {}


def test_a_combined_summary_is_its_runs_combined_again_byte_for_byte():
    found = registry.loaded()
    combined = {name: summary for name, summary in found.items()
                if summary["schema"] == summaries.SCHEMA and isinstance(summary.get("runs"), list)}
    assert combined, "no combined summary to hold"
    for name, summary in combined.items():
        again = summaries.combined({run["name"]: found[run["name"]] for run in summary["runs"]}, name)
        assert json.dumps(again, indent=2) + "\n" == (SUMMARIES / f"{name}.json").read_text(), name
