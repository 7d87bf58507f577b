"""Kubernetes through kubectl and helm: pod states, the cgroup readings of a container, port-forwards,
and the load generator as a Job of the load-job chart."""
import json
import queue
import re
import subprocess
import sys
import threading
import time

from benchkit import ROOT, info
from benchkit.core import hsperf, knobs, load, procfs, samples

HELM = knobs.value("HELM")


def helm_template(release, chart, *args, namespace=None):
    """The manifests of charts/<chart> as helm renders them for KUBE_VERSION (the Makefile's pin), parsed."""
    kube_version = knobs.value("KUBE_VERSION") or sys.exit("KUBE_VERSION must name the Kubernetes version to "
                                                              "render for (the Makefile sets it)")
    command = [HELM, "template", release, str(ROOT / "charts" / chart), "--kube-version", kube_version, *args]
    rendered = subprocess.run([*command, *(["--namespace", namespace] if namespace else [])],
                              capture_output=True, text=True)
    if rendered.returncode:
        raise SystemExit(f"helm template {chart} failed: {rendered.stderr.strip()}")
    return [document for document in yaml().safe_load_all(rendered.stdout) if document]


def yaml():
    """PyYAML, imported when asked: make benchkit's interpreter has it; scripts/k8s.sh's calls need only the
    standard library."""
    try:
        import yaml
    except ImportError:
        raise SystemExit("reading charts needs PyYAML: run it on make benchkit's interpreter (.tools/benchkit)")
    return yaml


def cpu(quantity):
    """A CPU quantity ("100m", "1", None) in CPUs (0 for none)."""
    text = str(quantity or 0)
    return int(text[:-1]) / 1000 if text.endswith("m") else float(text)


def kubectl(namespace, *args, check=True):
    return subprocess.run(["kubectl", "-n", namespace, *args], capture_output=True, text=True, check=check).stdout


def pods(namespace, selector=None):
    """The pods of the namespace (of a label selector), as the API server has them."""
    return json.loads(kubectl(namespace, "get", "pods", *(["-l", selector] if selector else []), "-o", "json"))["items"]


def pod_exec(namespace, target, *command, text=True, **options):
    """A command in the target's container (kubectl exec), its output captured unless options say where it goes."""
    options.setdefault("stdout", subprocess.PIPE)
    return subprocess.run(["kubectl", "-n", namespace, "exec", target, "--", *command], stderr=subprocess.PIPE,
                          text=text, **options)


# The cgroup files a container sees, v2 (unified) first, then v1's per-controller hierarchies. Read with
# sh and cat only, which every image here has (the services' JRE images, Spilo, Strimzi's, the load generator's).
CGROUP_FILES = ("cpu.stat", "memory.peak", "memory.stat", "memory.events", "cpuacct/cpuacct.usage",
                "cpu,cpuacct/cpuacct.usage", "cpu/cpu.stat", "cpu,cpuacct/cpu.stat", "memory/memory.max_usage_in_bytes",
                "memory/memory.stat", "memory/memory.oom_control", "cpu.max", "cpu/cpu.cfs_quota_us",
                "cpu/cpu.cfs_period_us", "cpu,cpuacct/cpu.cfs_quota_us", "cpu,cpuacct/cpu.cfs_period_us")
READ_CGROUP = ("for f in " + " ".join(f"/sys/fs/cgroup/{name}" for name in CGROUP_FILES) +
               '; do if [ -r "$f" ]; then echo "==> $f"; cat "$f"; fi; done; true')


def parse_cgroup(text):
    """CPU seconds and memory from what READ_CGROUP printed, v2 or v1; None for a figure not there."""
    files = {}
    for block in text.split("==> /sys/fs/cgroup/")[1:]:
        name, _, content = block.partition("\n")
        files[name.strip()] = content

    def stat(name, key):
        match = re.search(rf"^{key} (\d+)$", files.get(name, ""), re.MULTILINE)
        return int(match.group(1)) if match else None

    def number(name):
        text = files.get(name, "").strip()
        return int(text) if text.isdigit() else None

    def quota(quota_text, period_text):
        """The CPU limit in CPUs (quota / period), None without one: what the JVM sizes itself by."""
        if not quota_text.isdigit() or not period_text.isdigit() or int(quota_text) == 0:
            return None  # "max" (v2) or -1 (v1): no limit
        return int(quota_text) / int(period_text)

    if "cpu.stat" in files:  # cgroup v2
        usage = stat("cpu.stat", "usage_usec")
        return {"cgroup": "v2", "cpu_seconds": usage / 1e6 if usage is not None else None,
                "peak_bytes": number("memory.peak"), "peak_source": "memory.peak",
                "anonymous_bytes": stat("memory.stat", "anon"), "oom_kills": stat("memory.events", "oom_kill"),
                "throttling": procfs.throttling(files["cpu.stat"], True),
                "cpu_limit": quota(*(files.get("cpu.max") or "max 100000").split()[:2])}
    usage = number("cpuacct/cpuacct.usage")
    usage = usage if usage is not None else number("cpu,cpuacct/cpuacct.usage")
    v1_cpu = "cpu" if any(name.startswith("cpu/") for name in files) else "cpu,cpuacct"  # a link to the other, or not
    return {"cgroup": "v1", "cpu_seconds": usage / 1e9 if usage is not None else None,
            "peak_bytes": number("memory/memory.max_usage_in_bytes"), "peak_source": "memory.max_usage_in_bytes",
            "anonymous_bytes": stat("memory/memory.stat", "total_rss"),
            "oom_kills": stat("memory/memory.oom_control", "oom_kill"),
            "throttling": procfs.throttling(files.get(f"{v1_cpu}/cpu.stat", ""), False),
            "cpu_limit": quota(files.get(f"{v1_cpu}/cpu.cfs_quota_us", "").strip(),
                               files.get(f"{v1_cpu}/cpu.cfs_period_us", "").strip())}


def set_environment(namespace, variables_by_deployment, timeout=360):
    """Sets (a value) or removes (None) environment variables of Deployments' containers, {deployment: {name: value}},
    all rolled at once, and waits until they have rolled (rolled)."""
    for deployment, variables in variables_by_deployment.items():
        kubectl(namespace, "set", "env", deployment,
                *[f"{name}-" if value is None else f"{name}={value}" for name, value in variables.items()])
    rolled(namespace, variables_by_deployment, timeout)


def set_resources(namespace, resources_by_deployment, timeout=360):
    """Replaces the resources of Deployments' first container, {deployment: resources}, and waits until they have
    rolled."""
    for deployment, resources in resources_by_deployment.items():
        kubectl(namespace, "patch", deployment, "--type=json", "-p", json.dumps(
            [{"op": "add", "path": "/spec/template/spec/containers/0/resources", "value": resources}]))
    rolled(namespace, resources_by_deployment, timeout)


def rolled(namespace, deployments, timeout=360):
    """Waits until the Deployments' new pods serve and the old ones are gone (a target such as deploy/x must not lead
    to a pod that is stopping)."""
    deadline = time.monotonic() + timeout
    for deployment in deployments:
        kubectl(namespace, "rollout", "status", deployment, f"--timeout={timeout}s")
        spec = json.loads(kubectl(namespace, "get", deployment, "-o", "json"))
        selector = ",".join(f"{k}={v}" for k, v in spec["spec"]["selector"]["matchLabels"].items())
        while len(kubectl(namespace, "get", "pods", "-l", selector, "-o", "name").split()) > spec["spec"]["replicas"]:
            if time.monotonic() > deadline:
                raise SystemExit(f"{deployment}: its old pods did not stop within {timeout} s")
            time.sleep(2)


SCHEDULING_MARK = "==> scheduling"
END_MARK = "==> end"


# How often a kubectl exec whose output came incomplete is tried: a transient stream failure must not end an hour's run.
EXEC_ATTEMPTS = 3


def cgroup_readings(namespace, target, scheduling=False):
    """One container's own cgroup, and with scheduling its processes' procfs.parse_scheduling under "scheduling"
    (read by the same kubectl exec: a snapshot makes one per container). Fails loudly when a figure cannot be read: a
    missing value must never pass for 0."""
    script = READ_CGROUP + (f"; echo '{SCHEDULING_MARK}'; " + procfs.scheduling_script("[0-9]*", True)
                            if scheduling else "") + f"; echo '{END_MARK}'"
    for attempt in range(EXEC_ATTEMPTS):
        done = pod_exec(namespace, target, "sh", "-c", script)
        whole, ended, _ = done.stdout.rpartition(END_MARK)
        text, marked, processes = whole.partition(SCHEDULING_MARK)
        reading = parse_cgroup(text)
        if (reading["cpu_seconds"] is not None and reading["anonymous_bytes"] is not None
                and (marked or not scheduling) and ended):
            break
        # The exec's stream failed on a loaded node, not the container's figures: it printed nothing (seen once an
        # hour into a CPU map), or lost a part ("Unknown stream id … discarding message": the cgroup's lines gone,
        # the threads' there). A second later the whole is read again (the build idle meanwhile).
        time.sleep(1)
    if scheduling:
        reading["scheduling"] = procfs.parse_scheduling(processes)
    if reading["cpu_seconds"] is None or reading["anonymous_bytes"] is None:
        raise SystemExit(f"Could not read the cgroup of {target} (CPU {reading['cpu_seconds']}, anonymous memory"
                         f" {reading['anonymous_bytes']}); kubectl exec printed: {text[:300]!r}, and on its error "
                         f"stream: {(done.stderr or '')[:300]!r}")
    return reading


def jvm_counters(namespace, target):
    """The HotSpot counters of the container's JVM (PID 1, the image's entrypoint): from its hsperfdata file, or,
    where the JVM keeps none (it names the file after its user, and an image's user 185 may have no name), from
    the image's jcmd. None when neither can be read."""
    read = pod_exec(namespace, target, "sh", "-c", "cat /tmp/hsperfdata_*/1", text=False)
    try:
        if read.returncode == 0:
            return hsperf.parse(read.stdout)
    except ValueError:
        pass
    printed = pod_exec(namespace, target, "jcmd", "1", "PerfCounter.print")
    return hsperf.parse_printed(printed.stdout) if printed.returncode == 0 else None


class PodRecording:
    """JFR in the JVM of a pod (PID 1), through kubectl exec and the image's own jcmd; the recording comes back
    through the exec's standard output (no tar needed in the image)."""

    def __init__(self, namespace, target):
        self.namespace, self.target = namespace, target

    def jcmd(self, *args):
        ran = pod_exec(self.namespace, self.target, "jcmd", "1", *args)
        if ran.returncode:
            raise SystemExit(f"jcmd in {self.target} failed: {(ran.stdout + ran.stderr).strip()[-300:]}")

    def start(self):
        self.jcmd("JFR.start", "name=benchkit", "settings=profile")

    def stop(self, recording):
        self.jcmd("JFR.stop", "name=benchkit", "filename=/tmp/benchkit.jfr")
        with open(recording, "wb") as local:
            pod_exec(self.namespace, self.target, "cat", "/tmp/benchkit.jfr", text=False, stdout=local, check=True)
        pod_exec(self.namespace, self.target, "rm", "-f", "/tmp/benchkit.jfr")


def has_jcmd(namespace, target):
    return pod_exec(namespace, target, "sh", "-c", "command -v jcmd").returncode == 0


def task_stats(namespace, target):
    """The /proc/1/task/*/stat lines of the container's JVM, one per thread."""
    return pod_exec(namespace, target, "sh", "-c", "cat /proc/1/task/*/stat").stdout


def thread_names(namespace, target):
    """The names of the container's JVM threads (PID 1), as the kernel has them (15 characters at most)."""
    return pod_exec(namespace, target, "sh", "-c", "cat /proc/1/task/*/comm").stdout.splitlines()


def pod_states(namespace):
    """Restarts, the last termination reason and the node of every container in the namespace, per pod."""
    states = {}
    for pod in pods(namespace):
        for status in pod.get("status", {}).get("containerStatuses", []):
            last = status.get("lastState", {}).get("terminated", {})
            states[f"{pod['metadata']['name']}/{status['name']}"] = {
                "restarts": status.get("restartCount", 0), "last_reason": last.get("reason"),
                "node": pod.get("spec", {}).get("nodeName")}
    return states


def restarts_between(before, after):
    """The containers that restarted between two pod_states, how often, and whether one was OOM-killed."""
    changed = {}
    for container, state in after.items():
        restarts = state["restarts"] - before.get(container, {}).get("restarts", 0)
        if restarts > 0:
            changed[container] = {"restarts": restarts, "last_reason": state["last_reason"]}
    return changed


def unschedulable(namespace, selector=None):
    """Why the pods (of a selector) cannot start: unschedulable, or no image. An empty string if none.
    Also used by scripts/k8s.sh while helm waits for a rollout."""
    reasons = []
    for pod in pods(namespace, selector):
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


def deployed(namespace, versions):
    """The builds whose release (bench-<version>) is deployed in the namespace, in builds.conf's order."""
    listed = subprocess.run([HELM, "list", "--namespace", namespace, "--short"], capture_output=True, text=True)
    releases = set(listed.stdout.split()) if listed.returncode == 0 else set()
    return tuple(version for version in versions if f"bench-{version}" in releases)


# e_machine of an ELF header, as Kubernetes names a node's architecture (GOARCH)
ELF_MACHINES = {62: "amd64", 183: "arm64", 3: "386", 40: "arm", 243: "riscv64", 21: "ppc64le", 22: "s390x"}


def elf_architecture(path):
    """The architecture a program was built for, from its ELF header (what a node's kernel would refuse to run)."""
    with open(path, "rb") as file:
        header = file.read(20)
    if len(header) < 20 or header[:4] != b"\x7fELF":
        raise SystemExit(f"{path}: not an ELF program")
    machine = int.from_bytes(header[18:20], "little" if header[5] == 1 else "big")
    return ELF_MACHINES.get(machine, f"ELF machine {machine}")


def current_context():
    found = subprocess.run(["kubectl", "config", "current-context"], capture_output=True, text=True)
    return found.stdout.strip() or "no context"


def node_label(pair):
    """key=value of LOAD_NODE_SELECTOR as helm's --set takes it (the dots of a label's key escaped)."""
    key, separator, value = pair.strip().partition("=")
    if not separator or not key or not value:
        raise SystemExit(f"LOAD_NODE_SELECTOR: {pair.strip()!r} is not key=value")
    return f"{key.replace('.', chr(92) + '.')}={value}"


def helm_escaped(value):
    """helm's --set splits at commas: a list value (AUTHOR_NAMES) keeps them escaped."""
    return str(value).replace(",", "\\,")


def exit_code(namespace, release):
    """The load generator's exit code of a failed Job (3: the target never answered; 2: its settings), from the
    first of its pods that failed."""
    for pod in pods(namespace, f"job-name={release}"):
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
              for arg in ("--set-string", f"nodeSelector.{node_label(pair)}")]
    return ["--set", f"build={version}", "--set", f"scenario={scenario}", "--set", f"baseUrl={base_url}",
            "--set", f"pods={pods}", *start, *image, *placed,
            *[arg for key, value in settings.items() for arg in ("--set-string", f"env.{key}={helm_escaped(value)}")]]


def chart_values(chart="reactive-bench"):
    """A chart's default values (values.yaml), parsed."""
    return yaml().safe_load((ROOT / "charts" / chart / "values.yaml").read_text())


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
        stuck = unschedulable(namespace, "app.kubernetes.io/component=calibration")
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
    return parse_cgroup(log.split(CGROUP_BEGIN, 1)[1].split(CGROUP_END, 1)[0])["cpu_seconds"]


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
            stuck = unschedulable(namespace, f"app.kubernetes.io/instance={job}")
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
        pods(namespace, f"job-name={release}"), key=lambda pod: int(pod["metadata"].get("annotations", {}).get(index, "0")))}


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
    pods = knobs.value("LOAD_PODS")
    start_at = time.time() + knobs.value("LOAD_START_SECONDS") if pods > 1 else None
    release = f"load-{version}-{scenario}-{settings.get('TARGET', 'web-api')}-{int(time.time())}"
    installed = subprocess.run([HELM, "upgrade", "--install", release, str(ROOT / "charts" / "load-job"), "-n",
                                namespace, *load_job_values(version, scenario, settings, base_url, pods, start_at)],
                               capture_output=True, text=True)
    if installed.returncode:
        raise SystemExit(f"could not install the load Job {release}: {installed.stderr.strip()}")
    try:
        code = await_job(namespace, release, f"{version} {scenario}")
        nodes = job_pods(namespace, release)
        logs = {pod: kubectl(namespace, "logs", f"pod/{pod}", check=False) for pod in nodes}
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
        subprocess.run([HELM, "uninstall", release, "-n", namespace, "--wait", "--timeout", "2m"],
                       capture_output=True)
    known = [seconds for seconds in cpu.values() if seconds is not None]
    return checked, sum(known) if known else None
