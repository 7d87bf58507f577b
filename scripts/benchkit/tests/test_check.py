import json

import pytest

from checks import check_results as check


def test_each_expression_is_read_from_the_data_and_one_that_does_not_hold_fails(tmp_path, capsys):
    results = tmp_path / "results.json"
    results.write_text(json.dumps({"equal_work": {"passed": True}, "builds": {"v1": 1.0, "v2": 2.5}}))
    check.main([str(results), 'd["equal_work"]["passed"]', 'all(v > 0 for v in d["builds"].values())'])
    with pytest.raises(SystemExit) as failed:
        check.main([str(results), 'd["equal_work"]["passed"]', 'd["builds"]["v2"] < 2'])
    assert failed.value.code == 1
    assert "does not hold: d[\"builds\"][\"v2\"] < 2 (gave False)" in capsys.readouterr().out


def test_the_data_is_seen_inside_a_generator_expression_too():
    data = {"versions": ["v1", "v2"], "settled": {"v1": True, "v2": True}}
    assert check.holds(data, 'all(d["settled"][v] for v in d["versions"])') == (True, True)


def test_no_builtins_beyond_the_few_it_names():
    with pytest.raises(NameError):
        check.holds({}, "open('/etc/passwd')")
