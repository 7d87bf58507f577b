"""The in-cluster variant of bench.py's measurements (make bench): k6 runs as a Job from the k6-job
chart, CPU and peak memory come from each pod's cgroup, and the services' request counters are read
through port-forwards. Produces the same files as the local harness, so report.py renders both."""
import datetime
import json
import os
import re
import subprocess
import sys
import time

from bench import ROOT, info, requests_served, scrape

HELM = os.environ.get("HELM", "helm")
SUMMARY_BEGIN = "----- k6 summary json -----"
SUMMARY_END = "----- end of k6 summary json -----"


def kubectl(namespace, *args, check=True):
    return subprocess.run(["kubectl", "-n", namespace, *args], capture_output=True, text=True, check=check).stdout


# The cgroup files a container sees, v2 (unified) first, then v1's per-controller hierarchies. Read with
# sh and cat only, which every image here has (the services' JRE images, Spilo, Strimzi's, k6's).
CGROUP_FILES = ("cpu.stat", "memory.peak", "memory.stat", "memory.events", "cpuacct/cpuacct.usage",
                "cpu,cpuacct/cpuacct.usage", "memory/memory.max_usage_in_bytes", "memory/memory.stat",
                "memory/memory.oom_control")
READ_CGROUP = ("for f in " + " ".join(f"/sys/fs/cgroup/{name}" for name in CGROUP_FILES) +
               '; do if [ -r "$f" ]; then echo "==> $f"; cat "$f"; fi; done; true')


def cgroup_readings(namespace, target):
    """CPU seconds and memory of one container, from its own cgroup, v2 or v1. Fails loudly when a figure
    cannot be read: a missing value must never pass for 0."""
    text = kubectl(namespace, "exec", target, "--", "sh", "-c", READ_CGROUP, check=False)
    files = {}
    for block in text.split("==> /sys/fs/cgroup/")[1:]:
        name, _, content = block.partition("\n")
        files[name.strip()] = content

    def stat(name, key):
        match = re.search(rf"^{key} (\d+)$", files.get(name, ""), re.MULTILINE)
        return int(match.group(1)) if match else None

    if "cpu.stat" in files:  # cgroup v2
        cpu = stat("cpu.stat", "usage_usec")
        cpu = cpu / 1e6 if cpu is not None else None
        peak = int(files["memory.peak"]) if files.get("memory.peak", "").strip().isdigit() else None
        anonymous = stat("memory.stat", "anon")
        oom_kills = stat("memory.events", "oom_kill")
        cgroup, peak_source = "v2", "memory.peak"
    else:  # cgroup v1
        usage = files.get("cpuacct/cpuacct.usage") or files.get("cpu,cpuacct/cpuacct.usage") or ""
        cpu = int(usage) / 1e9 if usage.strip().isdigit() else None
        peak_text = files.get("memory/memory.max_usage_in_bytes", "").strip()
        peak = int(peak_text) if peak_text.isdigit() else None
        anonymous = stat("memory/memory.stat", "total_rss")
        oom_kills = stat("memory/memory.oom_control", "oom_kill")
        cgroup, peak_source = "v1", "memory.max_usage_in_bytes"
    if cpu is None or anonymous is None:
        raise SystemExit(f"Could not read the cgroup of {target} (CPU {cpu}, anonymous memory {anonymous});"
                         f" kubectl exec printed: {text[:300]!r}")
    return {"cgroup": cgroup, "cpu_seconds": cpu, "peak_bytes": peak, "peak_source": peak_source,
            "anonymous_bytes": anonymous, "oom_kills": oom_kills}


def pod_states(namespace):
    """Restarts and the last termination reason of every container in the namespace, per pod."""
    pods = json.loads(kubectl(namespace, "get", "pods", "-o", "json"))["items"]
    states = {}
    for pod in pods:
        for status in pod.get("status", {}).get("containerStatuses", []):
            last = status.get("lastState", {}).get("terminated", {})
            states[f"{pod['metadata']['name']}/{status['name']}"] = {
                "restarts": status.get("restartCount", 0), "last_reason": last.get("reason")}
    return states


def restarts_between(before, after):
    """The containers that restarted during a run, how often, and whether one was OOM-killed."""
    changed = {}
    for container, state in after.items():
        restarts = state["restarts"] - before.get(container, {}).get("restarts", 0)
        if restarts > 0:
            changed[container] = {"restarts": restarts, "last_reason": state["last_reason"]}
    return changed


def unschedulable(namespace, selector=None):
    """Why the pods (of a selector) cannot start: unschedulable, or no image. An empty string if none.
    Also used by scripts/k8s.sh while helm waits for a rollout."""
    pods = json.loads(kubectl(namespace, "get", "pods", *(["-l", selector] if selector else []), "-o", "json"))["items"]
    reasons = []
    for pod in pods:
        for condition in pod.get("status", {}).get("conditions", []):
            if condition["type"] == "PodScheduled" and condition.get("reason") == "Unschedulable":
                reasons.append(f"{pod['metadata']['name']} is unschedulable: {condition.get('message', '')}")
        for status in pod.get("status", {}).get("containerStatuses", []):
            waiting = status.get("state", {}).get("waiting", {}).get("reason", "")
            if waiting in ("ErrImageNeverPull", "ImagePullBackOff", "ErrImagePull", "InvalidImageName"):
                reasons.append(f"{pod['metadata']['name']} has no image {status['image']} ({waiting})")
    return "; ".join(reasons)


class PortForward:
    def __init__(self, namespace, service):
        self.process = subprocess.Popen(["kubectl", "-n", namespace, "port-forward", f"svc/{service}", ":8080"],
                                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        line = self.process.stdout.readline()
        match = re.search(r"127\.0\.0\.1:(\d+)", line)
        if not match:
            self.process.kill()
            raise SystemExit(f"port-forward to {service} failed: {line}")
        self.url = f"http://127.0.0.1:{match.group(1)}"

    def close(self):
        self.process.terminate()


class KubernetesBuild:
    """One deployed build (release bench-<version>) and the shared PostgreSQL and Kafka pods."""

    PODS = {"postgres": "pod/bench-postgres-0", "kafka": "pod/bench-kafka-dual-role-0"}

    def __init__(self, namespace, version):
        self.namespace = namespace
        self.version = version
        self.targets = {name: f"deploy/bench-{version}-{name}" for name in ("web-api", "articles", "authors")}
        self.forwards = {name: PortForward(namespace, f"bench-{version}-{name}") for name in self.targets}

    def web_api_url(self):
        return self.forwards["web-api"].url

    def snapshot(self):
        requests = requests_served(self.version, {name: scrape(forward.url) for name, forward in self.forwards.items()})
        readings = {name: cgroup_readings(self.namespace, target) for name, target in {**self.targets, **self.PODS}.items()}
        self.last_readings = readings
        return {"time": time.monotonic(), "requests": requests, "pods": pod_states(self.namespace),
                "cpu_seconds": {name: reading["cpu_seconds"] for name, reading in readings.items()}}

    def reset_peaks(self):
        pass  # a container cannot reset its cgroup's peak: the report names it "since the pod started"

    def peaks(self):
        return None  # Kubernetes runs report memory(), named for what each figure is

    def restarts(self, before, after):
        return restarts_between(before["pods"], after["pods"])

    def memory(self):
        """Per service: the cgroup's peak (page cache included, since the container started) and its
        anonymous memory at the end of the run (the JVM's heap and native memory, without cache)."""
        figures = {}
        for name in self.targets:
            reading = self.last_readings[name]
            peak = reading["peak_bytes"]
            figures[name] = {
                f"cgroup peak since start, page cache included ({reading['peak_source']})":
                    peak / 2**20 if peak is not None else None,
                "anonymous memory at the end (memory.stat)": reading["anonymous_bytes"] / 2**20,
            }
        return figures

    def run(self, scenario, summary):
        """One k6 Job; its summary is in its log between markers. Returns (exit code, None): the Job's
        own CPU is bounded by its limit, recorded in the environment."""
        release = f"k6-{self.version}-{scenario}-{int(time.time())}"
        settings = [f"env.{key}={os.environ[key]}" for key in
                    ("VUS", "ITERATIONS", "WARMUP_ITERATIONS", "RATE", "DURATION", "MAX_VUS") if key in os.environ]
        image = [arg for key, value in (("image", os.environ.get("K6_IMAGE")),
                                        ("imagePullPolicy", os.environ.get("K6_IMAGE_PULL_POLICY")),
                                        ("resources.requests.cpu", os.environ.get("K6_CPU_REQUEST"))) if value
                 for arg in ("--set", f"{key}={value}")]
        installed = subprocess.run([
                        HELM, "upgrade", "--install", release, str(ROOT / "charts" / "k6-job"), "-n", self.namespace,
                        "--set", f"build={self.version}", "--set", f"scenario={scenario}",
                        "--set", f"baseUrl=http://bench-{self.version}-web-api:8080", *image,
                        *[arg for setting in settings for arg in ("--set-string", setting)]],
                       capture_output=True, text=True)
        if installed.returncode:
            raise SystemExit(f"could not install the k6 Job {release}: {installed.stderr.strip()}")
        started = time.monotonic()
        code = None
        try:
            while code is None:
                status = json.loads(kubectl(self.namespace, "get", f"job/{release}", "-o", "json"))["status"]
                if status.get("succeeded"):
                    code = 0
                elif status.get("failed"):
                    code = 99
                else:
                    stuck = unschedulable(self.namespace, f"app.kubernetes.io/instance={release}")
                    if stuck:  # waiting out the Job's deadline would not help
                        raise SystemExit(f"k6 Job {release} cannot start: {stuck}")
                    time.sleep(5)
                    if int(time.monotonic() - started) % 30 < 5:
                        info(f"… {self.version} {scenario}: {time.monotonic() - started:.0f}s")
            log = kubectl(self.namespace, "logs", f"job/{release}", check=False)
            summary.with_suffix(".log").write_text(log)
            if SUMMARY_BEGIN not in log:
                raise SystemExit(f"k6 Job {release} left no summary (exit {code}); see {summary.with_suffix('.log')}")
            summary.write_text(log.split(SUMMARY_BEGIN, 1)[1].split(SUMMARY_END, 1)[0])
            sys.stdout.write("".join("    " + line for line in log.split(SUMMARY_BEGIN, 1)[0].splitlines(keepends=True)[-3:]))
        finally:
            subprocess.run([HELM, "uninstall", release, "-n", self.namespace, "--wait", "--timeout", "2m"],
                           capture_output=True)
        return code, None

    def close(self):
        for forward in self.forwards.values():
            forward.close()


def environment(namespace, args):
    node = json.loads(subprocess.run(["kubectl", "get", "nodes", "-o", "json"], capture_output=True, text=True,
                                     check=True).stdout)["items"][0]
    values = (ROOT / "charts" / "k6-job" / "values.yaml").read_text()
    return {
        "timestamp": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "where": args.where,
        "node_allocatable_cpu": node["status"]["allocatable"]["cpu"],
        "node_allocatable_memory": node["status"]["allocatable"]["memory"],
        "kubernetes": node["status"]["nodeInfo"]["kubeletVersion"],
        "k6_job": os.environ.get("K6_IMAGE") or re.search(r"^image: (.+)$", values, re.MULTILINE).group(1),
        "k6_job_resources": "see charts/k6-job/values.yaml: the load generator shares the node with the services",
        "node_cpu": node["status"]["capacity"]["cpu"],
        "container_runtime": node["status"]["nodeInfo"]["containerRuntimeVersion"],
        "kernel": node["status"]["nodeInfo"]["kernelVersion"],
        "java_opts": next((line.split(":", 1)[1].strip().strip('"') for line in
                           (ROOT / "charts" / "reactive-bench" / "values.yaml").read_text().splitlines()
                           if line.startswith("javaOpts:")), ""),
        "git_commit": subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True,
                                     text=True).stdout.strip(),
        "runs": args.runs, "warmup": not args.no_warmup,
        "namespace": namespace,
    }
