"""Where the builds run: the two implementations of the core's Platform (core.platform), and what they read.

    local.py        the local stack: processes on this machine (procfs.py: /proc and cgroups; hsperf.py: HotSpot's
                    counters), the load generator a child process
    kubernetes.py   a Kubernetes namespace: the releases of make deploy-vN (deployed.py: a build's pods as a Build;
                    kube.py: kubectl and helm; podreadings.py: what a pod counted; loadjobs.py: the load as Jobs)

    select(kind, versions)   the platform of a run: "local" or "kubernetes"
"""
from benchkit import FLOOR
from benchkit.core import knobs, prometheus
from benchkit.platforms import hsperf, procfs


def select(kind, versions=None, floor=False):
    """The platform of a run: "local" (the local stack) or "kubernetes" (the builds deployed in BENCH_NAMESPACE); its
    `versions` the builds the run measures: those given, else every build there, and the floor (v0) where it is there
    and the experiment measures it by default (`floor`)."""
    if kind == "kubernetes":
        from benchkit.platforms import kube
        from benchkit.platforms.kubernetes import Kubernetes
        platform = Kubernetes(knobs.value("BENCH_NAMESPACE"))
        platform.where = f"Kubernetes ({kube.current_context()}), namespace {platform.namespace}"
    else:
        from benchkit.platforms.local import Local
        platform = Local(knobs.tool("LOADGEN"))
    missing = [version for version in versions or () if version not in platform.available]
    if missing or not platform.available:
        raise SystemExit(f"{platform.where}: {', '.join(missing) or 'no build'} not there (there: "
                         f"{', '.join(platform.available) or 'none'}; make deploy-vN deploys one)")
    platform.versions = tuple(versions or (v for v in platform.available if floor or v not in FLOOR))
    return platform

# ---------- what both platforms read of a JVM

def jvm_times(counters, task_stats):
    """JIT (the compilations' elapsed time, and the compiler threads' CPU), compilations and GC of one JVM."""
    if not counters:
        return None
    return {**hsperf.jvm_times(counters), "jit_cpu_seconds": procfs.compiler_cpu_seconds(task_stats)}


# What a JVM's threads are, by the first characters of their names (the kernel keeps 15).
THREAD_KINDS = (("event loops", "vert.x-eventloo"), ("Vert.x workers", "vert.x-worker-t"),
                ("Quarkus workers", "executor-thread"), ("virtual-thread carriers", "ForkJoinPool-"),
                ("GC workers", "GC Thread#"), ("JIT compilers", ("C1 CompilerThre", "C2 CompilerThre")))


def jvm_ergonomics(processors, cpu_limit, counters, threads, metrics):
    """How a JVM sized itself where it runs: the processors it sees (and the CPU limit it derives them from),
    its GC, its compiler threads, its pools as its metrics report them (prometheus.pools), and its threads by kind
    (how many exist at the end of the warm-up)."""
    counters = counters or {}
    kinds = {kind: sum(1 for name in threads if name.startswith(prefix)) for kind, prefix in THREAD_KINDS}
    return {"processors": processors, "cpu_limit": cpu_limit,
            "gc": counters.get("sun.gc.collector.0.name", "unknown").split(" ")[0],
            "compiler_threads": counters.get("sun.ci.threads"), **prometheus.pools(metrics),
            "threads": {**kinds, "all": len(threads)}}
