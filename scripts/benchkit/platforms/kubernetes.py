"""A Kubernetes namespace with the builds of make deploy-vN (releases bench-<version>), PostgreSQL and Kafka in pods
(each build a KubernetesBuild, deployed.py): reconfiguration by rolling a Deployment with other environment
variables; its plug-ins: faults by kubectl (kubefaults.py), each release's own latency proxy (below)."""
import json
import math
import os
import subprocess
import time

from benchkit import CHART_VALUES, FLOOR, SERVICES, VERSIONS, info
from benchkit.core import latency, load, provenance
from benchkit.platforms import kube, loadjobs, podreadings, procfs
from benchkit.core.platform import Platform
from benchkit.core.plugins import Faults, LatencyProxy
from benchkit.core.sizes import counted_processors, sized_environment, with_settings
from benchkit.platforms.deployed import KubernetesBuild, proxy_address, proxy_ports
from benchkit.platforms.kubefaults import KubernetesFaults


class Kubernetes(Platform):
    """The builds deployed in a namespace. Reconfiguration: kubectl set env, then the rollout, in the pods and under
    the CPU limits the chart gives them; the variables go again at restore."""

    kind = "kubernetes"

    def __init__(self, namespace, deployed=None):
        """deployed: the builds deployed there (None: asked of helm)."""
        self.namespace = namespace
        self.available = self.deployed = kube.deployed(namespace, VERSIONS + FLOOR) if deployed is None else tuple(deployed)
        self.where = f"Kubernetes, namespace {namespace}"
        self.changed = {}  # deployment -> the variables a reconfiguration set on it
        self.resources = {}  # deployment -> its resources before size changed them
        self.deployed_environment = {}  # deployment -> its container's variables as deployed (as_deployed)
        # version -> the Build reconfigure or size returned last (its port-forwards lead to the pods they rolled): one
        # per build, as the CPU map sizes every build before it measures any
        self.reconfigured = {}
        self.plugins = {Faults: KubernetesFaults(self), LatencyProxy: KubernetesProxy(self)}

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

    def cluster_ip(self, service):
        return kube.kubectl(self.namespace, "get", "service", service, "-o", "jsonpath={.spec.clusterIP}").strip()

    def close(self):
        self.roll_back({*self.changed, *self.resources})  # whatever a run that stopped half-way left changed


def quantities(resources):
    """A container's resources as the API server keeps them: "0.5" and "500m" are one CPU quantity."""
    return {kind: {name: kube.cpu(value) if name == "cpu" else value for name, value in found.items()}
            for kind, found in resources.items()}


class KubernetesProxy(LatencyProxy):
    """Each release's own Toxiproxy (make deploy-vN with LATENCY_PROXY=on), reached at its ClusterIP."""

    def latency(self):
        """Each build's own proxy (a release runs one), reached at its ClusterIP: None unless every build the run
        measures has one (another build deployed beside them, without one, is not this run's)."""
        addresses = {version: proxy_address(self.platform.namespace, version) for version in self.platform.versions}
        if not all(addresses.values()):
            return None
        return latency.PerBuild({version: f"http://{address}:{proxy_ports()['api']}"
                                 for version, address in addresses.items()})

    def through_proxy(self, version):
        return proxy_address(self.platform.namespace, version) is not None

    no_proxy = "deploy every build with LATENCY_PROXY=on make deploy-vN"

    def hop_addresses(self, version, hop):
        """Through the proxy's Service and directly to the hop's own Service (authors', PostgreSQL's master)."""
        proxy, ports = proxy_address(self.platform.namespace, version), proxy_ports()
        if hop == "authors":
            return [(f"{proxy}:{ports['authors']}", f"{self.platform.cluster_ip(f'bench-{version}-authors')}:8080")]
        database = f"{self.platform.cluster_ip('bench-postgres')}:5432"
        return [(f"{proxy}:{ports[name]}", database) for name in ("postgresArticles", "postgresAuthors")]
