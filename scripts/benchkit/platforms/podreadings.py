"""What a pod's container counted, read through kubectl exec: its cgroup (CPU, memory, CFS throttling), its
processes' scheduling, its JVM's counters and threads, a JFR recording in it."""
import re
import struct
import time

from benchkit.platforms import hsperf, procfs
from benchkit.platforms import kube


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


SCHEDULING_MARK = "==> scheduling"


# Where a JVM's part begins: its threads' stat lines, then its hsperfdata file (binary, so last: nothing is read
# after it but the end's mark).
TASKS_MARK = "==> tasks"
HSPERF_MARK = "==> hsperf"


END_MARK = "==> end"


# How often a kubectl exec whose output came incomplete is tried: a transient stream failure must not end an hour's run.
EXEC_ATTEMPTS = 3


def cgroup_readings(namespace, target, scheduling=False, jvm=False):
    """One container's own cgroup; with scheduling, its processes' procfs.parse_scheduling under "scheduling"; with
    jvm, its JVM's (PID 1) thread stats under "task_stats" and HotSpot counters under "counters" (None where it keeps
    no hsperfdata file: jcmd_counters asks its jcmd then). All read by the same kubectl exec: a snapshot makes one per
    container, each one a round trip through the API server and a process the container runtime starts in the pod.
    Fails loudly when a figure cannot be read: a missing value must never pass for 0."""
    script = READ_CGROUP
    if scheduling:
        script += f"; echo '{SCHEDULING_MARK}'; " + procfs.scheduling_script("[0-9]*", True)
    if jvm:
        script += (f"; echo '{TASKS_MARK}'; cat /proc/1/task/*/stat; echo '{HSPERF_MARK}'; "
                   "cat /tmp/hsperfdata_*/1 2>/dev/null")
    script += f"; echo '{END_MARK}'"
    for attempt in range(EXEC_ATTEMPTS):
        done = kube.pod_exec(namespace, target, "sh", "-c", script, text=False)
        whole, ended, _ = done.stdout.rpartition(END_MARK.encode())
        # the text first (procfs' and the cgroup's lines cannot hold a mark), the hsperfdata file's bytes last
        printed, jvm_marked, hsperf_bytes = whole.partition(f"{HSPERF_MARK}\n".encode())
        printed, tasks_marked, tasks = printed.decode(errors="replace").partition(TASKS_MARK)
        text, marked, processes = printed.partition(SCHEDULING_MARK)
        reading = parse_cgroup(text)
        if (reading["cpu_seconds"] is not None and reading["anonymous_bytes"] is not None
                and (marked or not scheduling) and (jvm_marked and tasks_marked or not jvm) and ended):
            break
        # The exec's stream failed on a loaded node, not the container's figures: it printed nothing (seen once an
        # hour into a CPU map), or lost a part ("Unknown stream id … discarding message": the cgroup's lines gone,
        # the threads' there). A second later the whole is read again (the build idle meanwhile).
        time.sleep(1)
    if scheduling:
        reading["scheduling"] = procfs.parse_scheduling(processes)
    if jvm:
        reading["task_stats"] = tasks
        reading["counters"] = parsed_hsperf(hsperf_bytes)
    if reading["cpu_seconds"] is None or reading["anonymous_bytes"] is None:
        raise SystemExit(f"Could not read the cgroup of {target} (CPU {reading['cpu_seconds']}, anonymous memory"
                         f" {reading['anonymous_bytes']}); kubectl exec printed: {text[:300]!r}, and on its error "
                         f"stream: {(done.stderr or b'').decode(errors='replace')[:300]!r}")
    return reading


def parsed_hsperf(data):
    """The counters of a hsperfdata file's bytes; None for none, or bytes that are not one."""
    try:
        return hsperf.parse(data) if data else None
    except (ValueError, struct.error, IndexError):
        return None


def jvm_counters(namespace, target):
    """The HotSpot counters of the container's JVM (PID 1, the image's entrypoint): from its hsperfdata file, or,
    where the JVM keeps none (it names the file after its user, and an image's user 185 may have no name), from
    the image's jcmd. None when neither can be read."""
    read = kube.pod_exec(namespace, target, "sh", "-c", "cat /tmp/hsperfdata_*/1", text=False)
    counters = parsed_hsperf(read.stdout) if read.returncode == 0 else None
    return counters if counters is not None else jcmd_counters(namespace, target)


def jcmd_counters(namespace, target):
    """The HotSpot counters of the container's JVM as the image's jcmd prints them; None without one."""
    printed = kube.pod_exec(namespace, target, "jcmd", "1", "PerfCounter.print")
    return hsperf.parse_printed(printed.stdout) if printed.returncode == 0 else None


class PodRecording:
    """JFR in the JVM of a pod (PID 1), through kubectl exec and the image's own jcmd; the recording comes back
    through the exec's standard output (no tar needed in the image)."""

    def __init__(self, namespace, target):
        self.namespace, self.target = namespace, target

    def jcmd(self, *args):
        ran = kube.pod_exec(self.namespace, self.target, "jcmd", "1", *args)
        if ran.returncode:
            raise SystemExit(f"jcmd in {self.target} failed: {(ran.stdout + ran.stderr).strip()[-300:]}")

    def start(self):
        self.jcmd("JFR.start", "name=benchkit", "settings=profile")

    def stop(self, recording):
        self.jcmd("JFR.stop", "name=benchkit", "filename=/tmp/benchkit.jfr")
        with open(recording, "wb") as local:
            kube.pod_exec(self.namespace, self.target, "cat", "/tmp/benchkit.jfr", text=False, stdout=local, check=True)
        kube.pod_exec(self.namespace, self.target, "rm", "-f", "/tmp/benchkit.jfr")


def has_jcmd(namespace, target):
    return kube.pod_exec(namespace, target, "sh", "-c", "command -v jcmd").returncode == 0


def thread_names(namespace, target):
    """The names of the container's JVM threads (PID 1), as the kernel has them (15 characters at most)."""
    return kube.pod_exec(namespace, target, "sh", "-c", "cat /proc/1/task/*/comm").stdout.splitlines()
