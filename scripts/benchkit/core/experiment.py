"""What an experiment is to the harness, as the record its package under experiments/ declares: MEASURES (what
running it needs of it: five hooks, and its lengths), which the registry reads by its type; what is published of it
is publish/<package>'s PUBLISHES (publish.kinds.Publishes). Nothing of an experiment is found by getattr, and a test
holds every experiment to both."""
import dataclasses
import pathlib
from typing import Any, Callable, Optional

from benchkit.core.load import Lengths


def every_build(spec):
    return None


def no_floor(spec):
    return False


@dataclasses.dataclass(frozen=True)
class Measures:
    Spec: type  # its settings: a frozen dataclass of knobs (knobs.knob), each with its one default
    run: Callable[[Any, Any, pathlib.Path], pathlib.Path]  # run(platform, spec, directory): the document it wrote
    # versions(spec): the builds it measures unless VERSIONS says (None: every one)
    versions: Callable[[Any], Optional[tuple]] = every_build
    needs: tuple[type, ...] = ()  # the plug-ins it asks of a platform beyond every experiment (core.plugins)
    floor: Callable[[Any], bool] = no_floor  # floor(spec): whether it measures the floor (v0) beside the builds
    lengths: Lengths = Lengths()  # its designs' phases' lengths where not the load's (make knobs lists them)
