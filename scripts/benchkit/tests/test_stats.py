from benchkit.core import stats


def test_ratio_reads_v2_over_v1():
    assert stats.ratio(100, 174) == "1.74×"
    assert stats.ratio(0, 5) == "–" and stats.ratio(None, 5) == "–" and stats.ratio(5, None) == "–"


def test_percentile_is_nearest_rank():
    values = list(range(1, 101))
    assert stats.percentile(values, 50) in (50, 51)
    assert stats.percentile(values, 99) == 99
    assert stats.percentile(values, 100) == 100
    assert stats.percentile([], 99) is None
