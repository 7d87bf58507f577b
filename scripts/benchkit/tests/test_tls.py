from benchkit import sweep, tls


def figures(rate, cpu):
    return {"complete_per_s": rate, "p50": 10.0, "cpu_ms": cpu, "postgres_cpu_ms": cpu / 4,
            "data_services_cpu_ms": cpu / 2, "calibration_seconds": 2.0}


def test_require_against_disable_per_build_with_every_round():
    table = tls.rows({"v1": {"disable": [figures(400, 2.0), figures(420, 2.2)],
                             "require": [figures(360, 2.4), figures(380, 2.6)]}})
    assert table[1] == ["v1", "complete answers/s", "400, 420", "360, 380", "0.90×"]
    assert table[3] == ["v1", "CPU ms per request, whole system", "2.000, 2.200", "2.400, 2.600", "1.19×"]


def test_both_clients_are_told_and_only_the_data_services_restart():
    env = sweep.environments(tls.TLS, tls.chosen("require"))["authors"]
    assert env["QUARKUS_DATASOURCE_JDBC_ADDITIONAL_JDBC_PROPERTIES_SSLMODE"] == "require"
    assert env["QUARKUS_DATASOURCE_REACTIVE_POSTGRESQL_SSL_MODE"] == "require"
    assert env["QUARKUS_DATASOURCE_REACTIVE_TRUST_ALL"] == "true"
    assert sweep.environments(tls.TLS, tls.chosen("require"))["web-api"] == {}
