"""Where the builds run, the interface the core measures through: a Platform and its Builds (what some experiments
attach beside them is core.plugins'). Its two implementations are the benchkit.platforms
package's: the local stack (processes on this machine, the load generator a child process) and a Kubernetes
namespace (the releases of make deploy-vN, the load generator as Jobs, every figure from the pods' own cgroups).
The measured runs, the reconfigurations (sweep, the A/Bs, the CPU map) and the faults (chaos) go through it; none
of them asks which platform it has.

A Platform is where the builds run; a Build is one version on it, what a measured run needs. Their methods are
declared below, each with what it returns."""
import abc
import os


class Build(abc.ABC):
    """One version's three services on a platform, as a measured run sees them."""

    version: str

    @abc.abstractmethod
    def web_api_url(self):
        """Where to send the first request of a run (the expected-work probe), from this machine."""

    @abc.abstractmethod
    def run(self, scenario, summary, settings=None, target="web-api"):
        """One load run against one service of the build (web-api unless a hop is measured alone; settings: the
        generator's environment beyond the user's); its summary written to `summary`. Returns (0 or
        load.THRESHOLDS_CROSSED, the generator's CPU seconds or None)."""

    @abc.abstractmethod
    def snapshot(self):
        """Counters and CPU seconds now: {"time", "requests", "cpu_seconds", "idle_cpu_seconds" (the other builds'
        services, idle meanwhile), "jvm" (per service: JIT compile and GC seconds, compilations), "throttling"
        (per container: CFS periods, throttled periods and seconds; None without a quota), "scheduling" (per process:
        procfs.parse_scheduling, a JVM's with_peak), …}."""

    def gauges(self):
        """{service: {"threads": platform threads now, "connections": TCP connections to its downstream now (web-api:
        authors; articles, authors: PostgreSQL)}}, a figure None where it cannot be read (sampled during a run)."""
        return {}

    def metrics(self):
        """{service: its Prometheus text now} (/q/metrics), {} where a platform cannot read them."""
        return {}

    def ready_at(self):
        """{service: the epoch second the platform found its running JVM ready}, {} where it keeps no such moment (a
        fork's seconds to ready are then its uptime when first read: protocol.fork)."""
        return {}

    @abc.abstractmethod
    def ergonomics(self):
        """{service: how its JVM sized itself there: processors, GC, compiler threads, threads by kind}."""

    @abc.abstractmethod
    def reset_peaks(self):
        """Start a new memory peak where the platform can."""

    @abc.abstractmethod
    def memory(self, before, after):
        """{service: {figure named for what it is: MiB or None}} between two snapshots."""

    @abc.abstractmethod
    def restarts(self, before, after):
        """Containers restarted between two snapshots (None where nothing restarts)."""

    def placement(self, snapshot):
        """{pod: the node it runs on} of the build's pods in a snapshot (None where nothing is placed by a
        scheduler)."""
        return None

    @abc.abstractmethod
    def profiled(self):
        """{service: a JFR recording to start and stop in its JVM}, or None where jcmd cannot reach it."""

    @abc.abstractmethod
    def reset_statements(self):
        """Zero PostgreSQL's pg_stat_statements for the services' databases, where they are readable."""

    @abc.abstractmethod
    def statements(self):
        """[{"database", "query", "calls", "rows"}] since reset_statements, None where they are not readable."""

    def close(self):
        """Let go of whatever reaches the build (port-forwards)."""


# The longest a part may take to come back after a restart or a fault: scripts/local/stack.sh waits this long for a
# restarted service.
RESTORE_LIMIT_SECONDS = 180


class Platform(abc.ABC):
    """Where the builds run: their Builds, the machine's speed, reconfiguration and CPU limits. What only some
    experiments ask of it is a plug-in it offers (core.plugins: Faults, LatencyProxy), not a method of its own."""

    kind: str  # "local" or "kubernetes", as select() names it
    where: str  # named in every report
    available: tuple  # the builds there (every build on the local stack, the deployed ones in a namespace)
    versions: tuple  # the builds a run measures (select)
    # Whether the harness may restart a build with its hops behind the latency proxy (and with a sweep's values), or
    # the build runs as it was deployed, behind the proxy or not.
    reroutes = False

    @abc.abstractmethod
    def build(self, version):
        """The Build of a version as it runs now (close it after use)."""

    @abc.abstractmethod
    def environment(self, where, runs, warmup):
        """What a report states of where it was measured: the machine or node, the JDK, the settings, the commit."""

    @abc.abstractmethod
    def calibrate(self):
        """The seconds a fixed piece of work takes now (the machine's, or the node's in a pod of its own)."""

    @abc.abstractmethod
    def cores(self, version):
        """How many cores the build's services count (their JVMs and Quarkus size pools by it)."""

    def machine_cores(self):
        """The cores of the machine (on a cluster, of its node) that the services, the data services and the load
        share: where the three services' quotas add up to these, the machine binds before a pod's quota does."""
        return os.cpu_count() or 1

    @abc.abstractmethod
    def reconfigure(self, version, environments, fresh=False):
        """The build's services again with {service: {variable: value}} in their environment (restarted, or their
        pods rolled); a service not named runs as shipped. A service whose environment is unchanged keeps running,
        unless fresh: then every service is restarted, so that settings compared one after the other each start
        from a cold JVM. Returns its Build."""

    @abc.abstractmethod
    def size(self, version, cpus, processors=None, environments=None, fresh=False):
        """The build's services each under a limit of `cpus` CPUs, given as a pod gets it: a CPU quota, the processor
        count the JVM derives from it (the quota rounded up), and what the chart sizes by it (sized_environment);
        None, and no processors: no limit, each service as shipped (in pods, the chart's limit taken off). `processors`
        given: the JVMs count that many whatever the quota. `environments` ({service: {variable: value}}, a sweep's
        candidate): given over what the size sets (with_settings). Restarted (or rolled) where the size or the
        environment changes, and every time where fresh; returns its Build. restore takes the limit off."""

    lifts = False  # whether lift can take a quota off running processes (the local stack's cgroups)

    def lift(self, version):
        """The build's quota taken off its running processes for a while (bind sets it again), where the platform
        can (lifts); whether it did. The JVMs count the processors the limit gave them from their start either way:
        a fork is warmed without it. A platform that sets a limit only at a start (a pod's, without an in-place
        resize) does not: False."""
        return False

    def bind(self, version):
        """The quota that lift took off, set again."""

    @abc.abstractmethod
    def restore(self, version):
        """The build again as shipped (or deployed), after reconfigure."""

    def close(self):
        """Undo whatever a reconfiguration left and let go of the builds."""

    plugins: dict = {}  # {a kind of core.plugins: this platform's plug-in of it}, set by each platform

    def plugin(self, kind):
        """This platform's plug-in of a kind (core.plugins.Faults, LatencyProxy), or None where it offers none."""
        return self.plugins.get(kind)


# ---------- what a run reads between two snapshots

def scheduling_between(before, after):
    """{process: what it did between two snapshots (process_between)}, None where either has no such readings."""
    if not before.get("scheduling") or not after.get("scheduling"):
        return None
    return {name: process_between(before["scheduling"][name], reading)
            for name, reading in after["scheduling"].items() if name in before["scheduling"]}


def process_between(before, after):
    """What a group of processes did between two readings of the kernel's counts (a platform's: procfs.scheduling):
    voluntary and involuntary context switches, run delay, read and write system calls, packets; the threads of the
    fuller reading, and a JVM's peak (procfs.with_peak). A thread or process new since the first reading counts from
    its start."""
    def grown(old, new):
        return [n - o if n >= o else n for o, n in zip(old, new)]  # smaller: the id was taken again
    tasks = [grown(before["tasks"].get(tid, [0, 0, 0]), now) for tid, now in after["tasks"].items()]
    io = [grown(before["io"].get(pid, [0, 0]), now) for pid, now in after["io"].items()]
    packets = None if after["packets"] is None or before["packets"] is None else after["packets"] - before["packets"]
    return {"voluntary_switches": sum(t[0] for t in tasks), "involuntary_switches": sum(t[1] for t in tasks),
            "run_delay_seconds": sum(t[2] for t in tasks) / 1e9, "read_syscalls": sum(i[0] for i in io),
            "write_syscalls": sum(i[1] for i in io), "packets": packets,
            "threads": max(len(before["tasks"]), len(after["tasks"])), "threads_peak": after.get("threads_peak")}


def deltas(before, after):
    """{name: {figure: after - before}} of two snapshots' nested counters (jvm, throttling); a name missing on either
    side is None, and so is a figure: never a 0 that was not measured."""
    if before is None or after is None:
        return None
    found = {}
    for name, figures in after.items():
        earlier = before.get(name)
        if figures is None or earlier is None:
            found[name] = None
        else:
            found[name] = {key: None if figures.get(key) is None or earlier.get(key) is None
                           else figures[key] - earlier[key] for key in figures}
    return found
