import json

import pytest

from benchkit.core import layers, profile
from benchkit.tests.test_report import rendered, results


def sample(*frames):
    """A jdk.ExecutionSample as `jfr print --json` writes it: frames leaf first."""
    return {"type": "jdk.ExecutionSample", "values": {"stackTrace": {"truncated": False, "frames": [
        {"method": {"type": {"name": name.rsplit(".", 1)[0]}, "name": name.rsplit(".", 1)[1]}} for name in frames]}}}


EVENTS = [sample("com.fasterxml.jackson.core.JsonGenerator.writeString", "io.vertx.core.http.Handler.handle",
                 "java.lang.Thread.run")] * 3 + \
         [sample("org.hibernate.Loader.load", "io.reactivebench.authors.AuthorResource.get", "java.lang.Thread.run")]


def test_stacks_are_collapsed_root_first_and_counted():
    folded = profile.collapse(EVENTS + [{"type": "jdk.ExecutionSample", "values": {"stackTrace": None}}])
    assert folded == {
        "java.lang.Thread.run;io.vertx.core.http.Handler.handle;com.fasterxml.jackson.core.JsonGenerator.writeString": 3,
        "java.lang.Thread.run;io.reactivebench.authors.AuthorResource.get;org.hibernate.Loader.load": 1}


def test_shares_count_a_sample_for_every_library_on_its_stack(tmp_path):
    folded = profile.collapse(EVENTS)
    found, samples = profile.shares(folded)
    assert samples == 4
    assert found["JSON (Jackson)"] == 0.75
    assert found["HTTP server and client (Vert.x, Netty)"] == 0.75
    assert found["Hibernate ORM"] == 0.25
    assert found["the project's own code"] == 0.25
    assert found["Mutiny"] == 0
    assert found["Bean Validation (Hibernate Validator)"] == 0
    path = tmp_path / "x.folded"
    profile.write_folded(folded, path)
    assert profile.read_folded(path) == folded


def test_hibernate_validator_is_not_hibernate_orm():
    folded = profile.collapse([sample("org.hibernate.validator.internal.Engine.validate",
                                      "org.hibernate.validator.Validator.validate", "java.lang.Thread.run"),
                               sample("org.hibernate.sql.exec.Select.execute",
                                      "io.quarkus.hibernate.orm.panache.Panache.list", "java.lang.Thread.run")])
    found, _ = profile.shares(folded)
    assert found["Bean Validation (Hibernate Validator)"] == 0.5
    assert found["Hibernate ORM"] == 0.5


def test_flame_graph_and_report_section(tmp_path):
    directory = results(tmp_path)
    profiles = directory / "profiles"
    profiles.mkdir()
    folded = profile.collapse(EVENTS)
    summary = {}
    for version in ("v1", "v2"):
        summary[version] = {}
        for service in ("web-api", "authors"):
            profile.flame_graph(folded, profiles / f"{version}-{service}.svg", f"{service} {version}")
            found, samples = profile.shares(folded)
            summary[version][service] = {"samples": samples, "shares": found}
    assert "<svg" in (profiles / "v1-web-api.svg").read_text()
    (profiles / "profile.json").write_text(json.dumps(summary))
    rendered(directory)
    md = (directory / "report.md").read_text()
    assert "## Where the CPU goes" in md
    assert "| library | web-api v1 | web-api v2 | authors v1 | authors v2 |" in md
    assert "| JSON (Jackson) | 75 % | 75 % | 75 % | 75 % |" in md
    assert "profiles/v2-authors.svg" in md


def test_pinned_virtual_threads_are_counted_but_the_jdks_own_pollers_apart():
    events = [sample("java.lang.VirtualThread.parkOnCarrierThread", "com.example.Slow.<clinit>", "java.lang.Thread.run"),
              sample("java.lang.VirtualThread.park", "sun.nio.ch.Poller.poll", "java.lang.Thread.run")]
    found = profile.pinned(events)
    assert found["count"] == 1 and found["jdk_pollers"] == 1
    assert "com.example.Slow.<clinit>" in found["where"][0]
    assert profile.pinned([]) == {"count": 0, "where": [], "jdk_pollers": 0}


def test_one_jfr_run_reads_a_real_recordings_samples_and_pins(tmp_path):
    """A real JVM, busy for a moment under JFR's profile settings: its samples come back with its own frames."""
    import subprocess
    (tmp_path / "Busy.java").write_text("""
        public class Busy {
            public static void main(String[] args) {
                long until = System.nanoTime() + 1_500_000_000L, x = 1;
                // The clock read once in a million turns: a thread in System.nanoTime (native until the JIT has
                // compiled the loop) is not sampled as running Java, so the loop itself must be where time goes.
                for (long i = 1; (i & 0xFFFFF) != 0 || System.nanoTime() < until; i++) { x = x * 6364136223846793005L + i; }
                System.out.println(x == 0);
            }
        }""")
    recording = tmp_path / "busy.jfr"
    subprocess.run([profile.jdk_tool("java"), f"-XX:StartFlightRecording=filename={recording},settings=profile",
                    str(tmp_path / "Busy.java")], check=True, capture_output=True)
    found = profile.events(recording)
    assert set(found) >= {profile.SAMPLE, profile.PINNED} and found[profile.PINNED] == []
    folded = profile.collapse(found[profile.SAMPLE])
    assert any(stack.endswith("Busy.main") for stack in folded), list(folded)[:5]


def test_layers_count_each_sample_once_for_the_innermost_frame_of_a_layer():
    folded = profile.collapse([
        # Jackson inside Quarkus REST inside Vert.x: JSON's, whatever calls it
        sample("com.fasterxml.jackson.core.JsonGenerator.writeString", "org.jboss.resteasy.reactive.server.Handler.handle",
               "io.vertx.core.http.impl.Http1xServerConnection.handle", "java.lang.Thread.run"),
        # a JDK leaf counts for its caller: a HashMap look-up in the project's code is the project's
        sample("java.util.HashMap.get", "io.reactivebench.webapi.ArticleMerger.merge",
               "io.vertx.core.http.impl.Http1xServerConnection.handle", "java.lang.Thread.run"),
        # Vert.x's JsonObject is JSON, not the HTTP layer it shares a prefix with
        sample("io.vertx.core.json.JsonObject.encode", "io.vertx.core.http.impl.Http1xServerConnection.handle",
               "java.lang.Thread.run"),
        sample("org.postgresql.core.PGStream.receive", "io.agroal.pool.ConnectionPool.getConnection",
               "org.hibernate.loader.Loader.load", "java.lang.Thread.run"),
        sample("java.util.concurrent.ThreadPoolExecutor.runWorker", "java.lang.Thread.run"),
        sample("java.lang.String.hashCode", "java.lang.Thread.run")])
    found = profile.layers(folded)
    assert sum(found.values()) == pytest.approx(1.0)
    assert found["JSON (Jackson, Vert.x's JsonObject)"] == pytest.approx(2 / 6)
    assert found["the project's own code"] == pytest.approx(1 / 6)
    assert found["SQL: JDBC driver and pool (pgJDBC, Agroal)"] == pytest.approx(1 / 6)
    assert found["SQL: Hibernate ORM"] == 0
    assert found["pools and scheduling (executors, virtual threads, Mutiny, locks)"] == pytest.approx(1 / 6)
    assert found[layers.OTHER_LAYER] == pytest.approx(1 / 6)
    assert found["HTTP and TCP (Vert.x core, Netty)"] == 0


def test_a_layer_s_ms_per_answer_is_its_share_of_the_jvm_s_cpu_less_gc_and_jit():
    json_layer, http_layer = "JSON (Jackson, Vert.x's JsonObject)", "HTTP and TCP (Vert.x core, Netty)"
    half = {json_layer: 0.5, http_layer: 0.5}
    kept = {"layers": {"v1": {"web-api": half, "authors": {http_layer: 1.0}}, "v0": {"web-api": half}},
            "costs": {"v1": {"cpu_ms": {"web-api": 1.2, "authors": 0.5, "postgres": 0.3, "kafka": 0.0},
                             "gc_ms": {"web-api": 0.1, "authors": None}, "jit_ms": {"web-api": 0.1, "authors": 0.1}},
                      "v0": {"cpu_ms": {"web-api": 0.4, "postgres": 0.3}, "gc_ms": {"web-api": 0.0},
                             "jit_ms": {"web-api": 0.0}}}}
    found = layers.layer_ms(kept)
    assert found["v1"][json_layer] == pytest.approx(0.5)  # (1.2 - 0.1 - 0.1) / 2
    assert found["v1"][http_layer] == pytest.approx(0.5 + 0.4)  # and authors' 0.5 less its JIT
    assert found["v1"][layers.GC_LAYER] == pytest.approx(0.1) and found["v1"][layers.JIT_LAYER] == pytest.approx(0.2)
    assert found["v1"][layers.NOT_PROFILED] == pytest.approx(0.3)
    assert sum(found["v1"].values()) == pytest.approx(1.2 + 0.5 + 0.3)  # the whole system's, every process
    rows = layers.layer_rows(kept)
    assert rows[0][1:] == ["v1 (imperative)", "v0 (floor)", "v1 beyond the floor"]
    by_layer = {row[0]: row[1:] for row in rows}
    assert by_layer[json_layer] == ["0.500", "0.200", "+0.300"]
    assert by_layer["whole system"] == ["2.000", "0.700", "+1.300"]
