"""The experiment of one file (experiments/pools.py): its grid, every build at each pool size against v1 at the same
size, run by the core's runner; what is published of it found without a module of its own (every cell document's
report and check)."""
import json

from benchkit import registry
from benchkit.core import cells
from benchkit.experiments import pools
from benchkit.publish import ab, registry as publishing
from benchkit.tests.test_ab import Platform, measured_by


def test_every_build_at_each_pool_size_is_a_cell_compared_with_v1_at_the_same_size(monkeypatch, tmp_path):
    measured_by(monkeypatch, [400] * 8)  # every cell alike: every ratio 1
    restarts = []

    class Recorded(Platform):
        def size(self, version, cpus, processors=None, environments=None, fresh=False):
            restarts.append((version, environments["articles"]["QUARKUS_DATASOURCE_JDBC_MAX_SIZE"],
                             environments["articles"]["QUARKUS_DATASOURCE_REACTIVE_MAX_SIZE"]))
            return super().size(version, cpus, processors, environments, fresh)

    path = pools.run(Recorded(("v1", "v2")), pools.Spec(connections=(5, 20)), tmp_path)
    data = json.loads(path.read_text())
    assert path.name == "pools.json" and data["design"] == "pools" and data["compared"] == cells.BUILD
    assert sorted((c["build"], c["mode"]) for c in data["cells"]) == [
        ("v1", "20 connections"), ("v1", "5 connections"), ("v2", "20 connections"), ("v2", "5 connections")]
    # each cell a cold start with both pools at its size: JDBC's and the reactive client's, whichever the build reads
    assert sorted(set(restarts)) == [("v1", "20", "20"), ("v1", "5", "5"), ("v2", "20", "20"), ("v2", "5", "5")]
    # v2 against v1 in the same mode, round by round; v1's cells are the references
    v2 = cells.cell_of(data, "v2", "5 connections")
    assert v2["ratios"]["complete_per_s"]["median"] == 1.0 and "ratios" not in cells.cell_of(data, "v1", "5 connections")
    assert publishing.consistency(data) == []


def test_what_is_published_of_it_is_every_cell_document_s_with_no_module_of_its_own():
    published = registry.EXPERIMENTS["pools"].publishes
    assert published.run_files == ("pools.json",) and published.report is ab.PUBLISHES.report
    assert "pools.json" in publishing.CELLS.run_files
