"""The local stack (scripts/local/stack.sh up): every build's three services, PostgreSQL and Kafka as processes of this
machine (.local/stack.json says what runs where); the load generator a child process; figures from /proc."""
import json
import os
import pathlib
import platform
import subprocess
import sys
import time
import urllib.parse
import urllib.request

from benchkit import FLOOR, LOCAL_DIR, ROOT, SERVICES, VERSIONS, info
from benchkit.core import buildsconf, latency, load, profile, prometheus, provenance
from benchkit.core.platform import Build, Platform
from benchkit.core.plugins import Faults, LatencyProxy
from benchkit.core.sizes import counted_processors, sized_environment, with_settings
from benchkit.platforms import jvm_ergonomics, jvm_times, procfs


def stack_inventory():
    """Read again after each restart: a restarted process has a new pid."""
    return json.loads((LOCAL_DIR / "stack.json").read_text())


def stack(action, *parts, settings=None, cpu_groups=None):
    """scripts/local/stack.sh: stop, start, pause or resume one part (a service of a build, postgres, kafka), or stop or
    start services at once (stop-services, start); a service started with settings ({service-version: its
    SERVICE_SETTINGS}) gets its own, else whatever this process's environment gives; given cpu_groups (a directory),
    each starts in its own CPU cgroup there (procfs.limited_group)."""
    extra = {f"SERVICE_SETTINGS_{name.replace('-', '_')}": value for name, value in (settings or {}).items()}
    if cpu_groups is not None:
        extra["CPU_GROUPS"] = str(cpu_groups)
    subprocess.run([str(ROOT / "scripts" / "local" / "stack.sh"), action, *parts], check=True,
                   stdout=subprocess.DEVNULL, env={**os.environ, "LOCAL_DIR": str(LOCAL_DIR), **extra})


def start_services(names, settings, cpus):
    """stack.sh start of services at once, each with its settings ({service-version: its SERVICE_SETTINGS}, or None);
    given cpus, each in a CPU cgroup of its own with that quota from its first instruction (procfs.limited_group), as
    a pod's containers start under their limit."""
    groups = [procfs.limited_group(name, cpus) for name in names] if cpus is not None else []
    stack("start", *names, settings=settings, cpu_groups=groups[0].parent if groups else None)


def downstream_port(inventory, service, version):
    """The port a service's connections to its downstream go to (web-api: authors; articles and authors:
    PostgreSQL), through the latency proxy where the service was started behind it."""
    name = f"{service}-{version}"
    hop = f"authors-{version}" if service == "web-api" else f"postgres-{name}"
    if inventory["services"][name].get("through_proxy"):
        return int(inventory["proxy"]["hops"][hop]["listen"].rsplit(":", 1)[1])
    if service == "web-api":
        return urllib.parse.urlsplit(inventory["services"][hop]["url"]).port
    return inventory["postgres"]["port"]


# The machine's speed: the same 128 MiB hashed with SHA-256 a few times on every core at once (hashlib runs in C: it
# measures the CPU, not the interpreter); a few seconds.
CALIBRATION_JOB = "import hashlib; data = bytes(128 << 20); [hashlib.sha256(data).digest() for _ in range(16)]"


def calibration_seconds(cores=None):
    """Seconds the job took on every core at once (the slowest core's), lower is faster."""
    cores = cores or os.cpu_count() or 1
    started = time.monotonic()
    jobs = [subprocess.Popen([sys.executable, "-c", CALIBRATION_JOB]) for _ in range(cores)]
    for job in jobs:
        if job.wait() != 0:
            raise SystemExit("the calibration job failed")
    return time.monotonic() - started


class LocalBuild(Build):
    """The processes of one version on the local stack: its three services, and the PostgreSQL and Kafka they
    share."""

    def __init__(self, inventory, version, loadgen):
        self.version = version
        self.loadgen = loadgen
        self.services = {name: inventory["services"][f"{name}-{version}"] for name in SERVICES}
        self.idle = [service["pid"] for key, service in inventory["services"].items()
                     if not key.endswith(f"-{version}")]
        self.postgres = inventory["postgres"]["pid"]
        self.kafka = inventory["kafka"]["pid"]
        # the latency proxy's CPU is the build's while its services go through it (LATENCY_PROXY=on)
        proxy = inventory.get("proxy") or {}
        self.proxy = proxy.get("pid") if any(s.get("through_proxy") for s in self.services.values()) else None
        # Jaeger's CPU is the build's too while its services are traced (TRACING=on): what tracing costs includes it
        jaeger = inventory.get("jaeger") or {}
        self.jaeger = jaeger.get("pid") if any(s.get("traced") for s in self.services.values()) else None
        self.downstream = {name: downstream_port(inventory, name, version) for name in SERVICES}
        self.control = inventory.get("control")

    def web_api_url(self):
        return self.services["web-api"]["url"]

    def run(self, scenario, summary, settings=None, target="web-api"):
        code, cpu, _ = load.run(self.loadgen, self.version, scenario, self.services[target]["url"], summary,
                                {**load.settings_from_environment(), **(settings or {}), "TARGET": target})
        print(load.console_tail(summary.with_suffix(".log").read_text()), end="")
        return code, cpu

    def metrics(self):
        return {name: prometheus.scrape(service["management"]) for name, service in self.services.items()}

    def ready_at(self):  # scripts/local/stack.sh polls a build's services together and notes when each answered ready
        return {name: service["ready_at"] for name, service in self.services.items() if service.get("ready_at")}

    def snapshot(self):
        counts = prometheus.requests_served(self.metrics())
        cpu = {name: procfs.cpu_seconds(service["pid"]) for name, service in self.services.items()}
        cpu["postgres"] = procfs.tree_cpu_seconds(self.postgres)
        cpu["kafka"] = procfs.cpu_seconds(self.kafka)
        if self.proxy:
            cpu["proxy"] = procfs.cpu_seconds(self.proxy)
        if self.jaeger:
            cpu["jaeger"] = procfs.cpu_seconds(self.jaeger)
        counters = {name: procfs.jvm_counters(service["pid"]) for name, service in self.services.items()}
        return {"time": time.monotonic(), "requests": counts, "cpu_seconds": cpu,
                "idle_cpu_seconds": sum(procfs.cpu_seconds(pid) for pid in self.idle),
                "jvm": {name: jvm_times(counters[name], procfs.task_stats(service["pid"]))
                        for name, service in self.services.items()},
                "scheduling": {**{name: procfs.with_peak(procfs.scheduling([service["pid"]]), counters[name])
                                  for name, service in self.services.items()},
                               "postgres": procfs.scheduling(procfs.tree(self.postgres)),
                               "kafka": procfs.scheduling([self.kafka]),
                               **({"proxy": procfs.scheduling([self.proxy])} if self.proxy else {})},
                "throttling": self.throttling()}

    def throttling(self):
        """Per service, CFS throttling where it runs under a quota (the CPU map); None where none does."""
        found = {name: procfs.process_throttling(service["pid"]) for name, service in self.services.items()}
        return found if any(found.values()) else None

    def gauges(self):
        return {name: {"threads": procfs.threads(service["pid"]),
                       "connections": procfs.connections_to(service["pid"], [self.downstream[name]])}
                for name, service in self.services.items()}

    def ergonomics(self):
        return {name: jvm_ergonomics(procfs.processors_seen(service["pid"]), procfs.cpu_limit(service["pid"]),
                                     procfs.jvm_counters(service["pid"]), procfs.thread_names(service["pid"]),
                                     prometheus.scrape(service["management"]))
                for name, service in self.services.items()}

    def reset_peaks(self):
        for service in self.services.values():
            procfs.reset_peak_rss(service["pid"])

    def memory(self, before, after):
        return {name: {"peak RSS during the run (VmHWM, reset before it)": procfs.peak_rss_mib(service["pid"])}
                for name, service in self.services.items()}

    def restarts(self, before, after):
        return None  # nothing restarts the local stack's processes

    def profiled(self):
        return {name: profile.LocalRecording(service["pid"]) for name, service in self.services.items()}

    def reset_statements(self):
        if self.control:
            urllib.request.urlopen(urllib.request.Request(f"{self.control}/postgres/statements/reset", method="POST"),
                                   timeout=30).close()

    def statements(self):
        if not self.control:
            return None
        with urllib.request.urlopen(f"{self.control}/postgres/statements", timeout=30) as answer:
            return json.loads(answer.read())


class Local(Platform):
    """The local stack: services restarted with other settings by scripts/local/stack.sh, its parts stopped, frozen and
    started again by it."""

    where = "local stack (one machine, loopback)"
    available = VERSIONS + FLOOR  # the local stack runs the floor beside the builds
    kind = "local"
    reroutes = True

    def __init__(self, loadgen):
        self.loadgen = loadgen
        self.running = {}  # service-version -> the SERVICE_SETTINGS it was restarted with ("" = as shipped)
        self.limited = {}  # {service-version: CPUs}: those running under a CPU limit (size), and its size
        self.lifted = {}  # {service-version: CPUs}: a limit lifted for a warm-up, until bind sets it again
        self.plugins = {Faults: LocalFaults(self), LatencyProxy: LocalProxy(self)}

    def build(self, version):
        return LocalBuild(stack_inventory(), version, self.loadgen)

    def environment(self, where, runs, warmup):
        inventory = stack_inventory()
        cpu = next((line.split(":", 1)[1].strip() for line in pathlib.Path("/proc/cpuinfo").read_text().splitlines()
                    if line.startswith("model name")), platform.processor())
        java = pathlib.Path(os.readlink(f"/proc/{inventory['services']['web-api-v1']['pid']}/exe"))
        return {
            "timestamp": provenance.now(), "where": where,
            "cpu": cpu, "cores": os.cpu_count(),
            "memory_gib": round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30, 1),
            "kernel": platform.release(), "scheduler": procfs.scheduler(platform.release()),
            "jdk": provenance.command_output(str(java), "-version").splitlines()[0] if java.exists() else "unknown",
            "quarkus": buildsconf.quarkus_version(),
            "load_generator": provenance.command_output(self.loadgen, "version").strip().splitlines()[0],
            "git_commit": provenance.git_commit(),
            "java_opts": inventory.get("java_opts", ""),
            "load_settings": load.settings_from_environment(),
            "runs": runs, "warmup": warmup,
            "builds": provenance.build_settings(),
        }

    def calibrate(self):
        return calibration_seconds()

    def cores(self, version):
        return os.cpu_count() or 1

    def reconfigure(self, version, environments, fresh=False, cpus=None):
        # Those that change, stopped together and started together, as a build's pods roll: one after another, each
        # fork's web-api (started first) counted the others' starts in its own seconds to ready, and a restart took
        # three starts' time (about 30 s of a make test). Given cpus, each starts under that quota, as a pod starts
        # under its limit (set once they were ready, the local forks' starts at half a CPU had the whole machine).
        changed = {}
        for service in SERVICES:
            name = f"{service}-{version}"
            wanted = " ".join(f"{variable}={value}" for variable, value in environments.get(service, {}).items())
            if self.running.get(name, "") != wanted or fresh:
                changed[name] = wanted
                info(f"restarting {name} with {wanted or 'its own settings'}")
        if changed:
            stack("stop-services", *changed)
            start_services(changed, changed, cpus)
            self.running.update(changed)
        return self.build(version)

    def size(self, version, cpus, processors=None, environments=None, fresh=False):
        # a JVM started outside the group counts the machine's processors: the count a pod's JVM derives is given,
        # beside the build's own options (the variable carries both here); without either, the build as shipped.
        # Every size is a restart here (fresh or not), in the group of its limit where it has one
        counted = counted_processors(cpus, processors, os.cpu_count())
        options = " ".join(filter(None, (buildsconf.java_options().get(version),
                                         f"-XX:ActiveProcessorCount={counted}" if cpus or processors else None)))
        environment = sized_environment(version, counted, options) if cpus or processors else {}
        self.reconfigure(version, {service: with_settings(environment, (environments or {}).get(service, {}))
                                   for service in SERVICES}, fresh=True, cpus=cpus)
        inventory = stack_inventory()
        for name in (f"{service}-{version}" for service in SERVICES):
            self.lifted.pop(name, None)  # a limit lifted from the process this one replaced
            pid = inventory["services"][name]["pid"]
            if cpus is not None:
                started_under = procfs.cpu_limit(pid)  # what its start and its seconds to ready were measured under
                if started_under != cpus:
                    raise RuntimeError(f"{name} (pid {pid}) started outside its quota of {cpus} CPU: "
                                       f"its CPU cgroup's is {started_under}")
                self.limited[name] = cpus
            elif self.limited.pop(name, None) is not None:
                # no limit: a restarted service runs outside any group already; only a group left from a limit goes
                # (so that no limit needs no root, as the A/Bs at the whole machine never did)
                procfs.limit_cpu(name, pid, None)
        return self.build(version)

    lifts = True

    def lift(self, version):
        limited = [name for name in (f"{service}-{version}" for service in SERVICES) if name in self.limited]
        inventory = stack_inventory() if limited else {}
        for name in limited:
            procfs.limit_cpu(name, inventory["services"][name]["pid"], None)
            self.lifted[name] = self.limited.pop(name)
        return bool(limited)

    def bind(self, version):
        lifted = [name for name in (f"{service}-{version}" for service in SERVICES) if name in self.lifted]
        inventory = stack_inventory() if lifted else {}
        for name in lifted:  # the process that runs now: a fault may have restarted it during the warm-up
            cpus = self.lifted.pop(name)
            procfs.limit_cpu(name, inventory["services"][name]["pid"], cpus)
            self.limited[name] = cpus

    def restore(self, version):
        self.reconfigure(version, {})  # a restarted service starts outside any limit: its group goes
        for service in SERVICES:
            self.lifted.pop(f"{service}-{version}", None)
        inventory = stack_inventory()
        for name in [name for name in (f"{service}-{version}" for service in SERVICES) if name in self.limited]:
            procfs.limit_cpu(name, inventory["services"][name]["pid"], None)
            self.limited.pop(name)

    def close(self):
        changed = [name for name, settings in self.running.items() if settings] + list(self.limited)
        for version in sorted({name.rsplit("-", 1)[1] for name in changed}):
            self.restore(version)


class LocalFaults(Faults):
    """Faults on the local stack: a part's process stopped or frozen, and started again, by scripts/local/stack.sh."""

    restores_itself = False  # a stopped part stays away until restore starts it

    def web_api_url(self, version):
        return stack_inventory()["services"][f"web-api-{version}"]["url"]

    def web_api_metrics(self, version):  # one process: its counters are the build's
        return {"web-api": prometheus.scrape(stack_inventory()["services"][f"web-api-{version}"]["management"])}

    def replicas(self, fault, version):  # one process per service
        return 1

    def fault_seconds(self, quick):
        return 6 if quick else 8

    def after_seconds(self, quick):
        # Counted from the part being back (a restarted service ready, a server accepting), however long its start
        # took on that machine. web-api's circuit tries again every 5 s, and its first trial against a cold JVM can
        # exceed the time-out (seen in CI: the trial 5 s after authors was ready failed). So: two breaker delays,
        # the 3 s of complete answers that count as recovered, and the headroom of a slower machine.
        return 30

    def act_on_part(self, action, fault, version):
        part = fault.target(version)
        running = self.platform.running
        settings = {part: running[part]} if part in running else None  # it comes back reconfigured
        if action == "start":  # and under the quota it ran under (a pod's replacement starts under its limit)
            start_services([part], settings, self.platform.limited.get(part))
        else:
            stack(action, part, settings=settings)

    def processes(self):
        return stack_inventory()["services"]

    def machine_ticks(self):
        return procfs.machine_cpu()


class LocalProxy(LatencyProxy):
    """The local stack's Toxiproxy: every build's hops through it where the stack started one."""

    def latency(self):
        proxy = stack_inventory().get("proxy") or {}
        return latency.Toxiproxy(proxy["api"]) if proxy.get("pid") else None

    no_proxy = "the local stack starts one: make toxiproxy, then start the stack again"

    def through_proxy(self, version):
        return all(stack_inventory()["services"][f"{service}-{version}"].get("through_proxy") for service in SERVICES)

    def hop_addresses(self, version, hop):
        hops = stack_inventory()["proxy"]["hops"]
        return [(hops[name]["listen"], hops[name]["upstream"]) for name in latency.proxies_of(hop, version)]
