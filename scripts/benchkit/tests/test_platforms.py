import json
import pathlib

import pytest

from benchkit.core import documents
from benchkit import platforms as adapters
from benchkit.core import platform as platforms, plugins
from benchkit.experiments.chaos import faults
from benchkit.platforms.kubernetes import Kubernetes, KubernetesBuild
from benchkit.platforms.local import Local, LocalBuild


def test_deltas_of_nested_counters_never_invent_a_zero():
    before = {"web-api": {"jit_seconds": 1.0, "gc_seconds": 0.5}, "authors": None, "articles": {"jit_seconds": 2.0}}
    after = {"web-api": {"jit_seconds": 3.5, "gc_seconds": 0.75}, "authors": {"jit_seconds": 1.0},
             "articles": {"jit_seconds": None}}
    assert platforms.deltas(before, after) == {"web-api": {"jit_seconds": 2.5, "gc_seconds": 0.25}, "authors": None,
                                               "articles": {"jit_seconds": None}}
    assert platforms.deltas(None, after) is None


def test_jvm_ergonomics_by_thread_names_and_counters():
    threads = ["java", "GC Thread#0", "G1 Main Marker", "C2 CompilerThre", "C1 CompilerThre", "vert.x-eventloo",
               "vert.x-eventloo", "executor-thread", "ForkJoinPool-1-", "ForkJoinPool-1-", "ForkJoinPool.co"]
    metrics = "\n".join([
        '# TYPE worker_pool_idle gauge',
        'worker_pool_idle{pool_name="vert.x-internal-blocking",pool_type="worker"} 20.0',
        'worker_pool_idle{pool_name="vert.x-worker-thread",pool_type="worker"} 197.0',
        'worker_pool_active{pool_name="vert.x-worker-thread",pool_type="worker"} 3.0',
        'netty_eventexecutor_workers{executor="eventLoop"} 2.0',
        'netty_eventexecutor_workers{executor="acceptor"} 1.0'])
    jvm = adapters.jvm_ergonomics(1, 1.0, {"sun.gc.collector.0.name": "G1 young collection pauses", "sun.ci.threads": 2},
                                   threads, metrics)
    assert jvm == {"processors": 1, "cpu_limit": 1.0, "gc": "G1", "compiler_threads": 2, "worker_pool_size": 200,
                   "event_loop_count": 2, "sql_pool_size": None,
                   "threads": {"event loops": 2, "Vert.x workers": 0, "Quarkus workers": 1, "virtual-thread carriers": 2,
                               "GC workers": 1, "JIT compilers": 2, "all": 11}}
    assert documents.ergonomics_text(jvm) == ("1 processors (CPU limit 1), G1 GC, 2 compiler threads; pools as its metrics "
                                              "report them: worker pool 200, event loops 2; threads alive after the "
                                              "warm-up (pools shrink when idle): event "
                                              "loops 2, Quarkus workers 1, virtual-thread carriers 2, GC workers 1, "
                                              "JIT compilers 2, 11 in all")


def test_the_jit_compiler_threads_cpu_from_proc():
    from benchkit.platforms import procfs
    ticks = procfs.CLOCK_TICKS
    stats = "\n".join([
        f"101 (C2 CompilerThre) S 1 1 1 0 -1 4194368 0 0 0 0 {3 * ticks} {ticks} 0 0 20 0 1 0 5 0 0",
        f"102 (C1 CompilerThre) S 1 1 1 0 -1 4194368 0 0 0 0 {ticks} 0 0 0 20 0 1 0 5 0 0",
        f"103 (vert.x-eventloo) S 1 1 1 0 -1 4194368 0 0 0 0 {50 * ticks} 0 0 0 20 0 1 0 5 0 0",
        f"104 (a (strange) name) S 1 1 1 0 -1 4194368 0 0 0 0 {7 * ticks} 0 0 0 20 0 1 0 5 0 0"])
    assert procfs.compiler_cpu_seconds(stats) == 5.0


def test_a_clusters_snapshot_makes_its_kubectl_calls_together(monkeypatch):
    """Each call waits at a barrier for the others of its kind: made one after the other, the first would wait
    alone until the barrier's time-out and the snapshot would fail."""
    import threading
    from benchkit.core import prometheus
    from benchkit.platforms import kube, podreadings
    build = object.__new__(KubernetesBuild)
    build.namespace, build.version = "ns", "v1"
    build.targets = {name: f"deploy/bench-v1-{name}" for name in ("web-api", "articles", "authors")}
    build.idle = ["deploy/bench-v2-web-api"]
    build.forwards = {name: type("Forward", (), {"url": f"http://{name}", "management": f"http://{name}:9000"})()
                      for name in build.targets}
    build.extra = {"proxy": "deploy/bench-v1-latency-proxy"}  # its latency proxy's CPU is the build's
    # one exec per container, every one at once: the barrier opens only once all of them wait
    cgroups = threading.Barrier(len(build.targets) + len(KubernetesBuild.PODS) + len(build.extra) + len(build.idle),
                                timeout=30)
    jvm_read = []

    def cgroup(namespace, target, scheduling=False, jvm=False):
        cgroups.wait()
        jvm_read.extend([target] if jvm else [])
        return {"cpu_seconds": 1.0 if "v2" in target else 2.0, "throttling": None,
                **({"scheduling": {"tasks": {"1": [5, 1, 100]}, "io": {}, "packets": 3}} if scheduling else {}),
                **({"counters": {"sun.ci.totalCompiles": 7} if "web-api" in target else None, "task_stats": ""}
                   if jvm else {})}

    asked_jcmd = []
    monkeypatch.setattr(podreadings, "cgroup_readings", cgroup)
    monkeypatch.setattr(podreadings, "jcmd_counters", lambda namespace, target: asked_jcmd.append(target))
    monkeypatch.setattr(kube, "pod_states", lambda namespace: {})
    monkeypatch.setattr(prometheus, "scrape", lambda url: url)
    monkeypatch.setattr(prometheus, "requests_served", lambda scraped: {name: len(text) for name, text in scraped.items()})
    snapshot = build.snapshot()
    assert snapshot["cpu_seconds"] == {"web-api": 2.0, "articles": 2.0, "authors": 2.0, "postgres": 2.0, "kafka": 2.0,
                                       "proxy": 2.0}
    assert snapshot["scheduling"]["kafka"] == {"tasks": {"1": [5, 1, 100]}, "io": {}, "packets": 3, "threads_peak": None}
    assert snapshot["idle_cpu_seconds"] == 1.0
    # each service's counters read on its management port
    assert snapshot["requests"] == {"web-api": len("http://web-api:9000"), "articles": len("http://articles:9000"),
                                    "authors": len("http://authors:9000")}
    # the services' JVMs read in the same exec as their cgroups; one without an hsperfdata file asked through jcmd
    assert sorted(jvm_read) == sorted(build.targets.values())
    assert snapshot["jvm"]["web-api"]["compilations"] == 7
    assert snapshot["jvm"]["articles"] is None and sorted(asked_jcmd) == ["deploy/bench-v1-articles", "deploy/bench-v1-authors"]
    assert all("counters" not in reading and "task_stats" not in reading for reading in snapshot["readings"].values())


def test_both_platforms_implement_the_whole_declared_interface():
    local, cluster = Local("loadgen"), Kubernetes("bench", ["v1"])
    assert isinstance(local, Local) and local.reroutes
    assert isinstance(cluster, Kubernetes) and cluster.namespace == "bench" and not cluster.reroutes
    for platform, build in ((local, LocalBuild), (cluster, KubernetesBuild)):
        assert isinstance(platform, platforms.Platform) and not type(platform).__abstractmethods__, platform
        for kind in (plugins.Faults, plugins.LatencyProxy):  # each plug-in made for it, whole
            made = platform.plugin(kind)
            assert isinstance(made, kind) and made.platform is platform and not type(made).__abstractmethods__
        assert issubclass(build, platforms.Build) and not build.__abstractmethods__, build
        for attribute in ("kind", "where"):
            assert getattr(platform, attribute) is not None, (platform, attribute)
        assert platform.plugin(plugins.Faults).restores_itself is (platform is cluster)
        injectable, quick = faults.of(platform.kind, platform.plugin(plugins.Faults).on_node)
        assert set(quick) <= {fault.name for fault in injectable}


def test_the_local_stack_restarts_only_what_changes_and_restores_what_it_changed(monkeypatch):
    from benchkit.platforms import local
    calls = []
    monkeypatch.setattr(local, "stack", lambda action, *parts, settings=None, cpu_groups=None:
                        calls.append((action, parts, settings, cpu_groups)))
    monkeypatch.setattr(local, "stack_inventory", lambda: {
        "services": {f"{s}-v2": {"pid": 1, "url": f"http://{s}", "management": f"http://{s}:9000"}
                     for s in ("web-api", "articles", "authors")},
        "postgres": {"pid": 2, "port": 5432}, "kafka": {"pid": 3}})
    platform = Local("loadgen")
    build = platform.reconfigure("v2", {"articles": {"A": 1}, "authors": {"A": 1}})
    assert isinstance(build, LocalBuild) and build.web_api_url() == "http://web-api"
    both = ("articles-v2", "authors-v2")  # what changes, stopped together, started together, each with its own
    assert calls == [("stop-services", both, None, None),
                     ("start", both, {"articles-v2": "A=1", "authors-v2": "A=1"}, None)]  # no limit: no CPU cgroup
    platform.reconfigure("v2", {"articles": {"A": 1}, "authors": {"A": 1}})
    assert len(calls) == 2  # the same settings: nothing restarted
    platform.reconfigure("v2", {"articles": {"A": 1}, "authors": {"A": 2}})
    assert calls[-2:] == [("stop-services", ("authors-v2",), None, None),
                          ("start", ("authors-v2",), {"authors-v2": "A=2"}, None)]
    stopped = faults.Fault("authors stopped", "authors", "stop", "start", True, "")
    platform.plugin(plugins.Faults).act("stop", stopped, "v2")
    platform.plugin(plugins.Faults).act("start", stopped, "v2")
    assert calls[-1] == ("start", ("authors-v2",), {"authors-v2": "A=2"}, None)  # a fault's restart: reconfigured still
    platform.close()  # back as shipped
    assert calls[-2:] == [("stop-services", both, None, None),
                          ("start", both, {"articles-v2": "", "authors-v2": ""}, None)]


def test_whether_builds_can_be_measured_behind_the_proxy_is_the_platforms_answer(monkeypatch):
    from benchkit.platforms.kubernetes import KubernetesProxy
    from benchkit.platforms.local import LocalProxy
    local, cluster = (platform.plugin(plugins.LatencyProxy) for platform in (Local("loadgen"),
                                                                            Kubernetes("bench", ["v1", "v2"])))
    monkeypatch.setattr(LocalProxy, "latency", lambda self: None)
    assert "make toxiproxy" in local.behind_proxy(["v1"])
    monkeypatch.setattr(LocalProxy, "latency", lambda self: object())
    monkeypatch.setattr(LocalProxy, "through_proxy", lambda self, version: False)
    assert local.behind_proxy(["v1"]) is None  # the local stack restarts a build behind it
    monkeypatch.setattr(KubernetesProxy, "latency", lambda self: object())
    monkeypatch.setattr(KubernetesProxy, "through_proxy", lambda self, version: version == "v1")
    assert cluster.behind_proxy(["v1", "v2"]).startswith("v2 without the latency proxy: deploy every build")
    assert cluster.behind_proxy(["v1"]) is None


def test_the_parts_cpu_is_read_through_the_platform(monkeypatch):
    """The chaos recorder asks its platform; on a node each pod is named once, again when a new one appears."""
    from benchkit.platforms import kube, procfs
    cluster = Kubernetes("bench", ["v1"]).plugin(plugins.Faults)
    listed = []
    pods = {"items": [{"metadata": {"uid": "u1", "name": "a", "labels": {"app.kubernetes.io/name": "web-api",
                                                                          "app.kubernetes.io/instance": "bench-v1"}}}]}
    monkeypatch.setattr(kube, "kubectl", lambda *args: listed.append(args) or json.dumps(pods))
    monkeypatch.setattr(procfs, "pod_cpu_seconds", lambda: {"u1": 2.5})
    assert cluster.part_cpu_seconds() == {"u1": ("web-api v1", 2.5)}
    assert cluster.part_cpu_seconds() == {"u1": ("web-api v1", 2.5)} and len(listed) == 1
    monkeypatch.setattr(procfs, "pod_cpu_seconds", lambda: {"u1": 3.0, "u2": 1.0})
    assert cluster.part_cpu_seconds() == {"u1": ("web-api v1", 3.0), "u2": ("other pods", 1.0)} and len(listed) == 2
    assert cluster.part_cpu_seconds()["u2"] == ("other pods", 1.0) and len(listed) == 2  # another namespace's: once
    assert Local("loadgen").plugin(plugins.Faults).part_cpu_seconds() == {}


def test_a_local_build_s_services_ready_at_the_moments_the_stack_noted():
    """stack.sh notes when it found each service ready (stack.json's ready_at); one started before it did has none."""
    inventory = {"services": {f"{s}-v1": {"pid": 1, "url": f"http://{s}", "management": f"http://{s}:9000",
                                          "ready_at": moment} for s, moment in
                              (("web-api", 1796572661.25), ("articles", 1796572660.5), ("authors", None))},
                 "postgres": {"pid": 2, "port": 5432}, "kafka": {"pid": 3}}
    assert LocalBuild(inventory, "v1", "loadgen").ready_at() == {"web-api": 1796572661.25, "articles": 1796572660.5}


def limited_stack(monkeypatch, version):
    """The local stack on two cores with the build's services running, every restart and cgroup limit kept:
    (the platform, [(action, (service, …), {service: its settings}, the CPU cgroups' directory)], [(service, CPUs)]),
    a CPU cgroup made for a start (procfs.limited_group) kept among the limits too."""
    from benchkit.platforms import procfs
    from benchkit.platforms import local
    calls, limits = [], []
    monkeypatch.setattr(local, "stack", lambda action, *parts, settings=None, cpu_groups=None:
                        calls.append((action, parts, settings, cpu_groups)))
    monkeypatch.setattr(procfs, "limited_group",
                        lambda name, cpus: limits.append((f"{name} started in", cpus)) or pathlib.Path("/groups", name))
    # a process started in a group is under the quota its group was made with last
    monkeypatch.setattr(procfs, "cpu_limit", lambda pid: next(c for n, c in reversed(limits) if n.endswith(" in")))
    monkeypatch.setattr(local, "stack_inventory", lambda: {
        "services": {f"{s}-{version}": {"pid": 7, "url": f"http://{s}", "management": f"http://{s}:9000"}
                     for s in ("web-api", "articles", "authors")},
        "postgres": {"pid": 2, "port": 5432}, "kafka": {"pid": 3}})
    monkeypatch.setattr(procfs, "limit_cpu", lambda name, pid, cpus: limits.append((name, cpus)))
    monkeypatch.setattr(local.os, "cpu_count", lambda: 2)
    return Local("loadgen"), calls, limits


def test_the_local_stack_lifts_a_quota_for_a_while_and_sets_it_again(monkeypatch):
    """A fork warmed without its quota (design.warmed): lift takes each service out of its group, bind puts it back
    under the same limit; with no limit there is nothing to lift."""
    platform, _, limits = limited_stack(monkeypatch, "v1")
    services = [f"{s}-v1" for s in ("web-api", "articles", "authors")]
    platform.size("v1", 0.5)  # each started in its group (limits' first three)
    assert platform.lift("v1") is True and limits[3:] == [(name, None) for name in services]
    assert platform.limited == {}
    platform.bind("v1")
    assert limits[6:] == [(name, 0.5) for name in services] and platform.limited == dict.fromkeys(services, 0.5)
    platform.size("v1", None)
    assert platform.lift("v1") is False


def test_a_service_a_fault_restarted_during_the_warm_up_is_the_one_bind_limits(monkeypatch):
    """Restarted while its quota is lifted, a service starts outside any group, as the warm-up runs; bind then puts
    the process that runs now under the quota, not the one the fault stopped."""
    from benchkit.platforms import local, procfs
    platform, calls, limits = limited_stack(monkeypatch, "v1")
    platform.size("v1", 0.5)
    platform.lift("v1")
    stopped = faults.Fault("authors stopped", "authors", "stop", "start", True, "")
    platform.plugin(plugins.Faults).act("stop", stopped, "v1")
    platform.plugin(plugins.Faults).act("start", stopped, "v1")
    assert calls[-1][:2] == ("start", ("authors-v1",)) and calls[-1][3] is None  # outside any group, as lifted
    inventory = local.stack_inventory()
    inventory["services"]["authors-v1"]["pid"] = 8  # the restarted process
    monkeypatch.setattr(local, "stack_inventory", lambda: inventory)
    bound = []
    monkeypatch.setattr(procfs, "limit_cpu", lambda name, pid, cpus: bound.append((name, pid, cpus)))
    platform.bind("v1")
    assert bound == [("web-api-v1", 7, 0.5), ("articles-v1", 7, 0.5), ("authors-v1", 8, 0.5)]


def test_the_local_stack_limits_a_build_s_services_and_lets_them_go_on_restore(monkeypatch):
    from benchkit.platforms import local, procfs
    platform, calls, limits = limited_stack(monkeypatch, "v2")
    platform.size("v2", 0.5)
    # as a pod of half a CPU: one processor, and v2's event loops sized by it as its chart sizes them
    assert calls[-1][2]["web-api-v2"] == "QUARKUS_VERTX_EVENT_LOOPS_POOL_SIZE=1 JDK_JAVA_OPTIONS=-XX:ActiveProcessorCount=1"
    # each started in its group, its quota set before, as a pod starts under its limit
    assert calls[-1][3] == pathlib.Path("/groups") and limits == [
        ("web-api-v2 started in", 0.5), ("articles-v2 started in", 0.5), ("authors-v2 started in", 0.5)]
    # a fault's restart starts the service under the quota it ran under, with its settings, as a pod is replaced
    stopped = faults.Fault("authors stopped", "authors", "stop", "start", True, "")
    platform.plugin(plugins.Faults).act("stop", stopped, "v2")
    platform.plugin(plugins.Faults).act("start", stopped, "v2")
    assert calls[-2][:2] == ("stop", ("authors-v2",)) and calls[-1] == (
        "start", ("authors-v2",), {"authors-v2": calls[-3][2]["authors-v2"]}, pathlib.Path("/groups"))
    assert limits[-1] == ("authors-v2 started in", 0.5) and len(limits) == 4
    platform.restore("v2")
    assert calls[-1][2]["authors-v2"] == "" and limits[-3:] == [
        ("web-api-v2", None), ("articles-v2", None), ("authors-v2", None)]
    assert platform.limited == {}
    before = len(limits)
    platform.size("v2", None)  # no limit: as shipped (what the whole machine's cells of every design measure here)
    assert calls[-1][2]["authors-v2"] == "" and calls[-1][3] is None
    assert len(limits) == before and platform.limited == {}  # no cgroup touched: no root needed
    platform.size("v2", None, 1)  # one processor counted, no quota
    assert calls[-1][2]["authors-v2"] == "QUARKUS_VERTX_EVENT_LOOPS_POOL_SIZE=1 JDK_JAVA_OPTIONS=-XX:ActiveProcessorCount=1"
    assert limits[-1] == ("authors-v2", None) and platform.limited == {}
    monkeypatch.setattr(local, "stack_inventory", lambda: {
        "services": {f"{s}-v3": {"pid": 7, "url": f"http://{s}", "management": f"http://{s}:9000"}
                     for s in ("web-api", "articles", "authors")},
        "postgres": {"pid": 2, "port": 5432}, "kafka": {"pid": 3}})
    platform.size("v3", 1)  # the build's own JVM options kept beside the processor count
    assert calls[-1][2]["authors-v3"] == "JDK_JAVA_OPTIONS=-Djdk.virtualThreadScheduler.parallelism=8 -XX:ActiveProcessorCount=1"
    monkeypatch.setattr(procfs, "cpu_limit", lambda pid: None)  # a start that left its group out: no fork measured so
    with pytest.raises(RuntimeError, match="web-api-v3 .* started outside its quota of 1 CPU"):
        platform.size("v3", 1)


def test_a_cluster_rolls_what_a_run_changed_back_to_what_was_deployed(monkeypatch):
    """reconfigure sets variables, size patches resources; restore and close give both back, each Deployment once."""
    from benchkit.platforms import kube
    from benchkit.platforms import kubernetes
    environments, resources = [], []
    monkeypatch.setattr(kube, "set_environment", lambda namespace, changes: environments.append(changes))
    monkeypatch.setattr(kube, "set_resources", lambda namespace, changes: resources.append(changes))
    deployed = {"limits": {"cpu": "1", "memory": "512Mi"}, "requests": {"cpu": "250m"}}
    loops = "QUARKUS_VERTX_EVENT_LOOPS_POOL_SIZE"  # the chart renders v2's from its limit
    monkeypatch.setattr(kube, "kubectl", lambda namespace, *args: json.dumps(
        {"spec": {"template": {"spec": {"containers": [{"resources": deployed, "env": [{"name": loops, "value": "1"}]}]}}}}))
    monkeypatch.setattr(Kubernetes, "node", staticmethod(lambda: {"status": {"capacity": {"cpu": "2"}}}))
    monkeypatch.setattr(kubernetes, "KubernetesBuild", lambda namespace, version, deployed: type(
        "Build", (), {"close": lambda self: None})())
    cluster = Kubernetes("bench", ["v2"])
    cluster.reconfigure("v2", {"authors": {"A": "1"}})
    assert environments == [{"deploy/bench-v2-authors": {"A": "1"}}]
    cluster.reconfigure("v2", {"authors": {"A": "1"}})
    assert len(environments) == 1  # unchanged: nothing rolled
    cluster.size("v2", 2)
    assert resources[-1]["deploy/bench-v2-web-api"] == {"limits": {"cpu": "2", "memory": "512Mi"},
                                                         "requests": {"cpu": "250m"}}
    # as the chart would render it for a limit of 2: two event loops; authors' A removed (kubectl set env A-)
    assert environments[-1]["deploy/bench-v2-authors"] == {"A": None, loops: "2"}
    cluster.restore("v2")
    assert environments[-1]["deploy/bench-v2-web-api"] == {loops: "1"}  # back to the chart's value, not removed
    assert resources[-1] == {f"deploy/bench-v2-{s}": deployed for s in ("web-api", "articles", "authors")}
    calls = len(environments) + len(resources)
    cluster.close()
    assert len(environments) + len(resources) == calls  # nothing left to give back
    cluster.size("v2", 0.5)
    cluster.close()  # a run that stopped half-way: its resources given back all the same
    assert resources[-1]["deploy/bench-v2-articles"] == deployed
    cluster.size("v2", None, 1)  # one processor counted, no CPU limit
    assert resources[-1]["deploy/bench-v2-web-api"]["limits"] == {"memory": "512Mi"}
    assert environments[-1]["deploy/bench-v2-web-api"] == {loops: "1", "JDK_JAVA_OPTIONS": "-XX:ActiveProcessorCount=1"}
    cluster.close()
    assert environments[-1]["deploy/bench-v2-web-api"] == {loops: "1", "JDK_JAVA_OPTIONS": None}


def test_every_build_sized_on_a_cluster_keeps_its_own_connections_until_it_is_restored(monkeypatch):
    # the CPU map sizes every build before it measures any: sizing v2 must not close v1's port-forwards
    from benchkit.platforms import kube
    cluster = Kubernetes("bench", ["v1", "v2"])
    closed = []

    class Build:
        def __init__(self, version):
            self.version = version

        def close(self):
            closed.append(self.version)

    monkeypatch.setattr(Kubernetes, "build", lambda self, version: Build(version))
    monkeypatch.setattr(kube, "kubectl", lambda *args: json.dumps({"spec": {"template": {"spec": {"containers": [
        {"resources": {"limits": {"cpu": "1"}, "requests": {"cpu": "250m"}}}]}}}}))
    monkeypatch.setattr(kube, "set_resources", lambda namespace, wanted: None)
    monkeypatch.setattr(kube, "set_environment", lambda namespace, wanted: None)
    monkeypatch.setattr(Kubernetes, "node", staticmethod(lambda: {"status": {"capacity": {"cpu": "2"}}}))
    v1, v2 = cluster.size("v1", 0.5), cluster.size("v2", 0.5)
    assert closed == [] and cluster.reconfigured == {"v1": v1, "v2": v2}
    assert cluster.size("v1", 1) is not v1 and closed == ["v1"]  # v1 rolled again: its old connections go
    cluster.restore("v2")
    assert closed == ["v1", "v2"] and list(cluster.reconfigured) == ["v1"]


def test_a_cluster_s_fresh_size_rolls_cold_jvms_even_where_the_limit_is_already_that_size(monkeypatch):
    """The noise floor measures a build twice at one size, each from a cold JVM: where the resources already are the
    size's ("500m" is 0.5), no patch rolls the pods, so the environment does; where they change, their roll alone."""
    from benchkit.platforms import kube
    from benchkit.platforms import kubernetes
    environments, resources = [], []
    monkeypatch.setattr(kube, "set_environment", lambda namespace, changes: environments.append(changes))
    monkeypatch.setattr(kube, "set_resources", lambda namespace, changes: resources.append(changes))
    deployed = {"limits": {"cpu": "500m", "memory": "512Mi"}, "requests": {"cpu": "100m"}}
    monkeypatch.setattr(kube, "kubectl", lambda namespace, *args: json.dumps(
        {"spec": {"template": {"spec": {"containers": [{"resources": deployed, "env": []}]}}}}))
    monkeypatch.setattr(Kubernetes, "node", staticmethod(lambda: {"status": {"capacity": {"cpu": "2"}}}))
    monkeypatch.setattr(kubernetes, "KubernetesBuild", lambda namespace, version, deployed: type(
        "Build", (), {"close": lambda self: None})())
    cluster = Kubernetes("bench", ["v1"])
    cluster.size("v1", 0.5)
    assert resources == [{}] and environments == [{}]  # nothing changed, nothing asked for: the pods run on
    cluster.size("v1", 0.5, fresh=True)
    rolled = environments[-1]
    assert set(rolled) == {f"deploy/bench-v1-{s}" for s in ("web-api", "articles", "authors")}
    assert all("REACTIVE_BENCH_ROLLED_AT" in variables for variables in rolled.values())
    cluster.size("v1", 0.5, fresh=True)
    assert len(environments) == 3 and environments[-1] != rolled  # every time again
    cluster.size("v1", None, fresh=True)  # the limit taken off: that patch rolls them, once
    assert resources[-1]["deploy/bench-v1-web-api"]["limits"] == {"memory": "512Mi"}
    assert environments[-1]["deploy/bench-v1-web-api"] == {"REACTIVE_BENCH_ROLLED_AT": None}  # its own variable gone


def test_the_answer_s_rows_on_a_node_follow_the_node_s_cores_not_what_a_pod_counts(monkeypatch):
    """make answer-cluster's first try measured no limit alone: a pod limited to one CPU counts one core, and at one
    core no quota binds; the node's two cores are what three services' quotas add up against."""
    from benchkit.experiments.cpumap import answering
    cluster = Kubernetes("bench", ["v1"])
    monkeypatch.setattr(Kubernetes, "node", staticmethod(lambda: {"status": {"capacity": {"cpu": "2"}}}))
    monkeypatch.setattr(Kubernetes, "cores", lambda self, version: 1)
    assert cluster.machine_cores() == 2
    assert answering.sizes_binding(cluster.machine_cores()) == ("0.5", "0")
    assert answering.sizes_binding(cluster.cores("v1")) == ("0",)  # what it measured before
    monkeypatch.setattr(Kubernetes, "node", staticmethod(lambda: {"status": {"capacity": {"cpu": "8"}}}))
    assert answering.sizes_binding(cluster.machine_cores()) == ("0.5", "1", "2", "0")
