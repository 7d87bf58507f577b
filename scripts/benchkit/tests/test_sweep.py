import json
import pathlib

from benchkit.core import cells, design, tunables
from benchkit.experiments import sweep
from benchkit.publish import sweep as publish_sweep
from benchkit.schemas import sweep as schemas_sweep


def test_a_candidate_replaces_the_shipped_value_only_when_clearly_better():
    assert schemas_sweep.choose({16: [900, 1000], 50: [1040, 1020], 200: [1000, 980]}, current=200) == 200  # +3 %: noise
    assert schemas_sweep.choose({16: [900, 1000], 50: [1200, 1100], 200: [1000, 980]}, current=200) == 50
    assert schemas_sweep.choose({1: [500], 256: [520]}, current=256) == 256
    assert schemas_sweep.choose({1: [700], 256: [520]}, current=256) == 1  # a worse shipped value is replaced


def test_each_setting_reaches_the_services_it_applies_to_as_quarkus_environment_variables():
    threads, pool, lookups = tunables.SETTINGS["v1"]
    assert threads.variable == "QUARKUS_THREAD_POOL_MAX_THREADS"
    assert lookups.variable == "WEB_API_AUTHOR_LOOKUPS_MAX_CONCURRENCY"
    chosen = {"worker threads": 50, "JDBC pool": 10, "look-up threads": 25}
    assert tunables.environments(tunables.SETTINGS["v1"], chosen)["web-api"] == \
        {"QUARKUS_THREAD_POOL_MAX_THREADS": "50", "WEB_API_AUTHOR_LOOKUPS_MAX_CONCURRENCY": "25"}
    assert tunables.environments(tunables.SETTINGS["v1"], chosen)["authors"] == \
        {"QUARKUS_THREAD_POOL_MAX_THREADS": "50", "QUARKUS_DATASOURCE_JDBC_MAX_SIZE": "10"}


def test_a_jdk_system_property_reaches_the_java_launcher_and_the_rest_stays_quarkus_configuration():
    carriers, pool, connections = tunables.SETTINGS["v3"]
    assert carriers.current("v3") == 8  # services/builds.conf: java-options v3
    assert carriers.current("v1") == tunables.CORES  # the JDK's default: as many carriers as cores
    chosen = {"carrier threads": 4, "JDBC pool": 10, "authors connections": 50}
    assert tunables.environments(tunables.SETTINGS["v3"], chosen)["web-api"] == \
        {"JDK_JAVA_OPTIONS": "-Djdk.virtualThreadScheduler.parallelism=4",
         "QUARKUS_REST_CLIENT_AUTHORS_CONNECTION_POOL_SIZE": "50"}
    assert tunables.environments(tunables.SETTINGS["v3"], chosen)["articles"] == \
        {"JDK_JAVA_OPTIONS": "-Djdk.virtualThreadScheduler.parallelism=4", "QUARKUS_DATASOURCE_JDBC_MAX_SIZE": "10"}
    assert carriers.label == "jdk-virtualthreadscheduler-parallelism"


def test_under_latency_v1_sizes_its_look_up_threads_and_connections_together_and_the_others_their_connections():
    (lookups,) = tunables.LATENCY_SETTINGS["v1"]
    assert lookups.current("v1") == 100  # application.properties: web-api.author-lookups.max-concurrency
    assert tunables.environments(tunables.LATENCY_SETTINGS["v1"], {"look-ups in flight": 200})["web-api"] == \
        {"WEB_API_AUTHOR_LOOKUPS_MAX_CONCURRENCY": "200", "QUARKUS_REST_CLIENT_AUTHORS_CONNECTION_POOL_SIZE": "200"}
    # never more look-ups at once than authors admits
    assert all(max(s.candidates) <= tunables.buildsconf.max_in_flight() for group in tunables.LATENCY_SETTINGS.values() for s in group)
    for version in ("v2", "v3"):
        (connections,) = tunables.LATENCY_SETTINGS[version]
        assert connections.current(version) == 100  # the config module every build of web-api shares
        assert tunables.environments(tunables.LATENCY_SETTINGS[version], {"authors connections": 500}) == \
            {"web-api": {"QUARKUS_REST_CLIENT_AUTHORS_CONNECTION_POOL_SIZE": "500"}, "articles": {}, "authors": {}}


def test_in_a_one_cpu_pod_the_sizes_derived_from_cores_are_swept_from_what_the_jvm_would_choose_there():
    in_a_pod = tunables.settings_for(1)
    carriers = next(s for s in in_a_pod["v3"] if s.name == "carrier threads")
    event_loops = next(s for s in in_a_pod["v2"] if s.name == "event loops")
    assert (carriers.candidates, carriers.default) == ((1, 2, 4, 8), 1)  # the JDK's default in a 1-CPU pod: 1
    assert (event_loops.candidates, event_loops.default) == ((1, 2, 4), 2)  # Quarkus': 2 x cores
    on_two_cores = tunables.settings_for(2)
    assert next(s for s in on_two_cores["v3"] if s.name == "carrier threads").candidates == (2, 4, 8)
    assert next(s for s in tunables.settings_for(4)["v2"] if s.name == "event loops").candidates == (1, 2, 4, 8)


def test_the_shipped_values_come_from_application_properties_or_quarkus_defaults():
    current = {s.name: s.current("v1") for s in tunables.SETTINGS["v1"]}
    assert current["look-up threads"] > 0 and current["JDBC pool"] > 0
    event_loops, reactive_pool, _ = tunables.SETTINGS["v2"]
    assert (event_loops.current("v2"), reactive_pool.current("v2")) == (2, 5)  # chosen by the sweep of 2026-11-23
    unset = tunables.Setting("unset", "no.such.property", ("web-api",), (1, 2), 7)
    assert unset.current("v2") == 7  # a property the build does not set has Quarkus' default


def swept(version, result, runs):
    """A sweep's document of one build from its candidates' rows (schemas.sweep.runs_of's inverse): a cell per
    setting and value, a round per row, in the order given."""
    found = {}
    for run in runs:
        cell = found.setdefault((run["setting"], run["value"]), {
            "build": version, "mode": f"{run['setting']} {run['value']}", "size": "0", "setting": run["setting"],
            "property": run.get("property", "p"), "value": run["value"], "context": run.get("context", {}),
            "rounds": []})
        cell["rounds"].append({"round": run.get("repeat", len(cell["rounds"]) + 1),
                               **{k: v for k, v in run.items()
                                  if k not in ("setting", "property", "value", "context", "repeat")}})
    return {"builds": {version: result}, "cells": list(found.values())}


def test_the_rows_of_a_sweep_are_its_cells_rounds_in_the_order_measured():
    runs = [{"setting": "JDBC pool", "property": "p", "value": 10, "repeat": 1, "context": {}, "complete_per_s": 1},
            {"setting": "JDBC pool", "property": "p", "value": 10, "repeat": 2, "context": {}, "complete_per_s": 2}]
    assert [{k: v for k, v in run.items() if k != "version"} for run in schemas_sweep.runs_of(swept("v1", {}, runs), "v1")] \
        == runs
    assert schemas_sweep.runs_of(swept("v1", {}, runs), "v2") == []


def test_the_sweep_table_marks_the_chosen_and_the_shipped_value():
    run = {"setting": "JDBC pool", "p99": 20.0, "failed_pct": 0.0}
    result = {"shipped": {"JDBC pool": 20}, "chosen": {"JDBC pool": 10},
              "properties": {"JDBC pool": "quarkus.datasource.jdbc.max-size"},
              "runs": [{**run, "value": 10, "complete_per_s": 1100}, {**run, "value": 10, "complete_per_s": 1000},
                       {**run, "value": 20, "complete_per_s": 900}]}
    rows = publish_sweep.rows_of(swept("v1", result, result.pop("runs")), "v1")
    assert rows[1][:4] == ["JDBC pool (quarkus.datasource.jdbc.max-size)", "10", "1100, 1000", "1050"]
    assert rows[1][-1] == "chosen" and rows[2][-1] == "shipped"


def test_a_candidate_measured_on_a_drifted_machine_is_marked():
    run = {"setting": "JDBC pool", "p99": 20.0, "failed_pct": 0.0, "complete_per_s": 1000}
    result = {"shipped": {"JDBC pool": 20}, "chosen": {"JDBC pool": 20},
              "properties": {"JDBC pool": "quarkus.datasource.jdbc.max-size"},
              "runs": [{**run, "value": 10, "calibration_seconds": 2.0}, {**run, "value": 20, "calibration_seconds": 2.1},
                       {**run, "value": 10, "calibration_seconds": 2.0}, {**run, "value": 20, "calibration_seconds": 3.0}]}
    rows = publish_sweep.rows_of(swept("v1", result, result.pop("runs")), "v1")
    assert rows[1][6] == "2.00, 2.00"
    assert rows[2][6] == "2.10, 3.00 (drifted)"


def test_the_bench_report_carries_the_sweep_it_is_given(tmp_path):
    from benchkit.tests.test_report import rendered, results
    directory = results(tmp_path)
    run = {"setting": "event loops", "p99": 9.0, "failed_pct": 0.0, "value": 2, "complete_per_s": 1500}
    (directory / "sweep.json").write_text(json.dumps(swept("v2", {
        "commit": "abc1234", "shipped": {"event loops": 4}, "chosen": {"event loops": 2},
        "properties": {"event loops": "quarkus.vertx.event-loops-pool-size"}}, [run])))
    rendered(directory)
    md = (directory / "report.md").read_text()
    assert "## Each build at its best" in md
    assert "v2 (swept at commit abc1234): chosen event loops 2, instead of event loops 4 then; the build ships these values now." in md
    assert "| event loops (quarkus.vertx.event-loops-pool-size) | 2 | 1500 | 1500 | 9.0 | 0.00 | – | chosen |" in md


def test_the_verdict_says_when_the_build_now_ships_other_values():
    result = {"commit": "abc1234", "shipped": {"event loops": 2}, "chosen": {"event loops": 1},
              "properties": {"event loops": "quarkus.vertx.event-loops-pool-size"}}
    assert publish_sweep.verdict("v2", result) == ("v2 (swept at commit abc1234): chosen event loops 1, instead of event loops 2 "
                                           "then; the build now ships other values: quarkus.vertx.event-loops-pool-size=2.")


def test_in_a_cluster_a_candidate_rolls_only_what_changes_and_every_deployment_goes_back(monkeypatch):
    from benchkit.platforms import kube
    from benchkit.platforms import kubernetes
    rolled = []
    monkeypatch.setattr(kube, "set_environment", lambda namespace, rolling: rolled.append(dict(rolling)))
    # v2's chart sets its event loops from the pod's limit: a sweep's candidate changes the same variable
    monkeypatch.setattr(kube, "kubectl", lambda namespace, *args: json.dumps({"spec": {"template": {"spec": {
        "containers": [{"env": [{"name": "QUARKUS_VERTX_EVENT_LOOPS_POOL_SIZE", "value": "1"}]}]}}}}))

    class Build:
        closed = False

        def __init__(self, *args):
            pass

        def close(self):
            self.closed = True

    monkeypatch.setattr(kubernetes, "KubernetesBuild", Build)
    cluster, loops = kubernetes.Kubernetes("reactive-bench", ["v2"]), tunables.settings_for(1)["v2"][:1]
    first = cluster.reconfigure("v2", tunables.environments(loops, {"event loops": 1}))
    assert cluster.reconfigure("v2", tunables.environments(loops, {"event loops": 1})) is first and len(rolled) == 1
    second = cluster.reconfigure("v2", tunables.environments(loops, {"event loops": 2}))
    assert first.closed and second is not first and len(rolled) == 2  # new pods: new port-forwards
    cluster.restore("v2")
    # back to the chart's value, not removed (which would leave application.properties' two)
    assert rolled[-1] == {f"deploy/bench-v2-{s}": {"QUARKUS_VERTX_EVENT_LOOPS_POOL_SIZE": "1"} for s in tunables.SERVICES}
    assert second.closed and cluster.changed == {}
    cluster.reconfigure("v2", tunables.environments(loops, {"event loops": 4}))
    cluster.close()  # a sweep that stopped half-way
    assert len(rolled) == 5 and cluster.changed == {}


def test_at_a_pod_s_size_every_candidate_runs_in_it_and_the_value_shipped_is_what_the_size_gives(monkeypatch, tmp_path):
    sized, rates = [], {1: 900, 2: 1000, 4: 700}

    class Pods:
        where = "pods"

        def latency(self):
            return None

        def environment(self, where, runs, warmup):
            return {"git_commit": "abc1234", "timestamp": "t", "where": where}

        def calibrate(self):
            return 1.0

        def size(self, version, cpus, processors=None, environments=None, fresh=False):
            sized.append((cpus, environments["web-api"]["QUARKUS_VERTX_EVENT_LOOPS_POOL_SIZE"]))
            return version

        def restore(self, version):
            sized.append("restored")

        lifts = False  # a pod's limit is set at its start
        versions = ("v2",)

        def cores(self, version):
            return 2

        def close(self):
            pass

    monkeypatch.setattr(design, "warm_up", lambda *args: {"settled": True})
    monkeypatch.setattr(design, "background", lambda builds: {v: {} for v in builds})
    monkeypatch.setattr(design.knobs, "value", lambda name: 2)
    monkeypatch.setattr(design, "fork", lambda build: None)  # a platform that cannot read the services' metrics
    monkeypatch.setattr(design, "closed_round", lambda build, runs_dir, round_, iterations, label, *args: {
        "complete_per_s": rates[int(label.rsplit("-", 1)[1])], "p50": 5.0, "p99": 20.0, "failed_pct": 0.0,
        "degraded": 0, "calibration_seconds": 1.0})
    loops = tunables.settings_for(1)["v2"][:1]
    result, found = sweep.sweep_build("v2", Pods(), tmp_path, 2, "abc", loops, cpus=0.5)
    # v2's chart gives a pod one event loop per CPU: at half a CPU that is the value shipped, not the two of
    # application.properties
    assert result["shipped"] == {"event loops": 1} and result["cpus"] == 0.5
    assert result["chosen"] == {"event loops": 2}  # 1,000 answers/s against 900: more than MARGIN more
    # every candidate at the size, in the round's drawn order, then that order reversed in the next
    assert sorted(sized[:3]) == [(0.5, "1"), (0.5, "2"), (0.5, "4")] and sized[3:6] == sized[2::-1]
    assert sized[-1] == "restored"
    assert publish_sweep.consistency({"builds": {"v2": result}, "cells": found}) == []
    assert "in pods of 0.5 CPU" in publish_sweep.verdict("v2", result)
    altered = {**result, "chosen": {"event loops": 4}}
    assert publish_sweep.consistency({"builds": {"v2": altered}, "cells": found}) == [
        "v2: chosen {'event loops': 4}, its runs give {'event loops': 2}"]
    header, first, *_ = publish_sweep.choices_rows({"builds": {"v2": result}, "cells": found})
    assert header[:3] == ["build", "setting", "value"] and first[:3] == ["v2", "event loops "
                                                                         "(quarkus.vertx.event-loops-pool-size)", "1"]
    # the whole run: sweep.json is a cell document, a cell per candidate, published and checked as every other
    from benchkit.publish import registry as publishing
    written = json.loads(sweep.run(Pods(), sweep.Spec(only=("event loops",), cpus=0.5), tmp_path / "run").read_text())
    assert written["schema"] == cells.SCHEMA and written["design"] == "sweep"
    assert [(c["build"], c["value"], len(c["rounds"])) for c in written["cells"]] == [("v2", 1, 2), ("v2", 2, 2),
                                                                                        ("v2", 4, 2)]
    assert written["builds"]["v2"]["chosen"] == {"event loops": 2} and publishing.consistency(written) == []
    written["builds"]["v2"]["chosen"] = {"event loops": 4}  # a choice typed by hand
    written["cells"][0]["medians"]["complete_per_s"] = 1  # and a median
    assert len(publishing.consistency(written)) == 2


def test_a_candidate_s_jvm_options_come_after_the_size_s_so_that_its_system_property_wins(monkeypatch):
    from benchkit.platforms import procfs
    from benchkit.platforms import local
    calls = []
    monkeypatch.setattr(local, "stack", lambda action, *parts, settings=None, cpu_groups=None:
                        calls.append((action, parts, settings)))
    monkeypatch.setattr(local, "stack_inventory", lambda: {
        "services": {f"{s}-v3": {"pid": 7, "url": f"http://{s}", "management": f"http://{s}:9000"}
                     for s in tunables.SERVICES},
        "postgres": {"pid": 2, "port": 5432}, "kafka": {"pid": 3}})
    monkeypatch.setattr(procfs, "limit_cpu", lambda name, pid, cpus: None)
    monkeypatch.setattr(procfs, "limited_group", lambda name, cpus: pathlib.Path("/groups", name))
    monkeypatch.setattr(procfs, "cpu_limit", lambda pid: 0.5)
    carriers = tunables.settings_for(1)["v3"][:1]
    local.Local("loadgen").size("v3", 0.5, environments=tunables.environments(carriers, {"carrier threads": 2}))
    assert calls[-1][2]["authors-v3"] == ("JDK_JAVA_OPTIONS=-Djdk.virtualThreadScheduler.parallelism=8 "
                                          "-XX:ActiveProcessorCount=1 -Djdk.virtualThreadScheduler.parallelism=2")


def test_a_setting_s_candidates_are_a_design_measured_by_the_core_and_the_choice_rule_picks_from_its_rounds(
        monkeypatch, tmp_path):
    """Each candidate of each setting a cold start at the sweep's size, warmed and measured by the core's runner, the
    candidates' order turned round between repeats; the next setting swept from the value chosen."""
    pipelining = tunables.Setting("pipelining limit", "quarkus.datasource.reactive.postgresql.pipelining-limit",
                                  tunables.DATA, (1, 256), 256)
    loops = tunables.Setting("event loops", "quarkus.vertx.event-loops-pool-size", tunables.SERVICES, (1, 2), 2)
    # repeat 1: 1 then 256; repeat 2: 256 then 1 (1 answers far more: chosen); then the loops, 1 clearly ahead too
    # (the orders of seed "2": drawn 1 first, for both settings)
    from benchkit.tests.test_ab import Platform, measured_by
    measured_by(monkeypatch, [300, 200, 210, 310, 500, 400, 410, 505], rounds=2, order_seed="2")
    monkeypatch.setattr(tunables.Setting, "current",
                        lambda self, version, sized=None: self.default)
    platform = Platform(("v2",))
    result, found = sweep.sweep_build("v2", platform, tmp_path, 2, "abc1234", (pipelining, loops), cpus=0.5)
    runs = schemas_sweep.runs_of({"cells": found}, "v2")
    assert [(r["setting"], r["value"], r["repeat"], r["complete_per_s"]) for r in runs] == [
        ("pipelining limit", 1, 1, 300), ("pipelining limit", 1, 2, 310), ("pipelining limit", 256, 1, 200),
        ("pipelining limit", 256, 2, 210), ("event loops", 1, 1, 500), ("event loops", 1, 2, 505),
        ("event loops", 2, 1, 400), ("event loops", 2, 2, 410)]
    # each setting's candidates the cell document every design's run writes: a cell per value, a round per repeat
    written = json.loads((tmp_path / f"sweep-v2-{pipelining.label}.json").read_text())
    assert [(c["mode"], len(c["rounds"])) for c in written["cells"]] == [("1", 2), ("256", 2)]
    assert written["context"] == {"pipelining limit": 256, "event loops": 2} and cells.consistency(written) == []
    assert result["shipped"] == {"pipelining limit": 256, "event loops": 2}
    assert result["chosen"] == {"pipelining limit": 1, "event loops": 1}
    # the loops swept with the pipelining limit chosen before them; every candidate a cold start at half a CPU
    assert all(r["context"] == {"pipelining limit": 1} for r in runs[4:])
    assert [s[1] for s in platform.started[:8]] == [0.5] * 8 and platform.started[-1] == ("v2", "restored")
    assert all(r["failed_pct"] == 0.0 and r["calibration_seconds"] == 2.0 for r in runs)
    assert sweep.candidates("v2", pipelining, {"pipelining limit": 256}, (pipelining,), None, None, 1).sizes == (
        design.sizes.NO_LIMIT,)
