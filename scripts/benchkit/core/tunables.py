"""The builds' tunable settings, the catalogue every experiment that varies a build reads: each a Quarkus property
(or a JDK system property) of some of a build's services, with the candidates a sweep tries, the value Quarkus or
the JDK would take, and how a restarted service is given a value; each build's settings on a machine of so many
cores, and those that latency makes matter. make sweep measures them; the A/Bs and the latency map apply them."""
import dataclasses
import os
import re

from benchkit import SERVICES
from benchkit.core import buildsconf


@dataclasses.dataclass(frozen=True)
class Setting:
    name: str
    property: str  # the Quarkus property, as in application.properties
    services: tuple  # the services of the build it applies to
    candidates: tuple
    default: int | float | str  # Quarkus' own value, when application.properties does not set one
    also: tuple = ()  # further properties of the same services that take the same value (sized together)

    @property
    def variable(self):
        """The environment variable that overrides the property (Quarkus' rule: non-alphanumerics to _)."""
        return re.sub(r"[^A-Za-z0-9]", "_", self.property).upper()

    @property
    def jdk_property(self):
        """A JDK system property (jdk.*): read when the JVM starts, before Quarkus' configuration."""
        return self.property.startswith("jdk.")

    @property
    def label(self):
        return re.sub(r"[^a-z0-9]+", "-", self.property.lower())

    def assignment(self, value):
        """How a restarted service gets the value, as [(variable, value)]: a Quarkus property through its environment
        variable, a JDK system property through JDK_JAVA_OPTIONS, which the java launcher reads (in a pod after the
        chart's JAVA_TOOL_OPTIONS, so it wins over the build's own -D there)."""
        if self.jdk_property:
            return [("JDK_JAVA_OPTIONS", f"-D{self.property}={value}")]
        return [(re.sub(r"[^A-Za-z0-9]", "_", prop).upper(), str(value)) for prop in (self.property, *self.also)]

    def current(self, version, sized=None):
        """The value the build ships with: its application.properties (any service it applies to), else what
        every build of that service shares (its config module), else Quarkus' default; for a JDK system property,
        the build's JVM options (services/builds.conf), else the JDK's default. sized: what a pod's size gives the
        build's services beyond that (platforms.sized_environment: v2's event loops per CPU), which wins."""
        if sized and not self.jdk_property and self.variable in sized:
            return int(sized[self.variable])
        found = (buildsconf.jvm_property(version, self.property) if self.jdk_property else
                 buildsconf.shipped(version, self.services, self.property))
        return self.default if found is None else int(found)


DATA = ("articles", "authors")
# every service of a build directly connected (off, as every run) or through the latency proxy (on)
LATENCY_PROXY = Setting("latency proxy", "latency.proxy", SERVICES, ("off", "on"), "off")
CORES = os.cpu_count() or 1
# v1 and v3 share their JDBC code, and so how its pool is swept
JDBC_POOL = Setting("JDBC pool", "quarkus.datasource.jdbc.max-size", DATA, (5, 10, 20), 50)
REACTIVE_POOL = Setting("reactive pool", "quarkus.datasource.reactive.max-size", DATA, (5, 10, 20), 20)


def settings_for(cores):
    """Each build's settings on a machine (or in a pod) of this many cores: a size that Quarkus or the JDK derives
    from the cores has that derived value among its candidates, so the sweep always measures what the build would
    choose by itself there."""
    return {
        "v1": (
            # Quarkus' default is max(200, 8 x cores); each blocked request holds one.
            Setting("worker threads", "quarkus.thread-pool.max-threads", SERVICES, (16, 50, 200), max(200, 8 * cores)),
            JDBC_POOL,
            Setting("look-up threads", "web-api.author-lookups.max-concurrency", ("web-api",), (10, 25, 100), 100),
        ),
        "v2": (
            # Quarkus' default is 2 x cores event loops.
            Setting("event loops", "quarkus.vertx.event-loops-pool-size", SERVICES,
                    tuple(sorted({1, 2, 4, 2 * cores})), 2 * cores),
            REACTIVE_POOL,
            # 1 = no pipelining: each query waits for the answer to the one before on its connection.
            Setting("pipelining limit", "quarkus.datasource.reactive.postgresql.pipelining-limit", DATA, (1, 256), 256),
        ),
        "v3": (
            # No thread pool to size: a virtual thread per request and per look-up, run by the JDK's scheduler on
            # as many carrier threads as cores. A carrier is never taken from a virtual thread that computes, so
            # the carriers are v3's counterpart of v2's event loops. What else bounds v3 is its connections: to
            # PostgreSQL, and to authors (the look-ups wait for one of as many permits).
            Setting("carrier threads", "jdk.virtualThreadScheduler.parallelism", SERVICES,
                    tuple(sorted({cores, 2, 4, 8})), cores),
            JDBC_POOL,
            Setting("authors connections", "quarkus.rest-client.authors.connection-pool-size", ("web-api",),
                    (25, 50, 100), 50),
        ),
    }


SETTINGS = settings_for(CORES)


def latency_settings():
    """The settings that latency makes matter (make sweep with SWEEP_LATENCY_AUTHORS_MS): what a build holds while
    a look-up waits. v1 holds a look-up thread and a connection to authors, sized together (either alone leaves the
    other one the bound); v2 and v3 hold a connection (v3's look-ups wait for as many permits as it has). The
    worker threads and the edge's admission hold one per request, not per look-up: five times the room. No candidate
    goes beyond authors' own admission (the edge's requests in flight, buildsconf.max_in_flight): with more look-ups let out at
    once than authors admits, a fast authors turns the excess away, web-api's circuit opens and most answers are
    degraded (measured with 250 at 0 ms added: the map's first cells, every build)."""
    candidates = (buildsconf.max_in_flight() // 2, buildsconf.max_in_flight())
    connections = Setting("authors connections", "quarkus.rest-client.authors.connection-pool-size", ("web-api",),
                          candidates, 50)
    return {"v1": (Setting("look-ups in flight", "web-api.author-lookups.max-concurrency", ("web-api",), candidates, 100,
                           also=(connections.property,)),),
            "v2": (connections,), "v3": (connections,)}


LATENCY_SETTINGS = latency_settings()
def environments(settings, chosen):
    """{service: its environment}: the chosen value of every setting that applies to it."""
    return {service: dict(pair for s in settings if service in s.services for pair in s.assignment(chosen[s.name]))
            for service in SERVICES}
