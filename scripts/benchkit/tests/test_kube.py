import os
import pathlib
import subprocess
import sys
import time

import pytest

from benchkit.platforms import kube, loadjobs, podreadings

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
    reading = podreadings.parse_cgroup(V2)
    assert reading["cgroup"] == "v2" and reading["cpu_seconds"] == 2.5
    assert reading["peak_bytes"] == 400 * 2**20 and reading["anonymous_bytes"] == 300 * 2**20
    assert reading["oom_kills"] == 0


def test_cgroup_v1_reads_the_hierarchy_totals():
    reading = podreadings.parse_cgroup(V1)
    assert reading["cgroup"] == "v1" and reading["cpu_seconds"] == 7.5
    assert reading["peak_source"] == "memory.max_usage_in_bytes" and reading["anonymous_bytes"] == 360 * 2**20
    assert reading["oom_kills"] == 1


def test_a_figure_not_there_is_none_never_zero():
    reading = podreadings.parse_cgroup("==> /sys/fs/cgroup/cpu.stat\nuser_usec 5\n")
    assert reading["cpu_seconds"] is None and reading["peak_bytes"] is None and reading["anonymous_bytes"] is None


def test_restarts_between():
    before = {"web/app": {"restarts": 0, "last_reason": None}, "db/pg": {"restarts": 2, "last_reason": "Error"}}
    after = {"web/app": {"restarts": 1, "last_reason": "OOMKilled"}, "db/pg": {"restarts": 2, "last_reason": "Error"},
             "new/app": {"restarts": 0, "last_reason": None}}
    assert kube.restarts_between(before, after) == {"web/app": {"restarts": 1, "last_reason": "OOMKilled"}}


def test_cfs_throttling_v2_and_v1():
    v2 = podreadings.parse_cgroup(V2 + "==> /sys/fs/cgroup/cpu.stat\n")  # the same file, read once
    assert v2["throttling"] is None  # no quota figures in it
    quota_v2 = V2.replace("user_usec 2000000\n", "user_usec 2000000\nnr_periods 100\nnr_throttled 40\nthrottled_usec 1500000\n")
    assert podreadings.parse_cgroup(quota_v2)["throttling"] == {"periods": 100, "throttled": 40, "throttled_seconds": 1.5}
    quota_v1 = V1 + "==> /sys/fs/cgroup/cpu,cpuacct/cpu.stat\nnr_periods 200\nnr_throttled 10\nthrottled_time 250000000\n"
    assert podreadings.parse_cgroup(quota_v1)["throttling"] == {"periods": 200, "throttled": 10, "throttled_seconds": 0.25}
    assert podreadings.parse_cgroup(V1)["throttling"] is None


def test_the_cpu_limit_the_jvm_sizes_itself_by():
    assert podreadings.parse_cgroup(V2 + "==> /sys/fs/cgroup/cpu.max\n100000 100000\n")["cpu_limit"] == 1.0
    assert podreadings.parse_cgroup(V2 + "==> /sys/fs/cgroup/cpu.max\nmax 100000\n")["cpu_limit"] is None
    v1 = V1 + "==> /sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us\n{}\n==> /sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us\n100000\n"
    assert podreadings.parse_cgroup(v1.format(50000))["cpu_limit"] == 0.5
    assert podreadings.parse_cgroup(v1.format(-1))["cpu_limit"] is None


def test_the_load_job_s_own_cpu_from_its_log():
    log = (f"v1 closed: done\n{loadjobs.CGROUP_BEGIN}\n==> /sys/fs/cgroup/cpu,cpuacct/cpuacct.usage\n3250000000\n"
           f"{loadjobs.CGROUP_END}\n")
    assert loadjobs.load_cpu_seconds(log) == 3.25
    assert loadjobs.load_cpu_seconds("v1 closed: done\n") is None


def fake_kubectl(tmp_path, monkeypatch, watched, pods):
    """A kubectl on PATH: its watch of the Job prints the given "succeeded,failed" lines, then waits to be stopped;
    `get pods` prints the given pods."""
    (tmp_path / "pods.json").write_text(pods)
    script = tmp_path / "kubectl"
    script.write_text("#!/bin/sh\ncase \"$*\" in\n"
                      f"  *--watch*) printf '{watched}'; exec sleep 600 ;;\n"
                      f"  *'get pods'*) cat '{tmp_path / 'pods.json'}' ;;\n"
                      "  *) exit 1 ;;\nesac\n")
    script.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}:{os.environ['PATH']}")


def test_a_job_that_succeeds_is_seen_from_the_watch(tmp_path, monkeypatch):
    fake_kubectl(tmp_path, monkeypatch, ",\\n,\\n1,\\n", '{"items": []}')
    assert loadjobs.await_job("ns", "load-v1-closed", "v1 closed", every=30) == 0


def test_a_job_that_failed_gives_its_containers_exit_code(tmp_path, monkeypatch):
    pods = ('{"items": [{"metadata": {"name": "load-0"}, "status": {"containerStatuses": ['
            '{"state": {"terminated": {"exitCode": 3}}}]}}]}')
    fake_kubectl(tmp_path, monkeypatch, ",\\n,1\\n", pods)
    assert loadjobs.await_job("ns", "load-v1-closed", "v1 closed", every=30) == 3


def test_a_job_whose_pod_cannot_start_stops_the_wait(tmp_path, monkeypatch):
    import pytest
    pods = ('{"items": [{"metadata": {"name": "load-0"}, "status": {"conditions": [{"type": "PodScheduled", '
            '"reason": "Unschedulable", "message": "0/1 nodes: Insufficient cpu"}]}}]}')
    fake_kubectl(tmp_path, monkeypatch, ",\\n", pods)
    with pytest.raises(SystemExit, match="cannot start: load-0 is unschedulable: 0/1 nodes: Insufficient cpu"):
        loadjobs.await_job("ns", "load-v1-closed", "v1 closed", every=30)


def test_a_pod_whose_claim_waits_for_its_volume_can_still_start(tmp_path, monkeypatch):
    def pod(name, message):
        return (f'{{"metadata": {{"name": "{name}"}}, "status": {{"conditions": [{{"type": "PodScheduled", '
                f'"reason": "Unschedulable", "message": "{message}"}}]}}}}')
    waiting = pod("bench-postgres-0", "0/1 nodes are available: pod has unbound immediate PersistentVolumeClaims. "
                                      "preemption: 0/1 nodes are available")
    fake_kubectl(tmp_path, monkeypatch, ",\\n", f'{{"items": [{waiting}]}}')
    assert kube.unschedulable("ns") == ""
    fake_kubectl(tmp_path, monkeypatch, ",\\n", f'{{"items": [{waiting}, {pod("load-0", "0/1 nodes: Insufficient cpu")}]}}')
    assert kube.unschedulable("ns") == "load-0 is unschedulable: 0/1 nodes: Insufficient cpu"


def test_a_split_run_s_start_skew_from_each_pod_s_log():
    assert loadjobs.start_skew_ms("shard 1 of 2: started 12.5 ms after START_AT\n") == 12.5
    assert loadjobs.start_skew_ms("v1 closed: done\n") is None


def test_a_split_run_s_pods_must_start_together():
    on_time = [{"pod": "load-0", "start_skew_ms": 0.4}, {"pod": "load-1", "start_skew_ms": 12.0}]
    assert loadjobs.late_pods(on_time) == []
    late = [*on_time, {"pod": "load-2", "start_skew_ms": loadjobs.SPLIT_SKEW_LIMIT_MS + 1}, {"pod": "load-3", "start_skew_ms": None}]
    assert loadjobs.late_pods(late) == [("load-2", loadjobs.SPLIT_SKEW_LIMIT_MS + 1), ("load-3", None)]


def test_one_exec_reads_a_container_s_cgroup_and_what_the_kernel_counted_of_its_processes(monkeypatch):
    import subprocess
    ran = []

    def pod_exec(namespace, target, *command, **options):
        ran.append(command)
        return subprocess.CompletedProcess(command, 0, (V2 + "==> scheduling\ntask 1 10 2 5000\nio 1 syscr: 7\n"
                                                        "io 1 syscw: 3\nnet eth0: 1 4 0 0 0 0 0 0 1 6 0 0 0 0 0 0\n"
                                                        + podreadings.END_MARK + "\n").encode())
    monkeypatch.setattr(kube, "pod_exec", pod_exec)
    reading = podreadings.cgroup_readings("bench", "deploy/x", scheduling=True)
    assert len(ran) == 1 and reading["cpu_seconds"] == 2.5
    assert reading["scheduling"] == {"tasks": {"1": [10, 2, 5000]}, "io": {"1": [7, 3]}, "packets": 10}
    assert "scheduling" not in podreadings.cgroup_readings("bench", "deploy/x")


def test_the_same_exec_reads_a_service_s_jvm_its_threads_and_its_hsperfdata_file_s_bytes(monkeypatch):
    import subprocess
    from benchkit.tests.test_hsperf import hsperf_file
    # the file's bytes as they come, whatever they hold: a newline, even the end's mark (the last one ends)
    counters = hsperf_file({"sun.ci.totalCompiles": 2570, "sun.rt.jvmVersion": "25.0.1+8\n==> end"})
    stat = "1 (java) S 0 1 1 0 -1 4194560 0 0 0 0 3 1 0 0 20 0 1 0 9 0 0\n"
    printed = (V2 + "==> scheduling\ntask 1 10 2 5000\n" + podreadings.TASKS_MARK + "\n" + stat).encode()
    outputs = [printed + (podreadings.HSPERF_MARK + "\n").encode() + counters + podreadings.END_MARK.encode() + b"\n",
               printed + (podreadings.HSPERF_MARK + "\n" + podreadings.END_MARK + "\n").encode()]
    monkeypatch.setattr(kube, "pod_exec", lambda *args, **options: subprocess.CompletedProcess(args, 0, outputs.pop(0)))
    reading = podreadings.cgroup_readings("bench", "deploy/x", scheduling=True, jvm=True)
    assert reading["cpu_seconds"] == 2.5 and reading["scheduling"]["tasks"] == {"1": [10, 2, 5000]}
    assert reading["task_stats"].strip() == stat.strip()
    assert reading["counters"]["sun.ci.totalCompiles"] == 2570
    assert reading["counters"]["sun.rt.jvmVersion"] == "25.0.1+8\n==> end"
    # no hsperfdata file (a user without a name): no counters, the rest read
    reading = podreadings.cgroup_readings("bench", "deploy/x", scheduling=True, jvm=True)
    assert reading["counters"] is None and reading["task_stats"].strip() == stat.strip()


def test_the_load_pods_node_selector_is_given_to_the_chart_with_its_labels_dots_escaped(monkeypatch):
    import pytest
    monkeypatch.setenv("LOAD_NODE_SELECTOR", "node-role.kubernetes.io/load=true, pool=generator")
    args = loadjobs.load_job_values("v2", "closed", {}, "http://bench-v2-web-api:8080")
    assert [args[i + 1] for i, arg in enumerate(args) if arg == "--set-string" and "nodeSelector" in args[i + 1]] == [
        "nodeSelector.node-role\\.kubernetes\\.io/load=true", "nodeSelector.pool=generator"]
    monkeypatch.setenv("LOAD_NODE_SELECTOR", "pool")
    with pytest.raises(SystemExit, match="not key=value"):
        loadjobs.load_job_values("v2", "closed", {}, "http://bench-v2-web-api:8080")
    monkeypatch.delenv("LOAD_NODE_SELECTOR")
    assert not any("nodeSelector" in arg for arg in loadjobs.load_job_values("v2", "closed", {}, "http://x:8080"))


def test_a_cgroup_exec_that_printed_nothing_or_part_is_tried_again_and_then_fails_loudly(monkeypatch):
    import subprocess
    import pytest
    # the end's mark follows the last file read: not a part of it (the limit read from it)
    whole = V2 + "==> /sys/fs/cgroup/cpu.max\n50000 100000\n" + podreadings.END_MARK + "\n"
    # the cgroup's lines lost on the stream, the threads' there; then the end lost
    outputs = [text.encode() for text in
               ["", podreadings.SCHEDULING_MARK + "\ntask 101 2744 87 3865837256\n" + podreadings.END_MARK, V2, whole]]
    monkeypatch.setattr(podreadings.time, "sleep", lambda seconds: None)
    monkeypatch.setattr(kube, "pod_exec",
                        lambda *args, **options: subprocess.CompletedProcess(args, 0, outputs.pop(0), b"eof"))
    monkeypatch.setattr(podreadings, "EXEC_ATTEMPTS", 4)
    reading = podreadings.cgroup_readings("bench", "deploy/bench-v1-web-api")
    assert (reading["cpu_seconds"], reading["cpu_limit"], outputs) == (2.5, 0.5, [])
    outputs = [b""] * podreadings.EXEC_ATTEMPTS
    with pytest.raises(SystemExit, match="error stream: 'eof'"):
        podreadings.cgroup_readings("bench", "deploy/bench-v1-web-api")
    assert outputs == []  # every attempt made


def test_a_program_s_architecture_from_its_elf_header(tmp_path):
    def program(machine, little=True):
        header = b"\x7fELF" + bytes([2, 1 if little else 2, 1]) + bytes(11)
        header += machine.to_bytes(2, "little" if little else "big") + bytes(44)
        path = tmp_path / f"program-{machine}-{little}"
        path.write_bytes(header)
        return path
    assert kube.elf_architecture(program(62)) == "amd64"
    assert kube.elf_architecture(program(183)) == "arm64"
    assert kube.elf_architecture(program(22, little=False)) == "s390x"
    assert kube.elf_architecture(program(999)) == "ELF machine 999"
    script = tmp_path / "script"
    script.write_text("#!/bin/sh\n")
    with pytest.raises(SystemExit, match="not an ELF program"):
        kube.elf_architecture(script)


def forwarding_kubectl(directory):
    """A kubectl in DIRECTORY whose port-forward says where it forwards the API and the management port, then stays."""
    kubectl = directory / "kubectl"
    kubectl.write_text("#!/bin/sh\n" + "".join(f"echo 'Forwarding from {host}:{local} -> {remote}'\n" for local, remote in (
        (41235, 8080), (41236, 9000)) for host in ("127.0.0.1", "[::1]")) + "exec sleep 30\n")
    kubectl.chmod(0o755)
    return kubectl


def test_a_port_forward_finds_the_api_and_the_management_port_or_says_why_not(tmp_path, monkeypatch):
    kubectl = forwarding_kubectl(tmp_path)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    forward = kube.PortForward("ns", "bench-v1-web-api")
    assert (forward.url, forward.management) == ("http://127.0.0.1:41235", "http://127.0.0.1:41236")
    forward.close()
    kubectl.write_text("#!/bin/sh\necho 'error: services \"bench-v1-web-api\" not found'\nexit 1\n")
    with pytest.raises(SystemExit, match="port-forward to bench-v1-web-api failed: error: services"):
        kube.PortForward("ns", "bench-v1-web-api")


def test_a_port_forward_never_outlives_the_harness(tmp_path):
    """A platform that hands out a build and never closes it (a warm-up's) still leaves no kubectl behind it."""
    forwarding_kubectl(tmp_path)
    harness = "from benchkit.platforms import kube; print(kube.PortForward('ns', 'svc').process.pid)"
    started = subprocess.run([sys.executable, "-c", harness], capture_output=True, text=True, check=True,
                             cwd=pathlib.Path(__file__).parents[2],
                             env={**os.environ, "PATH": f"{tmp_path}{os.pathsep}{os.environ['PATH']}"})
    pid = int(started.stdout.split()[0])
    for _ in range(50):  # its end is the kernel's to record: up to 5 s
        try:
            state = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except FileNotFoundError:
            return
        if state == "Z":
            return
        time.sleep(0.1)
    os.kill(pid, 9)
    raise AssertionError(f"kubectl port-forward ({pid}) outlived the harness that started it")
