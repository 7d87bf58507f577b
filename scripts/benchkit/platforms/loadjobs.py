"""The load generator as a Job of the load-job chart: its values, its pods started together, its samples and its
own CPU read back out of their logs; the calibration pod beside it."""
import json
import queue
import re
import subprocess
import sys
import threading
import time

from benchkit import ROOT, info
from benchkit.core import knobs, load, samples
from benchkit.platforms import kube, podreadings


def exit_code(namespace, release):
    """The load generator's exit code of a failed Job (3: the target never answered; 2: its settings), from the
    first of its pods that failed."""
    for pod in kube.pods(namespace, f"job-name={release}"):
        for status in pod.get("status", {}).get("containerStatuses", []):
            terminated = status.get("state", {}).get("terminated")
            if terminated and terminated.get("exitCode"):
                return terminated.get("exitCode")
    return None  # the pod is gone (the Job's deadline): no code to tell


def service_url(version, service):
    """Where a load Job reaches one service of a build: its Service, in the Job's own namespace."""
    return f"http://bench-{version}-{service}:8080"


def load_job_values(version, scenario, settings, base_url, pods=1, start_at=None):
    """The load-job chart's values of one run, as helm arguments (make bench installs them; make test renders them
    to check that the chart's NetworkPolicies let the Job reach its target)."""
    image = [arg for key, value in (("image", knobs.value("LOAD_IMAGE")),
                                    ("imagePullPolicy", knobs.value("LOAD_IMAGE_PULL_POLICY")),
                                    ("resources.requests.cpu", knobs.value("LOAD_CPU_REQUEST"))) if value
             for arg in ("--set", f"{key}={value}")]
    start = ["--set-string", f"startAt={start_at:.3f}"] if start_at else []
    placed = [arg for pair in (knobs.value("LOAD_NODE_SELECTOR") or "").split(",") if pair.strip()
              for arg in ("--set-string", f"nodeSelector.{kube.node_label(pair)}")]
    return ["--set", f"build={version}", "--set", f"scenario={scenario}", "--set", f"baseUrl={base_url}",
            "--set", f"pods={pods}", *start, *image, *placed,
            *[arg for key, value in settings.items() for arg in ("--set-string", f"env.{key}={kube.helm_escaped(value)}")]]


def chart_values(chart="reactive-bench"):
    """A chart's default values (values.yaml), parsed."""
    return kube.yaml().safe_load((ROOT / "charts" / chart / "values.yaml").read_text())


def load_image():
    """The load generator's image: LOAD_IMAGE, or the load-job chart's pinned default."""
    return knobs.value("LOAD_IMAGE") or chart_values("load-job")["image"]


def calibrate(namespace):
    """Seconds the calibration job (loadgen calibrate) took in a pod of its own on the node, with the load
    generator's image and a CPU limit of 1: the node's speed now, as the round about to run will find it."""
    pod = f"calibration-{int(time.time())}"
    image, job = load_image(), chart_values("load-job")
    container = {"name": pod, "image": image, "args": ["calibrate"],
                 "imagePullPolicy": knobs.value("LOAD_IMAGE_PULL_POLICY") or job["imagePullPolicy"],
                 # Placed where the load Job's pod goes (the same request, which the budget counts); timed under the
                 # same limit of 1 CPU.
                 "resources": {"requests": {"cpu": knobs.value("LOAD_CPU_REQUEST") or job["resources"]["requests"]["cpu"],
                                            "memory": "128Mi"},
                               "limits": {"cpu": "1", "memory": "128Mi"}},
                 "securityContext": {"allowPrivilegeEscalation": False, "readOnlyRootFilesystem": True,
                                     "runAsNonRoot": True, "runAsUser": 12345, "capabilities": {"drop": ["ALL"]},
                                     "seccompProfile": {"type": "RuntimeDefault"}}}
    overrides = {"apiVersion": "v1", "spec": {"automountServiceAccountToken": False, "containers": [container]}}
    ran = subprocess.run(["kubectl", "-n", namespace, "run", pod, f"--image={image}", "--restart=Never", "-i", "--rm",
                          "--quiet", "--pod-running-timeout=5m", f"--overrides={json.dumps(overrides)}",
                          "--labels=app.kubernetes.io/component=calibration"],
                         capture_output=True, text=True, timeout=600, stdin=subprocess.DEVNULL)
    found = re.search(r"calibration-ms (\d+)", ran.stdout)
    if not found:
        stuck = kube.unschedulable(namespace, "app.kubernetes.io/component=calibration")
        subprocess.run(["kubectl", "-n", namespace, "delete", "pod", pod, "--ignore-not-found", "--wait=false"],
                       capture_output=True)
        raise SystemExit(f"the calibration pod {pod} printed no time (exit {ran.returncode}): "
                         f"{stuck or (ran.stdout + ran.stderr)[-500:]}")
    return int(found.group(1)) / 1000


# charts/load-job prints its container's cgroup CPU between these lines once the generator has ended.
CGROUP_BEGIN, CGROUP_END = "----- load generator cgroup -----", "----- end of load generator cgroup -----"


def load_cpu_seconds(log):
    """The CPU seconds a load Job's container used, from what the chart printed into its log; None without it."""
    if CGROUP_BEGIN not in log:
        return None
    return podreadings.parse_cgroup(log.split(CGROUP_BEGIN, 1)[1].split(CGROUP_END, 1)[0])["cpu_seconds"]


def start_skew_ms(log):
    """How late after START_AT a pod of a split run started (load/main.go prints it), or None."""
    found = re.search(r"started (-?[0-9.]+) ms after START_AT", log)
    return float(found.group(1)) if found else None


def job_states(namespace, job):
    """The Job's "succeeded,failed" counts as lines, one now and one at each change, from a kubectl watch (a
    thread of its own), until the watch is stopped; the API server ends a watch now and then: then another."""
    lines = queue.Queue()

    def follow():
        while not stopped.is_set():
            watch = subprocess.Popen(["kubectl", "-n", namespace, "get", f"job/{job}", "--watch", "-o",
                                      'jsonpath={.status.succeeded},{.status.failed}{"\\n"}'],
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
            watches.append(watch)
            if stopped.is_set():  # stopped while this watch started: stop() may not have seen it
                watch.kill()
            for line in watch.stdout:
                lines.put(line.strip())
            watch.wait()
            stopped.wait(1)

    stopped, watches = threading.Event(), []
    threading.Thread(target=follow, daemon=True).start()
    return lines, lambda: (stopped.set(), [watch.kill() for watch in watches])


def await_job(namespace, job, what, every=5):
    """The load generator's exit code of a Job once it has ended: 0 when it succeeded, else its container's. The end is seen as it
    happens (a watch, not a poll every few seconds); between changes, every few seconds, whether its pod cannot
    start (waiting out the Job's deadline would not help), and every 30 s a line of progress."""
    started = reported = time.monotonic()
    lines, stop = job_states(namespace, job)
    try:
        while True:
            try:
                succeeded, _, failed = lines.get(timeout=every).partition(",")
            except queue.Empty:
                succeeded = failed = ""
            if succeeded not in ("", "0"):
                return 0
            if failed not in ("", "0"):
                return exit_code(namespace, job)
            stuck = kube.unschedulable(namespace, f"app.kubernetes.io/instance={job}")
            if stuck:
                raise SystemExit(f"load Job {job} cannot start: {stuck}")
            if time.monotonic() - reported >= 30:
                reported = time.monotonic()
                info(f"… {what}: {reported - started:.0f}s")
    finally:
        stop()


def job_pods(namespace, release):
    """{name: the node it ran on} of a Job's pods, by their completion index."""
    index = "batch.kubernetes.io/job-completion-index"
    return {pod["metadata"]["name"]: pod.get("spec", {}).get("nodeName") for pod in sorted(
        kube.pods(namespace, f"job-name={release}"), key=lambda pod: int(pod["metadata"].get("annotations", {}).get(index, "0")))}


# How late after the agreed instant a pod of a split run may start: a later one leaves the other pods the whole
# load for that long (closed), or sends its share late (open). A pod waits for the instant, so only a pod that came up
# after it is late: ten times the timer's slack seen on a busy node leaves a slower one its room.
SPLIT_SKEW_LIMIT_MS = 1000.0


def late_pods(split):
    """The pods of a split run that started later than SPLIT_SKEW_LIMIT_MS after the agreed instant, or whose
    start was not printed: [(pod, skew or None)]."""
    return [(pod["pod"], pod["start_skew_ms"]) for pod in split
            if pod["start_skew_ms"] is None or pod["start_skew_ms"] > SPLIT_SKEW_LIMIT_MS]


def run_load_job(namespace, version, scenario, summary, settings, base_url):
    """One scenario of load/scenarios.json as a Job of the load-job chart against the build's Service at base_url:
    LOAD_PODS pods (an Indexed Job; 1 unless set), each with its share of the users or of the rate, starting
    together; their samples, read from their logs, merged into one run. Returns (0 or load.THRESHOLDS_CROSSED,
    the CPU seconds of the generator's containers together)."""
    began = time.monotonic()
    pods = knobs.value("LOAD_PODS")
    start_at = time.time() + knobs.value("LOAD_START_SECONDS") if pods > 1 else None
    release = f"load-{version}-{scenario}-{settings.get('TARGET', 'web-api')}-{int(time.time())}"
    installed = subprocess.run([knobs.tool("HELM"), "upgrade", "--install", release, str(ROOT / "charts" / "load-job"), "-n",
                                namespace, *load_job_values(version, scenario, settings, base_url, pods, start_at)],
                               capture_output=True, text=True)
    if installed.returncode:
        raise SystemExit(f"could not install the load Job {release}: {installed.stderr.strip()}")
    installed_s = time.monotonic() - began
    try:
        code = await_job(namespace, release, f"{version} {scenario}")
        ended_s = time.monotonic() - began
        nodes = job_pods(namespace, release)
        logs = {pod: kube.kubectl(namespace, "logs", f"pod/{pod}", check=False) for pod in nodes}
        summary.with_suffix(".log").write_text("".join(f"==> {pod}\n{log}" for pod, log in logs.items()))
        if code != 0:  # the target unreachable (3), or worse
            tail = "".join(load.console_tail(log, 5) for log in logs.values())
            raise SystemExit(f"load Job {release} failed (exit {code}) against {base_url}:\n{tail}")
        found = {pod: load.samples_from_log(log) for pod, log in logs.items()}
        if len(found) != pods or None in found.values():
            raise SystemExit(f"load Job {release} left samples from {sum(v is not None for v in found.values())} of "
                             f"{pods} pods; see {summary.with_suffix('.log')}")
        header, *_ = next(iter(found.values())).partition("\n")
        merged = header + "\n" + "".join(text.partition("\n")[2] for text in found.values())
        summary.with_suffix(".csv").write_text(merged)
        cpu = {pod: load_cpu_seconds(log) for pod, log in logs.items()}
        split = [{"pod": pod, "node": nodes[pod], "cpu_seconds": cpu[pod], "start_skew_ms": start_skew_ms(log)}
                 for pod, log in logs.items()]
        late = late_pods(split) if pods > 1 else []
        if late:
            raise SystemExit(f"load Job {release}: pods started late, not together: {late} (ms after the "
                             f"agreed instant, at most {SPLIT_SKEW_LIMIT_MS:.0f}); give them longer to start: "
                             f"LOAD_START_SECONDS, now {knobs.value('LOAD_START_SECONDS'):.0f}")
        checked = load.summarize_into(summary, samples.parse(merged), version, scenario,
                                      settings.get("TARGET", "web-api"), pods=split)
        for log in logs.values():
            sys.stdout.write(load.console_tail(log.split(load.SAMPLES_BEGIN, 1)[0]))
    finally:
        read_s = time.monotonic() - began
        subprocess.run([knobs.tool("HELM"), "uninstall", release, "-n", namespace, "--wait", "--timeout", "2m"],
                       capture_output=True)
    info(f"(load Job {release}: installed at {installed_s:.1f}s, ended at {ended_s:.1f}s, read at {read_s:.1f}s, "
         f"removed at {time.monotonic() - began:.1f}s)")
    known = [seconds for seconds in cpu.values() if seconds is not None]
    return checked, sum(known) if known else None
