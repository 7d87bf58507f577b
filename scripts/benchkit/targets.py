"""Where a build runs, behind one interface the measured runs use:

    web_api_url()          where to send the first request of a run (the expected-work probe)
    run(scenario, summary, settings, target)  one load run against one service of the build (web-api unless
                           a hop is measured alone; settings: the generator's environment beyond the user's);
                           returns (0 or load.THRESHOLDS_CROSSED, the generator's CPU seconds or None)
    snapshot()             counters and CPU seconds now: {"time", "requests", "cpu_seconds",
                           "idle_cpu_seconds" (the other builds' services, idle meanwhile), "jvm" (per service: JIT
                           compile and GC seconds, compilations), "throttling" (per container: CFS periods,
                           throttled periods and seconds; None without a quota), …}
    ergonomics()           {service: how its JVM sized itself there: processors, GC, compiler threads, threads by kind}
    reset_peaks()          start a new memory peak where the platform can
    memory(before, after)  {service: {figure named for what it is: MiB or None}}
    restarts(before, after) containers restarted between two snapshots (None where nothing restarts)
    profiled()             {service: a JFR recording to start and stop in its JVM} (None where jcmd cannot reach it)
    reset_statements(), statements()  PostgreSQL's pg_stat_statements for the services' databases:
                           [{"database", "query", "calls", "rows"}], None where it is not readable
    close()

LocalBuild is the local stack (processes on this machine, the load generator a child process); KubernetesBuild is
a release bench-<version> with the load generator as a Job and every figure from the pods' own cgroups."""
import argparse
import concurrent.futures
import datetime
import json
import math
import os
import pathlib
import platform
import re
import subprocess
import time
import urllib.request

from . import CHART_VALUES, JAVA_OPTIONS, LOCAL_DIR, ROOT, SERVICES, hsperf, kube, load, procfs, profile, prometheus


class LocalBuild:
    """The processes of one version on the local stack: its three services, and the PostgreSQL and
    Kafka they share (.local/stack.json says what runs where)."""

    def __init__(self, stack, version, loadgen):
        self.version = version
        self.loadgen = loadgen
        self.services = {name: stack["services"][f"{name}-{version}"] for name in SERVICES}
        self.idle = [service["pid"] for key, service in stack["services"].items() if not key.endswith(f"-{version}")]
        self.postgres = stack["postgres"]["pid"]
        self.kafka = stack["kafka"]["pid"]
        self.control = stack.get("control")

    def web_api_url(self):
        return self.services["web-api"]["url"]

    def run(self, scenario, summary, settings=None, target="web-api"):
        code, cpu, _ = load.run(self.loadgen, self.version, scenario, self.services[target]["url"], summary,
                             {**load.settings_from_environment(), **(settings or {}), "TARGET": target})
        print(load.console_tail(summary.with_suffix(".log").read_text()), end="")
        return code, cpu

    def snapshot(self):
        counts = prometheus.requests_served(
            {name: prometheus.scrape(service["url"]) for name, service in self.services.items()})
        cpu = {name: procfs.cpu_seconds(service["pid"]) for name, service in self.services.items()}
        cpu["postgres"] = procfs.tree_cpu_seconds(self.postgres)
        cpu["kafka"] = procfs.cpu_seconds(self.kafka)
        return {"time": time.monotonic(), "requests": counts, "cpu_seconds": cpu,
                "idle_cpu_seconds": sum(procfs.cpu_seconds(pid) for pid in self.idle),
                "jvm": {name: jvm_times(procfs.jvm_counters(service["pid"]), procfs.task_stats(service["pid"]))
                        for name, service in self.services.items()},
                "throttling": None}  # no CPU quota on the local stack

    def ergonomics(self):
        return {name: jvm_ergonomics(len(os.sched_getaffinity(service["pid"])), None,
                                     procfs.jvm_counters(service["pid"]), procfs.thread_names(service["pid"]))
                for name, service in self.services.items()}

    def reset_peaks(self):
        for service in self.services.values():
            procfs.reset_peak_rss(service["pid"])

    def memory(self, before, after):
        return {name: {"peak RSS during the run (VmHWM, reset before it)": procfs.peak_rss_mib(service["pid"])}
                for name, service in self.services.items()}

    def restarts(self, before, after):
        return None  # nothing restarts the local stack's processes

    def profiled(self):
        return {name: profile.LocalRecording(service["pid"]) for name, service in self.services.items()}

    def reset_statements(self):
        if self.control:
            urllib.request.urlopen(urllib.request.Request(f"{self.control}/postgres/statements/reset", method="POST"),
                                   timeout=30).close()

    def statements(self):
        if not self.control:
            return None
        with urllib.request.urlopen(f"{self.control}/postgres/statements", timeout=30) as answer:
            return json.loads(answer.read())

    def close(self):
        pass


# How many of a snapshot's kubectl calls run at once: enough for all of them with three builds deployed.
SNAPSHOT_CALLS = 24


class KubernetesBuild:
    """One deployed build (release bench-<version>) and the PostgreSQL and Kafka pods."""

    PODS = {"postgres": "pod/bench-postgres-0", "kafka": "pod/bench-kafka-dual-role-0"}

    def __init__(self, namespace, version, deployed):
        self.namespace = namespace
        self.version = version
        self.targets = {name: f"deploy/bench-{version}-{name}" for name in SERVICES}
        self.idle = [f"deploy/bench-{other}-{name}" for other in deployed if other != version for name in SERVICES]
        self.forwards = {name: kube.PortForward(namespace, f"bench-{version}-{name}") for name in self.targets}

    def web_api_url(self):
        return self.forwards["web-api"].url

    def run(self, scenario, summary, settings=None, target="web-api"):
        # The generator's CPU: what its containers' cgroups counted, start-up of the binary included (a few ms).
        return kube.run_load_job(self.namespace, self.version, scenario, summary,
                                 {**load.settings_from_environment(), **(settings or {}), "TARGET": target},
                                 kube.service_url(self.version, target))

    def snapshot(self):
        # About twenty kubectl calls, each a round trip of 0.2 s or more through the API server and the container
        # runtime: made together, the snapshot takes the time of the slowest instead of their sum (and its figures
        # are read closer to one moment).
        with concurrent.futures.ThreadPoolExecutor(max_workers=SNAPSHOT_CALLS) as pool:
            scrapes = {name: pool.submit(prometheus.scrape, forward.url) for name, forward in self.forwards.items()}
            readings = {name: pool.submit(kube.cgroup_readings, self.namespace, target)
                        for name, target in {**self.targets, **self.PODS}.items()}
            counters = {name: (pool.submit(kube.jvm_counters, self.namespace, target),
                               pool.submit(kube.task_stats, self.namespace, target))
                        for name, target in self.targets.items()}
            idle = [pool.submit(kube.cgroup_readings, self.namespace, target) for target in self.idle]
            pods = pool.submit(kube.pod_states, self.namespace)
            readings = {name: reading.result() for name, reading in readings.items()}
            return {"time": time.monotonic(),
                    "requests": prometheus.requests_served({name: scrape.result() for name, scrape in scrapes.items()}),
                    "pods": pods.result(), "readings": readings,
                    "cpu_seconds": {name: r["cpu_seconds"] for name, r in readings.items()},
                    "jvm": {name: jvm_times(jvm.result(), tasks.result()) for name, (jvm, tasks) in counters.items()},
                    "throttling": {name: r.get("throttling") for name, r in readings.items()},
                    "node_cpu_seconds": node_processes_cpu(),
                    "idle_cpu_seconds": sum(reading.result()["cpu_seconds"] for reading in idle)}

    def ergonomics(self):
        found = {}
        for name, target in self.targets.items():
            limit = kube.cgroup_readings(self.namespace, target).get("cpu_limit")
            cores = int(kube.pod_exec(self.namespace, target, "nproc").stdout.strip() or 0) or None
            # The JVM takes the CPU limit, rounded up, for its processor count (JDK 19+ ignores CPU shares).
            seen = min(cores or math.inf, math.ceil(limit)) if limit else cores
            found[name] = jvm_ergonomics(seen, limit, kube.jvm_counters(self.namespace, target),
                                         kube.thread_names(self.namespace, target))
        return found

    def reset_peaks(self):
        pass  # a container cannot reset its cgroup's peak: the report names it "since the pod started"

    def memory(self, before, after):
        """Per service: the cgroup's peak (page cache included, since the container started) and its
        anonymous memory at the end of the run (the JVM's heap and native memory, without cache)."""
        figures = {}
        for name in self.targets:
            reading = after["readings"][name]
            peak = reading["peak_bytes"]
            figures[name] = {
                f"cgroup peak since start, page cache included ({reading['peak_source']})":
                    peak / 2**20 if peak is not None else None,
                "anonymous memory at the end (memory.stat)": reading["anonymous_bytes"] / 2**20,
            }
        return figures

    def restarts(self, before, after):
        return kube.restarts_between(before["pods"], after["pods"])

    def reset_statements(self):
        pass

    def profiled(self):
        if not all(kube.has_jcmd(self.namespace, target) for target in self.targets.values()):
            return None  # a JRE-only image (eclipse-temurin's jre): BASE_IMAGE with jcmd profiles in pods
        return {name: kube.PodRecording(self.namespace, target) for name, target in self.targets.items()}

    def statements(self):
        return None  # SQL parity is read on the local stack, where one PostgreSQL serves every build

    def close(self):
        for forward in self.forwards.values():
            forward.close()


def jvm_times(counters, task_stats):
    """JIT (the compilations' elapsed time, and the compiler threads' CPU), compilations and GC of one JVM."""
    if not counters:
        return None
    return {**hsperf.jvm_times(counters), "jit_cpu_seconds": procfs.compiler_cpu_seconds(task_stats)}


def node_processes_cpu():
    """CPU seconds of the node's own processes (etcd, kube-apiserver, kubelet, containerd, kube-proxy, …) where they
    run on this machine: NODE_PROCESSES names the directory of their pid files (make test-cluster's node sets it).
    None elsewhere (minikube's run inside its VM)."""
    directory = os.environ.get("NODE_PROCESSES")
    if not directory:
        return None
    return {pid_file.stem: procfs.cpu_seconds(int(pid_file.read_text().strip()))
            for pid_file in sorted(pathlib.Path(directory).glob("*.pid"))}


# What a JVM's threads are, by the first characters of their names (the kernel keeps 15).
THREAD_KINDS = (("event loops", "vert.x-eventloo"), ("Vert.x workers", "vert.x-worker-t"),
                ("Quarkus workers", "executor-thread"), ("virtual-thread carriers", "ForkJoinPool-"),
                ("GC workers", "GC Thread#"), ("JIT compilers", ("C1 CompilerThre", "C2 CompilerThre")))


def jvm_ergonomics(processors, cpu_limit, counters, threads):
    """How a JVM sized itself where it runs: the processors it sees (and the CPU limit it derives them from),
    its GC, its compiler threads, and its threads by kind (how many exist at the end of the warm-up)."""
    counters = counters or {}
    kinds = {kind: sum(1 for name in threads if name.startswith(prefix)) for kind, prefix in THREAD_KINDS}
    return {"processors": processors, "cpu_limit": cpu_limit,
            "gc": counters.get("sun.gc.collector.0.name", "unknown").split(" ")[0],
            "compiler_threads": counters.get("sun.ci.threads"), "threads": {**kinds, "all": len(threads)}}


def deltas(before, after):
    """{name: {figure: after - before}} of two snapshots' nested counters (jvm, throttling); a name with a figure
    missing on either side is None: never a 0 that was not measured."""
    if before is None or after is None:
        return None
    found = {}
    for name, figures in after.items():
        earlier = before.get(name)
        if figures is None or earlier is None or any(figures.get(k) is None or earlier.get(k) is None for k in figures):
            found[name] = None
        else:
            found[name] = {key: figures[key] - earlier[key] for key in figures}
    return found


# ---------- the environment each report states

def command_output(*command):
    try:
        result = subprocess.run(command, capture_output=True, text=True, timeout=30)
        return result.stdout + result.stderr
    except (OSError, subprocess.TimeoutExpired):
        return ""


def git_commit():
    return command_output("git", "-C", str(ROOT), "rev-parse", "--short", "HEAD").strip()


def now():
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def build_settings():
    """The pool and executor sizes each build runs with, from its application.properties, and the build's own JVM
    options (services/builds.conf)."""
    wanted = re.compile(r"^(quarkus\.thread-pool\.max-threads|"
                        r"quarkus\.datasource\.(jdbc|reactive)\.max-size|quarkus\.datasource\.reactive\.[a-z.-]+|"
                        r"web-api\.author-lookups\.max-concurrency|quarkus\.rest-client\.[a-z]+\.connection-pool-size)=")
    settings = {}
    for properties in sorted(ROOT.glob("services/*/v[0-9]/src/main/resources/application.properties")):
        build = f"{properties.parents[3].parent.name}-{properties.parents[3].name}"
        settings[build] = [line for line in properties.read_text().splitlines() if wanted.match(line)]
        settings[build] += JAVA_OPTIONS.get(properties.parents[3].name, "").split()
    return settings


def local_results(results, loadgen, runs):
    """What a measurement on the local stack starts from: its results' runs/ folder (made), the stack's inventory
    (.local/stack.json), and the environment its report states."""
    runs_dir = results / "runs"
    runs_dir.mkdir(parents=True, exist_ok=True)
    stack = json.loads((LOCAL_DIR / "stack.json").read_text())
    environment = local_environment(loadgen, stack, argparse.Namespace(
        where="local stack (one machine, loopback)", runs=runs, no_warmup=False))
    return runs_dir, stack, environment


def local_environment(loadgen, stack, args):
    cpu = next((line.split(":", 1)[1].strip() for line in pathlib.Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("model name")), platform.processor())
    java = pathlib.Path(os.readlink(f"/proc/{stack['services']['web-api-v1']['pid']}/exe"))  # what the services run on
    pom = (ROOT / "services" / "pom.xml").read_text()
    return {
        "timestamp": now(), "where": args.where,
        "cpu": cpu, "cores": os.cpu_count(),
        "memory_gib": round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30, 1),
        "kernel": platform.release(),
        "jdk": command_output(str(java), "-version").splitlines()[0] if java.exists() else "unknown",
        "quarkus": re.search(r"<quarkus.platform.version>([^<]+)<", pom).group(1),
        "load_generator": command_output(loadgen, "version").strip().splitlines()[0],
        "git_commit": git_commit(),
        "java_opts": stack.get("java_opts", ""),
        "load_settings": load.settings_from_environment(),
        "runs": args.runs, "warmup": not args.no_warmup,
        "builds": build_settings(),
    }


def kubernetes_environment(namespace, args):
    node = json.loads(subprocess.run(["kubectl", "get", "nodes", "-o", "json"], capture_output=True, text=True,
                                     check=True).stdout)["items"][0]
    return {
        "timestamp": now(), "where": args.where,
        "node_allocatable_cpu": node["status"]["allocatable"]["cpu"],
        "node_allocatable_memory": node["status"]["allocatable"]["memory"],
        "kubernetes": node["status"]["nodeInfo"]["kubeletVersion"],
        "load_job": kube.load_image(),
        "load_job_resources": "see charts/load-job/values.yaml: the load generator shares the node with the services",
        "node_cpu": node["status"]["capacity"]["cpu"],
        "container_runtime": node["status"]["nodeInfo"]["containerRuntimeVersion"],
        "kernel": node["status"]["nodeInfo"]["kernelVersion"],
        "java_opts": next((line.split(":", 1)[1].strip().strip('"') for line in
                           (ROOT / "charts" / "reactive-bench" / "values.yaml").read_text().splitlines()
                           if line.startswith("javaOpts:")), ""),
        "git_commit": git_commit(),
        "load_settings": load.settings_from_environment(),
        "runs": args.runs, "warmup": not args.no_warmup,
        "namespace": namespace,
        "builds": build_settings(),
        # make deploy-<version>'s chart values of a build beyond its own configuration (services/builds.conf)
        "chart_values": CHART_VALUES,
    }
