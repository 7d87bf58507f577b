from benchkit import kube

V2 = """==> /sys/fs/cgroup/cpu.stat
usage_usec 2500000
user_usec 2000000
==> /sys/fs/cgroup/memory.peak
419430400
==> /sys/fs/cgroup/memory.stat
anon 314572800
file 1000
==> /sys/fs/cgroup/memory.events
oom_kill 0
"""
V1 = """==> /sys/fs/cgroup/cpuacct/cpuacct.usage
7500000000
==> /sys/fs/cgroup/memory/memory.max_usage_in_bytes
449839104
==> /sys/fs/cgroup/memory/memory.stat
rss 1
total_rss 377487360
==> /sys/fs/cgroup/memory/memory.oom_control
oom_kill_disable 0
oom_kill 1
"""


def test_cgroup_v2():
    reading = kube.parse_cgroup(V2)
    assert reading["cgroup"] == "v2" and reading["cpu_seconds"] == 2.5
    assert reading["peak_bytes"] == 400 * 2**20 and reading["anonymous_bytes"] == 300 * 2**20
    assert reading["oom_kills"] == 0


def test_cgroup_v1_reads_the_hierarchy_totals():
    reading = kube.parse_cgroup(V1)
    assert reading["cgroup"] == "v1" and reading["cpu_seconds"] == 7.5
    assert reading["peak_source"] == "memory.max_usage_in_bytes" and reading["anonymous_bytes"] == 360 * 2**20
    assert reading["oom_kills"] == 1


def test_a_figure_not_there_is_none_never_zero():
    reading = kube.parse_cgroup("==> /sys/fs/cgroup/cpu.stat\nuser_usec 5\n")
    assert reading["cpu_seconds"] is None and reading["peak_bytes"] is None and reading["anonymous_bytes"] is None


def test_restarts_between():
    before = {"web/app": {"restarts": 0, "last_reason": None}, "db/pg": {"restarts": 2, "last_reason": "Error"}}
    after = {"web/app": {"restarts": 1, "last_reason": "OOMKilled"}, "db/pg": {"restarts": 2, "last_reason": "Error"},
             "new/app": {"restarts": 0, "last_reason": None}}
    assert kube.restarts_between(before, after) == {"web/app": {"restarts": 1, "last_reason": "OOMKilled"}}
