"""The layers of the harness: the core (core/: the protocol, the platform interface, the builds' configuration, the
tunables, the document model) imports no experiment and neither platform (platforms/: the local stack's and
Kubernetes' implementations of its interface, which import the core); an experiment (experiments/<name>/) imports
the core, never another experiment and no platform (it asks its platform, never which one it has), so that one can
change, or a new one come, without touching another; what only publishes (publish/) imports no experiment, no
platform and none of the core's modules that measure (MEASURING), and nothing that measures imports it; what both
read of an experiment's document (schemas/) imports neither, nor anything that measures; the registry and the docs'
figures sit above them all."""
import ast

from benchkit import ROOT

PACKAGE = ROOT / "scripts" / "benchkit"
# Data any layer may read: the list of experiments, which imports nothing of the harness (make reads it with a bare
# python3, before any package is installed)
LEAVES = {"benchkit.catalogue"}
# The core's modules that measure: start and load the builds, run a design's rounds, read what they did
MEASURING = {f"benchkit.core.{name}" for name in ("design", "protocol", "load", "platform", "profile", "prometheus",
                                                   "latency")}


def layer(module):
    """("core", None), ("experiments", name), ("platforms", None), ("publish", None) or ("top", None) of a dotted
    benchkit module."""
    parts = module.split(".")[1:]
    if parts and parts[0] == "experiments" and len(parts) > 1:
        return "experiments", parts[1]
    return (parts[0], None) if parts and parts[0] in ("core", "platforms", "publish", "schemas") else ("top", None)


def imported(text):
    """The benchkit modules a file imports: `from benchkit.x import y` gives benchkit.x.y (y may be a module)."""
    found = set()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("benchkit"):
            found |= {f"{node.module}.{alias.name}" for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level:
            found.add("benchkit.relative")  # refused below: every import names its layer
    return found


def is_module(module):
    """benchkit.registry is a module; benchkit.ROOT a name of the package's own."""
    path = PACKAGE.joinpath(*module.split(".")[1:])
    return path.with_suffix(".py").exists() or path.is_dir()


def module_of(name):
    """The module an import reads: benchkit.x.y where y is a module, else benchkit.x (y a name of x's)."""
    return name if is_module(name) or "." not in name else name.rsplit(".", 1)[0]


def crossings(read=lambda path: path.read_text()):
    found = set()
    for path in PACKAGE.rglob("*.py"):
        if "tests" in path.parts:
            continue
        mine = layer(".".join(("benchkit", *path.relative_to(PACKAGE).with_suffix("").parts)))
        for module in map(module_of, imported(read(path))):
            other = layer(module)
            if module == "benchkit.relative":
                found.add((str(path.relative_to(PACKAGE)), "a relative import"))
            elif mine[0] in ("core", "platforms", "publish", "schemas") and other[0] in ("experiments", "top") \
                    and module not in LEAVES and module != "benchkit":
                found.add((mine[0], module))
            elif mine[0] in ("core", "publish", "schemas") and other[0] == "platforms":  # what publishes measures nothing
                found.add((mine[0], module))
            elif mine[0] in ("publish", "schemas") and module in MEASURING:
                found.add((mine[0], module))
            elif mine[0] in ("core", "platforms", "experiments", "schemas") and other[0] == "publish":  # measuring
                found.add((mine[0], module))  # publishes nothing
            elif mine[0] in ("core", "platforms") and other[0] == "schemas":  # what an experiment's document means
                found.add((mine[0], module))  # is above the core
            elif mine[0] == "experiments" and other[0] == "platforms":  # an experiment asks its platform, never which
                found.add((mine[0], module))
            elif mine[0] == "experiments" and other[0] == "experiments" and other[1] != mine[1]:
                found.add((mine[1], other[1]))
    return found


def test_experiments_import_the_core_never_each_other():
    assert crossings() == set()


def test_the_rule_bites():
    extra = {PACKAGE / "experiments" / "ab" / "__init__.py": "\nfrom benchkit.experiments.latencymap import grid\n",
             PACKAGE / "experiments" / "chaos" / "clients.py": "\nfrom benchkit.experiments import sweep\n",
             PACKAGE / "core" / "protocol.py": "\nfrom benchkit import registry\n",
             PACKAGE / "core" / "design.py": "\nfrom benchkit.platforms import procfs\n",
             PACKAGE / "publish" / "traces.py": "\nfrom benchkit.platforms import local\nfrom benchkit.experiments import bench\n"
                                                 "from benchkit.core import protocol\n",
             PACKAGE / "experiments" / "cpumap" / "answering.py": "\nfrom benchkit.publish import ab\n",
             PACKAGE / "schemas" / "latencymap.py": "\nfrom benchkit.core.protocol import measure\n"
                                                   "from benchkit.experiments.latencymap import run\n",
             PACKAGE / "core" / "cells.py": "\nfrom benchkit.schemas.latencymap import as_grid\n",
             PACKAGE / "experiments" / "sweep" / "__init__.py": "\nfrom benchkit.platforms.procfs import machine_cpu\n"}
    assert crossings(lambda path: path.read_text() + extra.get(path, "")) == {
        ("ab", "latencymap"), ("chaos", "sweep"), ("core", "benchkit.registry"), ("core", "benchkit.platforms.procfs"),
        ("publish", "benchkit.platforms.local"), ("publish", "benchkit.experiments.bench"),
        ("publish", "benchkit.core.protocol"), ("experiments", "benchkit.publish.ab"),
        ("experiments", "benchkit.platforms.procfs"), ("schemas", "benchkit.core.protocol"),
        ("schemas", "benchkit.experiments.latencymap"), ("core", "benchkit.schemas.latencymap")}


def test_a_leaf_imports_nothing_of_the_harness():
    assert all(not imported((PACKAGE / f"{leaf.split('.', 1)[1]}.py").read_text()) for leaf in LEAVES)


def test_every_module_of_the_harness_imports():
    """A command's module that no test imports would otherwise fail only when a user runs it."""
    import importlib
    for path in PACKAGE.rglob("*.py"):
        if "tests" not in path.parts and path.name != "__main__.py":
            parts = path.relative_to(PACKAGE).with_suffix("").parts
            importlib.import_module(".".join(("benchkit", *(p for p in parts if p != "__init__"))))


def test_no_module_of_the_harness_is_over_400_lines():
    """A module past 400 lines holds more than one concern: split it by concern (as kube.py was)."""
    long = {str(path.relative_to(PACKAGE)): lines for path in PACKAGE.rglob("*.py") if "tests" not in path.parts
            and (lines := len(path.read_text().splitlines())) > 400}
    assert not long, f"over 400 lines: {long}"


def test_no_function_of_the_harness_is_over_60_lines():
    """A function past 60 lines does more than one thing: name its parts (as the latency map's run did)."""
    long = {f"{path.relative_to(PACKAGE)}:{node.name}": node.end_lineno - node.lineno + 1
            for path in PACKAGE.rglob("*.py") if "tests" not in path.parts
            for node in ast.walk(ast.parse(path.read_text()))
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.end_lineno - node.lineno + 1 > 60}
    assert not long, f"over 60 lines: {long}"


def importers():
    """{core module: the layers that import it ("core", "experiments/<name>", "top")}."""
    found = {}
    for path in PACKAGE.rglob("*.py"):
        if "tests" in path.parts:
            continue
        parts = path.relative_to(PACKAGE).parts
        who = "core" if parts[0] == "core" else f"experiments/{parts[1]}" if parts[0] == "experiments" else "top"
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("benchkit.core"):
                for module in (node.module, *(f"{node.module}.{alias.name}" for alias in node.names)):
                    found.setdefault(module, set()).add(who)
    return found


def alone(found, modules):
    """{core module: its one importer} of the modules one experiment alone imports."""
    return {module: users for module, users in found.items() if module in modules
            and len(users) == 1 and next(iter(users)).startswith("experiments/")}


def test_no_core_module_serves_one_experiment_alone():
    """A module of core/ that only one experiment imports (and nothing of the core) is that experiment's."""
    modules = {"benchkit.core." + ".".join(path.relative_to(PACKAGE / "core").with_suffix("").parts)
               for path in (PACKAGE / "core").rglob("*.py") if path.stem != "__init__"}
    assert not alone(importers(), modules), "core modules one experiment alone imports"
    # the rule bites: the bench's run document, back in the core, would be one
    assert alone({"benchkit.core.document": {"experiments/bench"}, "benchkit.core.design": {"experiments/ab",
                  "experiments/cpumap"}}, {"benchkit.core.document", "benchkit.core.design"}) == {
        "benchkit.core.document": {"experiments/bench"}}


def test_at_most_four_result_schemas_one_for_each_shape_of_result():
    """cells (every grid design, the sweep's candidates too), chaos's, the traces' and the remainder's (the node
    against the local stack, step by step): a fifth kind of result is one of these first, or says why not here."""
    from benchkit.publish import registry as publishing
    schemas = {kind.summary_schema for kind in publishing.KINDS}
    assert len(schemas) <= 4, sorted(schemas)
