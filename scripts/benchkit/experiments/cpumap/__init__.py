"""The comparison over CPU per service (make cpu-map, make cpu-map-cluster): every build at each CPU limit.

Every build with each service under a limit of each size of the ladder, given as a pod gets it (a CPU quota and the
processor count the JVM derives from it; locally a cgroup of its own per service), measured in rounds, the builds in
an order drawn at random (reversed in the round after), each started from cold JVMs in every round (a fork), warmed,
its background measured, then measured: what a fork took to start is kept with its figures. In each round a build is measured in
the closed model (what it carries at most), in the open model at one fixed rate for every build and size (the latency a
team sees at a given load), and up a ladder of open rates, shares of its own closed-model rate, until p99 of complete
answers passes the bound (its capacity: the rate a team sizes pods by). Per size: each build's figures and their ratios
to v1 round by round, what the kernel counted per complete answer, whether the quota or the machine bounded the cell,
and what each JVM saw and chose there. Writes cpu-map.json (the cell document, core.cells); its report is publish.cpumap's."""
import dataclasses
import json
import pathlib
import time

from benchkit.core.experiment import Measures
from benchkit.core import cells as celldoc, design
from benchkit.core.design import CLOSED, OPEN, Design
from benchkit.core.knobs import knob, results_directory
from benchkit.core.load import Lengths
from benchkit.core.sizes import LADDER, rungs
from benchkit.experiments.cpumap import answering

# the closed model's requests per user in each round: short rounds, as a map measures many cells
LENGTHS = Lengths(iterations=50, warmup=300)


@dataclasses.dataclass(frozen=True)
class Spec:
    sizes: tuple = knob("CPU_MAP_SIZES", LADDER, "the ladder: CPUs per service's JVM, each a limit "
                        "as a pod's (0: no limit; 1p: one processor counted, no quota)", lambda text: rungs(text))
    keep: pathlib.Path | None = knob("CPU_MAP_KEEP", None, "a map that stopped half-way (its results directory): "
                                     "its rungs of this ladder are kept, the others measured, in its document",
                                     results_directory("cpu-map.json"))
    # make answer: the map at the sizes whose quota binds on the platform and the whole machine, the A/A and the floor
    # in the same forks, adding rounds until every cell the answer quotes is decided (given by its catalogue entry)
    answer: bool = False
    answer_minutes: int = knob("ANSWER_MINUTES", 120, "make answer's time: it adds rounds while a cell it quotes is "
                               "undecided, until this many minutes (each size its share) or its last look")
    answer_looks: int = knob("ANSWER_LOOKS", 4, "make answer's looks at its data, fixed before the first round: after "
                             "RUNS rounds at a size, and after each round added; the intervals' error split over them")
    answer_with: tuple = knob("ANSWER_WITH", (), "earlier make answer runs (results directories, comma-separated, an "
                              "hour apart or more): pooled with this one, so that words can be decided",
                              lambda text: tuple(results_directory("answer.json")(p) for p in text.split(",") if p))


def cpu_map(spec, versions):
    """The CPU map as a Design: every build at each size of the ladder, against v1 at the same size."""
    return Design("cpu-map", "The comparison over CPU per service", EXPLANATION, versions, sizes=spec.sizes,
                  compared=celldoc.BUILD, phases=(CLOSED, OPEN), restart=design.EACH_ROUND, ergonomics=True,
                  lengths=LENGTHS)


def run(platform, spec, directory):
    """Every size of the ladder, every build (make answer: its rows, until decided): cpu-map.json or answer.json (its
    report: publish.cpumap)."""
    kept = json.loads((spec.keep / "cpu-map.json").read_text()) if spec.keep else None
    extra = {}
    if spec.answer:
        spec = dataclasses.replace(spec, sizes=answering.sizes_binding(platform.machine_cores(), spec.sizes))
        the_map = answering.design_of(cpu_map(spec, platform.versions), spec, time.monotonic())
        extra = {"looks": spec.answer_looks}
    else:
        the_map = cpu_map(spec, platform.versions)
    data = design.run(platform, the_map, directory, extra,
                      on_cell=lambda cell, environment: {"bound_by": celldoc.bound_by(cell, environment)}, kept=kept)
    if spec.answer:
        answering.conclude(data, spec, directory)
    return directory / f"{the_map.name}.json"


EXPLANATION = ("Each build with every service's JVM limited to the size of the row, as a pod's CPU limit is: a CFS "
               "quota, and the processors the JVM counts (the quota rounded up), which size its GC, compiler and "
               "pools; PostgreSQL and Kafka unlimited. The closed model gives what a build carries at most; the open "
               "model at one fixed rate the latency at the same load for every build and size; the capacity is the "
               "highest rate of a ladder of open rates (shares of the build's own closed-model rate in the round) "
               "carried with p99 of complete answers within the bound, the rate a team sizes pods by. Held back by: "
               f"the quota where a service was throttled in {celldoc.QUOTA_BINDS:.0%} of its periods or more in the "
               "closed round, else not its quota: the machine's cores, which the build shares with PostgreSQL, Kafka "
               "and the load generator (the share of them its processes and the generator used is given). Each "
               "figure is the median of the rounds with the lowest and highest; a ratio is the median of the rounds' "
               "own ratios to v1 at the same size.")


def floor(spec):  # make answer measures the floor in its forks
    return spec.answer


MEASURES = Measures(Spec, run, floor=floor, lengths=LENGTHS)
