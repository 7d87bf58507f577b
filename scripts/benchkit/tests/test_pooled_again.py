"""A pooled summary is what its sessions' summaries pool into again (publishing.pooled_again, run by the figures check):
the tampering a pooled summary's own consistency cannot see, because its derived figures were recomputed with it,
is caught by pooling its sessions again."""
import copy

import pytest

from benchkit.publish import registry as publishing
from benchkit.core import cells

NODE = "answer-node-86862a3-9579bff"


@pytest.fixture(scope="module")
def published():
    return publishing.loaded()


def tampered(published, change):
    """The node's published answer, changed, its derived figures (medians, ratios) recomputed as an editor would."""
    summary = copy.deepcopy(published[NODE])
    change(summary)
    summary["cells"] = cells.with_ratios(summary)
    summary["floor"]["cells"] = cells.with_ratios(summary["floor"])
    assert cells.consistency(summary) == []  # consistent with itself: its own check passes
    return summary


def test_an_a_a_round_edited_in_the_pool_is_caught(published):
    def edit(summary):  # the A/A round at half a CPU that set the old band, raised to its siblings' level
        cell = cells.cell_of(summary["floor"], "v1", "A again", "0.5")
        low = min(cell["rounds"], key=lambda r: r["complete_per_s"])
        low["complete_per_s"] = 700.0
    problems = publishing.pooled_again(tampered(published, edit), published)
    assert problems and all(p.endswith("is not what its sessions pool into") for p in problems)
    assert problems[0].startswith("floor.cells.")


def test_every_round_of_one_session_marked_unsettled_is_caught(published):
    def edit(summary):
        for cell in summary["cells"]:
            for r in cell["rounds"]:
                if r["session"] == summary["sessions"][0]["name"]:
                    r["settled"] = False
    assert publishing.pooled_again(tampered(published, edit), published)


def test_a_pool_whose_session_is_not_published_cannot_stand(published):
    others = {name: summary for name, summary in published.items() if name != "cpu-map-node-86862a3"}
    assert publishing.pooled_again(published[NODE], others) == [
        "pooled from cpu-map-node-86862a3, which is not published: it cannot be pooled again"]
