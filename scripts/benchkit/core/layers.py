"""Where a service's CPU goes, as data a profile is read by and a table shows: the libraries a stack frame belongs to
(a sample counts for each on its stack) and the layers (it counts for one), and what a bench's profiled run comes to
per complete answer, layer by layer, the GC's and the JIT's threads and the processes not profiled beside them.
core.profile records the profiles and sorts their samples by these; nothing here runs anything."""
from benchkit import FLOOR, NAMES, floor_last

# Inclusive: a sample counts for every library on its stack (JSON written from inside an HTTP handler
# counts for both), so the shares of one service do not add up to 100 %.
LIBRARIES = (
    ("JSON (Jackson)", ("com.fasterxml.jackson.",)),
    ("HTTP server and client (Vert.x, Netty)", ("io.vertx.core.", "io.netty.")),
    ("Quarkus REST and its client", ("org.jboss.resteasy.reactive.", "io.quarkus.resteasy.reactive.",
                                     "io.quarkus.rest.client.")),
    # Before Hibernate ORM: a frame belongs to the first library whose prefix it has.
    ("Bean Validation (Hibernate Validator)", ("org.hibernate.validator.",)),
    ("Hibernate ORM", ("org.hibernate.", "io.quarkus.hibernate.orm.")),
    ("JDBC driver and pool (pgJDBC, Agroal)", ("org.postgresql.", "io.agroal.")),
    ("reactive SQL client (Vert.x)", ("io.vertx.pgclient.", "io.vertx.sqlclient.")),
    ("Mutiny", ("io.smallrye.mutiny.",)),
    ("fault tolerance (SmallRye)", ("io.smallrye.faulttolerance.",)),
    ("metrics (Micrometer)", ("io.micrometer.",)),
    ("logging (JBoss LogManager)", ("org.jboss.logmanager.", "org.jboss.logging.")),
    ("the project's own code", ("io.reactivebench.",)),
)


# Exclusive: a sample counts for one layer, the one of the innermost frame on its stack that has a layer's prefix (a
# frame of the JDK counts for whatever called it: a HashMap look-up inside Jackson is JSON's), so a service's layers
# add up to all its samples. A frame belongs to the first layer whose prefix it has: the catch-all of the framework
# comes last.
OTHER_LAYER = "the JDK alone (no layer's frame on the stack)"
LAYERS = (
    ("JSON (Jackson, Vert.x's JsonObject)", ("com.fasterxml.jackson.", "io.vertx.core.json.", "io.quarkus.jackson.",
                                            "org.jboss.resteasy.reactive.server.jackson.",
                                            "io.quarkus.resteasy.reactive.jackson.")),
    ("REST server and client (Quarkus REST and its client; the floor's web client)",
     ("org.jboss.resteasy.reactive.", "io.quarkus.resteasy.reactive.", "io.quarkus.rest.client.", "io.vertx.ext.web.")),
    ("HTTP and TCP (Vert.x core, Netty)", ("io.vertx.core.", "io.netty.")),
    ("validation (Hibernate Validator)", ("org.hibernate.validator.", "jakarta.validation.")),
    ("SQL: Hibernate ORM", ("org.hibernate.", "io.quarkus.hibernate.orm.")),
    ("SQL: JDBC driver and pool (pgJDBC, Agroal)", ("org.postgresql.", "io.agroal.", "io.quarkus.agroal.")),
    ("SQL: the reactive client (Vert.x)", ("io.vertx.pgclient.", "io.vertx.sqlclient.")),
    ("pools and scheduling (executors, virtual threads, Mutiny, locks)",
     ("java.util.concurrent.ThreadPoolExecutor", "java.util.concurrent.ForkJoin", "java.util.concurrent.CompletableFuture",
      "java.util.concurrent.FutureTask", "java.util.concurrent.locks.", "java.util.concurrent.LinkedBlockingQueue",
      "java.util.concurrent.SynchronousQueue", "java.util.concurrent.Semaphore", "java.lang.VirtualThread",
      "jdk.internal.vm.Continuation", "org.jboss.threads.", "io.smallrye.mutiny.", "io.smallrye.context.",
      "io.quarkus.virtual.threads.")),
    ("the project's own code", ("io.reactivebench.",)),
    ("the framework's other parts (CDI, fault tolerance, metrics, logging, tracing, config)",
     ("io.quarkus.", "io.smallrye.", "io.micrometer.", "io.opentelemetry.", "org.jboss.", "jakarta.")),
)


GC_LAYER, JIT_LAYER = "GC (its threads' CPU)", "JIT (its compiler threads' CPU)"
NOT_PROFILED = "PostgreSQL and Kafka (not profiled)"


def as_layers(summary, spent):
    """What a bench's document keeps of its profiles for the layer table: {"layers": {version: {service: {layer:
    share}}}, "costs": {version: costs}} (None without costs.json: a run from before it was written)."""
    if not spent:
        return None
    return {"layers": {v: {service: found["layers"] for service, found in services.items()}
                       for v, services in summary.items() if v in spent},
            "costs": {v: spent[v] for v in summary if v in spent}}


def layer_ms(kept):
    """{version: {layer: CPU ms per complete answer}} of as_layers' data: each JVM's CPU in the profiled run less its
    GC threads' and JIT compiler threads', split by its layers' shares of the samples (what JFR does not sample, the
    native code of a system call and the VM's other threads, falls in proportion), added up over the three services;
    GC and JIT apart, and PostgreSQL's and Kafka's CPU, so that the column adds up to the whole system's."""
    found = {}
    for version, services in kept["layers"].items():
        cost = kept["costs"][version]
        mine = dict.fromkeys([name for name, _ in LAYERS] + [OTHER_LAYER, GC_LAYER, JIT_LAYER], 0.0)
        for service, shares_ in services.items():
            cpu, gc, jit = (cost[key].get(service) for key in ("cpu_ms", "gc_ms", "jit_ms"))
            if cpu is None:
                continue
            sampled = cpu - (gc or 0) - (jit or 0)
            for layer, share_ in shares_.items():
                mine[layer] += sampled * (share_ or 0)
            mine[GC_LAYER] += gc or 0
            mine[JIT_LAYER] += jit or 0
        mine[NOT_PROFILED] = sum(cost["cpu_ms"].get(process) or 0 for process in ("postgres", "kafka"))
        found[version] = mine
    return found


def layer_rows(kept):
    """Layers x builds (the floor last, and each build's ms beyond the floor's beside): CPU ms per complete answer."""
    found = layer_ms(kept)
    versions = floor_last(found)
    floor = next((v for v in versions if v in FLOOR), None)
    beyond = [v for v in versions if floor and v != floor]
    table = [["CPU ms per complete answer, the profiled run", *(NAMES.get(v, v) for v in versions),
              *(f"{v} beyond the floor" for v in beyond)]]
    for layer in next(iter(found.values()), {}):
        table.append([layer, *(f"{found[v][layer]:.3f}" for v in versions),
                      *(f"{found[v][layer] - found[floor][layer]:+.3f}" for v in beyond)])
    totals = {v: sum(found[v].values()) for v in versions}
    table.append(["whole system", *(f"{totals[v]:.3f}" for v in versions),
                  *(f"{totals[v] - totals[floor]:+.3f}" for v in beyond)])
    return table


def rows(summary):
    """Libraries x (service, build): the share of CPU samples passing through each."""
    columns = [(service, version) for service in next(iter(summary.values())) for version in summary]
    table = [["library"] + [f"{service} {version}" for service, version in columns]]
    table.append(["CPU samples"] + [str(summary[v][s]["samples"]) for s, v in columns])
    for name, _ in LIBRARIES:
        table.append([name] + [share(summary[v][s]["shares"].get(name)) for s, v in columns])
    table.append(["virtual threads that pinned their carrier (JFR, 20 ms and longer)"] +
                 [str(summary[v][s].get("pins", {}).get("count", "–")) for s, v in columns])
    return table


def share(value):
    return "–" if value is None else f"{100 * value:.0f} %"
