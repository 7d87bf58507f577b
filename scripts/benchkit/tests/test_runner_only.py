"""No measuring loop outside the core's runner: an experiment starts and loads its builds only in what it gives the
runner (a Design's phases, arrange and again, and what they call), never around it. The runner (core.design.run)
then starts, warms, orders and records every cell the same way, whatever the experiment."""
import ast

from benchkit.tests.test_imports import PACKAGE

# what starts a build or loads it: the platform's starts, the protocol's warm-up, background, runs and rounds, the
# runner's own loops entered from the side, a load's run and a profile's ({name: the receivers it is called on, or
# None for any})
STARTS_OR_LOADS = {**dict.fromkeys(("size", "reconfigure", "lift", "calibrate"), {"platform"}),
                   **dict.fromkeys(("warm_up", "background", "measure", "closed_round", "open_round", "fork",
                                    "measure_group", "measure_rounds"), None),
                   "run": {"load", "build", "it"}, "record": {"profile"}}
HOOKS = ("phases", "arrange", "again")  # what a Design hands the runner


def bad(name, receiver):
    """Whether a call starts or loads a build."""
    return name in STARTS_OR_LOADS and (STARTS_OR_LOADS[name] is None or receiver in STARTS_OR_LOADS[name])


def called(function):
    """The names a function calls in its own body (a def nested in it is a function of its own), where each call is:
    (name, the receiver's name for an attribute call)."""
    found, todo = [], list(function.body if isinstance(function, ast.FunctionDef) else function)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) and node is not function:
            continue
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Name):
                found.append((func.id, None))
            elif isinstance(func, ast.Attribute):
                found.append((func.attr, func.value.id if isinstance(func.value, ast.Name) else None))
        todo.extend(ast.iter_child_nodes(node))
    return found


def outside_the_runner(sources):
    """{(module, function, name called)} of every start or load an experiment's modules ({module: source}) make
    outside what they give the runner."""
    functions, hooked, nested, module_level = {}, set(), {}, {}
    for module, source in sources.items():
        tree = ast.parse(source)
        module_level[module] = [n for n in tree.body if not isinstance(n, (ast.FunctionDef, ast.ClassDef))]
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef):
                functions.setdefault(node.name, []).append((module, node))
                nested[node.name] = {n.name for n in ast.walk(node) if isinstance(n, ast.FunctionDef) and n is not node}
            if isinstance(node, ast.Call):
                hooked |= {n.id for k in node.keywords if k.arg in HOOKS for n in ast.walk(k.value)
                           if isinstance(n, ast.Name)}
    reached, todo = set(), [name for name in hooked if name in functions]
    while todo:  # what a hook calls, and what it defines (a hook made by a function), is the runner's too
        name = todo.pop()
        if name not in reached:
            reached.add(name)
            todo += [n for n in nested.get(name, ()) | {c for _, f in functions[name] for c, _ in called(f)}
                     if n in functions]
    found = {(module, name, call) for name, defined in functions.items() if name not in reached
             for module, f in defined for call, receiver in called(f) if bad(call, receiver)}
    return found | {(module, "", call) for module, nodes in module_level.items()
                    for node in nodes for call, receiver in called([node]) if bad(call, receiver)}


def experiment_sources(package, planted=None):
    """{path: text} of an experiment: its package's modules, or its one module (experiments/<name>.py)."""
    found = PACKAGE / "experiments" / package
    paths = found.rglob("*.py") if found.is_dir() else [found.with_suffix(".py")]
    return {str(path.relative_to(PACKAGE)): path.read_text() + (planted or {}).get(path.name, "") for path in paths}


def test_no_experiment_starts_or_loads_a_build_outside_the_runner():
    packages = sorted([p.name for p in (PACKAGE / "experiments").iterdir() if (p / "__init__.py").exists()]
                      + [p.stem for p in (PACKAGE / "experiments").glob("*.py") if p.stem != "__init__"])
    assert len(packages) >= 7  # ab, bench, chaos, cpumap, latencymap, pools, sweep: every experiment read
    found = {package: outside_the_runner(experiment_sources(package)) for package in packages}
    assert {package: calls for package, calls in found.items() if calls} == {}


def test_the_rule_bites_and_a_hook_may_load():
    around = ("\n\ndef measured_around(platform):\n    platform.size('v1', 0.5)\n    protocol.warm_up('v1', None, None)"
              "\n    design.measure_group(None, [], 0, 1)\n")
    assert outside_the_runner(experiment_sources("cpumap", {"__init__.py": around})) == {
        ("experiments/cpumap/__init__.py", "measured_around", call)
        for call in ("size", "warm_up", "measure_group")}
    # a phase given to a Design loads, and what it calls may start: that is through the runner
    through = ("\n\ndef phase(build, runs_dir, round_, variant, label, facts):\n    return helper(build)\n\n\n"
               "def helper(build):\n    build.run('closed', None)\n    return {}\n\n\n"
               "THROUGH = Design('x', '', '', ('v1',), phases=(phase,))\n")
    assert outside_the_runner(experiment_sources("cpumap", {"__init__.py": through})) == set()
