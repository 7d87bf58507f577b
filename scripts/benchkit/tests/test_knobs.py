"""Each knob has one default, declared once: the core's in knobs.py, each experiment's as a field of its Spec. Every
knob the harness reads is declared, every declared knob is read, no name is declared twice, and nothing else reads a
setting of a user's from the environment itself."""
import dataclasses
import os
import re

import pytest

from benchkit import ROOT, registry
from benchkit.core import knobs

PACKAGE = ROOT / "scripts" / "benchkit"
HARNESS = [path for path in PACKAGE.rglob("*.py") if "tests" not in path.parts]
# Read from the environment outside knobs.py, and why: plumbing one script hands the next, and the load's own
# settings, whose defaults load/scenarios.json holds (load.setting).
ELSEWHERE = {"LOCAL_DIR", "NODE_DIR", "NODE_PROCESSES", "RATE"}


def core_knobs_read():
    return {name for path in HARNESS
            for name in re.findall(r"knobs\.(?:value|tool)\(\s*[\"']([A-Z][A-Z0-9_]+)[\"']", path.read_text())}


def test_every_core_knob_read_is_declared_and_every_declared_one_is_read():
    assert core_knobs_read() - set(knobs.BY_NAME) == set(), "read but not declared in knobs.CORE"
    assert set(knobs.BY_NAME) - core_knobs_read() == set(), "declared in knobs.CORE and never read"


def test_every_field_of_every_spec_is_read_by_its_experiment():
    for package in {experiment.package for experiment in registry.EXPERIMENTS.values()}:
        found = PACKAGE.joinpath(*package.__name__.split(".")[1:])  # a package, or an experiment of one module
        text = "\n".join(path.read_text() for path in (found.glob("*.py") if found.is_dir() else [found.with_suffix(".py")]))
        unread = [field.name for field in dataclasses.fields(package.Spec)
                  if not re.search(rf"\bspec\.{field.name}\b", text)]
        assert unread == [], f"{package.__name__}: declared in its Spec and never read"


def test_no_knob_is_declared_twice():
    names = [knob.name for knob in registry.KNOBS]
    assert len(names) == len(set(names)), sorted(name for name in names if names.count(name) > 1)


def test_nothing_else_reads_a_users_setting_from_the_environment():
    found = {}
    for path in HARNESS:
        if path.name != "knobs.py":
            text = path.read_text()
            for name in re.findall(r"environ(?:\.get)?\(\s*[\"']([A-Z][A-Z0-9_]+)[\"']", text) + \
                    re.findall(r"[\"']([A-Z][A-Z0-9_]+)[\"'] (?:not )?in os\.environ", text):
                found.setdefault(name, path.name)
    assert set(found) - ELSEWHERE == set(), f"read outside knobs.py: {found}"


def test_a_knob_is_its_default_unless_given_and_parsed_when_given():
    assert knobs.value("RUNS", {}) == 3 and knobs.value("RUNS", {"RUNS": "5"}) == 5
    assert knobs.value("LATENCY_JITTER", {"LATENCY_JITTER": ""}) == 0.1  # empty: not given
    assert knobs.value("LOAD_IMAGE", {}) is None
    assert knobs.rows(registry.KNOBS, "ab")[1][:2] == ["`AB_SIZES`", "none"]


def test_a_spec_is_read_from_the_environment_typed_and_refused_by_name_when_wrong(tmp_path):
    from benchkit.experiments import chaos, latencymap, sweep
    spec = knobs.spec_of(latencymap.Spec, "latencymap", {"MAP_RATES": "100,200", "LATENCY_DATABASE_MS": ""})
    assert spec.rates == (100, 200) and spec.users == (100, 400, 1000) and spec.duration == "10s"
    assert spec.database_ms == ()  # a list set empty is none: a map of the authors hop alone
    assert knobs.spec_of(chaos.Spec, "chaos", {"CHAOS_QUICK": "1", "CHAOS_FAULTS": "a,b"}) == \
        chaos.Spec(faults=("a", "b"), quick=True)
    assert knobs.spec_of(chaos.Spec, "chaos", {"CHAOS_QUICK": "0"}).quick is False
    with pytest.raises(SystemExit, match="MAP_RATES=three"):
        knobs.spec_of(latencymap.Spec, "latencymap", {"MAP_RATES": "three"})
    with pytest.raises(SystemExit, match="no sweep.json there"):
        knobs.spec_of(sweep.Spec, "sweep", {"SWEEP_KEEP": str(tmp_path)})
    (tmp_path / "sweep.json").write_text("{}")
    assert knobs.spec_of(sweep.Spec, "sweep", {"SWEEP_KEEP": str(tmp_path)}).keep == tmp_path.resolve()
    # as a user names it beside the make command: from the checkout's root, wherever benchkit runs
    relative = os.path.relpath(tmp_path, knobs.ROOT)
    assert knobs.spec_of(sweep.Spec, "sweep", {"SWEEP_KEEP": relative}).keep == tmp_path.resolve()


def test_an_experiment_entry_gives_the_fields_no_user_sets():
    from benchkit.experiments import ab
    tls, reads = registry.EXPERIMENTS["tls"], registry.EXPERIMENTS["reads"]
    assert knobs.spec_of(ab.Spec, "ab", {}, **reads.given).variant == "reads"
    assert ab.versions(knobs.spec_of(ab.Spec, "ab", {}, **reads.given)) == ("v1", "v3")
    assert tls.platforms == ("local",) and registry.EXPERIMENTS["bench"].platforms == ("local", "kubernetes")


def test_the_experiments_are_listed_once_in_the_catalogue_and_make_s_rules_come_from_it():
    from benchkit import catalogue
    makefile = (knobs.ROOT / "Makefile").read_text()
    targets = [target for entry in catalogue.EXPERIMENTS for target in entry.targets().values()]
    assert len(targets) == len(set(targets))
    # no target of an experiment is written into the Makefile by hand: its rule and help are the catalogue's
    assert not [t for t in targets if re.search(rf"^{re.escape(t)}:", makefile, re.M)]
    rules = catalogue.make_rules()
    assert "LOCAL_EXPERIMENTS := demo sweep tls" in rules and "\ntracing-absent: build-without-tracing\n" in rules
    assert "CLUSTER_EXPERIMENTS := bench sweep-cluster" in rules and "tls-cluster" not in rules
    assert set(registry.EXPERIMENTS) == set(catalogue.BY_NAME)
    assert all(callable(e.measures.run) and e.measures.Spec for e in registry.EXPERIMENTS.values())


def defaults_by_name():
    """{name: [(where, default)]} of every environment name the harness, the load scenarios and the Makefile give a
    default."""
    import json
    found = {}
    for knob in registry.KNOBS:
        if knob.default is not None and knob.default != ():
            found.setdefault(knob.name, []).append(("knobs", knob.default))
    scenarios = json.loads((knobs.ROOT / "load" / "scenarios.json").read_text())["scenarios"]
    for name, scenario in scenarios.items():
        for setting in scenario.values():
            if isinstance(setting, dict) and "env" in setting:
                found.setdefault(setting["env"], []).append((f"scenarios.json {name}", setting["default"]))
    makefile = (knobs.ROOT / "Makefile").read_text()
    for name, default in re.findall(r"^([A-Z][A-Z0-9_]*) *[?:]?= *(.*)$", makefile, re.M):
        if name in found or name in {knob.name for knob in registry.KNOBS}:
            found.setdefault(name, []).append(("Makefile", default))
    return found


def second_defaults(found):
    """{name: [(where, default)]} of the names given two different defaults, or defaults in two places (the load
    scenarios count as one place)."""
    def place(where):
        return "scenarios.json" if where.startswith("scenarios.json") else where
    return {name: where for name, where in found.items()
            if len({str(default) for _, default in where}) > 1 or len({place(p) for p, _ in where}) > 1}


def test_every_name_has_one_default():
    assert not second_defaults(defaults_by_name()), "names with more than one default"


def test_a_second_default_is_found():
    assert second_defaults({"RATE": [("scenarios.json open", 800), ("scenarios.json steady", 50)],
                            "USERS": [("scenarios.json warmup", 100), ("scenarios.json closed", 100)],
                            "LOADGEN": [("knobs", "loadgen"), ("Makefile", "$(LOCALBIN)/loadgen")]}) == {
        "RATE": [("scenarios.json open", 800), ("scenarios.json steady", 50)],
        "LOADGEN": [("knobs", "loadgen"), ("Makefile", "$(LOCALBIN)/loadgen")]}


def test_what_an_experiment_needs_of_a_platform_beyond_the_base_is_a_plug_in_it_declares():
    from benchkit.core import platform as platforms, plugins
    for experiment in registry.EXPERIMENTS.values():
        assert set(experiment.measures.needs) <= {plugins.Faults, plugins.LatencyProxy}, experiment.name
    assert registry.EXPERIMENTS["chaos"].measures.needs == (plugins.Faults, plugins.LatencyProxy)
    # neither the base interface nor a platform holds a fault's or the proxy's methods: its plug-ins do
    from benchkit.platforms.kubernetes import Kubernetes
    from benchkit.platforms.local import Local
    for interface in (platforms.Platform, Local, Kubernetes):
        assert not {"act", "act_on_part", "replicas", "latency", "hop_addresses", "through_proxy", "web_api_metrics",
                    "machine_ticks"} & {name for kind in interface.__mro__ for name in vars(kind)}, interface


def test_make_test_has_a_step_for_every_experiment_s_target_the_catalogue_does_not_say_why_it_has_none():
    """The catalogue is the one list: e2e's steps (benchkit run NAME, here) and test-cluster's (make_target TARGET,
    against the deployed builds) are held to it, both ways."""
    import re
    from benchkit import ROOT, catalogue
    stepped = {catalogue.LOCAL: set(re.findall(r"\brun ([a-z-]+) \"", (ROOT / "scripts/checks/e2e-test.sh").read_text())),
               catalogue.CLUSTER: set(re.findall(r"\bmake_target ([a-z-]+)",
                                                 (ROOT / "scripts/cluster/test-cluster/test.sh").read_text()))}
    for entry in catalogue.EXPERIMENTS:
        for platform, target in entry.targets().items():
            name = entry.name if platform == catalogue.LOCAL else target
            assert (name in stepped[platform]) != (platform in entry.untested), (entry.name, platform)
    assert {"bench", "sweep", "chaos", "latency-map", "answer"} <= stepped[catalogue.LOCAL]  # the CPU map runs as make answer


def test_make_knobs_lists_the_load_s_own_settings_and_the_lengths_an_experiment_keeps():
    lines = registry.load_listing().splitlines()
    listed = {line.split()[0]: line.split(None, 1)[1] for line in lines if line.startswith("  ")}
    assert listed["ITERATIONS"].split()[0] == "300" and listed["WARMUP_ITERATIONS"].split()[0] == "900"
    assert listed["cpumap"] == "50 measured, 300 in a warm-up window" and "bench" not in listed  # make bench's: the load's


def test_make_knobs_shows_each_name_once_with_its_one_default(monkeypatch):
    """One default per name: a knob, a load setting and a design's length each once in make knobs; a second default
    of a name (a knob an experiment declared again, or a setting of load/scenarios.json under a knob's name) fails."""
    def names():
        listed = [line.split()[0] for line in (knobs.listing(registry.KNOBS) + "\n" + registry.load_listing()
                                                ).splitlines() if line.startswith("  ")]
        return [name for name in set(listed) if listed.count(name) > 1]
    assert names() == []
    monkeypatch.setattr(registry, "KNOBS", registry.KNOBS + (knobs.Knob("ITERATIONS", 150, "planted", "ab"),))
    assert names() == ["ITERATIONS"]


def test_the_type_checker_holds_each_record_to_its_hooks_signatures(tmp_path, monkeypatch):
    """make test-static runs mypy over every experiment's two records (scripts/mypy.ini); it bites on a hook of the
    wrong shape: a run that takes no directory, a versions hook that takes no spec, a report given no path."""
    from mypy import api
    planted = tmp_path / "planted.py"
    planted.write_text("""
from benchkit.core.experiment import Measures
from benchkit.publish.kinds import Publishes

def run(platform, spec):
    return None

def every_one():
    return None

def report(path, where):
    return None

MEASURES = Measures(object, run, every_one)
PUBLISHES = Publishes(report=report)
""")
    config = ROOT / "scripts" / "mypy.ini"
    monkeypatch.chdir(config.parent)  # where its files are named from, as make test-static runs it
    said, _, status = api.run(["--config-file", str(config), "--cache-dir", str(tmp_path / "cache"), str(planted)])
    assert status == 1 and said.count("error:") == 3, said
    assert 'Argument 2 to "Measures"' in said and 'Argument 3 to "Measures"' in said and '"report"' in said
    _, _, status = api.run(["--config-file", str(config), "--cache-dir", str(tmp_path / "cache")])
    assert status == 0  # every record as declared


def test_an_experiment_is_its_two_declared_records_and_nothing_found_by_name():
    """Every experiment declares MEASURES (core.experiment.Measures: five hooks) and PUBLISHES (publish.kinds.Publishes);
    the registry and the command line read nothing else of it, and find nothing by getattr."""
    import ast
    from benchkit.core.experiment import Measures
    from benchkit.publish.kinds import Publishes
    for experiment in registry.EXPERIMENTS.values():
        assert isinstance(experiment.measures, Measures) and isinstance(experiment.publishes, Publishes), experiment.name
    assert len(dataclasses.fields(Measures)) <= 6
    hooks = {"Spec", "run", "versions", "NEEDS", "MEASURES_FLOOR", "KIND", "RUN_FILES", "TABLES", "CHARTS",
             "CONSISTENCY", "POOL", "SEALED"}
    for module in ("registry.py", "publish/registry.py", "__main__.py"):
        tree = ast.parse((knobs.ROOT / "scripts" / "benchkit" / module).read_text())
        found = [node for node in ast.walk(tree) if isinstance(node, ast.Call)
                 and getattr(node.func, "id", None) in ("getattr", "hasattr") and "package" in ast.unparse(node.args[0])]
        assert not found, f"{module} finds an experiment's parts by name"
        read = {node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute)
                and getattr(node.value, "id", None) == "package"}
        assert not read & hooks, f"{module} reads {read & hooks} of a package, not of its records"
