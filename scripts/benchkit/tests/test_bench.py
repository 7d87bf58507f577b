"""make demo's own choices, beside the measuring protocol (test_protocol.py)."""
from benchkit.experiments import bench


def test_the_open_rate_follows_the_slowest_build():
    # v1 sustained about 735 complete answers/s on a slower machine: 80 % of it, not a fixed 800
    assert bench.open_rate({"v1": [735.0, 720.0, 750.0], "v2": [865.0]}) == 580
    assert bench.open_rate({"v1": [973.0], "v2": [1689.6]}) == 770
    assert bench.open_rate({"v1": [3.0]}) == 10
    assert bench.open_rate({}) is None
