#!/usr/bin/env python3
"""Can every load Job of make bench reach its target? Answered offline, without a network plugin: the charts are
rendered as make deploy-<version> and make bench install them (helm template), and every NetworkPolicy is evaluated
against every Job's pod labels and target, as an enforcing plugin (Calico on minikube) would.

`check_reach.py [--set KEY=VALUE …]` (part of make test-k8s) prints a line per build and load Job (each load scenario
against each target of load/scenarios.json) and exits 1
when a Job could not reach its target; `--self-test` first proves that the check bites: with the chart's rule for
the load generator switched off (networkPolicy.loadGeneratorLabels=null), the Jobs against a hop alone must be found unreachable,
and everything else reachable. Then the services' own connections (web-api to articles and authors, the data services
to PostgreSQL, each straight or through the latency proxy of latencyProxy.enabled, and the proxy to authors; their
spans to Jaeger with tracing.enabled) are
evaluated the same way, with the proxy off and on; the self-test also proves that a pod of no release is refused at
every one of them. Then PostgreSQL's clients: each verifies the server against the platform chart's CA alone (the
self-test: one told another CA is found). Last, the scrapers: a pod of the namespace monitoring reaches every service's management port
(health, metrics) and no API port but web-api's public one; the self-test proves that this bites too.

The NetworkPolicy semantics evaluated (networking.k8s.io/v1, ingress): a pod selected by no policy with Ingress in its
policyTypes takes everything; a selected pod takes a connection that one rule of one of those policies admits, by its
peers (podSelector, namespaceSelector, both, or none = anyone; an ipBlock matches no pod here) and its ports (number,
name of the pod's container port, endPort; none = every port). Label selectors: matchLabels and matchExpressions.
"""
import argparse
import base64
import functools
import json
import re
import pathlib
import subprocess
import sys
import tempfile
import urllib.parse

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))  # the harness, scripts/benchkit

from benchkit import SERVICES, VERSIONS
from benchkit.core import knobs
from benchkit.core import load
from benchkit.platforms.kube import helm_template
from benchkit.platforms.loadjobs import load_job_values, service_url

NAMESPACE = knobs.value("BENCH_NAMESPACE")


# ---------- NetworkPolicy semantics

def selects(selector, labels):
    """A Kubernetes label selector (matchLabels, matchExpressions) against a set of labels; {} selects all."""
    selector = selector or {}
    if any(labels.get(key) != value for key, value in (selector.get("matchLabels") or {}).items()):
        return False
    for expression in selector.get("matchExpressions") or []:
        key, operator, values = expression["key"], expression["operator"], expression.get("values") or []
        if not {"In": lambda: labels.get(key) in values, "NotIn": lambda: labels.get(key) not in values,
                "Exists": lambda: key in labels, "DoesNotExist": lambda: key not in labels}[operator]():
            return False
    return True


def peer_admits(peer, client, client_namespace, namespace_labels, policy_namespace):
    """One `from` peer against the client pod (its labels and namespace)."""
    if "ipBlock" in peer:
        return False  # addresses, not pods: no pod of this check is known by its address
    if "namespaceSelector" in peer:
        in_namespace = selects(peer["namespaceSelector"], namespace_labels.get(client_namespace, {}))
    else:
        in_namespace = client_namespace == policy_namespace
    return in_namespace and selects(peer.get("podSelector"), client)


def port_admits(rule_port, port):
    """One rule's port against the target container port: {number, name, protocol}."""
    if rule_port.get("protocol", "TCP") != port["protocol"]:
        return False
    wanted = rule_port.get("port")
    if wanted is None:
        return True
    if isinstance(wanted, str) and not wanted.isdigit():
        return wanted == port["name"]
    return int(wanted) <= port["number"] <= int(rule_port.get("endPort", wanted))


def admitted(policies, target, port, client, client_namespace, namespace_labels):
    """Whether the target pod ({namespace, labels}) takes a connection from the client pod to one of its ports.
    Returns (admitted, why)."""
    isolating = [p for p in policies if p["metadata"].get("namespace", NAMESPACE) == target["namespace"]
                 and "Ingress" in p["spec"].get("policyTypes", ["Ingress"])
                 and selects(p["spec"].get("podSelector"), target["labels"])]
    if not isolating:
        return True, "no NetworkPolicy selects the target"
    for policy in isolating:
        for rule in policy["spec"].get("ingress") or []:
            peers = rule.get("from") or []
            ports = rule.get("ports") or []
            if (not peers or any(peer_admits(peer, client, client_namespace, namespace_labels, target["namespace"])
                                 for peer in peers)) and (not ports or any(port_admits(p, port) for p in ports)):
                return True, f"NetworkPolicy {policy['metadata']['name']} admits it"
    names = ", ".join(p["metadata"]["name"] for p in isolating)
    return False, f"NetworkPolicy {names} selects the target and no rule admits the Job's pod"


# ---------- the rendered charts

def job_pod(manifests):
    job = next(m for m in manifests if m["kind"] == "Job")
    return job["spec"]["template"]["metadata"].get("labels", {})


def target_pod(manifests, base_url):
    """The pod (its labels and the container port) that a connection to base_url's Service reaches."""
    url = urllib.parse.urlsplit(base_url)
    service = next((m for m in manifests if m["kind"] == "Service" and m["metadata"]["name"] == url.hostname), None)
    if service is None:
        raise SystemExit(f"no Service {url.hostname} in the rendered chart")
    service_port = next(p for p in service["spec"]["ports"] if p["port"] == (url.port or 80))
    for deployment in (m for m in manifests if m["kind"] == "Deployment"):
        labels = deployment["spec"]["template"]["metadata"].get("labels", {})
        if selects({"matchLabels": service["spec"]["selector"]}, labels):
            for container in deployment["spec"]["template"]["spec"]["containers"]:
                for port in container.get("ports", []):
                    if service_port.get("targetPort", service_port["port"]) in (port.get("name"), port["containerPort"]):
                        return {"namespace": NAMESPACE, "labels": labels,
                                "port": {"number": port["containerPort"], "name": port.get("name"),
                                         "protocol": port.get("protocol", "TCP")}}
    raise SystemExit(f"Service {url.hostname} selects no pod with its target port in the rendered chart")


def check(versions, jobs, chart_values=()):
    """[(version, scenario, target, reachable, why)] for every load Job ((load scenario, target) of load.jobs())."""
    namespace_labels = {NAMESPACE: {"kubernetes.io/metadata.name": NAMESPACE}}
    found = []
    for version in versions:
        build = helm_template(f"bench-{version}", "reactive-bench", "--set", f"build={version}", *chart_values,
                              namespace=NAMESPACE)
        policies = [m for m in build if m["kind"] == "NetworkPolicy"]
        for load_scenario, target in jobs:
            base_url = service_url(version, target)
            job = helm_template(f"load-{version}-{load_scenario}-{target}", "load-job",
                                *load_job_values(version, load_scenario, {"TARGET": target}, base_url),
                                namespace=NAMESPACE)
            pod = target_pod(build, base_url)
            reachable, why = admitted(policies, pod, pod["port"], job_pod(job), NAMESPACE, namespace_labels)
            found.append((version, load_scenario, target, reachable, why))
    return found


# ---------- the chart's own hops: every connection its pods make to one another

ADDRESS = re.compile(r"^(?:[a-z:]+://)?([a-z0-9][-a-z0-9.]*):(\d+)(?:/|$)")


def own_connections(manifests):
    """[(client's name, client's labels, "host:port")]: what each pod of a rendered chart connects to (the URLs of
    its containers' environment: REST clients, JDBC and reactive PostgreSQL; the latency proxy's upstreams, from
    the ConfigMap of the same name), where that is a Service of the same chart."""
    services = {m["metadata"]["name"] for m in manifests if m["kind"] == "Service"}
    config = {m["metadata"]["name"]: m.get("data", {}) for m in manifests if m["kind"] == "ConfigMap"}
    found, seen = [], set()
    for deployment in (m for m in manifests if m["kind"] == "Deployment"):
        name, labels = deployment["metadata"]["name"], deployment["spec"]["template"]["metadata"].get("labels", {})
        addresses = [variable.get("value", "") for container in deployment["spec"]["template"]["spec"]["containers"]
                     for variable in container.get("env", [])]
        addresses += [proxy["upstream"] for key, text in config.get(name, {}).items() if key == "proxies.json"
                      for proxy in json.loads(text)]
        for address in addresses:
            match = ADDRESS.match(address)
            if match and match.group(1) in services and (name, f"{match.group(1)}:{match.group(2)}") not in seen:
                seen.add((name, f"{match.group(1)}:{match.group(2)}"))
                found.append((name, labels, f"{match.group(1)}:{match.group(2)}"))
    return found


def own_hops(version, chart_values=()):
    """[(client, address, reachable, why)] for every connection of one build's pods (own_connections)."""
    build = helm_template(f"bench-{version}", "reactive-bench", "--set", f"build={version}", *chart_values,
                          namespace=NAMESPACE)
    policies = [m for m in build if m["kind"] == "NetworkPolicy"]
    namespace_labels = {NAMESPACE: {"kubernetes.io/metadata.name": NAMESPACE}}
    found = []
    for client, labels, address in own_connections(build):
        pod = target_pod(build, f"tcp://{address}")
        found.append((client, address, *admitted(policies, pod, pod["port"], labels, NAMESPACE, namespace_labels)))
    return found


# ---------- the scrapers: health and metrics on the management port, and only there

PUBLIC = "web-api"  # its API port is open to anyone (the load Job, port-forwards, an ingress)


def scrapes(version, chart_values=()):
    """[(service, port, reachable, why)]: a pod of the namespace monitoring (networkPolicy.metricsFrom's default)
    against each service's management port (9000) and its API port (8080)."""
    build = helm_template(f"bench-{version}", "reactive-bench", "--set", f"build={version}", *chart_values,
                          namespace=NAMESPACE)
    policies = [m for m in build if m["kind"] == "NetworkPolicy"]
    namespace_labels = {NAMESPACE: {"kubernetes.io/metadata.name": NAMESPACE},
                        "monitoring": {"kubernetes.io/metadata.name": "monitoring"}}
    found = []
    for service in SERVICES:
        for port in (9000, 8080):
            pod = target_pod(build, f"tcp://bench-{version}-{service}:{port}")
            found.append((service, port, *admitted(policies, pod, pod["port"], {"app.kubernetes.io/name": "prometheus"},
                                                   "monitoring", namespace_labels)))
    return found


def scraped_alone(found):
    """Whether the scrapers reach every management port and no API port but the public one's."""
    return all(reachable == (port == 9000 or service == PUBLIC) for service, port, reachable, _ in found)


# ---------- the control APIs: the latency proxy's (it can re-point the hops to PostgreSQL) and Jaeger's query (it shows
# every statement) admit no pod; the harness reaches them from the node or through kubectl port-forward, which no
# NetworkPolicy stops

CONTROLS = (("latency-proxy", 8474), ("jaeger", 16686))
OUTSIDER = {"app.kubernetes.io/name": "outsider"}  # a pod of no release


def namespace_pods(version, build):
    """{client: its labels} of the namespace's pods as the charts render them: each of the build's pods (its
    Deployments'), the bench's load generator (a load Job's pod) and a pod of no release."""
    pods = {m["spec"]["template"]["metadata"]["labels"]["app.kubernetes.io/name"]: m["spec"]["template"]["metadata"]["labels"]
            for m in build if m["kind"] == "Deployment"}
    job = helm_template(f"load-{version}-closed-web-api", "load-job", *load_job_values(
        version, "closed", {"TARGET": "web-api"}, service_url(version, "web-api")), namespace=NAMESPACE)
    return {**pods, "the load generator": job_pod(job), "a pod of no release": OUTSIDER}


def controls(version, chart_values=()):
    """[(client, target, reachable, why)]: pods of the namespace against each control API of a build deployed with
    both (LATENCY_PROXY=on TRACING=on)."""
    build = helm_template(f"bench-{version}", "reactive-bench", "--set", f"build={version}", "--set",
                          "latencyProxy.enabled=true", "--set", "tracing.enabled=true", *chart_values,
                          namespace=NAMESPACE)
    policies = [m for m in build if m["kind"] == "NetworkPolicy"]
    found = []
    for name, port in CONTROLS:
        pod = target_pod(build, f"tcp://bench-{version}-{name}:{port}")
        for client, labels in namespace_pods(version, build).items():
            if client not in ("jaeger", "latency-proxy"):  # the controls' own pods aside
                found.append((client, f"{name}:{port}", *admitted(policies, pod, pod["port"], labels, NAMESPACE,
                                                                  {NAMESPACE: {"kubernetes.io/metadata.name": NAMESPACE}})))
    return found


# ---------- PostgreSQL (the platform chart's policy; its pod is the operator's, with the labels the operator gives it)

SPILO = {"cluster-name": "bench-postgres", "application": "spilo", "spilo-role": "master"}


def database_clients(version, chart_values=()):
    """[(client, port, reachable, why)]: a build's pods, the load generator, a pod of no release and the operator's
    namespace against PostgreSQL's port (5432) and Patroni's (8008)."""
    build = helm_template(f"bench-{version}", "reactive-bench", "--set", f"build={version}", "--set",
                          "latencyProxy.enabled=true", namespace=NAMESPACE)
    platform = helm_template("platform", "platform", *chart_values, namespace=NAMESPACE)
    policies = [m for m in platform if m["kind"] == "NetworkPolicy"]
    clients = {**{name: (labels, NAMESPACE) for name, labels in namespace_pods(version, build).items()},
               "the operator": ({"name": "postgres-operator"}, "postgres-operator")}
    namespaces = {n: {"kubernetes.io/metadata.name": n} for n in (NAMESPACE, "postgres-operator")}
    target = {"namespace": NAMESPACE, "labels": SPILO}
    return [(client, port, *admitted(policies, target, {"number": port, "name": None, "protocol": "TCP"}, labels,
                                     namespace, namespaces))
            for client, (labels, namespace) in clients.items() for port in (5432, 8008)]


DATABASE_CLIENTS = {("articles", 5432), ("authors", 5432), ("latency-proxy", 5432), ("the operator", 5432),
                    ("the operator", 8008)}


# ---------- trust: every PostgreSQL client verifies the server against the platform chart's CA, and trusts nothing else

CA_FILE = "/etc/postgresql-ca/ca.crt"


@functools.cache
def platform_authority():
    """(the name of the platform chart's CA ConfigMap, [("the platform", why)] where its postgresql would not serve a
    certificate that CA signed): rendered and verified once, whichever build is checked against it."""
    platform = helm_template("platform", "platform", namespace=NAMESPACE)
    postgres = next(m for m in platform if m["kind"] == "postgresql")
    secret = next(m for m in platform if m["kind"] == "Secret" and m["metadata"]["name"] == postgres["spec"]["tls"]["secretName"])
    authority = next(m for m in platform if m["kind"] == "ConfigMap" and m["metadata"]["name"] == f"{postgres['metadata']['name']}-ca")
    problems = []
    with tempfile.TemporaryDirectory() as work:
        ca, server = pathlib.Path(work, "ca.crt"), pathlib.Path(work, "server.crt")
        ca.write_text(authority["data"]["ca.crt"])
        server.write_bytes(base64.b64decode(secret["data"]["tls.crt"]))
        if base64.b64decode(secret["data"]["ca.crt"]).decode().strip() != authority["data"]["ca.crt"].strip():
            problems.append(("the platform", "its ConfigMap's CA is not the one in the server's Secret"))
        verified = subprocess.run(["openssl", "verify", "-CAfile", str(ca), str(server)], capture_output=True, text=True)
        if verified.returncode != 0:
            problems.append(("the platform", f"its server certificate does not verify against its CA: {verified.stderr.strip()}"))
    return authority["metadata"]["name"], problems


def database_trust(version, chart_values=()):
    """[(client, why)] for a build's PostgreSQL clients whose trust is not the platform chart's CA alone (empty: all
    verify). The JDBC URL's sslmode and sslrootcert, the reactive client's mode and PEM trust, no trust-all, the file
    a volume of the platform's CA ConfigMap; and the platform's postgresql serves a certificate that CA signed."""
    build = helm_template(f"bench-{version}", "reactive-bench", "--set", f"build={version}", *chart_values,
                          namespace=NAMESPACE)
    authority, platform_problems = platform_authority()
    problems = list(platform_problems)
    for deployment in (m for m in build if m["kind"] == "Deployment"):
        pod = deployment["spec"]["template"]["spec"]
        env = {v["name"]: v.get("value", "") for c in pod["containers"] for v in c.get("env", [])}
        if "QUARKUS_DATASOURCE_JDBC_URL" not in env:
            continue
        name = deployment["metadata"]["name"]
        query = urllib.parse.parse_qs(urllib.parse.urlparse(env["QUARKUS_DATASOURCE_JDBC_URL"].removeprefix("jdbc:")).query)
        mounted = {m["mountPath"]: m["name"] for c in pod["containers"] for m in c.get("volumeMounts", [])}
        volumes = {v["name"]: v for v in pod.get("volumes", [])}
        volume = volumes.get(mounted.get(str(pathlib.PurePosixPath(CA_FILE).parent), ""), {})
        found = {"JDBC sslmode": query.get("sslmode", [""])[0] in ("verify-ca", "verify-full"),
                 "JDBC sslrootcert": query.get("sslrootcert", [""])[0] == CA_FILE,
                 "reactive mode": env.get("QUARKUS_DATASOURCE_REACTIVE_POSTGRESQL_SSL_MODE") in ("verify-ca", "verify-full"),
                 "reactive PEM trust": env.get("QUARKUS_DATASOURCE_REACTIVE_TRUST_CERTIFICATE_PEM") == "true"
                                       and env.get("QUARKUS_DATASOURCE_REACTIVE_TRUST_CERTIFICATE_PEM_CERTS") == CA_FILE,
                 "no trust-all": env.get("QUARKUS_DATASOURCE_REACTIVE_TRUST_ALL", "false") != "true",
                 "the platform's CA mounted": volume.get("configMap", {}).get("name") == authority}
        problems += [(name, what) for what, ok in found.items() if not ok]
    return problems


def print_lines(found):
    for version, scenario, target, reachable, why in found:
        print(f"    {'reaches' if reachable else 'CANNOT REACH'} {version} {scenario} -> {target}: {why}")


def self_test(versions, jobs):
    """Without the rule for the load generator, exactly the Jobs against a hop alone must be unreachable."""
    found = check(versions, jobs, ("--set", "networkPolicy.loadGeneratorLabels=null"))
    unreachable = {(version, scenario, target) for version, scenario, target, reachable, _ in found if not reachable}
    hops = {(version, scenario, target) for version, scenario, target, *_ in found if target != "web-api"}
    if not hops or unreachable != hops:
        print_lines(found)
        raise SystemExit("self-test: the check did not find exactly the Jobs against a hop alone unreachable without "
                         "the chart's rule for the load generator")
    print(f"self-test: without networkPolicy.loadGeneratorLabels, {len(hops)} hop Jobs found unreachable, as they must")
    # and the latency proxy's hops admit the release's services only: a pod of no release is refused there
    for version in versions:
        build = helm_template(f"bench-{version}", "reactive-bench", "--set", f"build={version}",
                              "--set", "latencyProxy.enabled=true", "--set", "tracing.enabled=true", namespace=NAMESPACE)
        for client, _, address in own_connections(build):
            pod = target_pod(build, f"tcp://{address}")
            if admitted([m for m in build if m["kind"] == "NetworkPolicy"], pod, pod["port"],
                        {"app.kubernetes.io/name": "outsider"}, NAMESPACE, {})[0]:
                raise SystemExit(f"self-test: a pod of no release was admitted where {client} connects ({address})")
    print("self-test: where the services connect to one another, a pod of no release is refused, as it must")
    # and a control API open to the namespace is caught
    if not any(reachable for *_, reachable, _ in controls(versions[0], ("--set", "networkPolicy.enabled=false"))):
        raise SystemExit("self-test: with no NetworkPolicy every pod reaches the control APIs, and the check said not")
    print("self-test: with no NetworkPolicy pods reach the latency proxy's and Jaeger's APIs, and the check says so")
    # and PostgreSQL with the platform's policy off: every pod reaches it, and the check says so
    if {(c, p) for c, p, reachable, _ in database_clients(versions[0], ("--set", "networkPolicy.enabled=false"))
            if reachable} == DATABASE_CLIENTS:
        raise SystemExit("self-test: with the platform's NetworkPolicy off every pod reaches PostgreSQL, and the check said not")
    print("self-test: with the platform's NetworkPolicy off every pod reaches PostgreSQL, and the check says so")
    # and a service told to trust another CA than the platform's is caught
    if not database_trust(versions[0], ("--set", "postgres.caConfigMap=someone-elses-ca")):
        raise SystemExit("self-test: a build trusting another CA than the platform's passed the trust check")
    print("self-test: a build trusting another CA than the platform's is found, as it must")
    # and a metricsFrom rule that names the API port too is caught
    if scraped_alone(scrapes(versions[0], ("--set", "networkPolicy.enabled=false"))):
        raise SystemExit("self-test: with no NetworkPolicy the scrapers reach every API port, and the check said not")
    print("self-test: with no NetworkPolicy the scrapers reach the API ports too, and the check says so")


def main(argv=None):
    parser = argparse.ArgumentParser(prog="check_reach.py", description=__doc__.splitlines()[0])
    parser.add_argument("--versions", default=",".join(VERSIONS))
    parser.add_argument("--self-test", action="store_true", help="first prove that the check bites")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="a value of the build's chart")
    args = parser.parse_args(argv)
    versions, jobs = args.versions.split(","), load.jobs()
    if args.self_test:
        self_test(versions, jobs)
    values = [arg for value in args.set for arg in ("--set", value)]
    found = check(versions, jobs, values)
    print_lines(found)
    blocked = [f for f in found if not f[3]]
    if blocked:
        sys.exit(f"{len(blocked)} of make bench's load Jobs could not reach their target behind the charts' NetworkPolicies")
    print(f"every load Job of make bench reaches its target ({len(found)} Jobs: {len(versions)} builds x "
          f"{len(jobs)} Jobs each: each load scenario against each target)")
    # the services' own hops, directly, and through the latency proxy with their spans to Jaeger (LATENCY_PROXY=on
    # TRACING=on make deploy-vN, as make test-cluster's last deploy)
    for proxy, traced in (("false", "false"), ("true", "true")):
        given = [*values, "--set", f"latencyProxy.enabled={proxy}", "--set", f"tracing.enabled={traced}"]
        hops = [hop for version in versions for hop in own_hops(version, given)]
        for client, address, reachable, why in hops:
            print(f"    {'reaches' if reachable else 'CANNOT REACH'} {client} -> {address}: {why}")
        if not hops or not all(hop[2] for hop in hops):
            sys.exit(f"with latencyProxy.enabled={proxy}, tracing.enabled={traced}, a service's own connection is not admitted")
        print(f"with latencyProxy.enabled={proxy}, tracing.enabled={traced}, every service's own connection is admitted "
              f"({len(hops)} connections)")
    for version in versions:
        found = scrapes(version, values)
        for service, port, reachable, why in found:
            print(f"    {'reaches' if reachable else 'cannot reach'} {version} {service}:{port} from monitoring: {why}")
        if not scraped_alone(found):
            sys.exit(f"{version}: the namespace monitoring does not reach every management port, or reaches an API "
                     "port other than web-api's")
    print("the namespace monitoring reaches every service's management port (health, metrics) and no API port but "
          "web-api's, which is public")
    found = [hop for version in versions for hop in controls(version, values)]
    for client, target, reachable, why in found:
        print(f"    {'REACHES' if reachable else 'cannot reach'} {target} from {client}: {why}")
    if any(reachable for *_, reachable, _ in found):
        sys.exit("a pod reaches the latency proxy's or Jaeger's API: only the node and port-forwards may")
    print("no pod reaches the latency proxy's API or Jaeger's query (the node and port-forwards do)")
    for version in versions:
        found = database_clients(version)
        for client, port, reachable, why in found:
            print(f"    {'reaches' if reachable else 'cannot reach'} PostgreSQL:{port} from {version}'s {client}: {why}")
        if {(c, p) for c, p, reachable, _ in found if reachable} != DATABASE_CLIENTS:
            sys.exit(f"PostgreSQL admits other clients than {sorted(DATABASE_CLIENTS)} ({version})")
    print("PostgreSQL admits every build's articles and authors (and a latency proxy in their path) and the operator, "
          "no other pod")
    for version in versions:
        for proxy in ("false", "true"):
            problems = database_trust(version, (*values, "--set", f"latencyProxy.enabled={proxy}"))
            for client, what in problems:
                print(f"    NOT VERIFIED {version} {client}: {what}")
            if problems:
                sys.exit(f"{version} (latencyProxy.enabled={proxy}): a PostgreSQL client does not verify the server "
                         "against the platform's CA alone")
    print("every build's articles and authors verify PostgreSQL against the platform chart's CA alone (JDBC and "
          "reactive, straight and through the latency proxy), and the platform's server certificate is that CA's")


if __name__ == "__main__":
    main()
