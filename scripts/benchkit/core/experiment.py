"""What an experiment is to the harness, as the record its package under experiments/ declares: MEASURES (what
running it needs of it: five hooks, and its lengths), which the registry reads by its type; what is published of it
is publish/<package>'s PUBLISHES (publish.kinds.Publishes). Nothing of an experiment is found by getattr, and a test
holds every experiment to both."""
import dataclasses
from typing import Callable

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
