"""Every build at each database pool size (make pools): does the comparison hold however many connections the data
services keep?

A build's lead could be its pool's: v1 and v3 wait in line for a JDBC connection, v2 pipelines its queries over the
reactive client's. Here articles' and authors' pools are set to the same size in every build (JDBC in v1 and v3, the
reactive client's in v2), each size a mode, and each build is compared with v1 at the same size, its ratios round by
round. Every cell is a cold start of the build, warmed and measured by the core in the closed model, the cells in an
order drawn at random and reversed in the round after. Writes pools.json, the cell document (core.cells),
and its report, which every cell document has (publish.ab).

An experiment of one file: its Design, its settings with their one default each, and its run; the registry finds
what is published of it, and the catalogue's line names its make target."""
import dataclasses

from benchkit.core import cells, design, sizes
from benchkit.core.design import Design
from benchkit.core.experiment import Measures
from benchkit.core.knobs import knob, numbers
from benchkit.core.load import Lengths
from benchkit.core.tunables import JDBC_POOL, REACTIVE_POOL

LENGTHS = Lengths(iterations=150, warmup=300)  # every cell a cold start, as an A/B's


@dataclasses.dataclass(frozen=True)
class Spec:
    connections: tuple = knob("POOLS_CONNECTIONS", (5, 10, 20), "the pool sizes every build is measured at: each of "
                              "articles' and authors' database connections, JDBC or reactive", numbers(int))
    sizes: tuple = knob("POOLS_SIZES", (sizes.NO_LIMIT,), "the CPU per service every pool size is measured at, as "
                        "make cpu-map's ladder (0: no limit)", sizes.rungs)


def pools(spec, builds):
    """The grid: a mode per pool size, every build at each, compared with v1 in the same mode at the same size."""
    return Design("pools", "Every build at each database pool size", __doc__, builds,
                  {f"{count} connections": {JDBC_POOL.name: count, REACTIVE_POOL.name: count}
                   for count in spec.connections}, sizes=spec.sizes, compared=cells.BUILD,
                  settings=(JDBC_POOL, REACTIVE_POOL), lengths=LENGTHS)


def run(platform, spec, directory):
    found = pools(spec, platform.versions)
    design.run(platform, found, directory)
    return directory / f"{found.name}.json"


MEASURES = Measures(Spec, run, lengths=LENGTHS)
