from checks import check_reach as reach

NS = reach.NAMESPACE
NAMESPACES = {NS: {"kubernetes.io/metadata.name": NS}, "monitoring": {"kubernetes.io/metadata.name": "monitoring"}}
ARTICLES = {"namespace": NS, "labels": {"app.kubernetes.io/name": "articles", "app.kubernetes.io/instance": "bench-v1"}}
HTTP = {"number": 8080, "name": "http", "protocol": "TCP"}
WEB_API = {"app.kubernetes.io/name": "web-api", "app.kubernetes.io/instance": "bench-v1"}
GENERATOR = {"app.kubernetes.io/name": "loadgen", "app.kubernetes.io/component": "load-generator"}


def policy(name, ingress, selector=None, types=("Ingress",)):
    return {"metadata": {"name": name, "namespace": NS},
            "spec": {"podSelector": selector or {"matchLabels": {"app.kubernetes.io/name": "articles"}},
                     "policyTypes": list(types), "ingress": ingress}}


def admitted(policies, client, namespace=NS, port=HTTP):
    return reach.admitted(policies, ARTICLES, port, client, namespace, NAMESPACES)[0]


ONLY_WEB_API = policy("only-web-api", [{"from": [{"podSelector": {"matchLabels": WEB_API}}], "ports": [{"port": "http"}]}])


def test_a_pod_no_policy_selects_takes_everything():
    assert admitted([], GENERATOR)
    assert admitted([policy("other", [], selector={"matchLabels": {"app.kubernetes.io/name": "authors"}})], GENERATOR)
    assert admitted([policy("egress only", [], types=("Egress",))], GENERATOR)


def test_a_selected_pod_takes_only_what_a_rule_admits():
    assert admitted([ONLY_WEB_API], WEB_API)
    assert not admitted([ONLY_WEB_API], GENERATOR)
    assert not admitted([policy("deny all", [])], WEB_API)


def test_the_rules_of_every_policy_that_selects_the_pod_add_up():
    also_generator = policy("loadgen", [{"from": [{"podSelector": {"matchLabels": GENERATOR}}]}])
    assert admitted([ONLY_WEB_API, also_generator], GENERATOR)


def test_a_pod_selector_alone_means_the_policy_s_own_namespace():
    assert not admitted([ONLY_WEB_API], WEB_API, namespace="monitoring")
    from_monitoring = policy("metrics", [{"from": [{"namespaceSelector": {"matchLabels": {
        "kubernetes.io/metadata.name": "monitoring"}}}]}])
    assert admitted([from_monitoring], {"app": "prometheus"}, namespace="monitoring")
    assert not admitted([from_monitoring], GENERATOR)


def test_both_selectors_in_one_peer_must_both_match():
    peer = {"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": NS}}, "podSelector": {"matchLabels": GENERATOR}}
    rule = [policy("both", [{"from": [peer]}])]
    assert admitted(rule, GENERATOR)
    assert not admitted(rule, WEB_API)
    assert not admitted(rule, GENERATOR, namespace="monitoring")


def test_match_expressions():
    assert reach.selects({"matchExpressions": [{"key": "tier", "operator": "In", "values": ["a", "b"]}]}, {"tier": "b"})
    assert not reach.selects({"matchExpressions": [{"key": "tier", "operator": "NotIn", "values": ["b"]}]}, {"tier": "b"})
    assert reach.selects({"matchExpressions": [{"key": "tier", "operator": "Exists"}]}, {"tier": ""})
    assert not reach.selects({"matchExpressions": [{"key": "tier", "operator": "DoesNotExist"}]}, {"tier": ""})
    assert reach.selects({}, {"anything": "x"})


def test_ports_by_name_number_range_and_protocol():
    assert reach.port_admits({"port": "http"}, HTTP)
    assert not reach.port_admits({"port": "metrics"}, HTTP)
    assert reach.port_admits({"port": 8080}, HTTP)
    assert reach.port_admits({"port": 8000, "endPort": 8100}, HTTP)
    assert not reach.port_admits({"port": 8081}, HTTP)
    assert not reach.port_admits({"port": 8080, "protocol": "UDP"}, HTTP)
    assert reach.port_admits({}, HTTP)


def test_an_ip_block_admits_no_pod():
    assert not admitted([policy("cidr", [{"from": [{"ipBlock": {"cidr": "0.0.0.0/0"}}]}])], GENERATOR)


def deployment(name, labels, env):
    return {"kind": "Deployment", "metadata": {"name": name},
            "spec": {"template": {"metadata": {"labels": labels},
                                  "spec": {"containers": [{"env": [{"name": k, "value": v} for k, v in env.items()]}]}}}}


def test_the_services_own_connections_are_read_from_their_environment_and_the_proxy_s_upstreams():
    import json
    proxy = {"app.kubernetes.io/name": "latency-proxy"}
    manifests = [
        {"kind": "Service", "metadata": {"name": n}} for n in ("b-authors", "b-latency-proxy", "b-articles")] + [
        deployment("b-web-api", WEB_API, {"QUARKUS_REST_CLIENT_AUTHORS_URL": "http://b-latency-proxy:18500/v1",
                                          "QUARKUS_REST_CLIENT_ARTICLES_URL": "http://b-articles:8080/v1",
                                          "KAFKA_BOOTSTRAP_SERVERS": "bench-kafka-kafka-bootstrap:9092"}),
        deployment("b-articles", ARTICLES["labels"], {"QUARKUS_DATASOURCE_JDBC_URL": "jdbc:postgresql://b-latency-proxy:18501/articles?sslmode=verify-ca&sslrootcert=/etc/postgresql-ca/ca.crt",
                                                      "QUARKUS_DATASOURCE_REACTIVE_URL": "postgresql://b-latency-proxy:18501/articles"}),
        deployment("b-latency-proxy", proxy, {}),
        {"kind": "ConfigMap", "metadata": {"name": "b-latency-proxy"}, "data": {"proxies.json": json.dumps(
            [{"name": "authors-v1", "upstream": "b-authors:8080"}, {"name": "pg", "upstream": "bench-postgres:5432"}])}}]
    found = {(client, address) for client, _, address in reach.own_connections(manifests)}
    # Kafka and PostgreSQL are not the chart's Services: the operators' Services are not checked here
    assert found == {("b-web-api", "b-latency-proxy:18500"), ("b-web-api", "b-articles:8080"),
                     ("b-articles", "b-latency-proxy:18501"), ("b-latency-proxy", "b-authors:8080")}
