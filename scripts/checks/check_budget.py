#!/usr/bin/env python3
"""Checks that everything `make deploy-vN` (every build) and `make bench` place on minikube fits the
profile's node (part of make test). The scheduler places a pod only where its requests fit: summed here
are the requests of every build's pods, the platform's (from the Kafka, KafkaNodePool and postgresql
resources the operators turn into pods), a load Job, one rolling update's surge pods, and the known requests
of minikube's own pods and of the operators (minikube/profile.env). Renders the charts with helm, so
what is checked is what is deployed.

  check_budget.py               the sum, per item, and whether it fits (exit 1 if not); then the same for
                                the fault runs (make chaos-cluster): one build with REPLICAS=2; and for the
                                latency map's deploys (LATENCY_PROXY=on): every build with its latency proxy
  check_budget.py --self-test   proves the check bites: the old sizing (0.5 CPU per service, the
                                operators' chart defaults) must not fit
"""
import argparse
import os
import pathlib
import re
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))  # the harness, scripts/benchkit

from benchkit import FLOOR, VERSIONS as BUILDS# services/builds.conf, read once by the harness (standard library only)
from benchkit.platforms import kube
from benchkit.platforms.kube import helm_template

ROOT = pathlib.Path(__file__).resolve().parents[2]


def cpu(quantity):
    """CPU quantity in millicores."""
    return round(kube.cpu(quantity) * 1000)


def memory(quantity):
    """Memory quantity in MiB."""
    match = re.fullmatch(r"([0-9.]+)(Ki|Mi|Gi)?", str(quantity))
    if not match:
        raise SystemExit(f"unreadable memory quantity: {quantity}")
    return float(match.group(1)) * {"Ki": 1 / 1024, "Mi": 1, "Gi": 1024, None: 1 / 2**20}[match.group(2)]


def profile():
    """minikube/profile.env's values, with the environment's overrides."""
    values = {}
    for line in (ROOT / "minikube" / "profile.env").read_text().splitlines():
        match = re.fullmatch(r'([A-Z_]+)="\$\{\1:-(.*)\}"', line.strip())
        if match:
            values[match.group(1)] = os.environ.get(match.group(1), match.group(2))
    return values


def render(chart, release, *settings):
    """The chart's manifests, parsed, with these --set values."""
    return helm_template(release, chart, *[arg for setting in settings for arg in ("--set", setting)])


def requests_of(resources):
    requested = (resources or {}).get("requests", {})
    return cpu(requested.get("cpu", 0)), memory(requested.get("memory", "0Mi"))


def pod_requests(spec):
    totals = [requests_of(c.get("resources")) for c in spec.get("containers", [])]
    return sum(t[0] for t in totals), sum(t[1] for t in totals)


def budget(extra_settings=(), operator_cpu=None, builds=BUILDS, load_job=True):
    env = profile()
    items = []  # (what, millicores, MiB)
    items.append(("minikube's own pods (control plane, CoreDNS, Calico)", cpu(env["MINIKUBE_SYSTEM_CPU"]),
                  memory(env["MINIKUBE_SYSTEM_MEMORY"])))
    items.append(("Strimzi operator", cpu(operator_cpu or env["STRIMZI_OPERATOR_CPU"]), memory(env["STRIMZI_OPERATOR_MEMORY"])))
    items.append(("Zalando postgres-operator", cpu(env["ZALANDO_OPERATOR_CPU"]), memory(env["ZALANDO_OPERATOR_MEMORY"])))
    for doc in render("platform", "platform"):
        if doc["kind"] == "KafkaNodePool":
            c, m = requests_of(doc["spec"]["resources"])
            items.append((f"Kafka node pool {doc['metadata']['name']} x {doc['spec']['replicas']}",
                          c * doc["spec"]["replicas"], m * doc["spec"]["replicas"]))
        elif doc["kind"] == "Kafka":
            c, m = requests_of(doc["spec"]["entityOperator"]["topicOperator"].get("resources"))
            items.append(("Kafka entity operator (topic operator)", c, m))
        elif doc["kind"] == "postgresql":
            c, m = requests_of(doc["spec"]["resources"])
            n = doc["spec"]["numberOfInstances"]
            items.append((f"PostgreSQL x {n}", c * n, m * n))
    surge = (0, 0)
    for build in builds:
        surge_cpu = surge_memory = 0
        for doc in render("reactive-bench", f"bench-{build}", f"build={build}", *extra_settings):
            if doc["kind"] != "Deployment":
                continue
            replicas = doc["spec"]["replicas"]
            c, m = pod_requests(doc["spec"]["template"]["spec"])
            items.append((f"{doc['metadata']['name']} x {replicas}", c * replicas, m * replicas))
            extra = doc["spec"]["strategy"]["rollingUpdate"]["maxSurge"]  # the chart's: a number of pods
            surge_cpu, surge_memory = surge_cpu + c * extra, surge_memory + m * extra
        surge = max(surge, (surge_cpu, surge_memory))
    for doc in render("load-job", "load", "scenario=closed") if load_job else ():
        if doc["kind"] == "Job":
            c, m = pod_requests(doc["spec"]["template"]["spec"])
            items.append(("load Job (make bench)", c, m))
    items.append(("surge pods of one build's rolling update (redeploy)", *surge))
    allocatable = (cpu(env["MINIKUBE_ALLOCATABLE_CPU"]), memory(env["MINIKUBE_ALLOCATABLE_MEMORY"]))
    return items, allocatable


def report(items, allocatable):
    total = (sum(i[1] for i in items), sum(i[2] for i in items))
    for what, c, m in items:
        print(f"    {what:<58} {c:>6} m  {m:>8.0f} MiB")
    fits = total[0] <= allocatable[0] and total[1] <= allocatable[1]
    print(f"    {'total':<58} {total[0]:>6} m  {total[1]:>8.0f} MiB   of {allocatable[0]} m, {allocatable[1]:.0f} MiB:"
          f" {'fits' if fits else 'DOES NOT FIT'}")
    return fits


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--self-test", action="store_true")
    args = parser.parse_args()
    if args.self_test:
        old = [f"services.{s}.resources.requests.cpu=500m" for s in ("web-api", "articles", "authors")]
        print("==> Budget self-test: the sizing before it was checked (0.5 CPU per service) must not fit")
        fits = report(*budget(old))
        if fits:
            sys.exit("check_budget.py does not bite: the old sizing was reported to fit")
        print("    the check bites")
        return
    print(f"==> CPU and memory budget of minikube/profile.env: {' + '.join('deploy-' + b for b in BUILDS)} + bench, requests")
    if not report(*budget()):
        sys.exit("The requests do not fit the minikube profile: pods would stay Pending (see minikube/profile.env)")
    # make chaos-cluster with REPLICAS=2: one build at a time (its load comes from beside the cluster, no load Job)
    print("==> The fault runs: one build deployed with REPLICAS=2 at a time, chaos's clients outside the cluster")
    replicated = [f"services.{service}.replicas=2" for service in ("web-api", "articles", "authors")]
    if not report(*budget(replicated, builds=BUILDS[:1], load_job=False)):
        sys.exit("One build with two replicas per service does not fit the minikube profile (see minikube/profile.env)")
    # make bench against the floor: deploy-v0 beside two builds (all four exceed minikube's memory: undeploy one)
    beside = BUILDS[:2] + FLOOR
    print(f"==> The floor: {' + '.join('deploy-' + b for b in beside)} + bench (all the builds and the floor do not fit)")
    if not report(*budget(builds=beside)):
        sys.exit("The floor beside two builds does not fit the minikube profile (see minikube/profile.env)")
    # make latency-map-cluster: every build deployed with LATENCY_PROXY=on (a latency proxy per release), a load Job
    print("==> The latency map: every build deployed with its latency proxy (LATENCY_PROXY=on), and a load Job")
    if not report(*budget(["latencyProxy.enabled=true"])):
        sys.exit("Every build with its latency proxy does not fit the minikube profile (see minikube/profile.env)")


if __name__ == "__main__":
    main()
