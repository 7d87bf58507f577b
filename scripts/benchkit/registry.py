"""The registry: every experiment a user runs (`benchkit run NAME`, `make NAME`), what measures it and what is
published of it, and every setting the harness reads with its one default (the core's and each experiment's Spec).
The experiments are catalogue.py's; every kind of published result is publish/registry.py's."""
import dataclasses
import importlib

from benchkit import catalogue
from benchkit.core import knobs
from benchkit.core.load import Lengths
from benchkit.publish import registry as publishing


def group_of(package):
    """An experiment package's settings' group: its name (cpumap, latencymap, …)."""
    return package.__name__.rsplit(".", 1)[1]


@dataclasses.dataclass(frozen=True)
class Experiment:
    entry: catalogue.Entry  # its name, package, the Spec's fields it fixes, platforms and make targets
    package: object  # its Spec and run(platform, spec, directory)
    publishes: object  # what is published of it (publish.kinds.Publishes: publish/<package>'s, or every cell document's)

    name = property(lambda self: self.entry.name)
    given = property(lambda self: self.entry.given)
    platforms = property(lambda self: self.entry.platforms)
    group = property(lambda self: group_of(self.package))
    measures = property(lambda self: self.package.MEASURES)  # core.experiment.Measures: what running it needs


EXPERIMENTS = {entry.name: Experiment(entry, importlib.import_module(f"benchkit.experiments.{entry.package}"),
                                       publishing.publishes_of(entry.package))
               for entry in catalogue.EXPERIMENTS}
PACKAGES = tuple(dict.fromkeys(e.package for e in EXPERIMENTS.values()))  # an A/B's entries share one
# every knob: the core's, then each experiment's Spec
KNOBS = knobs.CORE + tuple(knob for package in PACKAGES
                           for knob in knobs.declared(package.MEASURES.Spec, group_of(package)))
def load_listing():
    """The load's own settings (load/scenarios.json), each with its default there and the scenarios that read it;
    then the lengths an experiment's designs keep of their own (MEASURES.lengths), which ITERATIONS and
    WARMUP_ITERATIONS override."""
    from benchkit.core import samples
    found = {}
    for name, scenario in samples.SCENARIOS["scenarios"].items():
        for setting in scenario.values():
            if isinstance(setting, dict) and "env" in setting:
                found.setdefault(setting["env"], (setting["default"], []))[1].append(name)
    own = {group_of(package): package.MEASURES.lengths for package in PACKAGES
           if package.MEASURES.lengths != Lengths()}
    return "\n".join(["load (load/scenarios.json, make bench's):",
                      *(f"  {name:<26} {str(default):<22} scenarios: {', '.join(used)}"
                        for name, (default, used) in found.items()),
                      "an experiment's own lengths, requests per user (ITERATIONS and WARMUP_ITERATIONS set them):",
                      *(f"  {group:<26} {lengths.described()}" for group, lengths in own.items())])
