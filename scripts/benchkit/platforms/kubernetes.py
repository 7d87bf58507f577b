"""A Kubernetes namespace with the builds of make deploy-vN (releases bench-<version>), PostgreSQL and Kafka in pods
(each build a KubernetesBuild, deployed.py): reconfiguration by rolling a Deployment with
other environment variables, faults by kubectl (and, on the test node, by the node's own processes)."""
import json
import math
import os
import pathlib
import subprocess
import sys
import time

from benchkit import CHART_VALUES, FLOOR, LOCAL_DIR, ROOT, SERVICES, VERSIONS, info
from benchkit.core import latency, load, provenance
from benchkit.platforms import kube, loadjobs, podreadings, procfs
from benchkit.core.platform import RESTORE_LIMIT_SECONDS, Faults, LatencyProxy, Platform
from benchkit.core.sizes import counted_processors, sized_environment, with_settings
from benchkit.platforms.deployed import KubernetesBuild, proxy_address, proxy_ports

def kill_container(namespace, pod):
    """SIGKILL to the container's main process, from the node it runs on (inside its own PID namespace a
    process 1 cannot be sent SIGKILL): the kubelet then restarts the container in the same pod."""
    container = kube.kubectl(namespace, "get", "pod", pod, "-o", "jsonpath={.status.containerStatuses[0].containerID}")
    state = subprocess.run(["runc", "--root", "/run/containerd/runc/k8s.io", "state", container.split("://", 1)[1]],
                           capture_output=True, text=True)
    if state.returncode != 0:
        sys.exit(f"cannot kill {pod}'s container from here (runc state: {state.stderr.strip()}): it needs the node itself")
    os.kill(json.loads(state.stdout)["pid"], 9)


class Kubernetes(Platform, Faults, LatencyProxy):
    """The builds deployed in a namespace. Reconfiguration: kubectl set env, then the rollout, in the pods and under
    the CPU limits the chart gives them; the variables go again at restore. Faults: a part is the pods of a
    selector (a build's Deployment, all of a build's pods, or PostgreSQL's and Kafka's StatefulSet pods, by the
    labels the Zalando operator and Strimzi give them); web-api is reached through its Service's ClusterIP, so the
    fault clients must run where that routes (the test node, or beside minikube tunnel)."""

    kind = "kubernetes"
    restores_itself = True  # a Deployment or StatefulSet brings a part back: restore only waits until it has
    SELECTORS = {"postgres": "cluster-name=bench-postgres", "kafka": "app.kubernetes.io/name=kafka"}
    NODE = pathlib.Path(os.environ.get("NODE_DIR", LOCAL_DIR / "test-cluster"))

    def __init__(self, namespace, deployed=None):
        """deployed: the builds deployed there (None: asked of helm)."""
        self.namespace = namespace
        self.available = self.deployed = kube.deployed(namespace, VERSIONS + FLOOR) if deployed is None else tuple(deployed)
        self.where = f"Kubernetes, namespace {namespace}"
        self.before = {}  # selector -> its pods before the fault's inject
        self.changed = {}  # deployment -> the variables a reconfiguration set on it
        self.resources = {}  # deployment -> its resources before size changed them
        self.deployed_environment = {}  # deployment -> its container's variables as deployed (as_deployed)
        # version -> the Build reconfigure or size returned last (its port-forwards lead to the pods they rolled): one
        # per build, as the CPU map sizes every build before it measures any
        self.reconfigured = {}
        self.pod_parts = {}  # pod uid -> the part it runs, with its build
        self.on_test_node = (self.NODE / "pids" / "kubelet.pid").exists()  # its kubelet is a process here

    def build(self, version):
        return KubernetesBuild(self.namespace, version, self.deployed)

    @staticmethod
    def node():
        """The cluster's first node, as the API server has it."""
        return json.loads(subprocess.run(["kubectl", "get", "nodes", "-o", "json"], capture_output=True, text=True,
                                         check=True).stdout)["items"][0]

    def environment(self, where, runs, warmup):
        node = self.node()
        return {
            "timestamp": provenance.now(), "where": where,
            "node_allocatable_cpu": node["status"]["allocatable"]["cpu"],
            "node_allocatable_memory": node["status"]["allocatable"]["memory"],
            "kubernetes": node["status"]["nodeInfo"]["kubeletVersion"],
            "load_job": loadjobs.load_image(),
            "load_job_resources": "see charts/load-job/values.yaml: the load generator shares the node with the services",
            "node_cpu": node["status"]["capacity"]["cpu"],
            "container_runtime": node["status"]["nodeInfo"]["containerRuntimeVersion"],
            "kernel": node["status"]["nodeInfo"]["kernelVersion"],
            "scheduler": procfs.scheduler(node["status"]["nodeInfo"]["kernelVersion"]),
            "java_opts": loadjobs.chart_values()["javaOpts"],
            "git_commit": provenance.git_commit(),
            "load_settings": load.settings_from_environment(),
            "runs": runs, "warmup": warmup,
            "namespace": self.namespace,
            "builds": provenance.build_settings(),
            # make deploy-<version>'s chart values of a build beyond its own configuration (services/builds.conf)
            "chart_values": CHART_VALUES,
        }

    def calibrate(self):
        return loadjobs.calibrate(self.namespace)  # the node's speed, in a pod of its own

    def cores(self, version):
        # In a pod the JVM and Quarkus count the CPU limit, rounded up, as their cores.
        limit = podreadings.cgroup_readings(self.namespace, f"deploy/bench-{version}-web-api")["cpu_limit"]
        return math.ceil(limit) if limit else os.cpu_count() or 1

    def machine_cores(self):
        # the node's, as the document records them (node_cpu): a pod's own count is its limit (cores)
        return int(float(self.node()["status"]["capacity"]["cpu"]))

    @staticmethod
    def deployments(version):
        return {service: f"deploy/bench-{version}-{service}" for service in SERVICES}

    def reconfigure(self, version, environments, fresh=False):
        rolling = {}
        for service, deployment in self.deployments(version).items():
            # fresh: a variable of its own that changes every time rolls the pods as kubectl rollout restart would
            wanted = {**environments.get(service, {}), **({"REACTIVE_BENCH_ROLLED_AT": str(time.time_ns())} if fresh else {})}
            if self.changed.get(deployment, {}) != wanted:
                info(f"rolling {deployment} with " + (" ".join(f"{k}={v}" for k, v in wanted.items()) or
                                                      "its chart's settings"))
                # a variable set before and not wanted now goes back to its chart's value, or is removed (NAME-)
                rolling[deployment] = {**self.as_deployed(deployment, self.changed.get(deployment, {})), **wanted}
                self.changed[deployment] = wanted
        if rolling or version not in self.reconfigured:
            kube.set_environment(self.namespace, rolling)
            self.disconnect(version)  # its port-forwards led to pods that are gone
            self.reconfigured[version] = self.build(version)
        return self.reconfigured[version]

    def size(self, version, cpus, processors=None, environments=None, fresh=False):
        deployments = self.deployments(version).values()
        current = {d: json.loads(kube.kubectl(self.namespace, "get", d, "-o", "json"))["spec"]["template"]["spec"]
                   ["containers"][0].get("resources", {}) for d in deployments}
        # the limit as the pod's; the request no higher than it, so that the pod can still be placed
        wanted = {d: {**resources, "limits": {**{k: v for k, v in resources.get("limits", {}).items() if k != "cpu"},
                                              **({"cpu": str(cpus)} if cpus else {})},
                      "requests": {**resources.get("requests", {}), **(
                          {"cpu": str(cpus)} if cpus and kube.cpu(resources.get("requests", {}).get("cpu")) > cpus
                          else {})}}
                  for d, resources in current.items()}
        info(f"bench-{version}: each service's pod limited to {cpus or 'no'} CPU")
        for deployment, resources in current.items():
            self.resources.setdefault(deployment, resources)  # as deployed: restore puts them back
        for deployment in deployments:
            self.as_deployed(deployment, ())  # its variables read before any change
        self.disconnect(version)
        resized = {d: resources for d, resources in wanted.items() if quantities(resources) != quantities(current[d])}
        kube.set_resources(self.namespace, resized)  # a patch that changes nothing rolls nothing
        # what the chart sizes by the limit, as it renders it for this one (the JVM derives its processors from the
        # quota unless they are given); a build with nothing sized by it rolls no more
        counted = counted_processors(cpus, processors, self.machine_cores())
        environment = sized_environment(version, counted,
                                        f"-XX:ActiveProcessorCount={processors}" if processors else None)
        # fresh: rolled again where the resources did not change (a roll of theirs already started cold JVMs)
        return self.reconfigure(version, {service: with_settings(environment, (environments or {}).get(service, {}))
                                          for service in SERVICES}, fresh=fresh and not resized)

    def restore(self, version):
        """Back to what make deploy-<version> deployed (what make bench measures): the variables removed, the
        resources as they were, the pods rolled again."""
        self.roll_back(self.deployments(version).values())

    def roll_back(self, deployments):
        """The Deployments' variables that a reconfiguration set removed, and their resources as deployed."""
        self.disconnect(*(v for v in list(self.reconfigured)
                          if set(self.deployments(v).values()) & set(deployments)))
        rolling = {deployment: self.as_deployed(deployment, self.changed.pop(deployment)) for deployment in deployments
                   if deployment in self.changed}
        rolling = {deployment: unset for deployment, unset in rolling.items() if unset}
        if rolling:
            info(f"rolling {', '.join(rolling)} back to their chart's settings")
            kube.set_environment(self.namespace, rolling)
        resources = {d: self.resources.pop(d) for d in deployments if d in self.resources}
        if resources:
            kube.set_resources(self.namespace, resources)

    def as_deployed(self, deployment, names):
        """{name: its value as the chart deployed it, None where it set none} of variables of a Deployment's container,
        read before the first change (the chart sets some that a reconfiguration may change: v2's event loops)."""
        if deployment not in self.deployed_environment:
            spec = json.loads(kube.kubectl(self.namespace, "get", deployment, "-o", "json"))
            self.deployed_environment[deployment] = {
                variable["name"]: variable["value"] for variable in
                spec["spec"]["template"]["spec"]["containers"][0].get("env", []) if "value" in variable}
        return {name: self.deployed_environment[deployment].get(name) for name in names}

    def disconnect(self, *versions):
        for version in versions:
            if version in self.reconfigured:
                self.reconfigured.pop(version).close()

    def latency(self):
        """Each build's own proxy (a release runs one), reached at its ClusterIP: None unless every build has one."""
        addresses = {version: proxy_address(self.namespace, version) for version in self.deployed}
        if not all(addresses.values()):
            return None
        return latency.PerBuild({version: f"http://{address}:{proxy_ports()['api']}"
                                 for version, address in addresses.items()})

    def through_proxy(self, version):
        return proxy_address(self.namespace, version) is not None

    no_proxy = "deploy every build with LATENCY_PROXY=on make deploy-vN"

    def machine_ticks(self):
        return procfs.machine_cpu() if self.on_test_node else None  # elsewhere the nodes are other machines

    def part_cpu_seconds(self):
        """The pods of a kubelet running on this machine (the test node), each named by its part and build."""
        seconds = procfs.pod_cpu_seconds()
        if set(seconds) - set(self.pod_parts):  # a pod replaced or new since they were named
            for pod in kube.pods(self.namespace):
                labels = pod["metadata"].get("labels", {})
                name = "postgres" if "cluster-name" in labels else labels.get("app.kubernetes.io/name", pod["metadata"]["name"])
                build = labels.get("app.kubernetes.io/instance", "").removeprefix("bench-")
                self.pod_parts[pod["metadata"]["uid"]] = f"{name} {build}" if build in VERSIONS + FLOOR else name
            # a pod of another namespace once, not listed again every second
            self.pod_parts.update({uid: "other pods" for uid in set(seconds) - set(self.pod_parts)})
        return {uid: (self.pod_parts[uid], value) for uid, value in seconds.items()}

    def hop_addresses(self, version, hop):
        """Through the proxy's Service and directly to the hop's own Service (authors', PostgreSQL's master)."""
        proxy, ports = proxy_address(self.namespace, version), proxy_ports()
        if hop == "authors":
            return [(f"{proxy}:{ports['authors']}", f"{self.cluster_ip(f'bench-{version}-authors')}:8080")]
        database = f"{self.cluster_ip('bench-postgres')}:5432"
        return [(f"{proxy}:{ports[name]}", database) for name in ("postgresArticles", "postgresAuthors")]

    def cluster_ip(self, service):
        return kube.kubectl(self.namespace, "get", "service", service, "-o", "jsonpath={.spec.clusterIP}").strip()

    def close(self):
        self.roll_back({*self.changed, *self.resources})  # whatever a run that stopped half-way left changed

    def web_api_url(self, version):
        return f"http://{self.cluster_ip(f'bench-{version}-web-api')}:8080"

    def web_api_metrics(self, version):
        """{pod uid: Prometheus text} of each ready web-api pod of a build, through the API server's pod proxy
        (which reaches a pod from wherever kubectl works): a pod's counters are its own, and through the Service
        two replicas would answer with either's."""
        return {uid: kube.kubectl(self.namespace, "get", "--raw",
                                  f"/api/v1/namespaces/{self.namespace}/pods/{name}:9000/proxy/q/metrics")
                for uid, (name, _, ready, terminating) in self.pods(
                    f"app.kubernetes.io/instance=bench-{version},app.kubernetes.io/name=web-api").items()
                if ready and not terminating}

    def replicas(self, fault, version):
        """The fewest replicas of the Deployments a fault touches (PostgreSQL and Kafka: 1)."""
        if fault.part in self.SELECTORS:
            return 1
        deployments = json.loads(kube.kubectl(self.namespace, "get", "deployments", "-l",
                                              f"app.kubernetes.io/instance=bench-{version}", "-o", "json"))["items"]
        return min(d["spec"]["replicas"] for d in deployments
                   if fault.part == "build" or d["metadata"]["labels"]["app.kubernetes.io/name"] == fault.part)

    def fault_seconds(self, quick):  # the platform restores by itself: restore follows at once, and only waits
        return 0

    def after_seconds(self, quick):
        # Counted from the part whole again, its new pods ready: warm, since each warms itself up before it reports
        # ready. The last incomplete answer came at most 5.6 s later (a breaker delay; one replica, commit
        # 6c97a9e); the short subset of make test leaves three times that and the 3 s of complete answers that
        # count as recovered; a full run keeps the local 30 s.
        return 20 if quick else 30

    def selector(self, fault, version):
        if fault.part == "build":
            return f"app.kubernetes.io/instance=bench-{version}"
        return self.SELECTORS.get(fault.part) or \
            f"app.kubernetes.io/instance=bench-{version},app.kubernetes.io/name={fault.part}"

    def pods(self, selector):
        """{uid: (name, restarts, ready, terminating)} of the pods of a selector."""
        found = {}
        for pod in kube.pods(self.namespace, selector):
            statuses = pod.get("status", {}).get("containerStatuses", [])
            found[pod["metadata"]["uid"]] = (
                pod["metadata"]["name"], sum(s.get("restartCount", 0) for s in statuses),
                bool(statuses) and all(s.get("ready") for s in statuses), "deletionTimestamp" in pod["metadata"])
        return found

    def act_on_part(self, action, fault, version):
        selector = self.selector(fault, version)
        if action in ("await-replaced", "await-unchanged"):
            return self.await_whole(selector, self.before.pop(selector), action == "await-replaced")
        self.before[selector] = self.pods(selector)
        if action == "rollout-restart":
            kube.kubectl(self.namespace, "rollout", "restart", "deployment", f"bench-{version}-{fault.part}")
            return
        if action == "redeploy":  # as the user would: builds the images, then helm upgrade --wait
            # at the replicas it runs with (REPLICAS=2 make deploy-vN before), not the chart's default
            subprocess.run([str(ROOT / "scripts" / "cluster" / "k8s.sh"), "deploy", version], check=True, stdout=subprocess.DEVNULL,
                           env={**os.environ, "REPLICAS": str(self.replicas(fault, version))})
            return
        if action == "restart-kubelet":
            subprocess.run([str(ROOT / "scripts" / "cluster" / "test-cluster" / "node.sh"), "restart-kubelet"], check=True,
                           stdout=subprocess.DEVNULL, env={**os.environ, "NODE_DIR": str(self.NODE)})
            return
        victim = next(name for name, _, ready, terminating in self.before[selector].values() if ready and not terminating)
        if action == "delete-pod":
            kube.kubectl(self.namespace, "delete", "pod", victim, "--wait=false")
        elif action == "kill-container":
            kill_container(self.namespace, victim)
        else:
            raise ValueError(f"no such action on Kubernetes: {action}")

    def await_whole(self, selector, before, replaced, timeout=RESTORE_LIMIT_SECONDS):
        """Until the part is whole again: as many pods as before, every one ready, none terminating; replaced: once
        the fault has happened (a pod of before gone, or a container restarted), else failing if it did."""
        deadline = time.time() + timeout
        while time.time() < deadline:
            now = self.pods(selector)
            changed = set(before) != set(now) or any(now[uid][1] != before[uid][1] for uid in set(now) & set(before))
            if changed and not replaced:
                sys.exit(f"{selector}: pods were replaced or restarted: {before} -> {now}")
            if changed == replaced and len(now) == len(before) and all(
                    ready and not terminating for _, _, ready, terminating in now.values()):
                return
            time.sleep(0.5)
        sys.exit(f"{selector}: not whole again within {timeout} s")


def quantities(resources):
    """A container's resources as the API server keeps them: "0.5" and "500m" are one CPU quantity."""
    return {kind: {name: kube.cpu(value) if name == "cpu" else value for name, value in found.items()}
            for kind, found in resources.items()}
