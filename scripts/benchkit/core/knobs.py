"""Every knob of the harness: a setting a user gives in the environment, with its one default and one line of help.
The core's own are declared here (`CORE`, read with `value`); each experiment declares its own as the fields of its
typed `Spec` (`knob(...)`), which the entry point reads from the environment once, before the run (`spec_of`).
docs/local.md's tables and `make knobs` are rendered from the declarations (registry.KNOBS); a test fails when a knob
is read that is not declared, or declared and never read. The load's own settings (USERS, ITERATIONS, RATE, …) are
load/scenarios.json's, with their defaults there (`load.setting`)."""
import dataclasses
import os
import sys
import types
import typing

from benchkit import ROOT


def numbers(kind):
    """A parser of a comma-separated list ("0,1,5") into a tuple of kind."""
    def parse(text):
        return tuple(kind(item) for item in str(text).split(",") if item.strip())
    parse.__name__ = f"{kind.__name__}s"
    return parse


def results_directory(file):
    """A parser of an earlier run's results directory that must hold this file (e.g. a sweep's sweep.json): refused
    before anything starts, named absolutely; a relative one from the checkout's root, where make runs."""
    def parse(text):
        path = (ROOT / text).resolve()
        if not (path / file).is_file():
            raise ValueError(f"{text}: no {file} there (give a results directory that holds one)")
        return path
    return parse


def flag(text):
    """A switch: set to anything but 0, no, false or off."""
    return str(text).strip().lower() not in ("0", "no", "false", "off")


@dataclasses.dataclass(frozen=True)
class Knob:
    name: str
    default: object  # None: not given unless set
    help: str
    group: str = ""
    parse: typing.Callable = str

    def value(self, environ):
        text = environ.get(self.name)
        if text == "" and isinstance(self.default, tuple):
            return ()  # a list set empty is none (MAP_USERS= : a map without the closed model's columns)
        if text is None or text == "":
            return self.default
        try:
            return self.parse(text)
        except ValueError as error:
            raise SystemExit(f"{self.name}={text}: {error}") from None

    @property
    def shown(self):
        if self.group == TOOLS:
            return "the Makefile's"
        default = self.default
        if default == ():
            return "none"
        if isinstance(default, tuple):
            default = ",".join(f"{item:g}" if isinstance(item, float) else str(item) for item in default)
        return "none" if default is None else f"`{default}`" if isinstance(default, str) else str(default)


def knob(name, default, help, parse=None):
    """A field of an experiment's Spec: given in the environment as NAME, its default, one line of help; parsed by
    the field's type unless told how."""
    return dataclasses.field(default=default, metadata={"knob": (name, help, parse)})


def fields(spec, group):
    """[(field name, its Knob)] of a Spec's fields a user gives, in order (a field the registry's entry gives, such
    as an A/B's variant, has none)."""
    found = []
    for field in dataclasses.fields(spec):
        if "knob" not in field.metadata:
            continue
        name, help, parse = field.metadata["knob"]
        kind = field.type
        if parse is None:  # int, float, str, bool, or X | None
            kind = next((arg for arg in typing.get_args(kind) if arg is not type(None)), kind) \
                if isinstance(kind, types.UnionType) else kind
            parse = flag if kind is bool else kind
        found.append((field.name, Knob(name, field.default, help, group, parse)))
    return found


def declared(spec, group):
    """The Knobs of a Spec's fields, in order."""
    return tuple(knob for _, knob in fields(spec, group))


def spec_of(spec, group, environ=None, **given):
    """A Spec read from the environment (given: fields the entry point fixes, such as an A/B's variant)."""
    environ = os.environ if environ is None else environ
    return spec(**{**{name: knob.value(environ) for name, knob in fields(spec, group)}, **given})


TOOLS = "tools"  # the group of the knobs whose one default the Makefile gives
CORE = (
    # every experiment's
    Knob("VERSIONS", None, "the builds to measure, comma-separated (unset: those the experiment concerns, every "
         "build on the local stack, every deployed build in a cluster)", "run", numbers(str)),
    Knob("RUNS", 3, "rounds: every build's measured run is repeated, the builds in an order drawn afresh every "
         "other round; the report shows the median and the spread (`RUNS=1` for a quicker first look)", "run", int),
    Knob("ORDER_SEED", None, "the seed of the builds' order in each round (drawn at random in odd rounds, reversed in "
         "the even round after); unset: the time the run began, which its document states", "run", str),
    Knob("WARMUP_MAX_WINDOWS", 6, "the most windows of complete answers a warm-up spends waiting for the JIT; the "
         "report says whether it settled within them. A window of degraded or failed answers never ends a warm-up: "
         "it waits for the circuit and warms again, and fails the run, naming what the answers were, past "
         "`core.protocol.WARMUP_INCOMPLETE_SECONDS` of such windows", "run", int),
    Knob("WARM_BEFORE_QUOTA", True, "a fork (every round's start of a build at a size) warms with its quota lifted, "
         "where the platform can (locally), then again under it until settled, before it is measured: its JVMs count "
         "the same processors either way (off: it warms under its quota throughout)", "run", flag),
    Knob("BACKGROUND_SECONDS", 10, "the window with no load after the warm-up that measures each process's background "
         "rate", "run", int),
    # the open model after a closed round (make cpu-map, and the A/Bs that measure it)
    Knob("OPEN_RATE", 100, "the open model's fixed rate, requests/s, the same for every build and size (0: none)",
         "run", int),
    Knob("P99_BOUND_MS", 100.0, "the capacity's bound: p99 of complete answers, ms", "run", float),
    Knob("CAPACITY_SHARES", (0.4, 0.6, 0.8, 1.0), "the capacity's ladder of open rates, shares of the build's "
         "closed-model rate in the round, climbed until p99 passes the bound (empty: no capacity)", "run",
         numbers(float)),
    Knob("OPEN_SECONDS", 6, "how long each open-model run lasts, s", "run", int),
    Knob("SWEEP", None, "a sweep's results directory: make demo's report shows its table, make latency-map runs every "
         "build with what it chose", "run", results_directory("sweep.json")),
    Knob("LATENCY_JITTER", 0.1, "jitter as a share of each latency the latency proxy adds (make latency-map, make "
         "sweep with `SWEEP_LATENCY_AUTHORS_MS`)", "run", float),
    # the load generator as Jobs in a cluster
    Knob("LOAD_PODS", 1, "pods of each load Job, each with its share of the users or of the rate, starting together",
         "kubernetes", int),
    Knob("LOAD_START_SECONDS", 20.0, "how long after a split Job is installed its pods start together", "kubernetes",
         float),
    Knob("LOAD_IMAGE", None, "the load generator's image (unset: the load-job chart's)", "kubernetes"),
    Knob("LOAD_IMAGE_PULL_POLICY", None, "the load generator's image pull policy (unset: the load-job chart's)",
         "kubernetes"),
    Knob("LOAD_CPU_REQUEST", None, "the CPU a load pod requests, and the calibration pod beside it (unset: the load-job "
         "chart's)", "kubernetes"),
    Knob("LOAD_NODE_SELECTOR", None, "node labels the load pods must match, key=value[,key=value] (a cluster of "
         "several nodes: the generator on nodes of its own; unset: the load-job chart's preference for nodes without "
         "the build)", "kubernetes"),
    Knob("BENCH_NAMESPACE", "reactive-bench", "the namespace of the deployed builds", "kubernetes"),
    # the tools the harness runs: their one default is the Makefile's, the pinned binary (tool() asks for it)
    Knob("LOADGEN", None, "the load generator's binary", TOOLS),
    Knob("HELM", None, "helm's binary", TOOLS),
    Knob("KUBE_VERSION", None, "the Kubernetes version the manifests are rendered for", TOOLS),
    Knob("JAVA_HOME", None, "the JDK whose jcmd records the profiles", TOOLS),
)
BY_NAME = {knob.name: knob for knob in CORE}


def value(name, environ=None):
    """A core knob's value: the environment's, parsed, or its default."""
    return BY_NAME[name].value(os.environ if environ is None else environ)


def tool(name):
    """A tool's path or version, as the Makefile gives it (its one default); refused where it is not given."""
    return value(name) or sys.exit(f"{name} is not set: make sets it to the pinned tool (run the experiment through "
                                   f"make, or set {name})")


def rows(knobs, group):
    """docs/local.md's table of a group's knobs."""
    return [["variable", "default", "meaning"],
            *([f"`{knob.name}`", knob.shown, knob.help] for knob in knobs if knob.group == group)]


def listing(knobs):
    """Every knob, group by group, with its default: what make knobs prints."""
    lines = []
    for group in dict.fromkeys(knob.group for knob in knobs):
        lines.append(f"{group}:")
        lines += [f"  {knob.name:<26} {knob.shown:<22} {knob.help}" for knob in knobs if knob.group == group]
    return "\n".join(lines)
