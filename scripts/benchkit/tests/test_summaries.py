"""Every committed summary (docs/results/) is of a kind the registry knows and is what its own rounds give; a summary
pooled from independent sessions is what pooling those sessions' committed summaries gives today."""

from benchkit.publish import registry as publishing
from benchkit.publish.kinds import SUMMARIES


def test_every_committed_summary_is_of_a_known_kind_and_consistent():
    files = sorted(SUMMARIES.glob("*.json"))
    found = publishing.loaded()
    assert sorted(found) == sorted(path.stem for path in files), "a summary of no kind the registry knows"
    assert {name: publishing.consistency(summary) for name, summary in found.items() if publishing.consistency(summary)} == {}


def test_a_combined_summary_is_its_runs_combined_again():
    """As the figures check holds it (publishing.pooled_again; its amendments aside)."""
    found = publishing.loaded()
    combined = {name: summary for name, summary in found.items() if isinstance(summary.get("sessions"), list)}
    assert combined, "no pooled summary to hold"
    assert {name: publishing.pooled_again(summary, found) for name, summary in combined.items()} == {
        name: [] for name in combined}
