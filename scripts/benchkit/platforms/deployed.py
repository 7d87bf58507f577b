"""A deployed build as a Build: its pods' endpoints, the load generator as Jobs against it, and every figure from the
pods' own cgroups, procfs and JVM counters, read through kubectl exec."""
import concurrent.futures
import math
import os
import pathlib
import time

from benchkit import SERVICES
from benchkit.core import load, prometheus
from benchkit.platforms import kube, loadjobs, podreadings, procfs
from benchkit.core.platform import Build
from benchkit.platforms import jvm_ergonomics, jvm_times


PROXY = "bench-{version}-latency-proxy"  # the chart's latency proxy of a release (values: latencyProxy)


def proxy_ports():
    """The proxy's API and hop ports (the chart's values: latencyProxy.ports)."""
    return loadjobs.chart_values()["latencyProxy"]["ports"]


def proxy_address(namespace, version):
    """The ClusterIP of a build's latency proxy, None where the build was deployed without one."""
    found = kube.kubectl(namespace, "get", "service", PROXY.format(version=version), "--ignore-not-found",
                         "-o", "jsonpath={.spec.clusterIP}")
    return found.strip() or None


def node_processes_cpu():
    """CPU seconds of the node's own processes (etcd, kube-apiserver, kubelet, containerd, kube-proxy, …) where they
    run on this machine: NODE_PROCESSES names the directory of their pid files (make test-cluster's node sets it).
    None elsewhere (minikube's run inside its VM)."""
    directory = os.environ.get("NODE_PROCESSES")
    if not directory:
        return None
    return {pid_file.stem: procfs.cpu_seconds(int(pid_file.read_text().strip()))
            for pid_file in sorted(pathlib.Path(directory).glob("*.pid"))}


# How many of a snapshot's kubectl calls run at once: enough for all of them with three builds deployed.
SNAPSHOT_CALLS = 24


class KubernetesBuild(Build):
    """One deployed build (release bench-<version>) and the PostgreSQL and Kafka pods."""

    PODS = {"postgres": "pod/bench-postgres-0", "kafka": "pod/bench-kafka-dual-role-0"}

    def __init__(self, namespace, version, deployed):
        self.namespace = namespace
        self.version = version
        self.targets = {name: f"deploy/bench-{version}-{name}" for name in SERVICES}
        self.idle = [f"deploy/bench-{other}-{name}" for other in deployed if other != version for name in SERVICES]
        self.forwards = {name: kube.PortForward(namespace, f"bench-{version}-{name}") for name in self.targets}
        # the latency proxy's CPU is the build's where its hops go through one (LATENCY_PROXY=on make deploy-vN)
        self.extra = {"proxy": f"deploy/{PROXY.format(version=version)}"} if proxy_address(namespace, version) else {}

    def web_api_url(self):
        return self.forwards["web-api"].url

    def run(self, scenario, summary, settings=None, target="web-api"):
        # The generator's CPU: what its containers' cgroups counted, start-up of the binary included (a few ms).
        return loadjobs.run_load_job(self.namespace, self.version, scenario, summary,
                                 {**load.settings_from_environment(), **(settings or {}), "TARGET": target},
                                 loadjobs.service_url(self.version, target))

    def metrics(self):
        return {name: prometheus.scrape(forward.management) for name, forward in self.forwards.items()}

    def snapshot(self):
        # A kubectl call per container, each a round trip of 0.2 s or more through the API server and the container
        # runtime, and CPU on the node's two cores: one exec reads all of a service's container (cgroup, processes,
        # its JVM's threads and counters), and made together, the snapshot takes the time of the slowest instead of
        # their sum (and its figures are read closer to one moment).
        with concurrent.futures.ThreadPoolExecutor(max_workers=SNAPSHOT_CALLS) as pool:
            scrapes = {name: pool.submit(prometheus.scrape, forward.management)
                       for name, forward in self.forwards.items()}
            readings = {name: pool.submit(podreadings.cgroup_readings, self.namespace, target, True,
                                          name in self.targets)
                        for name, target in {**self.targets, **self.PODS, **self.extra}.items()}
            idle = [pool.submit(podreadings.cgroup_readings, self.namespace, target) for target in self.idle]
            pods = pool.submit(kube.pod_states, self.namespace)
            readings = {name: reading.result() for name, reading in readings.items()}
            # a JVM that keeps no hsperfdata file (a user without a name) is asked through its jcmd, apart
            counters = {name: (readings[name].pop("counters") or podreadings.jcmd_counters(self.namespace, target),
                               readings[name].pop("task_stats")) for name, target in self.targets.items()}
            return {"time": time.monotonic(),
                    "requests": prometheus.requests_served({name: scrape.result() for name, scrape in scrapes.items()}),
                    "pods": pods.result(), "readings": readings,
                    "cpu_seconds": {name: r["cpu_seconds"] for name, r in readings.items()},
                    "jvm": {name: jvm_times(jvm, tasks) for name, (jvm, tasks) in counters.items()},
                    "scheduling": {name: procfs.with_peak(r["scheduling"], counters.get(name, (None,))[0])
                                   for name, r in readings.items()},
                    "throttling": {name: r.get("throttling") for name, r in readings.items()},
                    "node_cpu_seconds": node_processes_cpu(),
                    "idle_cpu_seconds": sum(reading.result()["cpu_seconds"] for reading in idle)}

    def ergonomics(self):
        found = {}
        for name, target in self.targets.items():
            limit = podreadings.cgroup_readings(self.namespace, target).get("cpu_limit")
            cores = int(kube.pod_exec(self.namespace, target, "nproc").stdout.strip() or 0) or None
            # The JVM takes the CPU limit, rounded up, for its processor count (JDK 19+ ignores CPU shares), unless
            # it is given one.
            given = procfs.processors_given(kube.pod_exec(self.namespace, target, "cat", "/proc/1/cmdline",
                                                          "/proc/1/environ", text=False).stdout)
            seen = given or (min(cores or math.inf, math.ceil(limit)) if limit else cores)
            found[name] = jvm_ergonomics(seen, limit, podreadings.jvm_counters(self.namespace, target),
                                         podreadings.thread_names(self.namespace, target),
                                         prometheus.scrape(self.forwards[name].management))
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

    def placement(self, snapshot):
        return {container.split("/")[0]: state["node"] for container, state in snapshot["pods"].items()
                if container.startswith(f"bench-{self.version}-")}

    def reset_statements(self):
        pass

    def profiled(self):
        if not all(podreadings.has_jcmd(self.namespace, target) for target in self.targets.values()):
            return None  # a JRE-only image (eclipse-temurin's jre): BASE_IMAGE with jcmd profiles in pods
        return {name: podreadings.PodRecording(self.namespace, target) for name, target in self.targets.items()}

    def statements(self):
        return None  # SQL parity is read on the local stack, where one PostgreSQL serves every build

    def close(self):
        for forward in self.forwards.values():
            forward.close()
