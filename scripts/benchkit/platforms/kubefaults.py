"""Faults in a Kubernetes namespace (make chaos-cluster), the Kubernetes platform's plug-in: a part is the pods of a
selector (a build's Deployment, all of a build's pods, or PostgreSQL's and Kafka's StatefulSet pods, by the labels
the Zalando operator and Strimzi give them), deleted, rolled or its container killed with kubectl (and, on the test
node, the node's own kubelet restarted); web-api is reached through its Service's ClusterIP, so the fault clients
must run where that routes (the test node, or beside minikube tunnel)."""
import json
import os
import pathlib
import subprocess
import sys
import time

from benchkit import FLOOR, LOCAL_DIR, ROOT, VERSIONS
from benchkit.core.platform import RESTORE_LIMIT_SECONDS
from benchkit.core.plugins import Faults
from benchkit.platforms import kube, procfs


def kill_container(namespace, pod):
    """SIGKILL to the container's main process, from the node it runs on (inside its own PID namespace a
    process 1 cannot be sent SIGKILL): the kubelet then restarts the container in the same pod."""
    container = kube.kubectl(namespace, "get", "pod", pod, "-o", "jsonpath={.status.containerStatuses[0].containerID}")
    state = subprocess.run(["runc", "--root", "/run/containerd/runc/k8s.io", "state", container.split("://", 1)[1]],
                           capture_output=True, text=True)
    if state.returncode != 0:
        sys.exit(f"cannot kill {pod}'s container from here (runc state: {state.stderr.strip()}): it needs the node itself")
    os.kill(json.loads(state.stdout)["pid"], 9)


class KubernetesFaults(Faults):
    """The faults of a Kubernetes namespace's parts; the platform does the restoring (a Deployment replaces a pod,
    the kubelet restarts a container, a StatefulSet brings PostgreSQL or Kafka back under the same name): restore
    waits until it has."""

    restores_itself = True  # a Deployment or StatefulSet brings a part back: restore only waits until it has
    SELECTORS = {"postgres": "cluster-name=bench-postgres", "kafka": "app.kubernetes.io/name=kafka"}
    NODE = pathlib.Path(os.environ.get("NODE_DIR", LOCAL_DIR / "test-cluster"))

    def __init__(self, platform):
        super().__init__(platform)
        self.before = {}  # selector -> its pods before the fault's inject
        self.pod_parts = {}  # pod uid -> the part it runs, with its build
        self.on_node = (self.NODE / "pids" / "kubelet.pid").exists()  # its kubelet is a process here

    def machine_ticks(self):
        return procfs.machine_cpu() if self.on_node else None  # elsewhere the nodes are other machines

    def part_cpu_seconds(self):
        """The pods of a kubelet running on this machine (the test node), each named by its part and build."""
        seconds = procfs.pod_cpu_seconds()
        if set(seconds) - set(self.pod_parts):  # a pod replaced or new since they were named
            for pod in kube.pods(self.platform.namespace):
                labels = pod["metadata"].get("labels", {})
                name = "postgres" if "cluster-name" in labels else labels.get("app.kubernetes.io/name", pod["metadata"]["name"])
                build = labels.get("app.kubernetes.io/instance", "").removeprefix("bench-")
                self.pod_parts[pod["metadata"]["uid"]] = f"{name} {build}" if build in VERSIONS + FLOOR else name
            # a pod of another namespace once, not listed again every second
            self.pod_parts.update({uid: "other pods" for uid in set(seconds) - set(self.pod_parts)})
        return {uid: (self.pod_parts[uid], value) for uid, value in seconds.items()}

    def web_api_url(self, version):
        return f"http://{self.platform.cluster_ip(f'bench-{version}-web-api')}:8080"

    def web_api_metrics(self, version):
        """{pod uid: Prometheus text} of each ready web-api pod of a build, through the API server's pod proxy
        (which reaches a pod from wherever kubectl works): a pod's counters are its own, and through the Service
        two replicas would answer with either's."""
        return {uid: kube.kubectl(self.platform.namespace, "get", "--raw",
                                  f"/api/v1/namespaces/{self.platform.namespace}/pods/{name}:9000/proxy/q/metrics")
                for uid, (name, _, ready, terminating) in self.pods(
                    f"app.kubernetes.io/instance=bench-{version},app.kubernetes.io/name=web-api").items()
                if ready and not terminating}

    def replicas(self, fault, version):
        """The fewest replicas of the Deployments a fault touches (PostgreSQL and Kafka: 1)."""
        if fault.part in self.SELECTORS:
            return 1
        deployments = json.loads(kube.kubectl(self.platform.namespace, "get", "deployments", "-l",
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
        for pod in kube.pods(self.platform.namespace, selector):
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
            kube.kubectl(self.platform.namespace, "rollout", "restart", "deployment", f"bench-{version}-{fault.part}")
            return
        if action == "redeploy":  # as the user would: builds the images, then helm upgrade --wait
            # at the replicas it runs with (REPLICAS=2 make deploy-vN before), not the chart's default; under a tag of
            # its own, as a new release's images are (the same files would keep the build's tag, and roll nothing)
            subprocess.run([str(ROOT / "scripts" / "cluster" / "k8s.sh"), "deploy", version], check=True, stdout=subprocess.DEVNULL,
                           env={**os.environ, "REPLICAS": str(self.replicas(fault, version)),
                                "IMAGE_TAG": f"{version}-redeployed-{int(time.time())}"})
            return
        if action == "restart-kubelet":
            subprocess.run([str(ROOT / "scripts" / "cluster" / "test-cluster" / "node.sh"), "restart-kubelet"], check=True,
                           stdout=subprocess.DEVNULL, env={**os.environ, "NODE_DIR": str(self.NODE)})
            return
        victim = next(name for name, _, ready, terminating in self.before[selector].values() if ready and not terminating)
        if action == "delete-pod":
            kube.kubectl(self.platform.namespace, "delete", "pod", victim, "--wait=false")
        elif action == "kill-container":
            kill_container(self.platform.namespace, victim)
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
