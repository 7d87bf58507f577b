"""An A/B of one setting per build, in rounds (make tls, make reads, make proxy-cost).

On the local stack: the services the setting concerns restarted with mode A and with mode B in turn, every time
from a cold JVM, the same warm-up, the build's background CPU right after it, then the closed model; the modes'
order turned round between rounds. Writes <experiment>.json (schema reactive-bench/ab/1: every round's figures, and
B / A as the median of each round's own ratio), <experiment>.md and <experiment>.html. Each build is left as it
ships, whatever happened.

    tls     TLS to PostgreSQL: sslmode=disable (as the local stack runs) against require (as the cluster must)
    reads   how v1 and v3 read: in a transaction of their own (as they ship) against autocommit (no transaction)
    proxy   what the latency proxy costs with no latency added: directly against through Toxiproxy
    tracing, tracing-sampled   what traces cost: none against every request traced, or against 1 % of them"""
import dataclasses
import json

from benchkit import NAMES, ROOT, SERVICES, VERSIONS, info, step
from benchkit.core import documents, knobs, results, sizes
from benchkit.core.knobs import knob
from benchkit.core.kinds import Kind, document_publisher
from benchkit.core.protocol import background, closed_round, open_round, order, warm_up
from benchkit.core.tunables import DATA, Setting, environments

SCHEMA = "reactive-bench/ab/1"


@dataclasses.dataclass(frozen=True)
class Experiment:
    name: str
    title: str
    explanation: str
    settings: tuple  # tunables.Setting: what a mode sets, and in which services
    modes: tuple  # (A, B): the ratios are B / A
    values: dict  # {mode: {setting name: value}}
    versions: tuple  # the builds it concerns
    sizes: tuple = (sizes.NO_LIMIT,)  # the sizes each build is measured at (core.sizes: as a pod's CPU limit gives it)
    open_model: bool = False  # after each closed round, the open model's: p99 at a fixed rate, capacity under the bound


TLS_MODES = ("disable", "require")
TLS = Experiment(
    "tls", "What TLS to PostgreSQL costs",
    "TLS to PostgreSQL is required in the cluster (the operator's Spilo rejects any other connection) and absent on "
    "the local stack, so in-cluster figures carry a cost the local ones do not. Measured here alone: on the local "
    "stack, whose PostgreSQL offers TLS, each build's articles and authors restarted with sslmode=disable and "
    "sslmode=require in turn (JDBC and the reactive client alike). The pools keep their connections, so the "
    "handshake is paid once per connection and the rest is encryption of every query and row.",
    (Setting("TLS, JDBC", "quarkus.datasource.jdbc.additional-jdbc-properties.sslmode", DATA, TLS_MODES, "disable"),
     Setting("TLS, reactive", "quarkus.datasource.reactive.postgresql.ssl-mode", DATA, TLS_MODES, "disable"),
     # the self-signed certificate of the local PostgreSQL, as trust-all trusts Spilo's in the cluster
     Setting("TLS, trust", "quarkus.datasource.reactive.trust-all", DATA, ("true",), "true")),
    TLS_MODES,
    {mode: {"TLS, JDBC": mode, "TLS, reactive": mode, "TLS, trust": "true"} for mode in TLS_MODES},
    VERSIONS)

READ_MODES = ("transaction", "autocommit")
READS = Experiment(
    "reads", "How the JDBC builds read: in a transaction, or without one",
    "v1 and v3 read through Hibernate ORM, either in a transaction of its own per read (BEGIN, the query, COMMIT: "
    "what @Transactional gives, and what v2's reactive client never sends) or without one (autocommit: the query "
    "alone, on a connection Hibernate gives back as soon as it has the rows, in Quarkus' request-scoped session); "
    "either way the read waits its turn for a connection in the same queue (services/jdbc, jdbc.reads). Each "
    "build's articles and authors restarted with jdbc.reads=transaction and =autocommit in turn. The statements per "
    "request come from pg_stat_statements, BEGIN and COMMIT included.",
    (Setting("reads", "jdbc.reads", DATA, READ_MODES, "autocommit"),),
    READ_MODES,
    {mode: {"reads": mode} for mode in READ_MODES},
    ("v1", "v3"))

PROXY_MODES = ("off", "on")
PROXY = Experiment(
    "proxy", "What the latency proxy costs with no latency added",
    "make latency-map puts Toxiproxy between web-api and authors and between the data services and PostgreSQL, to "
    "add latency outside the code under test. Its own cost comes with it: every byte of those hops copied once more "
    "through a process of its own. Measured here with no latency added: each build's three services restarted "
    "directly connected (off, as every other run) and through the proxy (on) in turn; the proxy's CPU counts in "
    "the whole system's while the build goes through it.",
    (Setting("latency proxy", "latency.proxy", SERVICES, PROXY_MODES, "off"),),
    PROXY_MODES,
    {mode: {"latency proxy": mode} for mode in PROXY_MODES},
    VERSIONS)

TRACING_MODES = ("off", "on")
TRACING_EXPLANATION = (
    "Every build carries OpenTelemetry (Quarkus' extension), off unless switched on; on, each service makes a span "
    "per request it serves and per call and statement it makes, and exports them in batches to Jaeger, whose CPU counts "
    "in the whole system's while the build is traced (it runs on the same cores). Each build's three services "
    "restarted untraced (off, as every other run) and traced (on) in turn. ")
TRACING = Experiment(
    "tracing", "What tracing every request costs",
    TRACING_EXPLANATION + "On: every request traced, as make up TRACING=on and the chart's tracing.enabled do.",
    (Setting("tracing", "tracing", SERVICES, TRACING_MODES, "off"),),
    TRACING_MODES,
    {mode: {"tracing": mode} for mode in TRACING_MODES},
    VERSIONS)
SAMPLED_SHARE = 0.01
TRACING_SAMPLED = Experiment(
    "tracing-sampled", "What tracing 1 % of the requests costs",
    TRACING_EXPLANATION + f"On: {SAMPLED_SHARE:.0%} of the requests traced, decided at web-api (the services it calls "
    "follow its decision), as the chart's tracing.sampled=0.01 does; the rest still carry a trace context, unsampled.",
    (Setting("tracing", "tracing", SERVICES, TRACING_MODES, "off"),
     Setting("traced share", "quarkus.otel.traces.sampler.arg", SERVICES, (1.0, SAMPLED_SHARE), 1.0)),
    TRACING_MODES,
    {"off": {"tracing": "off", "traced share": 1.0}, "on": {"tracing": "on", "traced share": SAMPLED_SHARE}},
    VERSIONS)

ABSENT_MODES = ("extension off", "absent")
TRACING_ABSENT = Experiment(
    "tracing-absent", "What OpenTelemetry's extension costs switched off",
    "Every build ships with Quarkus' OpenTelemetry extension, switched off (quarkus.otel.sdk.disabled=true) unless "
    "tracing is switched on: its instrumentation is still in the application, around every request, call and statement. "
    "Measured against the same build without it (make build-without-tracing: built with -Dtracing=absent, "
    "OpenTelemetry's API alone, a no-op): each build's three services restarted from the build as shipped (extension "
    "off) and from the one without the extension (absent) in turn, at each size, in the closed model and then in the "
    "open model (p99 at the fixed rate, and the capacity under the p99 bound).",
    (Setting("build", "service.build", SERVICES, ("", "without-tracing"), ""),),
    ABSENT_MODES,
    {"extension off": {"build": ""}, "absent": {"build": "without-tracing"}},
    VERSIONS, sizes=(sizes.NO_LIMIT, "0.5"), open_model=True)

COMMIT_MODES = ("checkout", "commit")
AT_COMMIT = "at-commit"  # the services' target/ directory make build-at-commit builds another commit's builds into
AGAINST_COMMIT = Experiment(
    "against-commit", "The checkout's builds against another commit's",
    "Whether the code changed what a build does, with the machine of the same hour on both sides: each build's three "
    "services restarted from the checkout's application (checkout) and from another commit's (commit: make "
    "build-at-commit COMMIT=…, built the same way into target/at-commit; the document names it), in turn, from a cold "
    "JVM, at each size, in the closed model and then in the open model. The local stack, its data and the load are "
    "the checkout's for both.",
    (Setting("build", "service.build", SERVICES, ("", AT_COMMIT), ""),
     # the schema is the checkout's: a migration the other commit does not know is no reason to refuse to start
     Setting("schema check", "quarkus.flyway.validate-on-migrate", DATA, ("true", "false"), "true")),
    COMMIT_MODES,
    {"checkout": {"build": "", "schema check": "true"}, "commit": {"build": AT_COMMIT, "schema check": "false"}},
    VERSIONS, sizes=(sizes.NO_LIMIT, "0.5"), open_model=True)

EXPERIMENTS = {e.name: e for e in (TLS, READS, PROXY, TRACING, TRACING_SAMPLED, TRACING_ABSENT, AGAINST_COMMIT)}

# (key, label, format, whether B / A is shown): each round's figures, as <experiment>.json keeps them
FIGURES = (("complete_per_s", "complete answers/s", "{:.0f}", True),
           ("p50", "latency p50 ms, complete answers", "{:.1f}", True),
           ("p99", "latency p99 ms, complete answers", "{:.1f}", True),
           ("open_p99", "open model at the fixed rate: latency p99 ms", "{:.1f}", True),
           ("capacity_per_s", "capacity: the highest open rate with p99 under the bound, /s", "{:.0f}", True),
           ("cpu_ms_per_complete_background_off", "CPU ms per complete answer, whole system, background off",
            "{:.3f}", True),
           ("data_services_cpu_ms", "CPU ms per request, articles + authors", "{:.3f}", True),
           ("postgres_cpu_ms", "CPU ms per request, PostgreSQL", "{:.3f}", True),
           ("proxy_cpu_ms", "CPU ms per request, the latency proxy (where in the path)", "{:.3f}", False),
           ("jaeger_cpu_ms", "CPU ms per request, Jaeger (where traced)", "{:.3f}", False),
           ("statements_per_request", "statements sent per request, BEGIN and COMMIT included", "{:.2f}", False),
           ("data_statements_per_request", "statements that read data per request", "{:.2f}", False),
           ("settled", "warm-up settled (the JIT under 3 % of the services' CPU)", "{}", False))
RATIOS = tuple(key for key, _, _, shown in FIGURES if shown)


def measured_as(version, size):
    """What a document's builds are keyed by: the build, and its size where it is given one ("v3 at 0.5 CPU")."""
    return version if size == sizes.NO_LIMIT else f"{version} at {sizes.label(size)}"


def started(platform, version, size, environment):
    """The build's services restarted from a cold JVM with a mode's environment, at a size (as shipped at none)."""
    if size == sizes.NO_LIMIT:
        return platform.reconfigure(version, environment, fresh=True)
    return platform.size(version, *sizes.given(size), environments=environment)


def measure_build(experiment, version, platform, runs_dir, rounds, iterations, warmup, size=sizes.NO_LIMIT):
    found = {mode: [] for mode in experiment.modes}
    name = experiment.name if size == sizes.NO_LIMIT else f"{experiment.name}-{size}"
    try:
        for run in range(1, rounds + 1):
            for mode in order(experiment.modes, run):
                step(f"{measured_as(version, size)}: {experiment.name} {mode}, round {run}/{rounds}")
                build = started(platform, version, size,
                                environments(experiment.settings, experiment.values[mode]))
                warmed = warm_up(version, build, runs_dir, warmup)
                # the build's processes with no load, right after its warm-up, to take off its run's CPU
                idle = background({version: build})[version]
                figures = closed_round(build, runs_dir, run, iterations, f"{name}-{mode}", idle, platform.calibrate(),
                                       warmed)
                if experiment.open_model:
                    figures.update(open_round(build, runs_dir, run, f"{name}-{mode}", figures["complete_per_s"]))
                found[mode].append({"size": size, **figures})
    finally:
        platform.restore(version)
    return found


def ratios(experiment, modes):
    """{figure: {rounds: [B / A of each round], median, low, high}}: B's round against A's round of the same number
    (experiment: an Experiment, or the two modes' names as a document keeps them)."""
    a, b = getattr(experiment, "modes", experiment)
    measured = [key for key in RATIOS if any(key in r for mode in (a, b) for r in modes[mode])]  # the open model's
    return results.ratios_by_round(zip(modes[a], modes[b]), measured)  # figures are where the A/B measured them


def other_commit():
    """The commit make build-at-commit built the other builds of against-commit from."""
    built = ROOT / "services" / "target" / "at-commit.txt"
    if not built.exists():
        raise SystemExit("make against-commit measures another commit's builds: make build-at-commit COMMIT=… first")
    return built.read_text().strip()


def document(experiment, environment, measured, other=None):
    return {"schema": SCHEMA, "experiment": experiment.name, "title": experiment.title,
            **({"other_commit": other} if other else {}),
            "explanation": experiment.explanation, "modes": list(experiment.modes),
            "commit": environment["git_commit"], "timestamp": environment["timestamp"], "where": environment["where"],
            "environment": environment,
            "builds": {version: {"rounds": modes, "ratios": ratios(experiment, modes)}
                       for version, modes in measured.items()}}


def consistency(data):
    """Where a document's ratios are not what its rounds give ([] when none is)."""
    experiment = EXPERIMENTS[data["experiment"]]
    problems = []
    for version, build in data["builds"].items():
        expected = ratios(data.get("modes") or experiment.modes, build["rounds"])  # as it was measured
        for key, ratio in build["ratios"].items():
            if ratio != expected[key]:
                problems.append(f"{version} {key}: B / A {ratio} is not what its rounds give, {expected[key]}")
    return problems


def table(data):
    """Per build and figure: each mode's rounds, and B / A as the median of the rounds' own ratios."""
    a, b = data["modes"]
    rows = [["build", "figure", *(f"{mode} (each round)" for mode in (a, b)),
             f"{b} / {a}: the median of the rounds' ratios (lowest–highest)"]]
    for version, build in data["builds"].items():
        for key, label, fmt, shown in FIGURES:
            if all(r.get(key) is None for mode in (a, b) for r in build["rounds"][mode]):
                continue  # a figure this experiment does not measure (the proxy's CPU where it is not in the path)
            cells = [", ".join(cell(r.get(key), fmt) for r in build["rounds"][mode]) for mode in (a, b)]
            ratio = build["ratios"].get(key)
            rows.append([NAMES.get(version, version), label, *cells, documents.ratio_text(ratio) if shown else "–"])
    return rows


# what a team reads off an A/B of two builds: what it carries, the latency it gives at a load, what it costs; and
# which way is better for each (True: higher)
VERDICT_FIGURES = ("complete_per_s", "open_p99", "capacity_per_s", "cpu_ms_per_complete_background_off")
HIGHER_IS_BETTER = {"complete_per_s": True, "open_p99": False, "capacity_per_s": True,
                    "cpu_ms_per_complete_background_off": False}


def direction(ratio, rounds):
    """B against A, in words from the rounds' own ratios: "higher" or "lower" where every one of the rounds says so
    (the lowest and highest ratio on one side of 1), else "level": within the rounds' spread, no verdict. With three
    rounds, one figure in four agrees by chance alone: a verdict, not a proof."""
    if not ratio or ratio["median"] is None:
        return "–"
    if sum(r is not None for r in ratio["rounds"]) < rounds:
        return "level (not every round has the figure)"
    if ratio["low"] > 1:
        return "higher in every round"
    if ratio["high"] < 1:
        return "lower in every round"
    return "level (the rounds disagree)"


def judged(data):
    """[(build, figure's label, B / A, its direction)] of every build (and size) and figure of VERDICT_FIGURES that
    has a ratio: what verdicts shows and better filters."""
    a = data["modes"][0]
    labels = {key: label for key, label, _, _ in FIGURES}
    return [(version, key, labels[key], build["ratios"][key], direction(build["ratios"][key], len(build["rounds"][a])))
            for version, build in data["builds"].items() for key in VERDICT_FIGURES if build["ratios"].get(key)]


def verdicts(data):
    """Per build (and size) and figure of VERDICT_FIGURES: B / A and its verdict (direction)."""
    a, b = data["modes"]
    return [["build", "figure", f"{b} / {a} (lowest–highest round)", f"{b} against {a}"],
            *([NAMES.get(version, version), label, documents.ratio_text(ratio), said]
              for version, _, label, ratio, said in judged(data))]


def better(data):
    """The figures of VERDICT_FIGURES in which one mode was better in every round (direction), and which: the rows a
    decision is read from; none where every figure is level."""
    a, b = data["modes"]
    rows = [["build", "figure", f"{b} / {a} (lowest–highest round)", "better in every round"],
            *([NAMES.get(version, version), label, documents.ratio_text(ratio),
               b if said.startswith("higher") == HIGHER_IS_BETTER[key] else a]
              for version, key, label, ratio, said in judged(data) if said.endswith("in every round"))]
    if len(rows) == 1:
        rows.append(["every build", "every figure", "–", "neither: every figure level"])
    return rows


def cell(value, fmt):
    if value is None:
        return "–"
    return ("yes" if value else "no") if isinstance(value, bool) else fmt.format(value)


@dataclasses.dataclass(frozen=True)
class Spec:
    variant: str = "tls"  # which A/B (EXPERIMENTS): given by the registry's entry (make tls, reads, proxy-cost, …)
    iterations: int = knob("AB_ITERATIONS", 150, "measured requests per user of each side of an A/B in each round")
    warmup: int = knob("AB_WARMUP_ITERATIONS", 300, "the first warm-up window's requests per user after each restart")
    sizes: tuple = knob("AB_SIZES", (), "the sizes each build is measured at, as make cpu-map's ladder (0.5: each "
                        "service limited to half a CPU; 0: no limit); unset: the A/B's own (0, and 0.5 where it "
                        "measures the open model)", lambda text: sizes.rungs(text))


PLATFORMS = ("local",)  # TLS can be had or not there (in the cluster Spilo requires it)


def versions(spec):
    """The builds an A/B concerns unless VERSIONS says otherwise."""
    return EXPERIMENTS[spec.variant].versions


def run(platform, spec, directory):
    """Each build's A/B in rounds: <variant>.json, .md and .html."""
    experiment = EXPERIMENTS[spec.variant]
    # read before anything starts, and refused there where there is none
    other = other_commit() if experiment is AGAINST_COMMIT else None
    rounds = knobs.value("RUNS")
    runs_dir = directory / "runs"
    runs_dir.mkdir(parents=True, exist_ok=True)
    environment = platform.environment(platform.where, rounds, True)
    measured = {}
    for size in spec.sizes or experiment.sizes:
        for version in platform.versions:
            measured[measured_as(version, size)] = measure_build(experiment, version, platform, runs_dir, rounds,
                                                                 spec.iterations, spec.warmup, size)
            data = document(experiment, environment, measured, other)
            (directory / f"{experiment.name}.json").write_text(json.dumps(data, indent=2))
    documents.write(directory, experiment.name, f"reactive-bench: {experiment.title}",
                    f"{environment['timestamp']}, commit {environment['git_commit']}",
                    [(experiment.title, experiment.explanation + " The modes' order is turned round between rounds; "
                      "B / A is the median of each round's own ratio.", [("", table(data))]),
                     ("Environment", "", [("", documents.key_value_rows(environment))])], {})
    info(f"{experiment.title}: {directory / experiment.name}.md and .html")
    return directory / f"{experiment.name}.json"


KIND = Kind("ab", SCHEMA, SCHEMA, tuple(f"{name}.json" for name in EXPERIMENTS), document_publisher(SCHEMA, consistency, ("environment", "explanation")),
            consistency, {"ab": table, "ab-verdicts": verdicts, "ab-better": better})
