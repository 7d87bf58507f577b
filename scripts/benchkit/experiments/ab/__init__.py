"""The A/Bs of one setting per build, each a Design (core.design) of two modes: make tls, reads, proxy-cost,
tracing-cost, tracing-sampled-cost, tracing-absent, against-commit, and their control, noise-floor (A against A).

On the local stack each build's services are restarted with mode A and with mode B in turn, every time from a cold
JVM, warmed and measured by the core, the modes in an order drawn at random (reversed in the round after). Writes <name>.json (the cell
document, core.cells: every round's figures, and B / A round by round), <name>.md and <name>.html."""
import dataclasses

from benchkit import ROOT, SERVICES, VERSIONS
from benchkit.core.experiment import Measures
from benchkit.core import design, sizes
from benchkit.core.design import CLOSED, OPEN, Design
from benchkit.core.knobs import knob
from benchkit.core.load import Lengths
from benchkit.core.tunables import DATA, LATENCY_PROXY, Setting

# shorter than a bench's, as an A/B starts every cell from cold in every round
LENGTHS = Lengths(iterations=150, warmup=300)
TLS_MODES = ("disable", "require")
TLS = Design(
    "tls", "What TLS to PostgreSQL costs",
    "TLS to PostgreSQL is required in the cluster (the operator's Spilo rejects any other connection) and absent on "
    "the local stack, so in-cluster figures carry a cost the local ones do not. Measured here alone: on the local "
    "stack, whose PostgreSQL offers TLS, each build's articles and authors restarted with sslmode=disable and "
    "sslmode=require in turn (JDBC and the reactive client alike). The pools keep their connections, so the "
    "handshake is paid once per connection and the rest is encryption of every query and row.",
    VERSIONS, {mode: {"TLS, JDBC": mode, "TLS, reactive": mode, "TLS, trust": "true"} for mode in TLS_MODES},
    settings=(Setting("TLS, JDBC", "quarkus.datasource.jdbc.additional-jdbc-properties.sslmode", DATA, TLS_MODES,
                      "disable"),
              Setting("TLS, reactive", "quarkus.datasource.reactive.postgresql.ssl-mode", DATA, TLS_MODES, "disable"),
              # the self-signed certificate of the local PostgreSQL, as trust-all trusts Spilo's in the cluster
              Setting("TLS, trust", "quarkus.datasource.reactive.trust-all", DATA, ("true",), "true")))

READ_MODES = ("transaction", "autocommit")
READS = Design(
    "reads", "How the JDBC builds read: in a transaction, or without one",
    "v1 and v3 read through Hibernate ORM, either in a transaction of its own per read (BEGIN, the query, COMMIT: "
    "what @Transactional gives, and what v2's reactive client never sends) or without one (autocommit: the query "
    "alone, on a connection Hibernate gives back as soon as it has the rows, in Quarkus' request-scoped session); "
    "either way the read waits its turn for a connection in the same queue (services/jdbc, jdbc.reads). Each "
    "build's articles and authors restarted with jdbc.reads=transaction and =autocommit in turn. The statements per "
    "request come from pg_stat_statements, BEGIN and COMMIT included.",
    ("v1", "v3"), {mode: {"reads": mode} for mode in READ_MODES},
    settings=(Setting("reads", "jdbc.reads", DATA, READ_MODES, "autocommit"),))

PROXY = Design(
    "proxy", "What the latency proxy costs with no latency added",
    "make latency-map puts Toxiproxy between web-api and authors and between the data services and PostgreSQL, to "
    "add latency outside the code under test. Its own cost comes with it: every byte of those hops copied once more "
    "through a process of its own. Measured here with no latency added: each build's three services restarted "
    "directly connected (off, as every other run) and through the proxy (on) in turn; the proxy's CPU counts in "
    "the whole system's while the build goes through it.",
    VERSIONS, {mode: {LATENCY_PROXY.name: mode} for mode in LATENCY_PROXY.candidates}, settings=(LATENCY_PROXY,))

TRACING_MODES = ("off", "on")
TRACING_EXPLANATION = (
    "Every build carries OpenTelemetry (Quarkus' extension), off unless switched on; on, each service makes a span "
    "per request it serves and per call and statement it makes, and exports them in batches to Jaeger, whose CPU counts "
    "in the whole system's while the build is traced (it runs on the same cores). Each build's three services "
    "restarted untraced (off, as every other run) and traced (on) in turn. ")
TRACING_SETTING = Setting("tracing", "tracing", SERVICES, TRACING_MODES, "off")
TRACING = Design(
    "tracing", "What tracing every request costs",
    TRACING_EXPLANATION + "On: every request traced, as make up TRACING=on and the chart's tracing.enabled do.",
    VERSIONS, {mode: {"tracing": mode} for mode in TRACING_MODES}, settings=(TRACING_SETTING,))
SAMPLED_SHARE = 0.01
TRACING_SAMPLED = Design(
    "tracing-sampled", "What tracing 1 % of the requests costs",
    TRACING_EXPLANATION + f"On: {SAMPLED_SHARE:.0%} of the requests traced, decided at web-api (the services it calls "
    "follow its decision), as the chart's tracing.sampled=0.01 does; the rest still carry a trace context, unsampled.",
    VERSIONS, {"off": {"tracing": "off", "traced share": 1.0}, "on": {"tracing": "on", "traced share": SAMPLED_SHARE}},
    settings=(TRACING_SETTING,
              Setting("traced share", "quarkus.otel.traces.sampler.arg", SERVICES, (1.0, SAMPLED_SHARE), 1.0)))

TRACING_ABSENT = Design(
    "tracing-absent", "What OpenTelemetry's extension costs switched off",
    "Every build ships with Quarkus' OpenTelemetry extension, switched off (quarkus.otel.sdk.disabled=true) unless "
    "tracing is switched on: its instrumentation is still in the application, around every request, call and statement. "
    "Measured against the same build without it (make build-without-tracing: built with -Dtracing=absent, "
    "OpenTelemetry's API alone, a no-op): each build's three services restarted from the build as shipped (extension "
    "off) and from the one without the extension (absent) in turn, at each size, in the closed model and then in the "
    "open model (p99 at the fixed rate, and the capacity under the p99 bound).",
    VERSIONS, {"extension off": {"build": ""}, "absent": {"build": "without-tracing"}},
    sizes=(sizes.NO_LIMIT, "0.5"), phases=(CLOSED, OPEN),
    settings=(Setting("build", "service.build", SERVICES, ("", "without-tracing"), ""),))

AT_COMMIT = "at-commit"  # the services' target/ directory make build-at-commit builds another commit's builds into
AGAINST_COMMIT = Design(
    "against-commit", "The checkout's builds against another commit's",
    "Whether the code changed what a build does, with the machine of the same hour on both sides: each build's three "
    "services restarted from the checkout's application (checkout) and from another commit's (commit: make "
    "build-at-commit COMMIT=…, built the same way into target/at-commit; the document names it), in turn, from a cold "
    "JVM, at each size, in the closed model and then in the open model. The local stack, its data and the load are "
    "the checkout's for both.",
    VERSIONS, {"checkout": {"build": "", "schema check": "true"}, "commit": {"build": AT_COMMIT, "schema check": "false"}},
    sizes=(sizes.NO_LIMIT, "0.5"), phases=(CLOSED, OPEN),
    settings=(Setting("build", "service.build", SERVICES, ("", AT_COMMIT), ""),
              # the schema is the checkout's: a migration the other commit does not know is no reason to refuse to start
              Setting("schema check", "quarkus.flyway.validate-on-migrate", DATA, ("true", "false"), "true")))

NOISE_FLOOR = Design(
    "noise-floor", "The noise floor: each build against itself",
    "What an A/B here shows when nothing differs: each build's three services restarted as shipped twice in turn (A, "
    "and A again), each time from a cold JVM, warmed and measured the same way, in rounds, at each size, in the closed "
    "and then the open model. A ratio of one side over the other is chance alone: how far an A/B's rounds can lie "
    "apart, and how often a figure agrees in every round, without a cause.",
    VERSIONS, {"A": {}, "A again": {}}, sizes=(sizes.NO_LIMIT, "0.5"), phases=(CLOSED, OPEN))

ACCESS_LOG_MODES = ("off", "on")
ACCESS_LOG = Design(
    "access-log", "What an HTTP access log costs",
    "Operators often switch on an access log: a line per request each service serves, in the Quarkus log. An answer "
    "is seven requests served (one at web-api, one at articles, five at authors), so seven lines. Each build's three "
    "services restarted without an access log (off, as shipped) and with Quarkus' own (on: "
    "quarkus.http.access-log.enabled, its common format, to the services' log files) in turn, in the closed model.",
    VERSIONS, {mode: {"access log": str(mode == "on").lower()} for mode in ACCESS_LOG_MODES},
    settings=(Setting("access log", "quarkus.http.access-log.enabled", SERVICES, ("false", "true"), "false"),))

# every Design of this module, by name: a new A/B is one Design here and its line in the catalogue
EXPERIMENTS = {d.name: d for d in list(globals().values()) if isinstance(d, Design)}


def other_commit():
    """The commit make build-at-commit built the other builds of against-commit from."""
    built = ROOT / "services" / "target" / "at-commit.txt"
    if not built.exists():
        raise SystemExit("make against-commit measures another commit's builds: make build-at-commit COMMIT=… first")
    return built.read_text().strip()


@dataclasses.dataclass(frozen=True)
class Spec:
    variant: str = "tls"  # which A/B (EXPERIMENTS): given by the registry's entry (make tls, reads, proxy-cost, …)
    sizes: tuple = knob("AB_SIZES", (), "the sizes each build is measured at, as make cpu-map's ladder (0.5: each "
                        "service limited to half a CPU; 0: no limit); unset: the A/B's own (0, and 0.5 where it "
                        "measures the open model)", lambda text: sizes.rungs(text))


def versions(spec):
    """The builds an A/B concerns unless VERSIONS says otherwise."""
    return EXPERIMENTS[spec.variant].builds


def run(platform, spec, directory):
    """Each build's A/B in rounds: <variant>.json (its report: publish.ab)."""
    chosen = EXPERIMENTS[spec.variant]
    # read before anything starts, and refused there where there is none
    extra = {"other_commit": other_commit()} if chosen is AGAINST_COMMIT else None
    chosen = dataclasses.replace(chosen, builds=platform.versions, sizes=spec.sizes or chosen.sizes, lengths=LENGTHS)
    design.run(platform, chosen, directory, extra)
    return directory / f"{chosen.name}.json"


MEASURES = Measures(Spec, run, versions, lengths=LENGTHS)
