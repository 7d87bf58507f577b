"""make demo's own choices, beside the measuring protocol (test_protocol.py)."""
import json

from benchkit.experiments import bench


def test_the_open_rate_follows_the_slowest_build():
    # v1 sustained about 735 complete answers/s on a slower machine: 80 % of it, not a fixed 800
    assert bench.open_rate({"v1": [735.0, 720.0, 750.0], "v2": [865.0]}) == 580
    assert bench.open_rate({"v1": [973.0], "v2": [1689.6]}) == 770
    assert bench.open_rate({"v1": [3.0]}) == 10
    assert bench.open_rate({}) is None


def test_a_published_bench_s_knees_and_repeats_are_what_its_curve_steps_give():
    from benchkit.publish import registry as publishing
    found = publishing.loaded()["node-0392ca0"]
    assert publishing.consistency(found) == [] and found["curve"]["knees"] == {"v1": 370, "v2": 510, "v3": 370}

    def problems_after(edit):
        changed = json.loads(json.dumps(found))
        edit(changed)
        return publishing.consistency(changed)
    assert problems_after(lambda d: d["curve"]["knees"].update(v3=510))
    assert problems_after(lambda d: d["curve"].update(repeats=3))
    # a repeat of v2 at 510/s that carried less than 95 % of the rate: v2's knee is the step before
    assert problems_after(lambda d: d["curve"]["sessions"][0]["v2"]["510"][1].update(complete=480))
    # a pool's knee is the lowest of its sessions'
    assert publishing.loaded()["demo-dce3321-6cfbdd4"]["curve"]["knees"] == {}  # one session's steps not kept: none
