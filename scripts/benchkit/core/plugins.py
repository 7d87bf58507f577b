"""What some experiments attach to the builds beyond what every experiment asks of a platform (core.platform): faults
made on a part under load (make chaos), and the builds' hops through the latency proxy (make latency-map, make sweep
under latency, chaos's proxy faults). A platform offers each as a plug-in of its own (Platform.plugin), made for it;
an experiment names those it needs (MEASURES.needs), and a platform without one is refused before it runs."""
import abc

from benchkit.core import latency


class Plugin(abc.ABC):
    """A platform's plug-in: what it adds to the platform it is made for (self.platform), which it reads."""

    def __init__(self, platform):
        self.platform = platform


class Faults(Plugin):
    """What make chaos asks of a platform: the builds' web-api reached live, faults made on a part or in the latency
    proxy, and how long a part stays away."""

    restores_itself: bool  # whether a part comes back by itself (a Deployment's new pod) or by restore
    on_node = False  # whether the node's own parts can be made to fail from here (a kubelet running on this machine)

    @abc.abstractmethod
    def web_api_url(self, version):
        """Where web-api answers from this machine, for clients that read their answers live (chaos)."""

    @abc.abstractmethod
    def web_api_metrics(self, version):
        """{instance: web-api's Prometheus text} for each instance serving now."""

    @abc.abstractmethod
    def replicas(self, fault, version):
        """The fewest instances of any service a fault touches."""

    @abc.abstractmethod
    def fault_seconds(self, quick):
        """How long a part stays away before restore gives it back."""

    @abc.abstractmethod
    def after_seconds(self, quick):
        """How long the load goes on at most once the part is back."""

    def act(self, action, fault, version):
        """One of a fault's actions (inject or restore): in the latency proxy for the faults made there, else on the
        part it names."""
        if fault.through_proxy:
            return self.platform.plugin(LatencyProxy).act_in_proxy(action, fault, version)
        return self.act_on_part(action, fault, version)

    @abc.abstractmethod
    def act_on_part(self, action, fault, version):
        """One of a fault's actions (inject or restore) on the part it names (a process, a pod, a server)."""

    def processes(self):
        """{service-version: {"pid", "url"}} where the services are processes of this machine, else None."""
        return None

    def part_cpu_seconds(self):
        """{key: (part, CPU seconds so far)} of each part of the system whose CPU this machine can read apart (a pod
        of a kubelet running here; the key changes when the part is replaced), {} where it reads none."""
        return {}

    def machine_ticks(self):
        """(busy, total) clock ticks so far of the machine the builds run on, where it is this one (the local stack,
        the test node), else None."""
        return None


class LatencyProxy(Plugin):
    """What make latency-map, make sweep under latency and chaos's proxy faults ask of a platform: the builds' hops
    through Toxiproxy, its controls and the hops' addresses."""

    def latency(self):
        """The latency proxy's controls (latency.Toxiproxy) where the builds' hops can go through one, else None."""
        return None

    def act_in_proxy(self, action, fault, version):
        """A fault made in the latency proxy in front of its part (chaos's proxy faults): its toxic on, or every toxic
        off (proxy-clear)."""
        proxy = self.latency()
        if action == "proxy-clear":
            proxy.clear(version)
        else:
            proxy.toxic(version, fault.part, *latency.TOXICS[action])

    def through_proxy(self, version):
        """Whether every hop of the build goes through the latency proxy now."""
        return False

    def behind_proxy(self, versions):
        """None when every build can be measured behind the latency proxy (it is, or this platform restarts it so),
        else what to do about it."""
        if self.latency() is None:
            return self.no_proxy
        missing = [version for version in versions if not self.platform.reroutes and not self.through_proxy(version)]
        return f"{', '.join(missing)} without the latency proxy: {self.no_proxy}" if missing else None

    no_proxy = "no latency proxy"  # what to do to have one, in words

    def hop_addresses(self, version, hop):
        """[(through the proxy, direct)] addresses of a hop of a build, as this machine reaches them (the check)."""
        raise NotImplementedError(f"{self.platform.where}: no latency proxy")
