"""The CPU map: a local process under a quota as a pod's limit is (a real cgroup), and the map's ratios, table and
consistency on figures made up for the purpose."""
import os
import pathlib
import subprocess
import time

import pytest

from benchkit.core import procfs
from benchkit.experiments import cpumap


@pytest.mark.skipif(not os.access(procfs.CGROUPS, os.W_OK) and not os.access(procfs.CGROUPS / "cpu", os.W_OK),
                    reason="no writable cgroup hierarchy here (root on the machines that run make test)")
def test_a_process_is_held_to_its_quota_and_let_go_again():
    sleeper = subprocess.Popen(["sleep", "30"])
    try:
        assert procfs.cpu_limit(sleeper.pid) is None
        procfs.limit_cpu("test-sleeper", sleeper.pid, 0.5)
        assert procfs.cpu_limit(sleeper.pid) == 0.5
        procfs.limit_cpu("test-sleeper", sleeper.pid, None)
        assert procfs.cpu_limit(sleeper.pid) is None
    finally:
        sleeper.kill()
        sleeper.wait()


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


def cells(version, rates):
    return [{"size": size, "round": number, "complete_per_s": rate, "p50": 10.0, "p99": 50.0,
             "cpu_ms_per_complete_background_off": 1000 / rate}
            for size, per_round in rates.items() for number, rate in enumerate(per_round, start=1)]


def test_each_size_s_ratio_is_the_median_of_its_rounds_own():
    document = {"sizes": [0.5, 0.0], "cells": {"v1": cells("v1", {0.5: [100, 110, 90], 0.0: [400, 400, 400]}),
                                               "v2": cells("v2", {0.5: [200, 110, 180], 0.0: [600, 800, 400]})}}
    found = cpumap.ratios(document)
    assert found["0.5 CPU"]["v2"]["complete_per_s"]["median"] == 2.0
    assert found["0.5 CPU"]["v2"]["complete_per_s"]["rounds"] == [2.0, 1.0, 2.0]
    assert found["no limit"]["v2"]["complete_per_s"]["low"] == 1.0
    assert found["no limit"]["v2"]["cpu_ms_per_complete_background_off"]["median"] == pytest.approx(400 / 600)
    document["ratios"] = found
    assert cpumap.consistency(document) == []
    rows = cpumap.table(document)
    assert rows[1][:2] == ["0.5 CPU", "complete answers/s"] and rows[1][-1] == "2.00× (1.00–2.00)"
    document["cells"]["v2"][0]["complete_per_s"] = 300
    assert cpumap.consistency(document) == ["ratios: not what its rounds give"]
