"""The CPU map: a local process under a quota as a pod's limit is (a real cgroup), and the map's ratios, table and
consistency on figures made up for the purpose."""
import json
import os
import pathlib
import subprocess
import time

import pytest

from benchkit import ROOT, SERVICES
from benchkit.core import cells as celldoc, design, protocol, sizes, verdicts
from benchkit.platforms import procfs
from benchkit.experiments import cpumap
from benchkit.experiments.cpumap import answering
from benchkit.publish import cpumap as publish_cpumap


@pytest.mark.skipif(not os.access(procfs.CGROUPS, os.W_OK) and not os.access(procfs.CGROUPS / "cpu", os.W_OK),
                    reason="no writable cgroup hierarchy here (root on the machines that run make test)")
def test_a_process_is_held_to_its_quota_and_let_go_again():
    spinner = subprocess.Popen(["sh", "-c", "while :; do :; done"])
    try:
        assert procfs.cpu_limit(spinner.pid) is None and procfs.process_throttling(spinner.pid) is None
        procfs.limit_cpu("test-spinner", spinner.pid, 0.1)
        assert procfs.cpu_limit(spinner.pid) == 0.1
        deadline = time.monotonic() + 30  # a busy process runs out of a tenth of a CPU in its first period
        while not (procfs.process_throttling(spinner.pid) or {}).get("throttled") and time.monotonic() < deadline:
            time.sleep(0.1)
        held = procfs.process_throttling(spinner.pid)
        assert held["throttled"] > 0 and held["periods"] >= held["throttled"] and held["throttled_seconds"] > 0
        procfs.limit_cpu("test-spinner", spinner.pid, None)
        assert procfs.cpu_limit(spinner.pid) is None and procfs.process_throttling(spinner.pid) is None
    finally:
        spinner.kill()
        spinner.wait()


def test_a_jvm_counts_the_processors_it_is_given():
    given = subprocess.Popen(["sleep", "30"], env={**os.environ, "JDK_JAVA_OPTIONS": "-XX:ActiveProcessorCount=1"})
    try:
        while not pathlib.Path(f"/proc/{given.pid}/cmdline").read_bytes().startswith(b"sleep"):
            time.sleep(0.01)  # until it runs its own program, with its own environment
        assert procfs.processors_seen(given.pid) == 1
        assert procfs.processors_seen(os.getpid()) == len(os.sched_getaffinity(0))
    finally:
        given.kill()
        given.wait()


def rounds(size, per_round):
    return [{"size": size, "round": number, "complete_per_s": rate, "p50": 10.0, "p99": 50.0, "open_p50": 5.0,
             "open_p99": 20.0, "capacity_per_s": rate * 0.7, "cpu_ms_per_complete_background_off": 1000 / rate,
             "bound_by": {"by": "quota" if size != "0" else "machine",
                          "throttled_share": {"web-api": 0.4} if size != "0" else {},
                          "cores_busy_share": 0.9}}
            for number, rate in enumerate(per_round, start=1)]


def a_map(rates):
    """A CPU map's cell document of {version: {size: [closed rate of each round]}}."""
    sizes_ = list(dict.fromkeys(size for by_size in rates.values() for size in by_size))
    document = {"compared": celldoc.BUILD, "reference": "v1", "sizes": sizes_,
                "cells": [{"build": v, "mode": "", "size": size, "rounds": rounds(size, rates[v][size])}
                          for size in sizes_ for v in rates]}
    document["cells"] = celldoc.with_ratios(document)
    return document


def test_each_size_s_ratio_is_the_median_of_its_rounds_own(tmp_path):
    document = a_map({"v1": {"0.5": [100, 110, 90], "0": [400, 400, 400]},
                      "v2": {"0.5": [200, 110, 180], "0": [600, 800, 400]}})
    half, unlimited = celldoc.cell_of(document, "v2", size="0.5"), celldoc.cell_of(document, "v2", size="0")
    assert half["ratios"]["complete_per_s"]["median"] == 2.0
    assert half["ratios"]["complete_per_s"]["rounds"] == [2.0, 1.0, 2.0]
    assert unlimited["ratios"]["complete_per_s"]["low"] == 1.0
    assert unlimited["ratios"]["cpu_ms_per_complete_background_off"]["median"] == pytest.approx(400 / 600)
    assert half["against_no_limit"]["complete_per_s"]["rounds"] == [200 / 600, 110 / 800, 180 / 400]
    assert "ratios" not in celldoc.cell_of(document, "v1", size="0.5") and "against_no_limit" not in unlimited
    assert publish_cpumap.against_no_limit_rows(document)[1] == ["0.5 CPU", "closed model: complete answers/s",
                                                         "0.25× (0.23–0.28)", "0.33× (0.14–0.45)"]
    assert celldoc.consistency(document) == []
    assert half["ratios"]["capacity_per_s"]["median"] == pytest.approx(2.0)
    assert half["medians"]["complete_per_s"] == 180
    rows = publish_cpumap.table(document)
    assert rows[1][:2] == ["0.5 CPU", "closed model: complete answers/s"] and rows[1][-1] == "2.00× (1.00–2.00)"
    held = {row[0]: row[2:4] for row in rows if row[1] == "held back by"}
    assert held == {"0.5 CPU": ["quota (web-api throttled in 40% of periods)"] * 2,
                    "no limit": ["not its quota (the processes used 90% of the cores)"] * 2}
    assert publish_cpumap.headline_rows(document)[1] == ["0.5 CPU", "2.00× (1.00–2.00)", "2.00× (1.00–2.00)"]
    svg = publish_cpumap.PUBLISHES.charts["cpu-map-v2"](document)
    assert "2.00×" in svg and "no limit" in svg
    half["rounds"][0]["complete_per_s"] = 300  # its median stays 180
    assert celldoc.consistency(document) == ["v2, at 0.5 CPU: ratios not what its rounds give",
                                             "v2, at 0.5 CPU: against_no_limit not what its rounds give"]
    half["rounds"][1]["complete_per_s"] = 400
    assert "v2, at 0.5 CPU: medians not what its rounds give" in celldoc.consistency(document)


def test_a_map_of_one_build_without_v1_still_renders_every_table():
    """As the cluster test runs it: v2 alone at half a CPU; its ratios are "–", never a KeyError."""
    document = a_map({"v2": {"0.5": [200, 110, 180]}})
    assert "ratios" not in celldoc.cell_of(document, "v2", size="0.5")
    rows = publish_cpumap.table(document)
    assert rows[0] == ["size", "figure", publish_cpumap.NAMES.get("v2", "v2"), "v2 / v1"]
    assert rows[1][1:] == ["closed model: complete answers/s", "180 (110–200)", "–"]
    assert publish_cpumap.headline_rows(document)[1] == ["0.5 CPU", "–", "–"]
    assert publish_cpumap.against_no_limit_rows(document) == [["rung", "figure", "v2 (reactive): rung / no limit"]]
    assert "–" in publish_cpumap.PUBLISHES.charts["cpu-map-v2"](document)


def test_the_kernel_s_counts_per_complete_answer_by_size():
    from benchkit.core import results
    readings = {"web-api": {"voluntary_switches": 600, "involuntary_switches": 30, "run_delay_seconds": 0.5,
                            "read_syscalls": 400, "write_syscalls": 200, "packets": None, "threads": 40,
                            "threads_peak": 35},
                "postgres": {"voluntary_switches": 100, "involuntary_switches": 10, "run_delay_seconds": 0.1,
                             "read_syscalls": 100, "write_syscalls": 100, "packets": None, "threads": 6,
                             "threads_peak": None}}
    per_answer = results.scheduling_per_complete({"scheduling": readings, "metrics": {"complete": 100}})
    assert per_answer["web-api"]["voluntary_switches"] == 6 and per_answer["web-api"]["run_delay_ms"] == 5
    assert per_answer["web-api"]["threads"] == 40  # a count, not per answer
    assert per_answer[results.ALL]["voluntary_switches"] == 7 and per_answer[results.ALL]["packets"] is None
    document = {"cells": [{"build": v, "mode": "", "size": "1", "rounds": [{"size": "1", "round": r, "scheduling": {
        p: {k: (x * (2 if v == "v1" else 1) if k in dict(results.SCHEDULING) and x is not None else x)
            for k, x in f.items()}
        for p, f in per_answer.items()}} for r in (1, 2)]} for v in ("v1", "v2")]}
    rows = results.scheduling_rows(publish_cpumap.scheduling(document, "1"))
    by_name = {row[0]: row[1:] for row in rows}
    assert by_name["web-api: voluntary context switches"] == ["12.00", "6.00", "0.50×"]
    assert by_name["every process: ms waiting for a core"] == ["12.00", "6.00", "0.50×"]
    assert by_name["web-api: Java threads at peak (HotSpot's) (not per answer)"][:2] == ["35", "35"]
    assert not any(name.endswith("packets on the pod's network") for name in by_name)  # measured by no build


def test_the_capacity_is_the_last_rate_within_the_bound(monkeypatch):
    # p99 grows with the rate; the ladder stops at the first step past the bound (or not carried)
    ran = []

    def open_run(build, runs_dir, round_, label, rate):
        ran.append(label)
        return {"p50": 5.0, "p99": rate / 4, "ok_rps": rate * (0.99 if rate < 300 else 0.9), "dropped": 0,
                "requests": rate * 5}
    monkeypatch.setattr(protocol, "open_run", open_run)
    monkeypatch.setenv("OPEN_RATE", "200")
    monkeypatch.setenv("P99_BOUND_MS", "100")
    monkeypatch.setenv("CAPACITY_SHARES", "0.25,0.5,0.75,1.0")
    found = protocol.open_round(None, None, 1, "cpu-1", 600)
    assert found["open_p99"] == 50.0 and found["capacity_per_s"] == 150  # 300/s: p99 75 ms, but 90 % answered
    assert ran == ["cpu-1-open-200", "cpu-1-capacity-150", "cpu-1-capacity-300"]
    assert [step["within"] for step in found["capacity_steps"]] == [True, False]
    monkeypatch.setenv("OPEN_RATE", "0")
    monkeypatch.setenv("CAPACITY_SHARES", "")
    assert protocol.open_round(None, None, 1, "cpu-1", 600)["capacity_per_s"] is None


def test_the_ladder_s_rungs():
    assert sizes.rungs("0.5, 1.0,2,0,1p") == ("0.5", "1", "2", "0", "1p")
    assert [sizes.label(r) for r in ("0.5", "0", "1p", "2p")] == ["0.5 CPU", "no limit", "1 processor, no quota",
                                                                  "2 processors, no quota"]
    assert sizes.given("0.5") == (0.5, None) and sizes.given("0") == (None, None) and sizes.given("1p") == (None, 1)
    with pytest.raises(ValueError):
        sizes.rungs("half")


def test_a_map_that_stopped_half_way_is_continued_with_its_finished_rungs_kept():
    cell = lambda v, size, count: {"build": v, "mode": "", "size": size,  # noqa: E731
                                   "rounds": [{"size": size, "round": r} for r in range(1, count + 1)]}
    same = {"design": "cpu-map", "rounds": 2, "compared": "build", "modes": [""], "iterations": 50,
            "sizes": ["2", "0"]}
    kept = {**same, "commit": "a", "timestamp": "s", "where": "node",
            "ergonomics": {"2 CPU": {"v1": {}}, "no limit": {"v1": {}}},
            "cells": [cell("v1", "2", 2), cell("v2", "2", 2), cell("v1", "0", 1), cell("v2", "0", 0)]}
    document = {**same, "commit": "b", "timestamp": "t", "where": "node", "ergonomics": {},
                "cells": [cell(v, size, 0) for size in ("2", "0") for v in ("v1", "v2")]}
    found = design.continued(kept, document)
    # rung 2 finished and kept; no limit begun by v1 alone: measured again, whole
    assert [len(c["rounds"]) for c in found["cells"]] == [2, 2, 0, 0]
    assert list(found["ergonomics"]) == ["2 CPU"] and found["commit"] == "a"
    assert found["continued"] == {"commit": "b", "timestamp": "t", "where": "node"}
    with pytest.raises(SystemExit, match="rounds 2"):
        design.continued(kept, {**document, "rounds": 3})
    with pytest.raises(SystemExit, match="cells this one does not"):
        design.continued(kept, {**document, "cells": document["cells"][2:]})


def test_a_map_starts_every_build_in_every_round_and_turns_the_builds_order_round(monkeypatch, tmp_path):
    from benchkit.tests.test_ab import Platform, measured_by
    measured_by(monkeypatch, [100, 200, 210, 110, 300, 600, 590, 310], rounds=2)
    platform = Platform(("v1", "v2"))
    platform.build = lambda version: version
    monkeypatch.setattr(design, "celldoc", celldoc)
    ergonomics = []
    monkeypatch.setattr(platform, "size", lambda version, cpus, processors=None, environments=None, fresh=False: (
        platform.started.append((version, cpus, fresh)), type("Running", (), {
            "ergonomics": lambda self: ergonomics.append(version) or {"web-api": {"cpu_limit": cpus}}})())[1],
        raising=False)
    spec = cpumap.Spec(sizes=("0.5", "1"), keep=None)
    data = json.loads(cpumap.run(platform, spec, tmp_path).read_text())
    # every build from cold JVMs in every round, in the round's order, round 2 the reverse of round 1 at each size
    half, one = [version for version, *_ in platform.started[:4]], [version for version, *_ in platform.started[4:8]]
    assert half[2:] == half[:2][::-1] and one[2:] == one[:2][::-1] and set(half[:2]) == set(one[:2]) == {"v1", "v2"}
    assert [cpus for _, cpus, _ in platform.started[:8]] == [0.5] * 4 + [1.0] * 4
    # what each JVM chose, once per build and size (its first fork's)
    assert list(data["ergonomics"]) == ["0.5 CPU", "1 CPU"] and ergonomics == half[:2] + one[:2]
    # each cell's rounds are the rates given in the order measured
    measured = [(v, size, 1 + i // 2) for size, order in (("0.5", half), ("1", one)) for i, v in enumerate(order)]
    rate = dict(zip(measured, [100, 200, 210, 110, 300, 600, 590, 310]))
    for version, size in (("v1", "0.5"), ("v2", "0.5"), ("v2", "1")):
        assert [r["complete_per_s"] for r in celldoc.cell_of(data, version, size=size)["rounds"]] == [
            rate[version, size, 1], rate[version, size, 2]]
    assert celldoc.cell_of(data, "v2", size="0.5")["ratios"]["complete_per_s"]["rounds"] == [
        pytest.approx(rate["v2", "0.5", n] / rate["v1", "0.5", n]) for n in (1, 2)]
    assert all(r["bound_by"]["by"] in ("quota", "machine") for c in data["cells"] for r in c["rounds"])
    # every round a fork, each naming its own start
    assert data["forks"] is True
    assert len({r["fork"]["web-api"]["started"] for c in data["cells"] for r in c["rounds"]}) == 8
    assert celldoc.consistency(data) == []
    again = json.loads(json.dumps(data))  # two rounds of a cell naming one start: not forks
    first, second = celldoc.cell_of(again, "v1", size="0.5")["rounds"]
    second["fork"] = first["fork"]
    assert celldoc.consistency(again) == [
        "v1, at 0.5 CPU: two rounds name one start of a service, though its rounds are forks"]


def test_every_group_s_rounds_come_in_reversed_pairs_whatever_its_position():
    """The builds' order at every size: rounds 1 and 2 (3 and 4, …) one pair, the second the first reversed, so that
    each build runs once before and once after every other in each pair; at every group's position (a group at an
    odd position once paired its round 1 with its round 0 and its round 2 with its round 3, and put v1 again after v1
    in both rounds of a session)."""
    the_design = design.Design("map", "", "", ("v1", "v2", "v3", celldoc.A_A), compared=celldoc.BUILD,
                               restart=design.EACH_ROUND, sizes=("0.5", "0"))
    for position, group in enumerate(the_design.groups()):
        orders = [[build for build, _ in design.in_round(the_design, group, round_, position)] for round_ in range(1, 7)]
        for first, second in zip(orders[::2], orders[1::2]):
            assert second == first[::-1]


def test_a_fork_starts_under_its_quota_warms_without_it_and_is_measured_warm_under_it(monkeypatch, tmp_path):
    """Every round a fork, made cheap: its start and first answer under the quota (a pod's), the warm-up with the
    quota lifted, then the quota set again and the fork warmed under it until the rule holds there too; the round's
    "settled" is that second warm-up's. At no limit there is nothing to lift: one warm-up."""
    from benchkit.tests.test_ab import Platform, measured_by
    measured_by(monkeypatch, [100, 200, 300, 400])
    platform = Platform(("v1", "v2"))
    platform.build = lambda version: version
    sized = platform.size  # each start a running build whose JVMs' choices can be read
    monkeypatch.setattr(platform, "size", lambda *args, **named: type(
        "Running", (), {"ergonomics": lambda self: {}, "version": sized(*args, **named)})(), raising=False)
    events = platform.quotas
    monkeypatch.setattr(design, "fork", lambda build: events.append((build.version, "fork", None)) or {
        "web-api": {"started": float(len(events)), "ready_s": 2.0}, "first_answer_s": 2.5})
    monkeypatch.setattr(design, "warm_up", lambda version, build, runs_dir, warmup: events.append(
        (version, "warm", warmup)) or {"settled": "-under-its-quota" in version, "windows": [warmup],
                                       "seconds": 30.0 if "-under-its-quota" in version else 60.0})
    monkeypatch.setattr(design.knobs, "value", lambda name: 1)
    data = json.loads(cpumap.run(platform, cpumap.Spec(sizes=("0.5", "0"), keep=None), tmp_path).read_text())
    first = events.index(("v1", "size", 0.5))
    assert events[first:first + 6] == [("v1", "size", 0.5), ("v1", "fork", None), ("v1", "lift", True),
                                       ("v1", "warm", cpumap.LENGTHS.warmup), ("v1", "bind", None),
                                       ("v1-under-its-quota", "warm", cpumap.LENGTHS.warmup // 3)]
    whole = events.index(("v1", "size", None))
    assert events[whole:whole + 4] == [("v1", "size", None), ("v1", "fork", None), ("v1", "lift", False),
                                       ("v1", "warm", cpumap.LENGTHS.warmup)]
    assert data["warmed_before_quota"] is True
    assert [r["settled"] for r in celldoc.cell_of(data, "v2", size="0.5")["rounds"]] == [True]
    assert [r["settled"] for r in celldoc.cell_of(data, "v2", size="0")["rounds"]] == [False]
    # what each fork spent, and of its warm-up how much without the quota and how much under it
    half, whole = (celldoc.cell_of(data, "v2", size=size)["rounds"][0]["spent_s"] for size in ("0.5", "0"))
    assert half["warming_without_quota"] == 60.0 and half["warming_under_quota"] == 30.0
    assert {"forking", "measuring"} <= set(half) and "warming_without_quota" not in whole
    # in pods a limit is set at a start: a document does not say its forks warmed before it, whatever the knob
    monkeypatch.setattr(platform, "lifts", False, raising=False)
    assert design.warms_before_quota(cpumap.cpu_map(cpumap.Spec(sizes=("0.5",), keep=None), ("v1",)), platform) is False


def test_a_fork_s_start_is_read_off_its_services():
    """protocol.fork: each service's JVM start and its seconds to ready (to the moment the platform found it ready
    where it notes one, else its uptime once ready), and web-api's uptime at its first answer."""
    def forked(ready_at):
        texts = iter([{"web-api": "process_start_time_seconds 1.7964E9\nprocess_uptime_seconds 6.5\n",
                       "articles": "process_uptime_seconds 5.25\nprocess_start_time_seconds 1.79639E9\n",
                       "authors": "process_start_time_seconds 1.79638E9\nprocess_uptime_seconds 4.0\n"},
                      {"web-api": "process_start_time_seconds 1.7964E9\nprocess_uptime_seconds 7.75\n"}])
        probed = []
        build = type("Build", (), {"metrics": lambda self: next(texts), "ready_at": lambda self: ready_at})()
        monkeypatch = pytest.MonkeyPatch()
        monkeypatch.setattr(protocol, "probe", lambda b: probed.append(b))
        try:
            found = protocol.fork(build)
        finally:
            monkeypatch.undo()
        assert probed == [build]
        return found
    assert forked({}) == {"web-api": {"started": 1.7964e9, "ready_s": 6.5},
                          "articles": {"started": 1.79639e9, "ready_s": 5.25},
                          "authors": {"started": 1.79638e9, "ready_s": 4.0}, "first_answer_s": 7.75}
    # the local stack notes when it found each ready: its own seconds, not its uptime once the slowest was
    assert forked({"articles": 1.79639e9 + 3.125, "authors": 1.79638e9 + 2.5}) == {
        "web-api": {"started": 1.7964e9, "ready_s": 6.5}, "articles": {"started": 1.79639e9, "ready_s": 3.125},
        "authors": {"started": 1.79638e9, "ready_s": 2.5}, "first_answer_s": 7.75}
    assert protocol.fork(type("Build", (), {"metrics": lambda self: {}})()) is None  # a platform that cannot read them


def test_what_each_fork_took_to_start_is_shown_per_build_and_size():
    document = a_map({"v1": {"0.5": [400, 300]}, "v2": {"0.5": [600, 700]}})
    for cell in document["cells"]:
        for index, r in enumerate(cell["rounds"]):
            r["fork"] = {**{s: {"started": 1e9 + index, "ready_s": 3.0 + index} for s in SERVICES},
                         "first_answer_s": 5.0 + index}
            r["peak_memory_mib_by_service"] = {s: 200.0 + 10 * index for s in SERVICES}
    rows = publish_cpumap.starts_rows(document)
    assert rows[0][:2] == ["CPU per service", "build"] and rows[0][-1] == "forks"
    assert rows[1] == ["0.5 CPU", "v1", "3.5 (3.0–4.0)", "3.5 (3.0–4.0)", "3.5 (3.0–4.0)", "5.5 (5.0–6.0)",
                       "205 (200–210)", "205 (200–210)", "205 (200–210)", "2"]
    legacy = a_map({"v1": {"0.5": [400, 300]}})
    assert publish_cpumap.starts_rows(legacy) == rows[:1]  # rounds kept before forks: no row


def test_a_map_s_rounds_and_each_round_s_bound_by_are_checked():
    from benchkit.publish import registry as publishing
    found = publishing.loaded()["cpu-map-local-55dd71c"]
    assert publishing.consistency(found) == []
    tampered = json.loads(json.dumps(found))
    cell = tampered["cells"][0]
    cell["rounds"][0]["bound_by"]["by"] = "machine" if cell["rounds"][0]["bound_by"]["by"] == "quota" else "quota"
    assert publishing.consistency(tampered) == [
        f"{cell['build']} at 0.5 CPU, round {cell['rounds'][0]['round']}: held back by other than its throttling gives"]
    shorter = json.loads(json.dumps(found))
    shorter["cells"][1]["rounds"].pop()
    assert any("2 rounds, not 3" in problem for problem in publishing.consistency(shorter))
    unsettled = json.loads(json.dumps(found))  # one round of a cell said unsettled: its build was warmed once
    unsettled["cells"][2]["rounds"][1]["settled"] = not unsettled["cells"][2]["rounds"][1]["settled"]
    assert publishing.consistency(unsettled) == [
        f"{unsettled['cells'][2]['build']} at 0.5 CPU: its rounds of one session say its one warm-up settled and did not"]
    pooled = publishing.loaded()["answer-local-55dd71c-e4bf029"]  # its sessions' warm-ups apart
    assert publishing.consistency(pooled) == []


def test_each_build_is_measured_against_the_floor_round_by_round_and_the_floor_against_nothing():
    document = a_map({"v1": {"0": [400, 300, 500]}, "v2": {"0": [600, 600, 600]}, "v0": {"0": [800, 600, 1000]}})
    v1, v2, floor = (celldoc.cell_of(document, v) for v in ("v1", "v2", "v0"))
    assert v1["against_floor"]["complete_per_s"]["rounds"] == [0.5, 0.5, 0.5]
    assert v2["against_floor"]["complete_per_s"]["rounds"] == [0.75, 1.0, 0.6]
    assert v2["against_floor"]["complete_per_s"]["median"] == 0.75
    # CPU per answer (1000 / rate here): the floor's is the least, so a build's is a multiple above 1
    assert v1["against_floor"]["cpu_ms_per_complete_background_off"]["rounds"] == pytest.approx([2.0, 2.0, 2.0])
    assert set(v1["against_floor"]) == {"complete_per_s", "capacity_per_s", "cpu_ms_per_complete_background_off"}
    assert "against_floor" not in floor and "ratios" in floor  # v0 is no reference: it is divided by v1 like any build
    assert celldoc.consistency(document) == []
    v2["against_floor"]["complete_per_s"]["median"] = 1.0
    assert celldoc.consistency(document) == ["v2, as shipped: against_floor not what its rounds give"]


def test_without_the_floor_no_build_has_a_multiple_of_it():
    document = a_map({"v1": {"0": [400]}, "v2": {"0": [600]}})
    assert all("against_floor" not in c for c in document["cells"])


def answer_run(monkeypatch, tmp_path, rates, rounds=2, looks=3, with_=(), minutes=120,
               timestamp="2026-11-29T11:00:00+00:00"):
    """make answer on the test platform: v1, v2 and the floor v0 at 2 cores (its sizes: half a CPU and no limit)."""
    from benchkit.tests.test_ab import Platform, figures, measured_by
    measured_by(monkeypatch, [], rounds=rounds)
    monkeypatch.setattr(design, "closed_round", lambda build, runs_dir, round_, iterations, label, *args: {
        **figures(rates(build.version, label), 2.0), "label": label, "cores_used": 1.5})
    platform = Platform(("v1", "v2", "v0"))
    platform.cores = lambda version: 1  # as a pod limited to one CPU counts
    platform.machine_cores = lambda: 2
    platform.environment = lambda where, runs, warmup: {"git_commit": "abc1234", "timestamp": timestamp,
                                                        "where": where, "cores": 2}
    monkeypatch.setattr(platform, "size", lambda version, cpus, processors=None, environments=None, fresh=False: (
        platform.started.append((version, cpus)), type("Running", (), {
            "version": version, "ergonomics": lambda self: {"web-api": {"cpu_limit": cpus}}})())[1], raising=False)
    spec = cpumap.Spec(sizes=sizes.LADDER, keep=None, answer=True, answer_minutes=minutes, answer_looks=looks,
                       answer_with=with_)
    return platform, json.loads(cpumap.run(platform, spec, tmp_path).read_text())


def test_make_answer_measures_the_a_a_and_the_floor_in_the_same_forks_at_the_sizes_whose_quota_binds(
        monkeypatch, tmp_path, capsys):
    platform, data = answer_run(monkeypatch, tmp_path, lambda build, label: 100)
    assert data["design"] == "answer" and data["sizes"] == ["0.5", "0"] and data["looks"] == 3
    said = capsys.readouterr().out  # the command that would decide its cells, for where it measured
    assert f"make answer ANSWER_WITH={tmp_path}" in said
    monkeypatch.setitem(data, "where", "Kubernetes (a node), namespace bench")
    answering.conclude(data, cpumap.Spec(sizes=("0.5", "0"), keep=None, answer=True), tmp_path)
    assert f"make answer-cluster ANSWER_WITH={tmp_path}" in capsys.readouterr().out
    assert {c["build"] for c in data["cells"]} == {"v1", "v2", "v0", celldoc.A_A}
    # the A/A runs on v1's services, and every build is started in every round (forks)
    starts = [start for start in platform.started if isinstance(start, tuple) and start[1] != "restored"]
    assert {version for version, _ in starts} == {"v1", "v2", "v0"}
    assert len(starts) == 2 * 4 * 4  # two sizes, four cells, two rounds and two more (one session: undecided)
    aa = celldoc.cell_of(data, celldoc.A_A, size="0.5")
    assert {r["label"] for r in aa["rounds"]} == {"answer-0.5-again"}  # its runs apart from v1's own
    assert aa["ratios"]["complete_per_s"]["median"] == 1.0
    # one session: its intervals narrow, its words wait for a second session
    assert verdicts.verdict(data, celldoc.cell_of(data, "v2", size="0.5"), "complete_per_s") == "undecided"
    assert verdicts.a_a_of(data) == (data, [aa, celldoc.cell_of(data, celldoc.A_A, size="0")])
    # measuring wrote the document; its report, read from it alone, writes answer.md and prints the answer's table
    assert not (tmp_path / "answer.md").exists()
    publish_cpumap.write_report(tmp_path / "answer.json")
    said = capsys.readouterr().out
    assert "The answer so far (1 session(s))" in said and "| v2 / v1 |" in said
    assert (tmp_path / "answer.md").read_text().startswith("# reactive-bench: the answer")


def test_make_answer_stops_adding_rounds_once_every_quoted_cell_is_decided(monkeypatch, tmp_path):
    first = tmp_path / "first"
    first.mkdir()
    rates = {}

    def rate(build, label):  # v2 twice v1 with a little spread; the A/A and the floor about v1's
        rates[label] = rates.get(label, 0) + 1
        return (200 if build == "v2" else 100) * (1 + 0.01 * (rates[label] % 3))
    answer_run(monkeypatch, first, rate, looks=4, timestamp="2026-11-29T08:00:00+00:00")  # hours before the next
    second = tmp_path / "second"
    second.mkdir()
    platform, data = answer_run(monkeypatch, second, rate, looks=4, with_=(first,))
    # two rounds at each size, then the first look found every quoted cell decided: no round added
    assert [len(c["rounds"]) for c in data["cells"]] == [2] * len(data["cells"])
    pooled = json.loads((second / "answer-pooled.json").read_text())
    assert [s["name"] for s in pooled["sessions"]] == ["first", "this session"]
    cell = celldoc.cell_of(pooled, "v2", size="0.5")
    assert verdicts.verdict(pooled, cell, "complete_per_s") == "ahead"
    assert verdicts.verdict(pooled, cell, "cpu_ms_per_complete_background_off") in ("level", "ahead", "behind")
    # the floor in the same forks: each build over it, round against round, with the answer's intervals
    from benchkit.publish.cpumap import answer
    view = answer.over_floor(pooled)
    assert {c["build"] for c in view["cells"]} == {"v1", "v2"}
    over = verdicts.interval(view, celldoc.cell_of(view, "v2", size="0.5"), "complete_per_s")
    assert 1.8 < over.estimate < 2.2 and over.sessions == 2
    said = answer.floor_sentences(pooled)
    assert [row[0].split(",")[0] for row in said[1:]] == ["At 0.5 CPU per service", "With no limit"]
    assert f"v2 answers {over.estimate:.2f}× ({over.low:.2f}–{over.high:.2f})" in said[1][0]


def test_make_answer_spends_its_error_over_its_looks():
    looked = {"looks": 4, "cells": []}
    assert verdicts.confidence_of(looked) == pytest.approx(1 - 0.05 / 4)
    assert verdicts.confidence_of({"cells": []}) == 0.95


def test_the_a_a_says_where_its_interval_over_every_session_excludes_1(monkeypatch):
    """Each session's A/A is judged at its calibration's confidence (1 − 5 % over its intervals), so it can contain 1
    where the interval shown, at the table's confidence over every session, does not: the row says both."""
    from benchkit.core import decide
    from benchkit.publish.cpumap import answer

    def interval(estimate, low, high):
        return decide.Interval(estimate, low, high, 4, 2, 4, 0.1, "sessions")
    cell = {"size": "0"}
    monkeypatch.setattr(verdicts, "calibration", lambda floor: [
        ("first", "0", "complete_per_s", interval(0.8, 0.5, 1.1)), ("second", "0", "complete_per_s", interval(0.7, 0.4, 1.05))])
    monkeypatch.setattr(verdicts, "interval", lambda floor, c, key: interval(0.75, 0.6, 0.95))
    assert answer.a_a({}, cell, "complete_per_s") == ("0.75× (0.60–0.95), contains 1 in every session (each at its "
                                                      "calibration's confidence); this interval excludes 1")
    monkeypatch.setattr(verdicts, "interval", lambda floor, c, key: interval(0.9, 0.7, 1.2))
    assert answer.a_a({}, cell, "complete_per_s") == "0.90× (0.70–1.20), contains 1 in every session"


def test_the_balance_table_weighs_the_answer_s_own_forks_and_costs():
    """cpu-map-balance: the A/A's forks' spread within each session, the rounds' costs, and of the forks whose quota was
    lifted, how long each warmed without it and under it; the runs on one start from the published maps."""
    import math
    from benchkit.core import decide
    from benchkit.publish.cpumap import answer

    def rounds(ratios, lifted):
        return [{"session": session, "spent_s": {"forking": 200.0, "measuring": 50.0, **(
            {"warming_without_quota": 100.0, "warming_under_quota": 20.0} if lifted else {})}}
            for session in ("first", "second") for _ in ratios[:2]]
    ratios = [1.1, 0.9, 1.2, 1.0]  # the A/A's, two forks in each of two sessions
    document = {"cells": [
        {"build": celldoc.A_A, "size": "0.5", "rounds": rounds(ratios, True), "ratios": {"complete_per_s": {"rounds": ratios}}},
        {"build": celldoc.A_A, "size": "0", "rounds": rounds(ratios, False), "ratios": {"complete_per_s": {"rounds": ratios}}}]}
    header, row = answer.balance_rows(document)
    spread = math.sqrt(sum((math.log(a) - math.log(b)) ** 2 / 2 for a, b in ((1.1, 0.9), (1.2, 1.0))) * 2 / 4)
    assert row[1] == f"{spread:.3f}" and row[0] == f"{decide.published_run_spread(ROOT / 'docs' / 'results'):.3f}"
    assert row[2:5] == ["200", "100 without its quota, then 20 under it (4 forks)", "50"]
    # the same costs by size: where the quota was lifted, its two warm-ups; where there is none to lift, no such
    _, half, whole = answer.costs_rows({**document, "sizes": ["0.5", "0"]})
    assert half == ["0.5 CPU", "200", "100", "20", "50", "4"]  # every fork alike: no range
    assert whole == ["no limit", "200", "–", "–", "50", "4"]
    assert answer.costs_rows({"sizes": ["0"], "cells": [{"size": "0", "rounds": [{}]}]}) == []  # rounds on one start
    older = {"sizes": ["0.5"], "cells": [{"size": "0.5", "rounds": [  # a session before the warm-ups were kept apart
        {"spent_s": {"forking": 100.0, "measuring": 40.0}},
        {"spent_s": {"forking": 300.0, "measuring": 60.0, "warming_without_quota": 90.0, "warming_under_quota": 10.0}}]}]}
    assert answer.costs_rows(older)[1] == ["0.5 CPU", "200 (100–300)", "90 (1 fork)", "10 (1 fork)", "50 (40–60)", "2"]


def test_the_command_that_would_decide_names_results_as_typed_at_the_checkout_s_root(tmp_path):
    assert answering.as_typed(ROOT / "results" / "answer-20261205T002147Z") == "results/answer-20261205T002147Z"
    assert answering.as_typed(tmp_path) == str(tmp_path)  # elsewhere: as it is
