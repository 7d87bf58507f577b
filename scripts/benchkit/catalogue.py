"""The one list of experiments, as data a bare python3 reads (make reads it before any package is installed):
each one's name, the package that runs it and the fields of its Spec this entry fixes, the platforms it runs on, its
make targets (make NAME here, make NAME-cluster against the deployed builds), what make help says of each, and what
make must build for it beyond what every experiment needs. registry.py imports the packages.

    python3 -m benchkit experiments make    the make rules and help of every experiment (make includes them)"""
import dataclasses

LOCAL, CLUSTER = "local", "kubernetes"


@dataclasses.dataclass(frozen=True)
class Entry:
    name: str  # as benchkit run calls it
    package: str  # under benchkit.experiments (what measures it) and benchkit.publish (what is published of it)
    help: str  # what make help says of make NAME (here) or of the cluster's target where it runs only there
    given: dict = dataclasses.field(default_factory=dict)  # the Spec's fields this entry fixes
    platforms: tuple = (LOCAL, CLUSTER)
    cluster_help: str = ""  # what make help says of its cluster target
    needs: str = ""  # make targets built before its local run, beyond every experiment's
    target: str = ""  # its make target here where not its name
    # {platform: why make test does not run it there}; every other target of it has a step of make test (e2e's here,
    # test-cluster's against the deployed builds), and a test holds the scripts to this list
    untested: dict = dataclasses.field(default_factory=dict)

    def targets(self):
        """{platform: make target}."""
        names = {LOCAL: self.target or self.name, CLUSTER: self.name if self.name == "bench" else f"{self.name}-cluster"}
        return {platform: names[platform] for platform in self.platforms}


# The A/Bs run on the local stack: TLS can be had or not there (in the cluster Spilo requires it), and a build's
# services restart there from a cold JVM in seconds. The noise floor runs against the deployed builds too: a verdict
# in pods is judged against the pods' own floor.
AB_HELP = ", in rounds on a fresh local stack; writes results/{name}-<time>/{file}.html."
# why make test runs no A/B: an A/B's runner is the CPU map's (core.design), which make test runs on both platforms;
# what each A/B sets, and its document's ratios and verdicts, are unit tests'
AB_UNTESTED = {LOCAL: "an A/B runs on the CPU map's runner, which make test runs; its settings are unit-tested"}


def ab(name, what, design="", needs="", cluster_help=""):
    """An A/B's entry: its make target, the Design of experiments/ab it runs (design, where not its name), what make
    help says of it; with cluster_help, its target against the deployed builds too."""
    design = design or name
    return Entry(name, "ab", what + AB_HELP.format(name=name, file=design), {"variant": design},
                 (LOCAL, CLUSTER) if cluster_help else (LOCAL,), cluster_help=cluster_help, needs=needs,
                 untested={**AB_UNTESTED, **({CLUSTER: AB_UNTESTED[LOCAL]} if cluster_help else {})})


EXPERIMENTS = (
    Entry("bench", "bench", "Build, start the local stack, load each build in turn (loadgen), write "
          "results/<time>/report.html, stop.", target="demo",
          cluster_help="Load-generator Jobs in the cluster against each deployed build (LOAD_PODS=N splits each run "
          "over N pods), one after the other, then the report."),
    Entry("sweep", "sweep", "Each build at its best: its concurrency settings (threads, pools, event loops) one at a "
          "time on a fresh local stack; writes results/sweep-<time>/sweep.html (about an hour on two cores). "
          "SWEEP_LATENCY_AUTHORS_MS=50: what latency makes matter (look-ups in flight, connections to authors), behind "
          "the latency proxy. SWEEP_CPUS=0.5: every build tuned in pods of that size (as make cpu-map sizes them).",
          cluster_help="make sweep in the deployed builds' pods, under their CPU limits (the load generator as Jobs); "
          "each Deployment rolled back to its chart's settings at the end. VERSIONS, SWEEP_ONLY as for make sweep.",
          untested={CLUSTER: "a candidate in pods is a reconfiguration at a size, which make cpu-map-cluster runs on "
                             "the node; the sweep's loop runs in make test-e2e"}),
    ab("tls", "What TLS to PostgreSQL (required in the cluster, absent locally) costs each build: with and without"),
    ab("reads", "How v1 and v3 read, A/B: in a transaction of their own or without one (autocommit, as shipped; "
       "docs/tuning.md)"),
    ab("proxy-cost", "What the latency proxy of make latency-map costs each build with no latency added, A/B: directly "
       "connected or through Toxiproxy", "proxy"),
    ab("tracing-cost", "What tracing every request costs each build, A/B: untraced (as every measured run) or traced "
       "into Jaeger (its CPU counted)", "tracing", needs="jaeger"),
    ab("tracing-sampled-cost", "The same with 1 % of the requests traced (decided at web-api), as the chart's "
       "tracing.sampled=0.01", "tracing-sampled", needs="jaeger"),
    ab("tracing-absent", "What the tracing extension costs disabled, as every build ships it, A/B: each build as "
       "shipped against the same build without it (make build-without-tracing), at the whole machine and at half a "
       "CPU, closed and open model", needs="build-without-tracing"),
    ab("against-commit", "The checkout's builds against another commit's (make build-at-commit COMMIT=… first), A/B: "
       "each build from either, at the whole machine and at half a CPU (AB_SIZES), closed and open model"),
    ab("access-log", "What an HTTP access log costs each build, A/B: without (as shipped) and with Quarkus' own"),
    ab("noise-floor", "The noise floor, A/A: each build against itself, restarted as shipped twice in turn, at the "
       "whole machine and at half a CPU, closed and open model",
       cluster_help="make noise-floor against the deployed builds: each build's pods rolled twice in turn at each "
       "size (AB_SIZES; the limit taken off at 0), every time from cold JVMs; every Deployment as deployed again at "
       "the end. The floor make cpu-map-cluster's verdicts are judged against."),
    Entry("pools", "pools", "Every build at each database pool size (POOLS_CONNECTIONS: 5, 10, 20 connections in "
          "articles and authors, JDBC or reactive), each against v1 at the same size, in rounds on a fresh local "
          "stack; writes results/pools-<time>/pools.html.", platforms=(LOCAL,), untested=AB_UNTESTED),
    Entry("chaos", "chaos", "Fault injection under load (stop authors, articles, PostgreSQL, Kafka; overload) on a "
          "fresh local stack, every build; writes results/chaos-<time>/chaos.html. CHAOS_FAULTS, VERSIONS, "
          "CHAOS_ROUNDS to choose; CHAOS_QUICK=1 for the short subset of make test.",
          cluster_help="make chaos against the deployed builds: pods deleted, a container killed, rolling updates, "
          "PostgreSQL's and Kafka's pods deleted, under load. Run it on the node (or beside minikube tunnel): the "
          "clients use ClusterIPs. CHAOS_FAULTS, VERSIONS to choose."),
    Entry("latency-map", "latencymap", "When the services wait: every build over a grid of latency added between "
          "them (Toxiproxy) × load, Little's law beside it, on a fresh local stack; writes "
          "results/latency-map-<time>/latency-map.html (about 2 hours on two cores with the default repeats; the grid "
          "and its repeats: docs/local.md, knobs.py). SWEEP=results/sweep-<time>: each build with what a sweep under "
          "latency chose.",
          cluster_help="make latency-map against the deployed builds, each deployed with LATENCY_PROXY=on (its "
          "release's own Toxiproxy in its hops); the grid as for make latency-map. Run it on the node (or beside "
          "minikube tunnel): the proxies' APIs are reached at their ClusterIPs."),
    Entry("cpu-map", "cpumap", "The comparison over CPU per service: every build with each service's JVM limited to "
          "0.5, 1 and 2 CPUs and none, as a pod's limit is (a CFS quota in a cgroup of its own, root, and the "
          "processors the JVM derives from it), and one processor without a quota; closed model, open model at a "
          "fixed rate, capacity under a p99 bound, in rounds on a fresh local stack; writes "
          "results/cpu-map-<time>/cpu-map.html (the ladder: CPU_MAP_SIZES).",
          cluster_help="make cpu-map against the deployed builds: each service's pod limited to each size in turn "
          "(kubectl patch, then rolled), the load generator as Jobs; every Deployment's resources as deployed again "
          "at the end.",
          untested={LOCAL: "make answer is its design and runner with the A/A beside it, and make test-e2e runs that "
                    "at a size under a quota, every figure of the map's checked"}),
    Entry("answer", "cpumap", "The answer, decided: the CPU map at the sizes whose quota binds here and the whole "
          "machine, every round a fork of every build, with v1 again (the A/A) and the floor (v0) in the same forks, "
          "rounds added while a cell it quotes is undecided (ANSWER_LOOKS, ANSWER_MINUTES); ANSWER_WITH pools earlier "
          "runs an hour apart, as a word needs two sessions; writes results/answer-<time>/answer.html and prints the "
          "table.", {"answer": True},
          cluster_help="make answer against the deployed builds (and the floor, where deployed): each service's pod "
          "limited to each size in turn and rolled in every round; every Deployment as deployed again at the end.",
          untested={CLUSTER: "its runner is make cpu-map-cluster's, which make test-cluster runs; its rows from the "
                    "node's cores, its looks, its A/A and its words are make test-e2e's and the unit tests'"}),
)
BY_NAME = {entry.name: entry for entry in EXPERIMENTS}


def make_rules():
    """The lines make includes: each platform's targets, and each target with its help and what it needs."""
    local = [e for e in EXPERIMENTS if LOCAL in e.platforms]
    cluster = [e for e in EXPERIMENTS if CLUSTER in e.platforms]
    lines = ["# Made by python3 -m benchkit experiments make from scripts/benchkit/catalogue.py: not edited by hand.",
             f"LOCAL_EXPERIMENTS := {' '.join(e.targets()[LOCAL] for e in local)}",
             f"CLUSTER_EXPERIMENTS := {' '.join(e.targets()[CLUSTER] for e in cluster)}",
             *(f"{e.targets()[LOCAL]}: {e.needs}" for e in local if e.needs)]
    return "\n".join(lines) + "\n"


def help_lines(platform):
    """make help's lines of every experiment's target on a platform: target, tab, what it does."""
    return "\n".join(f"{e.targets()[platform]}\t{e.help if platform == LOCAL else e.cluster_help}"
                     for e in EXPERIMENTS if platform in e.platforms)


def main(argv):
    if argv[:1] == ["make"]:
        print(make_rules(), end="")
    elif argv[:1] == ["help"] and argv[1:2] in (["local"], ["kubernetes"]):
        print(help_lines(argv[1]))
    else:
        raise SystemExit("python3 -m benchkit experiments make | help local|kubernetes")
