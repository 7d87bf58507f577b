"""The in-cluster variant of bench.py's measurements (make bench): k6 runs as a Job from the k6-job
chart, CPU and peak memory come from each pod's cgroup, and the services' request counters are read
through port-forwards. Produces the same files as the local harness, so report.py renders both."""
import datetime
import json
import os
import re
import subprocess
import time

from bench import ROOT, info, requests_served, scrape

HELM = os.environ.get("HELM", "helm")
SUMMARY_BEGIN = "----- k6 summary json -----"
SUMMARY_END = "----- end of k6 summary json -----"


def kubectl(namespace, *args, check=True):
    return subprocess.run(["kubectl", "-n", namespace, *args], capture_output=True, text=True, check=check).stdout


def cgroup_value(namespace, target, file, key=None):
    """A number from a pod's cgroup v2 file: cpu.stat's usage_usec, or memory.peak."""
    text = kubectl(namespace, "exec", target, "--", "cat", f"/sys/fs/cgroup/{file}", check=False)
    if key is None:
        return int(text.strip()) if text.strip().isdigit() else None
    match = re.search(rf"^{key} (\d+)$", text, re.MULTILINE)
    return int(match.group(1)) if match else None


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
        usage = {name: cgroup_value(self.namespace, target, "cpu.stat", "usage_usec") or 0
                 for name, target in {**self.targets, **self.PODS}.items()}
        return {"time": time.monotonic(), "requests": requests,
                "cpu_seconds": {name: microseconds / 1e6 for name, microseconds in usage.items()}}

    def reset_peaks(self):
        pass  # memory.peak counts from the container's start: the report shows that peak

    def peaks(self):
        return {name: (cgroup_value(self.namespace, target, "memory.peak") or 0) / 2**20
                for name, target in self.targets.items()}

    def run(self, scenario, summary):
        """One k6 Job; its summary is in its log between markers. Returns (exit code, None): the Job's
        own CPU is bounded by its limit, recorded in the environment."""
        release = f"k6-{self.version}-{scenario}-{int(time.time())}"
        settings = [f"env.{key}={os.environ[key]}" for key in
                    ("VUS", "ITERATIONS", "WARMUP_ITERATIONS", "RATE", "DURATION", "MAX_VUS") if key in os.environ]
        subprocess.run([HELM, "upgrade", "--install", release, str(ROOT / "charts" / "k6-job"), "-n", self.namespace,
                        "--set", f"build={self.version}", "--set", f"scenario={scenario}",
                        "--set", f"baseUrl=http://bench-{self.version}-web-api:8080",
                        *[arg for setting in settings for arg in ("--set-string", setting)]],
                       check=True, capture_output=True)
        started = time.monotonic()
        code = None
        while code is None:
            status = json.loads(kubectl(self.namespace, "get", f"job/{release}", "-o", "json"))["status"]
            if status.get("succeeded"):
                code = 0
            elif status.get("failed"):
                code = 99
            else:
                time.sleep(10)
                info(f"… {self.version} {scenario}: {time.monotonic() - started:.0f}s")
        log = kubectl(self.namespace, "logs", f"job/{release}")
        summary.with_suffix(".log").write_text(log)
        if SUMMARY_BEGIN not in log:
            raise SystemExit(f"k6 Job {release} left no summary; see {summary.with_suffix('.log')}")
        summary.write_text(log.split(SUMMARY_BEGIN, 1)[1].split(SUMMARY_END, 1)[0])
        subprocess.run([HELM, "uninstall", release, "-n", self.namespace], capture_output=True)
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
        "k6_job": re.search(r"^image: (.+)$", values, re.MULTILINE).group(1),
        "k6_job_resources": "see charts/k6-job/values.yaml: the load generator shares the node with the services",
        "git_commit": subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True,
                                     text=True).stdout.strip(),
        "runs": args.runs, "warmup": not args.no_warmup,
        "namespace": namespace,
    }
