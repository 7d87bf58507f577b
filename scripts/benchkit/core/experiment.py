"""What an experiment is to the harness: two records every experiment package declares, MEASURES (what running it
needs of it: five hooks, and its lengths) and PUBLISHES (what publishing reads of it), which the registry reads by
their type. Nothing of an experiment is found by getattr, and a test holds every package to both."""
import dataclasses
from typing import Callable, Optional

from benchkit.core.kinds import Kind
from benchkit.core.load import Lengths


def every_build(spec):
    return None


def no_floor(spec):
    return False


@dataclasses.dataclass(frozen=True)
class Measures:
    Spec: type  # its settings: a frozen dataclass of knobs (knobs.knob), each with its one default
    run: Callable  # run(platform, spec, directory) -> the path of the document it wrote
    versions: Callable = every_build  # versions(spec): the builds it measures unless VERSIONS says (None: every one)
    needs: tuple = ()  # what it asks of a platform beyond what every experiment does (platform.Faults, LatencyProxy)
    floor: Callable = no_floor  # floor(spec): whether it measures the floor (v0) beside the builds, where it runs
    lengths: Lengths = Lengths()  # its designs' phases' lengths where not the load's (make knobs lists them)


@dataclasses.dataclass(frozen=True)
class Publishes:
    """A summary kind of its own (kind), or what its designs add to the cell document every grid run writes: the
    files its runs write (run_files), the tables and charts a doc may show ({marker name: summary -> rows or svg}),
    and per design ({design: function}) what its check adds (consistency: summary -> [problem]), what pooling
    sessions adds (pool), and what is held against the summary as first committed (sealed)."""
    kind: Optional[Kind] = None
    run_files: tuple = ()
    tables: dict = dataclasses.field(default_factory=dict)
    charts: dict = dataclasses.field(default_factory=dict)
    consistency: dict = dataclasses.field(default_factory=dict)
    pool: dict = dataclasses.field(default_factory=dict)
    sealed: dict = dataclasses.field(default_factory=dict)
    report: Optional[Callable] = None  # report(document's path): the run's own report beside it, read from it alone
