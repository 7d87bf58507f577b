"""Every knob of the harness: a setting a user gives in the environment, with its one default and one line of help,
under the experiment it belongs to. The harness reads a knob here and nowhere else (`value`), when a run asks for
it; docs/local.md's tables of knobs are rendered from this list (`<!-- knobs GROUP -->`, held by `figures check`);
a test fails when a knob is read that is not declared here, or declared and never read. The load's own settings
(USERS, ITERATIONS, RATE, …) are load/scenarios.json's, with their defaults there (`load.setting`)."""
import dataclasses
import os


@dataclasses.dataclass(frozen=True)
class Knob:
    name: str
    default: object  # None: not given unless set
    help: str
    group: str
    parse: type = str

    def value(self, environ):
        text = environ.get(self.name)
        return self.default if text is None or text == "" else self.parse(text)

    @property
    def shown(self):
        return "none" if self.default is None else f"`{self.default}`" if isinstance(self.default, str) else str(self.default)


KNOBS = (
    # make demo (benchkit bench)
    Knob("RUNS", 3, "rounds: every build's measured run is repeated, the builds' order turned round every other round; "
         "the report shows the median and the spread (`RUNS=1` for a quicker first look); an A/B's rounds too", "bench", int),
    Knob("SCENARIOS", "closed,open,curve,articles-alone,authors-alone,profile",
         "what to measure (also `smoke`); `curve` needs `closed` before it", "bench"),
    Knob("WARMUP_MAX_WINDOWS", 6, "the most windows of complete answers a warm-up spends waiting for the JIT; the "
         "report says whether it settled within them. A window of degraded or failed answers never ends a warm-up: "
         "it waits for the circuit and warms again, and fails the run, naming what the answers were, past "
         "`protocol.WARMUP_INCOMPLETE_SECONDS` of such windows", "bench", int),
    Knob("BACKGROUND_SECONDS", 10, "the window with no load after the warm-up that measures each process's background "
         "rate", "bench", int),
    Knob("PROFILE_ITERATIONS", 150, "requests per user of the profiled run (scenario `profile`: JFR during one more "
         "closed run)", "bench", int),
    Knob("CURVE_STEP_DURATION", "20s", "each step of the latency-versus-load curve", "bench"),
    Knob("CURVE_REPEATS", 2, "how many times the curve's whole ladder runs; a build's knee is the highest rate it "
         "carried in every repeat", "bench", int),
    Knob("CURVE_SHARES", None, "the curve's rates as shares of the fastest build's closed-model maximum, e.g. "
         "`0.25,1.0` for a short test (unset: the ladder of `curve.SHARES`)", "bench"),
    # make sweep
    Knob("SWEEP_REPEATS", 2, "how many times each candidate value is measured", "sweep", int),
    Knob("SWEEP_ITERATIONS", 150, "measured requests per user for each candidate", "sweep", int),
    Knob("SWEEP_WARMUP_ITERATIONS", 300, "warm-up requests per user after each candidate's restart", "sweep", int),
    Knob("SWEEP_LATENCY_AUTHORS_MS", None, "sweep what latency makes matter: every candidate behind the latency proxy "
         "with this latency per author look-up (± `LATENCY_JITTER` of it)", "sweep", float),
    # make tls, make reads, make proxy-cost (benchkit ab)
    Knob("AB_ITERATIONS", 150, "measured requests per user of each side of an A/B in each round", "ab", int),
    Knob("AB_WARMUP_ITERATIONS", 300, "the first warm-up window's requests per user after each restart", "ab", int),
    # make latency-map
    Knob("LATENCY_AUTHORS_MS", "0,1,5,20,50", "latency per author look-up, the rows of the authors hop",
         "latency-map"),
    Knob("LATENCY_DATABASE_MS", "5", "latency per query, the slow-database rows", "latency-map"),
    Knob("LATENCY_JITTER", 0.1, "jitter as a share of each latency added", "latency-map", float),
    Knob("MAP_RATES", "250,500,1000", "the open model's columns, requests/s", "latency-map"),
    Knob("MAP_USERS", "100,400,1000", "the closed model's columns, users", "latency-map"),
    Knob("MAP_STEP_DURATION", "10s", "how long each cell is loaded", "latency-map"),
    Knob("MAP_REPEATS", 3, "how many times the whole grid runs; a cell whose repeats then differ by more than "
         "`latencyreport.SPREAD_LIMIT` of their median is repeated again", "latency-map", int),
    Knob("SWEEP", None, "a sweep's results directory: the report shows its table (make demo), every build runs with "
         "what it chose (make latency-map)", "latency-map"),
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
    Knob("BENCH_NAMESPACE", "reactive-bench", "the namespace of the deployed builds", "kubernetes"),
    # the tools the harness runs (the Makefile names its pinned ones)
    Knob("LOADGEN", "loadgen", "the load generator's binary", "tools"),
    Knob("HELM", "helm", "helm's binary", "tools"),
    Knob("KUBE_VERSION", None, "the Kubernetes version the manifests are rendered for", "tools"),
    Knob("VEGETA_VERSION", None, "vegeta's version, for the bake-off's report", "tools"),
    Knob("JAVA_HOME", None, "the JDK whose jcmd records the profiles", "tools"),
)
BY_NAME = {knob.name: knob for knob in KNOBS}
GROUPS = tuple(dict.fromkeys(knob.group for knob in KNOBS))


def value(name, environ=None):
    """A knob's value: the environment's, parsed, or its default."""
    return BY_NAME[name].value(os.environ if environ is None else environ)


def rows(group):
    """docs/local.md's table of a group's knobs."""
    return [["variable", "default", "meaning"],
            *([f"`{knob.name}`", knob.shown, knob.help] for knob in KNOBS if knob.group == group)]


def main(argv=None):
    """Every knob, group by group, with its default: what make knobs prints."""
    for group in GROUPS:
        print(f"{group}:")
        for knob in KNOBS:
            if knob.group == group:
                print(f"  {knob.name:<26} {'(none)' if knob.default is None else knob.default!s:<22} {knob.help}")
