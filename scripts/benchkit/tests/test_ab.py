import pytest

from benchkit.experiments import ab
from benchkit.core import results, tunables


def figures(rate, cpu, statements=1.0):
    return {"complete_per_s": rate, "p50": 10.0, "p99": 30.0, "cpu_ms": cpu,
            "cpu_ms_per_complete_background_off": cpu, "postgres_cpu_ms": cpu / 4, "data_services_cpu_ms": cpu / 2,
            "statements_per_request": statements, "data_statements_per_request": 1.0, "calibration_seconds": 2.0}


def test_b_over_a_is_the_median_of_each_rounds_own_ratio():
    modes = {"transaction": [figures(400, 2.0), figures(500, 2.0), figures(300, 2.0)],
             "autocommit": [figures(440, 1.8), figures(500, 1.6), figures(390, 1.5)]}
    found = ab.ratios(ab.READS, modes)["complete_per_s"]
    assert found["rounds"] == pytest.approx([1.1, 1.0, 1.3])
    assert (found["median"], found["low"], found["high"]) == pytest.approx((1.1, 1.0, 1.3))
    # not the ratio of the medians (440 / 400 = 1.1 here by chance; the CPU shows the difference)
    cpu = ab.ratios(ab.READS, modes)["cpu_ms_per_complete_background_off"]
    assert cpu["median"] == pytest.approx(0.8)


def test_the_table_shows_every_round_and_a_ratio_only_where_one_is_meant():
    data = {"modes": ["transaction", "autocommit"], "builds": {"v1": {
        "rounds": {"transaction": [figures(400, 2.0, 4.0)], "autocommit": [figures(440, 1.8, 2.0)]},
        "ratios": ab.ratios(ab.READS, {"transaction": [figures(400, 2.0, 4.0)],
                                       "autocommit": [figures(440, 1.8, 2.0)]})}}}
    rows = {row[1]: row for row in ab.table(data)[1:]}
    assert rows["complete answers/s"][2:] == ["400", "440", "1.10× (1.10–1.10)"]
    assert rows["statements sent per request, BEGIN and COMMIT included"][2:] == ["4.00", "2.00", "–"]


def test_a_tampered_ratio_is_found():
    modes = {"transaction": [figures(400, 2.0)], "autocommit": [figures(440, 1.8)]}
    data = {"experiment": "reads", "builds": {"v1": {"rounds": modes, "ratios": ab.ratios(ab.READS, modes)}}}
    assert ab.consistency(data) == []
    data["builds"]["v1"]["ratios"]["complete_per_s"]["median"] = 1.2
    assert ab.consistency(data)


def test_tls_tells_both_clients_and_only_the_data_services_restart():
    env = tunables.environments(ab.TLS.settings, ab.TLS.values["require"])["authors"]
    assert env["QUARKUS_DATASOURCE_JDBC_ADDITIONAL_JDBC_PROPERTIES_SSLMODE"] == "require"
    assert env["QUARKUS_DATASOURCE_REACTIVE_POSTGRESQL_SSL_MODE"] == "require"
    assert env["QUARKUS_DATASOURCE_REACTIVE_TRUST_ALL"] == "true"
    assert tunables.environments(ab.TLS.settings, ab.TLS.values["require"])["web-api"] == {}


def test_reads_switch_the_jdbc_builds_data_services_only():
    env = tunables.environments(ab.READS.settings, ab.READS.values["autocommit"])
    assert env["articles"] == {"JDBC_READS": "autocommit"} == env["authors"]
    assert env["web-api"] == {}
    assert ab.READS.versions == ("v1", "v3")


def test_statements_per_request_count_begin_and_commit_apart(tmp_path):
    cost = {"version": "v1", "target": "web-api", "requests_served": {"web-api": 10},
            "sql": [{"database": "authors", "query": "BEGIN", "calls": 50},
                    {"database": "authors", "query": "select a from authors where name=$1", "calls": 50},
                    {"database": "authors", "query": "COMMIT", "calls": 50},
                    {"database": "articles", "query": "select * from article_events for update", "calls": 7}]}
    every, data = results.statement_counts(cost)
    assert every == pytest.approx(15.0)
    assert data == pytest.approx(5.0)
