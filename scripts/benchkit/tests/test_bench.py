"""make demo's own choices, beside the measuring protocol (test_protocol.py)."""
import json

import pytest

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


def test_the_curve_is_measured_by_the_core_s_rounds_every_step_of_every_build_in_each_repeat(monkeypatch, tmp_path):
    """The bench's curve is no loop of its own: a design whose modes are its steps, the ladder a round of the core's
    runner (design.run), the builds' order at each step drawn and reversed in the round after; on the builds the
    scenarios' design left warm (each opened once, and with NO_WARMUP never warmed)."""
    from benchkit.core import design
    from benchkit.tests.test_ab import Platform
    platform, opened = Platform(("v1", "v2")), []
    platform.build = lambda version: opened.append(version) or type(
        "Build", (), {"version": version, "ergonomics": lambda self: {}, "close": lambda self: None})()
    monkeypatch.setattr(design, "warm_up", lambda *args: pytest.fail("NO_WARMUP: no warm-up"))
    platform.environment = lambda where, runs, warmup: {"git_commit": "abc1234", "timestamp": "t", "where": where,
                                                         "warmup": warmup}  # as a platform states it: whether warmed
    runs = []

    def measure(build, scenario, runs_dir, run, settings=None, facts=None, label=None, target="web-api"):
        runs.append((build.version, label or scenario, run, (settings or {}).get("RATE"), facts))
        return {"ok_rps": 1000.0 if build.version == "v1" else 2000.0, "p50": 1.0, "p99": 2.0}
    monkeypatch.setattr(bench, "measure", measure)
    monkeypatch.setattr(design, "background", lambda builds: {v: {} for v in builds})
    monkeypatch.setattr(bench.rundoc, "write", lambda directory: None)
    monkeypatch.setattr(design.knobs, "value", lambda name: 1 if name == "RUNS" else None)
    spec = bench.Spec(scenarios=("closed", "curve"), curve_shares=(0.25, 0.5), curve_step_duration="5s",
                      curve_repeats=2, no_warmup=True)
    bench.run(platform, spec, tmp_path)
    steps = [(version, label, run, rate) for version, label, run, rate, _ in runs if label.startswith("curve-")]
    # the fastest build's 2,000/s: steps at 500 and 1,000/s, each build at each, the ladder twice
    assert sorted(steps) == sorted((v, f"curve-{r}", run, r) for run in (1, 2) for r in (500, 1000) for v in ("v1", "v2"))
    assert [label for _, label, run, _ in steps if run == 1] == ["curve-500"] * 2 + ["curve-1000"] * 2  # climbing
    first, second = ([v for v, label, run, _ in steps if run == n and label == "curve-500"] for n in (1, 2))
    assert second == first[::-1]  # drawn in the first repeat, reversed in the second
    assert all(facts["calibration_seconds"] == 2.0 for *_, facts in runs)  # the machine's speed before each round
    assert sorted(opened) == ["v1", "v2"] and [r[1] for r in runs[:2]] == ["closed", "closed"]
    environment = json.loads((tmp_path / "environment.json").read_text())  # what the report reads of each build
    assert environment["warmup"] is False and environment["background_cpu_per_s"] == {"v1": {}, "v2": {}}
    assert environment["ergonomics"] == {"v1": {}, "v2": {}} and environment["curve"]["rates"] == [500, 1000]
    # the ladder's cell document beside the scenarios' (a cell per step and build, a round per repeat)
    ladder = json.loads((tmp_path / "bench-curve.json").read_text())
    assert sorted((c["mode"], c["build"], len(c["rounds"])) for c in ladder["cells"]) == sorted(
        (f"curve-{r}", v, 2) for r in (500, 1000) for v in ("v1", "v2"))


def test_every_build_is_warmed_once_for_all_the_bench_s_designs_and_its_warm_up_kept_for_the_report(monkeypatch,
                                                                                                   tmp_path):
    """The scenarios' design warms each build; the profile's, after it, measures them as they are (design.run's
    running); environment.json keeps each build's warm-up, background and what its JVM chose, as the report reads."""
    from benchkit.core import design
    from benchkit.tests.test_ab import Platform
    platform, warmed, profiled, quiet_windows = Platform(("v1", "v2")), [], [], []
    platform.build = lambda version: type("Build", (), {"version": version, "ergonomics": lambda self: {"cpus": 2},
                                                        "close": lambda self: None})()
    platform.environment = lambda where, runs, warmup: {"git_commit": "abc1234", "timestamp": "t", "where": where,
                                                         "warmup": warmup}
    monkeypatch.setattr(design, "warm_up", lambda version, *args: warmed.append(version) or {"settled": True})
    monkeypatch.setattr(design, "background", lambda builds: quiet_windows.append(sorted(builds)) or
                        {v: {"web-api": 0.01} for v in builds})
    monkeypatch.setattr(bench, "measure", lambda build, *args, **kwargs: {"ok_rps": 900.0, "p50": 1.0, "p99": 2.0})
    monkeypatch.setattr(bench.profile, "record", lambda build, results: profiled.append(build.version) or {})
    monkeypatch.setattr(bench.rundoc, "write", lambda directory: None)
    monkeypatch.setattr(design.knobs, "value", lambda name: 2 if name == "RUNS" else None)
    bench.run(platform, bench.Spec(scenarios=("closed", "profile")), tmp_path)
    assert sorted(warmed) == ["v1", "v2"] and sorted(profiled) == ["v1", "v2"]
    assert quiet_windows == [["v1", "v2"]]  # one, for the builds the scenarios' design started: none for the profile's
    environment = json.loads((tmp_path / "environment.json").read_text())
    assert environment["warmup"] == {"v1": {"settled": True}, "v2": {"settled": True}}
    assert environment["background_cpu_per_s"] == {"v1": {"web-api": 0.01}, "v2": {"web-api": 0.01}}
    assert environment["ergonomics"] == {"v1": {"cpus": 2}, "v2": {"cpus": 2}}
    # PROFILE_VERSIONS: the profile of those builds alone, every build warmed and measured all the same
    warmed.clear()
    profiled.clear()
    bench.run(platform, bench.Spec(scenarios=("closed", "profile"), profiled=("v2",)), tmp_path / "one")
    assert sorted(warmed) == ["v1", "v2"] and profiled == ["v2"]
    with pytest.raises(SystemExit, match="names v9, which this run does not run"):
        bench.run(platform, bench.Spec(scenarios=("profile",), profiled=("v9",)), tmp_path / "none")
    assert profiled == ["v2"]
