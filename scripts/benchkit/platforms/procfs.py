"""CPU, memory and JVM counters of the local stack's processes, from /proc and HotSpot's hsperfdata files."""
import os
import pathlib
import pwd
import re
import subprocess

from benchkit.platforms import hsperf

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


COMPILER_THREADS = ("C1 CompilerThre", "C2 CompilerThre")  # HotSpot's JIT compiler threads (the kernel keeps 15)


def compiler_cpu_seconds(task_stats):
    """CPU seconds of the JIT compiler threads, from the /proc/<pid>/task/*/stat lines of one JVM (their CPU, not
    the compilations' elapsed time that HotSpot counts, which waiting for a core stretches). A compiler thread that
    HotSpot stopped takes its seconds with it: only the first of each kind lives as long as the JVM."""
    total = 0
    for line in task_stats.splitlines():
        name, _, rest = line.partition(" (")[2].rpartition(") ")
        if name.startswith(COMPILER_THREADS):
            fields = rest.split()
            total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / CLOCK_TICKS


CGROUPS = pathlib.Path("/sys/fs/cgroup")
PERIOD_US = 100_000  # the CFS period a pod's limit gets (the kubelet's default)


def cpu_groups():
    """(the CPU hierarchy's root, the directory the local stack's services' own CPU cgroups are made in, whether it is
    cgroup v2)."""
    v2 = (CGROUPS / "cgroup.controllers").exists()
    root = CGROUPS if v2 else CGROUPS / "cpu"
    return root, root / "reactive-bench", v2


def limited_group(name, cpus):
    """A CPU cgroup of the service's own with a quota of `cpus` CPUs per period (CFS bandwidth control, as a pod's CPU
    limit is enforced), made or set again: its directory, for a process to join (scripts/local/stack.sh's CPU_GROUPS
    starts a service in it)."""
    root, groups, v2 = cpu_groups()
    if v2:  # the cpu controller must be enabled for the groups below
        for parent in (root, groups):
            parent.mkdir(exist_ok=True)
            (parent / "cgroup.subtree_control").write_text("+cpu")
    group = groups / name
    group.mkdir(parents=True, exist_ok=True)
    if v2:
        (group / "cpu.max").write_text(f"{round(cpus * PERIOD_US)} {PERIOD_US}")
    else:
        (group / "cpu.cfs_period_us").write_text(str(PERIOD_US))
        (group / "cpu.cfs_quota_us").write_text(str(round(cpus * PERIOD_US)))
    return group


def limit_cpu(name, pid, cpus):
    """A process, every thread of it, in a CPU cgroup of its own with a quota of `cpus` CPUs per period
    (limited_group); cpus None: back in the root group, its own removed."""
    root, groups, _ = cpu_groups()
    if cpus is None:
        (root / "cgroup.procs").write_text(str(pid))
        if (groups / name).exists():
            (groups / name).rmdir()
        return
    (limited_group(name, cpus) / "cgroup.procs").write_text(str(pid))


def cpu_group(pid):
    """(the directory of a process's CPU cgroup, whether it is cgroup v2), or (None, None)."""
    for line in pathlib.Path(f"/proc/{pid}/cgroup").read_text().splitlines():
        _, controllers, path = line.split(":", 2)
        if controllers == "" and (CGROUPS / path.lstrip("/") / "cpu.max").exists():
            return CGROUPS / path.lstrip("/"), True
        if "cpu" in controllers.split(","):
            return CGROUPS / controllers / path.lstrip("/"), False
    return None, None


def cpu_limit(pid):
    """The CPU quota of a process's own cgroup in CPUs (as a pod's limit reads), None without one."""
    group, v2 = cpu_group(pid)
    if group is None:
        return None
    if v2:
        quota, period = (group / "cpu.max").read_text().split()
        return None if quota == "max" else int(quota) / int(period)
    quota = int((group / "cpu.cfs_quota_us").read_text())
    return None if quota < 0 else quota / int((group / "cpu.cfs_period_us").read_text())


def throttling(cpu_stat, v2):
    """CFS bandwidth control, from a cgroup's cpu.stat (v1 or v2): periods with a quota, how many of them ran out of
    it, and the time its threads waited for the next period (throttling shows nowhere else); None without them."""
    stat = dict(line.split() for line in cpu_stat.splitlines() if len(line.split()) == 2)
    waited = stat.get("throttled_usec" if v2 else "throttled_time")
    if not all(value and value.isdigit() for value in (stat.get("nr_periods"), stat.get("nr_throttled"), waited)):
        return None
    return {"periods": int(stat["nr_periods"]), "throttled": int(stat["nr_throttled"]),
            "throttled_seconds": int(waited) / (1e6 if v2 else 1e9)}


def process_throttling(pid):
    """throttling of a process's own CPU cgroup where it has a quota (a limit set by limit_cpu), else None (also for a
    process gone meanwhile, as a stopped part is)."""
    try:
        if cpu_limit(pid) is None:
            return None
        group, v2 = cpu_group(pid)
        return throttling((group / "cpu.stat").read_text(), v2)
    except OSError:
        return None


def processors_given(command_and_environment):
    """The -XX:ActiveProcessorCount a JVM was given (its command line or the java launcher's JDK_JAVA_OPTIONS, as
    /proc/PID/cmdline and environ hold them), or None."""
    found = re.findall(r"-XX:ActiveProcessorCount=(\d+)", command_and_environment.decode(errors="replace"))
    return int(found[-1]) if found else None


def processors_seen(pid):
    """The processors a JVM counts: those given, else the CPUs it may run on."""
    given = processors_given(pathlib.Path(f"/proc/{pid}/cmdline").read_bytes() + b"\0" +
                             pathlib.Path(f"/proc/{pid}/environ").read_bytes())
    return given or len(os.sched_getaffinity(pid))


def per_thread(pid, name):
    """One file of each thread of a process (/proc/<pid>/task/*/<name>), stripped; a thread gone meanwhile is left out."""
    found = []
    for path in pathlib.Path(f"/proc/{pid}/task").glob(f"*/{name}"):
        try:
            found.append(path.read_text().strip())
        except OSError:
            pass
    return found


# What the kernel counted of a group of processes, per thread and per process: context switches, the time its threads
# waited for a core (schedstat's run delay), read and write system calls, and the packets of its network namespace.
# One script for both platforms (here with sh over the given pids, in a pod through kubectl exec over every process of
# the container): builtins of sh only, which every image has. A thread that ended since the first reading takes its
# switches with it (the kernel keeps them only inside the process); the I/O counters are the whole process's.
SCHEDULING_SCRIPT = r"""cd /proc || exit 0
for p in {pids}; do
  [ "$p" = "$$" ] && continue
  if [ -r "$p/io" ]; then
    while read -r k v; do case $k in syscr:|syscw:) echo "io $p $k $v";; esac; done < "$p/io"
  fi
  for t in "$p"/task/*; do
    vol=; inv=; run=; wait=
    read -r run wait slices < "$t/schedstat"
    while read -r k v; do
      case $k in voluntary_ctxt_switches:) vol=$v;; nonvoluntary_ctxt_switches:) inv=$v;; esac
    done < "$t/status"
    echo "task ${{t##*/}} $vol $inv $wait"
  done
done 2>/dev/null
{network}"""
NETWORK = 'while read -r line; do echo "net $line"; done < /proc/net/dev'


def scheduling_script(pids, network):
    """The script over these pids ("[0-9]*": every process it sees), with its network namespace's counters where
    the processes have one of their own (a pod's; the local stack's share the machine's loopback)."""
    return SCHEDULING_SCRIPT.format(pids=pids, network=NETWORK if network else "")


def parse_scheduling(text):
    """{"tasks": {tid: [voluntary, involuntary, run delay ns]}, "io": {pid: [read, write syscalls]}, "packets": sent +
    received on every interface but loopback, or None} from what the script printed; a line cut short (its thread or
    process ended while read) is left out."""
    tasks, io, packets = {}, {}, None
    for line in text.splitlines():
        kind, _, rest = line.partition(" ")
        fields = rest.split()
        if kind == "task" and len(fields) == 4 and all(f.isdigit() for f in fields):
            tasks[fields[0]] = [int(f) for f in fields[1:]]
        elif kind == "io" and len(fields) == 3 and fields[2].isdigit():
            io.setdefault(fields[0], [0, 0])[0 if fields[1] == "syscr:" else 1] = int(fields[2])
        elif kind == "net" and ":" in rest:
            interface, _, counters = rest.partition(":")
            counters = counters.split()
            if interface.strip() != "lo" and len(counters) >= 10:
                packets = (packets or 0) + int(counters[1]) + int(counters[9])  # received, sent packets
    return {"tasks": tasks, "io": io, "packets": packets}


def scheduling(pids):
    """parse_scheduling of local processes."""
    script = scheduling_script(" ".join(str(pid) for pid in pids), False)
    return parse_scheduling(subprocess.run(["sh", "-c", script], capture_output=True, text=True).stdout)


def with_peak(reading, counters):
    """A JVM's reading with the most Java threads it had alive at once since it started (HotSpot's own peak; its
    GC and VM threads are not Java threads)."""
    return {**reading, "threads_peak": (counters or {}).get("java.threads.livePeak")}


def task_stats(pid):
    """The /proc/<pid>/task/*/stat lines of a process, one per thread."""
    return "\n".join(per_thread(pid, "stat"))


def cpu_seconds(pid):
    """user + system CPU of a process, and of its children that ended."""
    try:
        fields = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (FileNotFoundError, ProcessLookupError):
        return 0.0
    return sum(int(fields[i]) for i in (11, 12, 13, 14)) / CLOCK_TICKS


def tree(parent):
    """A process and its direct children, as PostgreSQL runs (one backend per connection)."""
    found = [parent]
    for stat in pathlib.Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except (FileNotFoundError, ProcessLookupError, PermissionError):
            continue
        if int(text.rsplit(")", 1)[1].split()[1]) == parent:
            found.append(int(stat.parent.name))
    return found


def tree_cpu_seconds(parent):
    return sum(cpu_seconds(pid) for pid in tree(parent))


def reset_peak_rss(pid):
    try:
        pathlib.Path(f"/proc/{pid}/clear_refs").write_text("5")  # 5 resets VmHWM, the peak RSS
    except OSError:
        pass


def peak_rss_mib(pid):
    try:
        for line in pathlib.Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except FileNotFoundError:
        pass
    return None


def jvm_counters(pid):
    """The HotSpot counters of a local JVM (its hsperfdata file, as jstat reads it), or None."""
    try:
        owner = pwd.getpwuid(pathlib.Path(f"/proc/{pid}").stat().st_uid).pw_name
        return hsperf.parse(pathlib.Path(f"/tmp/hsperfdata_{owner}/{pid}").read_bytes())
    except (OSError, KeyError, ValueError):
        return None


def thread_names(pid):
    """The names of a process's threads, as the kernel has them (15 characters at most)."""
    return per_thread(pid, "comm")


def threads(pid):
    """How many threads a process has now (platform threads: a virtual thread is none of them), or None."""
    try:
        return len(os.listdir(f"/proc/{pid}/task"))
    except FileNotFoundError:
        return None


ESTABLISHED = "01"


def connections_to(pid, ports):
    """How many TCP connections a process holds established to any of these remote ports now, or None: its
    sockets (/proc/PID/fd) matched with the kernel's tables of its network namespace (/proc/PID/net/tcp and tcp6: a
    JVM's sockets are IPv6 ones, IPv4 addresses mapped into them)."""
    try:
        descriptors = os.listdir(f"/proc/{pid}/fd")
        table = [line for name in ("tcp", "tcp6")
                 for line in pathlib.Path(f"/proc/{pid}/net/{name}").read_text().splitlines()[1:]]
    except (FileNotFoundError, ProcessLookupError):
        return None
    inodes = set()
    for fd in descriptors:
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except FileNotFoundError:  # closed meanwhile
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    wanted = {f"{port:04X}" for port in ports}
    count = 0
    for line in table:
        fields = line.split()
        if fields[3] == ESTABLISHED and fields[2].rsplit(":", 1)[1] in wanted and fields[9] in inodes:
            count += 1
    return count


def scheduler(kernel):
    """The kernel's CPU scheduler by its release: EEVDF replaced CFS's pick of the next task in Linux 6.6 (CFS's
    bandwidth control, which enforces a CPU limit, stays)."""
    major, minor = (int(part) for part in re.match(r"(\d+)\.(\d+)", kernel).groups())
    return "EEVDF" if (major, minor) >= (6, 6) else "CFS"


def machine_cpu():
    """(busy, total) clock ticks of the whole machine since boot, from /proc/stat's first line (idle and iowait
    are not busy; guest time is already within user)."""
    fields = [int(x) for x in pathlib.Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:9]]
    total = sum(fields)
    return total - fields[3] - fields[4], total


# A kubelet with the cgroupfs driver puts each pod in kubepods[/besteffort|/burstable]/pod<uid>.
KUBEPODS = [pathlib.Path(p) for p in ("/sys/fs/cgroup/cpuacct/kubepods", "/sys/fs/cgroup/cpu,cpuacct/kubepods",
                                      "/sys/fs/cgroup/kubepods")]


def pod_cpu_seconds():
    """{pod uid: CPU seconds since it started} of every pod of a kubelet running on this machine (the test node),
    {} where none does (minikube keeps its own in its VM or container)."""
    root = next((r for r in KUBEPODS if r.is_dir()), None)
    found = {}
    for pod in [*root.glob("pod*"), *root.glob("*/pod*")] if root else []:
        try:
            if (pod / "cpuacct.usage").exists():
                found[pod.name[3:]] = int((pod / "cpuacct.usage").read_text()) / 1e9
            else:
                usage = next(line for line in (pod / "cpu.stat").read_text().splitlines() if line.startswith("usage_usec"))
                found[pod.name[3:]] = int(usage.split()[1]) / 1e6
        except (OSError, StopIteration, ValueError):
            pass  # the pod went meanwhile
    return found
