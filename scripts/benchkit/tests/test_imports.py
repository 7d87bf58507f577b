"""Experiments import the core, never each other: each is measured through the protocol, the platforms, the builds'
configuration and the tunables, so that one can change, or a new one come, without touching another."""
import ast

from benchkit import ROOT

PACKAGE = ROOT / "scripts" / "benchkit"
# Each experiment's modules: its run and its renderers. Everything else is the core they share.
EXPERIMENTS = {"bench": ("bench", "report", "summaries", "tables"), "sweep": ("sweep",), "ab": ("ab",), "chaos": ("chaos",),
               "compare": ("compare",), "latency-map": ("latencymap", "latencyreport"), "bakeoff": ("bakeoff",),
               "reach": ("reach",)}
# The one import across experiments, and why: make demo's report shows the sweep that chose its builds' settings
# (SWEEP=results/sweep-<time>), rendered by the sweep's own section.
ALLOWED = {("report", "sweep")}
OWNER = {module: name for name, modules in EXPERIMENTS.items() for module in modules}


def imported(path, text):
    """The top-level benchkit modules a file imports (its relative imports, resolved against its package)."""
    package = path.relative_to(PACKAGE).parts[:-1]
    found = set()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.ImportFrom) and node.level:
            parts = [*package[:len(package) - node.level + 1], *(node.module.split(".") if node.module else [])]
            found |= {parts[0]} if parts else {alias.name for alias in node.names}
    return found


def crossings(read=lambda path: path.read_text()):
    found = set()
    for path in PACKAGE.rglob("*.py"):
        if "tests" in path.parts:
            continue
        module = path.relative_to(PACKAGE).parts[0].removesuffix(".py")
        for other in imported(path, read(path)):
            if module in OWNER and other in OWNER and OWNER[other] != OWNER[module] and (module, other) not in ALLOWED:
                found.add((module, other))
    return found


def test_experiments_import_the_core_never_each_other():
    assert crossings() == set()


def test_the_rule_bites():
    extra = {PACKAGE / "ab.py": "\nfrom .latencymap import grid\n",
             PACKAGE / "chaos" / "report.py": "\nfrom ..sweep import choose\n"}
    assert crossings(lambda path: path.read_text() + extra.get(path, "")) == {("ab", "latencymap"), ("chaos", "sweep")}


def test_every_module_of_the_harness_imports():
    """A command's module that no test imports would otherwise fail only when a user runs it."""
    import importlib
    for path in PACKAGE.rglob("*.py"):
        if "tests" not in path.parts and path.name != "__main__.py":
            parts = path.relative_to(PACKAGE).with_suffix("").parts
            importlib.import_module(".".join(("benchkit", *(p for p in parts if p != "__init__"))))
