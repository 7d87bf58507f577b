"""services/builds.conf is the one list of the builds; what cannot read it (JSON schemas, chart values, the
Makefile's help lines, the Maven modules) is checked against it here."""
import fnmatch
import json
import re

import pytest

from benchkit import BUILDS, FLOOR, NAMES, ROOT, SERVICES, VERSIONS, build_lines, builds
from benchkit.core.buildsconf import floor, java_options, shell


def test_builds_conf_lists_the_builds_in_order_with_what_they_are(tmp_path):
    conf = tmp_path / "builds.conf"
    conf.write_text("# comment\nv1 imperative: threads\n\nv2 reactive: loops\n")
    assert builds(conf) == {"v1": "imperative: threads", "v2": "reactive: loops"}
    assert VERSIONS[0] == "v1" and list(VERSIONS) == list(BUILDS)
    assert NAMES["v1"] == "v1 (imperative)" and all(NAMES[v].startswith(v + " (") for v in VERSIONS)


def test_a_build_may_have_jvm_options_of_its_own_and_they_are_not_a_build(tmp_path):
    conf = tmp_path / "builds.conf"
    conf.write_text("v1 imperative: threads\nv2 reactive: loops\njava-options v2: -Da=1 -Db=2\n"
                    "chart-values v2: eventLoopsPerCpu=1\nfloor v0: plain\n")
    assert list(builds(conf)) == ["v1", "v2"]
    assert java_options(conf) == {"v2": "-Da=1 -Db=2"}
    assert build_lines("chart-values", conf) == {"v2": "eventLoopsPerCpu=1"}
    assert floor(conf) == {"v0": "plain"}
    assert set(java_options()) <= set(VERSIONS)
    # what the Makefile and scripts/lib.sh are handed: the builds alone, the floor apart, the options by version
    assert shell(conf).splitlines() == ["BUILDS=(v1 v2)", "FLOOR=(v0)", "declare -gA BUILD_JAVA_OPTIONS=([v2]='-Da=1 -Db=2')",
                                        "declare -gA BUILD_CHART_VALUES=([v2]=eventLoopsPerCpu=1)"]


def test_the_floor_is_no_build_and_has_every_service_as_a_maven_module_of_its_own():
    assert FLOOR == ("v0",) and not set(FLOOR) & set(VERSIONS) and NAMES["v0"] == "v0 (floor)"
    modules = re.findall(r"<module>(.*)</module>", (ROOT / "services/pom.xml").read_text())
    for service in SERVICES:
        assert f"{service}/v0" in modules
        # not a Quarkus application: the local stack starts its own jar (scripts/local/stack.sh)
        assert "quarkus-maven-plugin" not in (ROOT / "services" / service / "v0/pom.xml").read_text()


def test_the_charts_allow_exactly_the_builds_and_the_floor():
    # the floor deploys like a build (make deploy-v0) and is loaded like one; the platform serves it no topic, since
    # it reads alone
    for chart in ("reactive-bench", "load-job"):
        schema = json.loads((ROOT / "charts" / chart / "values.schema.json").read_text())
        assert schema["properties"]["build"]["enum"] == list(VERSIONS + FLOOR), chart
    platform = re.search(r"^builds: \[(.*)\]$", (ROOT / "charts/platform/values.yaml").read_text(), re.M)
    assert [b.strip() for b in platform.group(1).split(",")] == list(VERSIONS)


def test_the_chart_deploys_each_build_as_builds_conf_says_it_was_measured():
    """helm install --set build=vN, without make, runs what make deploy-vN runs: the chart's `measured` values are
    builds.conf's java-options and chart-values lines."""
    import yaml
    from benchkit.core.buildsconf import build_lines, java_options
    measured = yaml.safe_load((ROOT / "charts/reactive-bench/values.yaml").read_text())["measured"]
    expected = {}
    for version, options in java_options().items():
        expected.setdefault(version, {})["buildJavaOpts"] = options
    for version, values in build_lines("chart-values").items():
        for assignment in values.split():
            key, value = assignment.split("=", 1)
            expected.setdefault(version, {})[key] = int(value) if value.isdigit() else value
    assert measured == expected


def test_every_build_has_every_service_as_a_maven_module():
    modules = re.findall(r"<module>(.*)</module>", (ROOT / "services/pom.xml").read_text())
    for version in VERSIONS:
        for service in SERVICES:
            assert f"{service}/{version}" in modules
            assert (ROOT / "services" / service / version / "pom.xml").is_file()


def test_make_help_names_a_deploy_target_for_every_build_and_the_floor():
    makefile = (ROOT / "Makefile").read_text()
    assert sorted(re.findall(r"^deploy-(v\d+): ##", makefile, re.M)) == sorted(VERSIONS + FLOOR)


def test_the_test_nodes_kafka_has_a_topic_per_build():
    manifests = (ROOT / "scripts/cluster/test-cluster/operator-standins/manifests.yaml").read_text()
    topics = re.search(r"name: TOPICS, value: ([^}]*)}", manifests).group(1).split()
    assert topics == [f"articles.created.{v}" for v in VERSIONS]


def test_the_image_context_lets_every_builds_application_in():
    # services/.dockerignore: everything is left out but what a pattern lets in again
    allowed = [line[1:] for line in (ROOT / "services/.dockerignore").read_text().splitlines() if line.startswith("!")]
    for version in VERSIONS:
        path = f"web-api/{version}/target/quarkus-app/lib/x.jar"
        assert any(fnmatch.fnmatch(path, pattern.replace("**", "*")) for pattern in allowed), version


def test_the_edge_admission_is_set_once_for_every_build_and_read_when_asked(tmp_path, monkeypatch):
    from benchkit.core import buildsconf
    edge = tmp_path / "edge/src/main/resources/META-INF"
    edge.mkdir(parents=True)
    (edge / "microprofile-config.properties").write_text("edge.max-in-flight=42\n")
    own = tmp_path / "web-api/v2/src/main/resources"
    own.mkdir(parents=True)
    (own / "application.properties").write_text("quarkus.http.port=8090\n")
    monkeypatch.setattr(buildsconf, "SERVICES_DIR", tmp_path)
    buildsconf.max_in_flight.cache_clear()
    assert buildsconf.max_in_flight() == 42
    (own / "application.properties").write_text("edge.max-in-flight=7\n")
    buildsconf.max_in_flight.cache_clear()
    with pytest.raises(SystemExit, match="overridden in"):
        buildsconf.max_in_flight()
    buildsconf.max_in_flight.cache_clear()
    assert buildsconf.shipped("v2", ("web-api",), "edge.max-in-flight") == "7"
    assert buildsconf.shipped("v1", ("web-api",), "edge.max-in-flight") is None
