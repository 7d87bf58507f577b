"""The test node's Spilo-compatible entrypoint (scripts/cluster/test-cluster/postgres-operator/): the Patroni configuration
it writes from the environment the Zalando operator gives a postgresql's pod."""
import importlib.util
import json

from benchkit import ROOT

SPEC = importlib.util.spec_from_file_location(
    "spilo_compatible", ROOT / "scripts/cluster/test-cluster/postgres-operator/spilo-compatible-entrypoint.py")
ENTRYPOINT = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(ENTRYPOINT)

# As the operator (v1.15.1, pkg/cluster/k8sres.go) sets them for the platform chart's postgresql.
POD = {"POD_IP": "10.244.0.9", "SCOPE": "bench-postgres", "POD_NAMESPACE": "reactive-bench",
       "PGUSER_SUPERUSER": "postgres", "PGPASSWORD_SUPERUSER": "s3cret", "PGUSER_STANDBY": "standby",
       "PGPASSWORD_STANDBY": "r3plica", "PGVERSION": "17", "PGROOT": "/home/postgres/pgdata/pgroot",
       "KUBERNETES_SCOPE_LABEL": "cluster-name", "KUBERNETES_ROLE_LABEL": "spilo-role",
       "KUBERNETES_LABELS": '{"application":"spilo"}',
       "SPILO_CONFIGURATION": json.dumps({
           "postgresql": {"parameters": {"shared_buffers": "256MB"}},
           "bootstrap": {"initdb": [{"auth-host": "md5"}, {"auth-local": "trust"}],
                         "dcs": {"postgresql": {"parameters": {"max_connections": "200"}}}}})}


def configuration(monkeypatch, **changes):
    monkeypatch.setattr(ENTRYPOINT, "ENV", {**POD, **changes})
    return ENTRYPOINT.configuration()


def test_patroni_keeps_its_leader_where_the_operator_looks_for_it(monkeypatch):
    kubernetes = configuration(monkeypatch)["kubernetes"]
    # The operator waits for spilo-role=master (Patroni 4 would say primary) and reads the master Service's
    # Endpoints, which Patroni writes because the Service has no selector.
    assert (kubernetes["role_label"], kubernetes["leader_label_value"]) == ("spilo-role", "master")
    assert (kubernetes["scope_label"], kubernetes["labels"]) == ("cluster-name", {"application": "spilo"})
    assert kubernetes["use_endpoints"] and kubernetes["pod_ip"] == "10.244.0.9"


def test_the_operators_configuration_is_merged_over_the_defaults_and_its_users_come_from_its_secrets(monkeypatch):
    config = configuration(monkeypatch)
    assert config["postgresql"]["parameters"]["shared_buffers"] == "256MB"  # the operator's, beside the defaults
    assert config["postgresql"]["parameters"]["ssl"] == "on"
    assert config["bootstrap"]["dcs"]["postgresql"]["parameters"] == {"max_connections": "200"}
    assert config["bootstrap"]["dcs"]["postgresql"]["use_pg_rewind"]  # a default the merge kept
    assert "CREATE ROLE admin" in config["bootstrap"]["post_bootstrap"]  # the operator's roles are granted to it
    assert config["postgresql"]["authentication"]["superuser"] == {"username": "postgres", "password": "s3cret"}
    assert config["postgresql"]["bin_dir"] == "/usr/lib/postgresql/17/bin"
    assert config["postgresql"]["data_dir"] == "/home/postgres/pgdata/pgroot/data"


def test_from_another_host_tls_or_nothing(monkeypatch):
    rules = configuration(monkeypatch)["postgresql"]["pg_hba"]
    refuse = rules.index("hostnossl all all all reject")
    assert all(not rule.startswith("host ") or "127.0.0.1/32" in rule for rule in rules)  # plain host: loopback only
    assert rules.index("hostssl all all all md5") > refuse


def test_the_member_is_named_after_its_pod(monkeypatch):
    monkeypatch.setattr(ENTRYPOINT.socket, "gethostname", lambda: "bench-postgres-0")
    assert configuration(monkeypatch)["name"] == "bench-postgres-0"  # the operator sets no POD_NAME for Spilo


def test_cluster_labels_may_also_come_as_key_value_pairs(monkeypatch):
    labels = configuration(monkeypatch, KUBERNETES_LABELS="application=spilo,team=bench")["kubernetes"]["labels"]
    assert labels == {"application": "spilo", "team": "bench"}
