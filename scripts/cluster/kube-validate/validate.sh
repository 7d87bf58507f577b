#!/usr/bin/env bash
# Validates every manifest offline, as strictly as a real cluster: a real kube-apiserver (with a real
# etcd) gets the Strimzi and Zalando CRDs, then every rendered object is applied with server-side
# dry-run and strict field validation. Manifests broken on purpose must be rejected: the check bites.
# Then a rollout on simulated nodes: kube-controller-manager, kube-scheduler and kwok (which plays the
# kubelets) let `helm install --wait` of every build roll out, Services select the pods, the load Job runs.
# Needs HELM, KUBE_APISERVER, ETCD, KUBE_CONTROLLER_MANAGER, KUBE_SCHEDULER, KWOK (make kube-tools).
set -euo pipefail
# shellcheck source=../../lib.sh
source "$(dirname "$0")/../../lib.sh"

readonly HELM="${HELM:?}" KUBE_APISERVER="${KUBE_APISERVER:?}" ETCD="${ETCD:?}" KWOK="${KWOK:?}"
readonly KUBE_CONTROLLER_MANAGER="${KUBE_CONTROLLER_MANAGER:?}" KUBE_SCHEDULER="${KUBE_SCHEDULER:?}"
# The operator make deploy-vN installs (its chart's version, ZALANDO_CHART_VERSION) and the test node runs.
readonly ZALANDO_MODULE="github.com/zalando/postgres-operator@${ZALANDO_OPERATOR_VERSION:?set by the Makefile}"
readonly KUBE_VERSION="1.36.3"
readonly WORK="$LOCAL_DIR/kube-validate"
readonly NS=reactive-bench
# k8s.sh's switches for a cluster of one's own (exported by sourcing the test node's env, say) are not this offline
# cluster's: every check below gives the ones it means (a make test started from a shell that had sourced that env
# failed five of them on IMAGES=containerd and KAFKA_PLATFORM=external).
unset KUBE_CONTEXT OPERATORS PLATFORM KAFKA_PLATFORM POSTGRES_PLATFORM ZALANDO_CHART ZALANDO_VALUES IMAGES BASE_IMAGE \
  IMAGE_TAG IMAGE_REPOSITORY CONTAINERD_ADDRESS CLUSTER_ARCH VALUES PLATFORM_VALUES LATENCY_PROXY TRACING

expect() { local what=$1; shift; if "$@" >"$WORK/last.log" 2>&1; then pass "$what"; else fail "$what"; sed 's/^/      /' "$WORK/last.log" | tail -5; fi; }
expect_rejected() { # expect_rejected DESCRIPTION PATTERN FILE: the apiserver must refuse FILE, saying PATTERN
  local what=$1 pattern=$2 file=$3
  if dry_run "$file" >"$WORK/last.log" 2>&1; then
    fail "$what (accepted)"
  elif grep -qiE "$pattern" "$WORK/last.log"; then
    pass "$what"
  else
    fail "$what (rejected, but not for '$pattern')"; sed 's/^/      /' "$WORK/last.log" | tail -3
  fi
}

cleanup() {
  local pid
  for pid in "${kwok_pid:-}" "${scheduler_pid:-}" "${controllers_pid:-}" "${apiserver_pid:-}" "${etcd_pid:-}"; do
    [[ -n "$pid" ]] || continue
    kill "$pid" 2>/dev/null || continue
    for _ in $(seq 20); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
    kill -9 "$pid" 2>/dev/null || true
  done
  return 0
}
trap cleanup EXIT

rm -rf "$WORK" && mkdir -p "$WORK/manifests" "$WORK/crds" "$WORK/broken"

step "CRDs: Strimzi (generated from io.strimzi:api 1.2.0), Zalando (from $ZALANDO_MODULE) and the Prometheus Operator's ServiceMonitor"
(cd "$ROOT/services" && ./mvnw -q -B -ntp -f "$ROOT/scripts/cluster/kube-validate/strimzi-crds/pom.xml" \
  dependency:build-classpath -Dmdep.outputFile="$WORK/strimzi.classpath") >"$WORK/maven.log" 2>&1 ||
  die "could not resolve Strimzi's CRD generator; see $WORK/maven.log"
"$JAVA_HOME/bin/java" -cp "$(<"$WORK/strimzi.classpath")" io.strimzi.crdgenerator.CrdGenerator --yaml \
  --api-versions v1 --storage-version v1 \
  "io.strimzi.api.kafka.model.kafka.Kafka=$WORK/crds/kafka.yaml" \
  "io.strimzi.api.kafka.model.nodepool.KafkaNodePool=$WORK/crds/kafkanodepool.yaml" \
  "io.strimzi.api.kafka.model.topic.KafkaTopic=$WORK/crds/kafkatopic.yaml" >/dev/null
zalando_dir=$(go_module_dir "$ZALANDO_MODULE")
cp "$zalando_dir/manifests/postgresql.crd.yaml" "$WORK/crds/postgresql.yaml"
# The Prometheus Operator's ServiceMonitor, which the chart's serviceMonitor.enabled makes
prometheus_dir=$(go_module_dir "github.com/prometheus-operator/prometheus-operator@${PROMETHEUS_OPERATOR_VERSION:?set by the Makefile}")
cp "$prometheus_dir/example/prometheus-operator-crd/monitoring.coreos.com_servicemonitors.yaml" "$WORK/crds/servicemonitor.yaml"
info "$(cd "$WORK/crds" && echo *.yaml)"

step "Starting etcd and kube-apiserver $KUBE_VERSION on loopback"
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
etcd_port=$(free_port)
api_port=$(free_port)
"$ETCD" "$WORK/etcd" "$etcd_port" >"$WORK/etcd.log" 2>&1 &
etcd_pid=$!
wait_for "etcd ready" 60 grep -q "etcd ready" "$WORK/etcd.log" || die "etcd did not start: $WORK/etcd.log"
openssl genrsa -out "$WORK/sa.key" 2048 2>/dev/null
token=$(python3 -c 'import secrets; print(secrets.token_hex(16))')
echo "$token,validator,validator,system:masters" >"$WORK/tokens.csv"
"$KUBE_APISERVER" --etcd-servers="http://127.0.0.1:$etcd_port" --bind-address=127.0.0.1 \
  --secure-port="$api_port" --cert-dir="$WORK/certs" --token-auth-file="$WORK/tokens.csv" \
  --authorization-mode=RBAC --service-cluster-ip-range=10.96.0.0/16 \
  --service-account-issuer=https://kubernetes.default.svc --service-account-key-file="$WORK/sa.key" \
  --service-account-signing-key-file="$WORK/sa.key" >"$WORK/apiserver.log" 2>&1 &
apiserver_pid=$!
export KUBECONFIG="$WORK/kubeconfig"
kubectl config set-cluster offline --server="https://127.0.0.1:$api_port" --insecure-skip-tls-verify=true >/dev/null
kubectl config set-credentials validator --token="$token" >/dev/null
kubectl config set-context offline --cluster=offline --user=validator >/dev/null
kubectl config use-context offline >/dev/null
wait_for "kube-apiserver ready" 120 kubectl get --raw /readyz || die "kube-apiserver did not start: $WORK/apiserver.log"
kubectl create namespace "$NS" >/dev/null
# What kube-controller-manager makes in every namespace (it starts later): a Pod's admission looks it up (helm test's)
kubectl -n "$NS" create serviceaccount default >/dev/null
kubectl apply --server-side -f "$WORK/crds" >/dev/null
# Retried: a CRD that has no status yet makes kubectl wait fail at once.
wait_for "CRDs established" 60 kubectl wait --for=condition=Established crd --all --timeout=5s ||
  die "the CRDs were not established: kubectl get crd -o yaml"

dry_run() { kubectl apply --server-side --dry-run=server --validate=strict --field-manager=validate -n "$NS" -f "$1"; }

step "Rendering the charts"
for version in "${BUILDS[@]}" "${FLOOR[@]}"; do # the floor deploys with the same chart (make deploy-v0)
  "$HELM" template "bench-$version" "$ROOT/charts/reactive-bench" -n "$NS" --kube-version "$KUBE_VERSION" --set build="$version" \
    >"$WORK/manifests/bench-$version.yaml"
done
# A build behind its latency proxy (LATENCY_PROXY=on make deploy-vN: make latency-map-cluster), as a release of its own.
"$HELM" template bench-proxied "$ROOT/charts/reactive-bench" -n "$NS" --kube-version "$KUBE_VERSION" --set build=v2 \
  --set latencyProxy.enabled=true >"$WORK/manifests/bench-proxied.yaml"
# A build scraped by a Prometheus Operator (serviceMonitor.enabled): its ServiceMonitor against the operator's CRD.
"$HELM" template bench-monitored "$ROOT/charts/reactive-bench" -n "$NS" --kube-version "$KUBE_VERSION" --set build=v3 \
  --set serviceMonitor.enabled=true --set-string serviceMonitor.labels.release=prometheus >"$WORK/manifests/bench-monitored.yaml"
# A build traced (TRACING=on make deploy-vN), a share of its requests sampled (TRACING_SAMPLED, a string as given).
"$HELM" template bench-traced "$ROOT/charts/reactive-bench" -n "$NS" --kube-version "$KUBE_VERSION" --set build=v1 \
  --set tracing.enabled=true --set-string tracing.sampled=0.01 >"$WORK/manifests/bench-traced.yaml"
"$HELM" template platform "$ROOT/charts/platform" -n "$NS" --kube-version "$KUBE_VERSION" >"$WORK/manifests/platform.yaml"
# The platform placed on dedicated nodes: what Strimzi's and the Zalando operator's schemas take of it, validated below
"$HELM" template platform "$ROOT/charts/platform" -n "$NS" --kube-version "$KUBE_VERSION" \
  --set-string 'kafka.nodeSelector.reactive-bench\.example/role=platform' \
  --set 'kafka.tolerations[0].key=reactive-bench.example/dedicated,kafka.tolerations[0].operator=Exists' \
  --set 'kafka.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight=1' \
  --set 'kafka.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm.topologyKey=kubernetes.io/hostname' \
  --set-string 'postgres.nodeSelector.reactive-bench\.example/role=platform' \
  --set 'postgres.tolerations[0].key=reactive-bench.example/dedicated,postgres.tolerations[0].operator=Exists' \
  >"$WORK/manifests/platform-placed.yaml"
for scenario in warmup closed open; do
  "$HELM" template "load-v2-$scenario" "$ROOT/charts/load-job" -n "$NS" --kube-version "$KUBE_VERSION" \
    --set build=v2 --set scenario="$scenario" --set baseUrl=http://bench-v2-web-api:8080 >"$WORK/manifests/load-$scenario.yaml"
done
# A run split over two pods (make bench with LOAD_PODS=2): an Indexed Job whose pods start at one instant.
"$HELM" template load-v2-split "$ROOT/charts/load-job" -n "$NS" --kube-version "$KUBE_VERSION" --set build=v2 \
  --set scenario=open --set pods=2 --set-string startAt=1800000000.5 --set baseUrl=http://bench-v2-web-api:8080 \
  >"$WORK/manifests/load-split.yaml"

step "Server-side dry-run with strict validation"
for file in "$WORK"/manifests/*.yaml; do
  expect "$(basename "$file" .yaml): $(grep -c '^kind:' "$file") objects accepted" dry_run "$file"
done

step "Broken on purpose: each must be rejected"
python3 - "$WORK" <<'PY'
import pathlib, re, sys
work = pathlib.Path(sys.argv[1])
app = (work / "manifests" / "bench-v1.yaml").read_text()
job = (work / "manifests" / "load-closed.yaml").read_text()
platform = (work / "manifests" / "platform.yaml").read_text()
def only(text, kind, name=None):
    docs = [d for d in text.split("\n---\n") if re.search(rf"^kind: {kind}$", d, re.M) and (not name or f"name: {name}\n" in d)]
    return docs[0]
deployment = only(app, "Deployment", "bench-v1-web-api")
(work / "broken" / "unknown-field.yaml").write_text(deployment.replace("  replicas: 1\n", "  replicas: 1\n  replicaz: 2\n", 1))
(work / "broken" / "selector-mismatch.yaml").write_text(deployment.replace(
    "      app.kubernetes.io/name: web-api\n      app.kubernetes.io/instance: bench-v1\n  template:",
    "      app.kubernetes.io/name: web-api-typo\n      app.kubernetes.io/instance: bench-v1\n  template:", 1))
(work / "broken" / "job-restart-always.yaml").write_text(job.replace("restartPolicy: Never", "restartPolicy: Always"))
nodepool = only(platform, "KafkaNodePool")
(work / "broken" / "nodepool-bad-role.yaml").write_text(nodepool.replace("    - broker\n", "    - wizard\n", 1))
kafka = only(platform, "Kafka")
(work / "broken" / "kafka-unknown-field.yaml").write_text(kafka.replace("  kafka:\n", "  kafka:\n    replicaCount: 3\n", 1))
monitor = only((work / "manifests" / "bench-monitored.yaml").read_text(), "ServiceMonitor")
(work / "broken" / "servicemonitor-bad-endpoint.yaml").write_text(monitor.replace("path: /q/metrics", "pathz: /q/metrics", 1))
postgres = only(platform, "postgresql")
(work / "broken" / "postgres-bad-instances.yaml").write_text(postgres.replace("numberOfInstances: 1", 'numberOfInstances: "one"'))
PY
expect_rejected "an unknown field in a Deployment" 'field not declared in schema|unknown field' "$WORK/broken/unknown-field.yaml"
expect_rejected "a Deployment whose selector does not match its pods" 'selector.*does not match' "$WORK/broken/selector-mismatch.yaml"
expect_rejected "a Job with restartPolicy Always" 'spec.template.spec.restartPolicy' "$WORK/broken/job-restart-always.yaml"
expect_rejected "a KafkaNodePool role outside the enum" 'Unsupported value: "wizard"' "$WORK/broken/nodepool-bad-role.yaml"
expect_rejected "an unknown field in a Kafka" 'replicaCount: field not declared in schema|unknown field' "$WORK/broken/kafka-unknown-field.yaml"
expect_rejected "a postgresql with a string instance count" 'numberOfInstances: expected numeric|numberOfInstances.*must be of type integer' "$WORK/broken/postgres-bad-instances.yaml"
expect_rejected "an unknown field in a ServiceMonitor's endpoint" 'pathz: field not declared in schema|unknown field' "$WORK/broken/servicemonitor-bad-endpoint.yaml"

step "Rollout on simulated nodes (kube-controller-manager, kube-scheduler, kwok)"
"$KUBE_CONTROLLER_MANAGER" --kubeconfig="$KUBECONFIG" --leader-elect=false --bind-address=127.0.0.1 \
  --secure-port="$(free_port)" --service-account-private-key-file="$WORK/sa.key" \
  --root-ca-file="$WORK/certs/apiserver.crt" --use-service-account-credentials=false \
  --controllers='*,-nodeipam,-cloud-node-lifecycle' >"$WORK/controller-manager.log" 2>&1 &
controllers_pid=$!
"$KUBE_SCHEDULER" --kubeconfig="$KUBECONFIG" --leader-elect=false --bind-address=127.0.0.1 \
  --secure-port="$(free_port)" >"$WORK/scheduler.log" 2>&1 &
scheduler_pid=$!
# kwok's own stages (from its module, the version built): nodes become ready, pods are created, become
# ready, and complete when their owner is a Job.
kwok_dir=$(cd "$ROOT/scripts/cluster/kube-validate" && go mod download -json "sigs.k8s.io/kwok@${KWOK_VERSION:?}" |
  python3 -c 'import json,sys; print(json.load(sys.stdin)["Dir"])')
stages=()
for stage in node/fast/node-initialize node/heartbeat/node-heartbeat pod/general/pod-create pod/general/pod-ready \
  pod/general/pod-complete pod/general/pod-delete pod/general/pod-init-container-running \
  pod/general/pod-init-container-completed; do
  stages+=(--config "$kwok_dir/kustomize/stage/$stage.yaml")
done
"$KWOK" "${stages[@]}" --kubeconfig="$KUBECONFIG" --manage-all-nodes=false \
  --manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake \
  --cidr=10.244.0.0/16 --node-ip=10.0.0.10 --server-address="127.0.0.1:$(free_port)" >"$WORK/kwok.log" 2>&1 &
kwok_pid=$!
# Three simulated nodes, each roomy enough for every build and a load Job, as minikube/profile.env sizes the real
# one: two labelled for the builds, one for the load generator (the placement checks below).
readonly NODES=(kwok-node-0 kwok-node-1 kwok-node-2)
for node in "${NODES[@]}"; do
  role=bench
  [[ $node != "${NODES[2]}" ]] || role=load
  kubectl apply -f - >/dev/null <<NODE
apiVersion: v1
kind: Node
metadata:
  name: $node
  annotations:
    kwok.x-k8s.io/node: fake
  labels:
    kubernetes.io/hostname: $node
    kubernetes.io/os: linux
    kubernetes.io/arch: amd64
    reactive-bench.example/role: $role
status:
  allocatable: {cpu: "7", memory: 13Gi, pods: "110"}
  capacity: {cpu: "7", memory: 14Gi, pods: "110"}
NODE
done
wait_for "simulated nodes ready" 60 bash -c "[[ \$(kubectl get nodes -o \
  jsonpath='{.items[*].status.conditions[?(@.type==\"Ready\")].status}') == 'True True True' ]]" ||
  die "kwok did not make the nodes ready: $WORK/kwok.log"
wait_for "default service account created" 60 kubectl -n "$NS" get serviceaccount default ||
  die "kube-controller-manager did not start: $WORK/controller-manager.log"

rolls_out() { # rolls_out VERSION: helm install --wait, and each Service has a ready endpoint
  local version=$1 service
  "$HELM" install "bench-$version" "$ROOT/charts/reactive-bench" -n "$NS" --set build="$version" \
    --wait --timeout 3m >/dev/null || return 1
  for service in web-api articles authors; do
    kubectl -n "$NS" get endpointslices -l "kubernetes.io/service-name=bench-$version-$service" \
      -o jsonpath='{.items[*].endpoints[*].conditions.ready}' | grep -q true || {
      echo "Service bench-$version-$service selects no ready pod"
      return 1
    }
  done
}
for version in "${BUILDS[@]}"; do
  expect "bench-$version rolls out (helm install --wait) and its three Services select ready pods" rolls_out "$version"
done
load_job_runs() {
  "$HELM" install load-smoke "$ROOT/charts/load-job" -n "$NS" --set build=v2 --set scenario=smoke \
    --set baseUrl=http://bench-v2-web-api:8080 >/dev/null || return 1
  kubectl -n "$NS" wait pod -l app.kubernetes.io/instance=load-smoke --for=condition=Ready --timeout=60s
}
expect "the load Job is created and its pod is scheduled and started" load_job_runs

# Where the scheduler puts the pods of a cluster of several nodes, as the charts' placement values say.
nodes_of() { # nodes_of SELECTOR: the nodes of its pods, sorted, unique, space-separated
  kubectl -n "$NS" get pods -l "$1" -o jsonpath='{range .items[*]}{.spec.nodeName}{"\n"}{end}' | sort -u | xargs
}
build_on_its_nodes() { # every pod of bench-v2 on the nodes labelled for the builds, after its placement values
  "$HELM" upgrade bench-v2 "$ROOT/charts/reactive-bench" -n "$NS" --reuse-values --wait --timeout 3m \
    --set-string 'nodeSelector.reactive-bench\.example/role=bench' >/dev/null || return 1
  local placed
  for _ in $(seq 60); do # the old pods, wherever they were, stop after the new ones are ready
    placed=$(nodes_of app.kubernetes.io/instance=bench-v2)
    [[ -n $placed && $placed != *"${NODES[2]}"* ]] && break
    sleep 1
  done
  echo "bench-v2 on: $placed"
  [[ -n $placed && $placed != *"${NODES[2]}"* ]]
}
expect "with nodeSelector every pod of a build runs on the nodes labelled for it" build_on_its_nodes
load_pods_on() { # load_pods_on RELEASE EXPECTED [HELM ARGS...]: a two-pod load Job's pods all run on EXPECTED
  local release=$1 expected=$2 placed
  shift 2
  "$HELM" install "$release" "$ROOT/charts/load-job" -n "$NS" --set build=v2 --set scenario=smoke --set pods=2 \
    --set baseUrl=http://bench-v2-web-api:8080 "$@" >/dev/null || return 1
  kubectl -n "$NS" wait pod -l "app.kubernetes.io/instance=$release" --for=condition=Ready --timeout=60s >/dev/null ||
    return 1
  placed=$(nodes_of "app.kubernetes.io/instance=$release")
  echo "$release on: $placed; bench-v2 on: $(nodes_of app.kubernetes.io/instance=bench-v2)"
  [[ $placed == "$expected" ]]
}
scheduler_sees_free_node() { # a pod that must keep off bench-v2's serving pods is scheduled, then deleted
  # The scheduler's cache follows the API a moment behind: right after bench-v2 moved, it can still count the old
  # pods on the load node, and then every node looks taken. A pod with the same terms, but required, schedules only
  # once the scheduler sees a free node; so a preference scored after it is scored on the cluster as it is.
  # The pod takes its terms from the load Job the chart renders, made required.
  "$HELM" template probe "$ROOT/charts/load-job" --set build=v2 --set baseUrl=http://bench-v2-web-api:8080 |
    kubectl create --dry-run=client -o json -f - | python3 -c '
import json, sys
job = json.load(sys.stdin)
terms = [p["podAffinityTerm"] for p in
         job["spec"]["template"]["spec"]["affinity"]["podAntiAffinity"]["preferredDuringSchedulingIgnoredDuringExecution"]]
print(json.dumps({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "scheduler-caught-up"},
                  "spec": {"affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": terms}},
                           "containers": [{"name": "pause", "image": "localhost/reactive-bench/pause:none"}]}}))' |
    kubectl -n "$NS" apply -f - >/dev/null || return 1
  kubectl -n "$NS" wait pod/scheduler-caught-up --for=condition=Ready --timeout=60s >/dev/null || return 1
  kubectl -n "$NS" delete pod/scheduler-caught-up --wait >/dev/null
}
load_pods_apart() { # a two-pod load Job's pods all on nodes without a pod of the build it loads (bench-v2)
  local release=load-apart build placed node
  scheduler_sees_free_node || { echo "no node without bench-v2's pods, as the scheduler sees them, within 60 s"; return 1; }
  build=$(nodes_of app.kubernetes.io/instance=bench-v2)
  "$HELM" install "$release" "$ROOT/charts/load-job" -n "$NS" --set build=v2 --set scenario=smoke --set pods=2 \
    --set baseUrl=http://bench-v2-web-api:8080 >/dev/null || return 1
  kubectl -n "$NS" wait pod -l "app.kubernetes.io/instance=$release" --for=condition=Ready --timeout=60s >/dev/null ||
    return 1
  placed=$(nodes_of "app.kubernetes.io/instance=$release")
  echo "$release on: $placed; bench-v2 on: $build"
  for node in $placed; do [[ " $build " != *" $node "* ]] || return 1; done
}
expect "by default a two-pod load Job keeps off the nodes of the build it loads (preferred anti-affinity)" \
  load_pods_apart
expect "LOAD_NODE_SELECTOR's value pins both pods to the generator's node" \
  load_pods_on load-pinned "${NODES[2]}" --set avoidBuildNodes=false \
  --set-string 'nodeSelector.reactive-bench\.example/role=load'
expect "without placement values a build's pods go wherever the scheduler likes (all three nodes are candidates)" \
  bash -c "[[ \$(kubectl -n '$NS' get pods -l app.kubernetes.io/instance=bench-v1 -o \
    jsonpath='{.items[*].spec.nodeName}' | wc -w) == 3 ]] && ! kubectl -n '$NS' get deploy -l \
    app.kubernetes.io/instance=bench-v1 -o jsonpath='{.items[*].spec.template.spec.nodeSelector}' | grep -q ."

# Kafka's and PostgreSQL's pods are the operators' to make: what the platform chart gives each operator for them
# (Strimzi's pod template, the postgresql's node affinity and tolerations) is made into pods here, which the scheduler
# places among kwok's nodes. A fourth node is for the platform alone: labelled for it, and tainted.
readonly PLATFORM_NODE=kwok-node-3 PLATFORM_TAINT="reactive-bench.example/dedicated=platform:NoSchedule"
platform_pods() { # platform_pods FILE: the pods the operators would make, from the platform chart's placement values
  "$HELM" template platform "$ROOT/charts/platform" -n "$NS" \
    --set-string 'kafka.nodeSelector.reactive-bench\.example/role=platform' \
    --set-string 'postgres.nodeSelector.reactive-bench\.example/role=platform' \
    --set 'kafka.tolerations[0].key=reactive-bench.example/dedicated' --set 'kafka.tolerations[0].value=platform' \
    --set 'kafka.tolerations[0].effect=NoSchedule' \
    --set 'postgres.tolerations[0].key=reactive-bench.example/dedicated' --set 'postgres.tolerations[0].value=platform' \
    --set 'postgres.tolerations[0].effect=NoSchedule' | "${BENCHKIT_PYTHON:?}" -c '
import sys, yaml
objects = {o["kind"]: o for o in yaml.safe_load_all(sys.stdin) if o}
kafka = objects["KafkaNodePool"]["spec"]["template"]["pod"]
postgres = objects["postgresql"]["spec"]
pods = {"as-kafka": {"affinity": kafka.get("affinity"), "tolerations": kafka.get("tolerations")},
        "as-postgres": {"affinity": {"nodeAffinity": postgres["nodeAffinity"]}, "tolerations": postgres.get("tolerations")},
        # the same place asked for without the toleration: the taint keeps it out
        "untolerated": {"affinity": {"nodeAffinity": postgres["nodeAffinity"]}}}
print(yaml.safe_dump_all([{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "labels": {"placement": "platform"}},
                           "spec": {**spec, "containers": [{"name": "c", "image": "localhost/reactive-bench/pause"}]}}
                          for name, spec in pods.items()]))' >"$1"
}
platform_placed() {
  kubectl apply -f - >/dev/null <<NODE || return 1
apiVersion: v1
kind: Node
metadata:
  name: $PLATFORM_NODE
  annotations: {kwok.x-k8s.io/node: fake}
  labels: {kubernetes.io/hostname: $PLATFORM_NODE, kubernetes.io/os: linux, kubernetes.io/arch: amd64, reactive-bench.example/role: platform}
spec:
  taints: [{key: reactive-bench.example/dedicated, value: platform, effect: NoSchedule}]
status:
  allocatable: {cpu: "7", memory: 13Gi, pods: "110"}
  capacity: {cpu: "7", memory: 14Gi, pods: "110"}
NODE
  wait_for "$PLATFORM_NODE ready" 60 bash -c "[[ \$(kubectl get node $PLATFORM_NODE -o \
    jsonpath='{.status.conditions[?(@.type==\"Ready\")].status}') == True ]]" || return 1
  platform_pods "$WORK/platform-pods.yaml" && kubectl -n "$NS" apply -f "$WORK/platform-pods.yaml" >/dev/null || return 1
  kubectl -n "$NS" wait pod/as-kafka pod/as-postgres --for=condition=PodScheduled --timeout=60s >/dev/null || return 1
  local placed
  placed=$(kubectl -n "$NS" get pods -l placement=platform -o jsonpath='{range .items[*]}{.metadata.name}={.spec.nodeName}{" "}{end}')
  echo "placed: $placed"
  kubectl -n "$NS" delete pods -l placement=platform --wait=false >/dev/null
  kubectl taint node "$PLATFORM_NODE" "$PLATFORM_TAINT-" >/dev/null && kubectl label node "$PLATFORM_NODE" reactive-bench.example/role- >/dev/null
  [[ $placed == *"as-kafka=$PLATFORM_NODE "* && $placed == *"as-postgres=$PLATFORM_NODE "* && $placed == *"untolerated= "* ]]
}
expect "Kafka's and PostgreSQL's pods, as the operators make them from the platform chart's placement, run on the platform's tainted node; without the toleration the taint keeps a pod out" \
  platform_placed

# The images are built for the nodes' architecture as Kubernetes reports it (scripts/cluster/k8s.sh architecture), whatever
# the machine that builds them; where the nodes differ, the user picks one.
architecture() { "$ROOT/scripts/cluster/k8s.sh" architecture 2>&1; }
reported_amd64() { [[ $(architecture) == amd64 ]]; }
expect "the images are for the architecture the nodes report (amd64, as kwok's nodes say)" reported_amd64
one_node_on_arm64() {
  kubectl patch node "${NODES[2]}" --subresource=status --type=merge \
    -p '{"status":{"nodeInfo":{"architecture":"arm64"}}}' >/dev/null || return 1
  local said
  ! said=$(architecture) || { echo "k8s.sh architecture chose $said"; return 1; }
  echo "$said"
  [[ $said == *"several architectures (amd64 arm64)"*CLUSTER_ARCH* ]] && [[ $(CLUSTER_ARCH=arm64 architecture) == arm64 ]]
}
expect "nodes of two architectures: no image is built until CLUSTER_ARCH picks one, which is then used" one_node_on_arm64

# The ServiceMonitor scrapes the three services and nothing else of a release (not Jaeger, the latency proxy or the
# helm test's pod), and every object's version label is its own image's.
scraped_and_versioned() {
  "$HELM" template sm "$ROOT/charts/reactive-bench" --set serviceMonitor.enabled=true --set tracing.enabled=true \
    --set latencyProxy.enabled=true --set image.tag=abc1234-1 >"$WORK/servicemonitor.yaml" || return 1
  "${BENCHKIT_PYTHON:?}" - "$WORK/servicemonitor.yaml" "$ROOT/charts/reactive-bench/values.yaml" <<'PY'
import sys, yaml
objects = [o for o in yaml.safe_load_all(open(sys.argv[1])) if o]
values = yaml.safe_load(open(sys.argv[2]))
monitor = next(o for o in objects if o["kind"] == "ServiceMonitor")["spec"]["selector"]
def selected(labels):
    return all(labels.get(k) == v for k, v in monitor["matchLabels"].items()) and all(
        labels.get(e["key"]) in e["values"] for e in monitor["matchExpressions"])
scraped = sorted(o["metadata"]["name"] for o in objects if o["kind"] == "Service" and selected(o["metadata"]["labels"]))
versions = {o["metadata"]["labels"]["app.kubernetes.io/name"]: o["metadata"]["labels"]["app.kubernetes.io/version"]
            for o in objects if o["kind"] in ("Deployment", "Pod")}
print(scraped, versions)
assert scraped == ["sm-articles", "sm-authors", "sm-web-api"], scraped
assert versions == {"web-api": "abc1234-1", "articles": "abc1234-1", "authors": "abc1234-1", "helm-test": "abc1234-1",
                    "jaeger": values["tracing"]["image"]["tag"], "latency-proxy": values["latencyProxy"]["image"]["tag"]}, versions
PY
}
expect "the ServiceMonitor selects the three services' Services alone, and each object's version is its own image's" \
  scraped_and_versioned

# Deploying changes only the cluster it may (scripts/cluster/k8s.sh): this apiserver's context, "offline", is neither
# minikube's nor the test node's; the operators are installed only where none runs.
step "Deploying into someone else's cluster: the context, the images, the operators"
k8s() { "$ROOT/scripts/cluster/k8s.sh" "$@" 2>&1; }
namespaces() { kubectl get namespaces -o name | sort | xargs; }
refused_elsewhere() {
  local before said verb
  before=$(namespaces)
  for verb in "deploy v1" operators platform undeploy "run bench"; do
    # shellcheck disable=SC2086 # the verb and its argument are two words
    ! said=$(k8s $verb) || { echo "k8s.sh $verb went on: $said"; return 1; }
    [[ $said == *"current context is 'offline'"*"nothing was changed there"*"KUBE_CONTEXT=offline"* ]] ||
      { echo "k8s.sh $verb: $said"; return 1; }
  done
  [[ $(namespaces) == "$before" ]]
}
expect "a context neither minikube's nor the test node's is refused, named, before anything changes (deploy, operators, platform, undeploy, an experiment)" \
  refused_elsewhere
images_follow_the_context() {
  local said
  ! said=$(KUBE_CONTEXT=offline k8s plan) && [[ $said == *"is not minikube's: say where its images go"* ]] || return 1
  ! said=$(KUBE_CONTEXT=offline IMAGES=minikube k8s plan) && [[ $said == *"IMAGES=minikube builds into minikube's profile"* ]]
}
expect "IMAGES follows the context: minikube's only in minikube's, elsewhere it must be said" images_follow_the_context
planned() { KUBE_CONTEXT=offline IMAGES=registry IMAGE_REPOSITORY=registry.example/reactive-bench k8s plan; }
plan_says() { # plan_says TEXT…: the plan succeeds and says each
  local said text
  said=$(planned) || { echo "$said"; return 1; }
  for text in "$@"; do [[ $said == *"$text"* ]] || { echo "not '$text' in: $said"; return 1; }; done
}
expect "named, with no operator running, both operators would be installed" \
  plan_says "context offline" "Strimzi operator: install" "Zalando operator: install" "platform chart: installed in $NS"
others_operators() {
  kubectl create namespace someone-elses >/dev/null &&
    kubectl -n someone-elses create deployment postgres-operator --image=ghcr.io/zalando/postgres-operator:v1.15.1 >/dev/null &&
    kubectl -n someone-elses create deployment strimzi-cluster-operator --image=quay.io/strimzi/operator:0.45.0 >/dev/null &&
    kubectl -n someone-elses set env deployment/strimzi-cluster-operator STRIMZI_NAMESPACE=someone-elses >/dev/null
}
expect "another Zalando and Strimzi operator are made to run, in a namespace of their own" others_operators
strimzi_elsewhere_stops() {
  local said
  ! said=$(planned) || return 1
  echo "$said"
  [[ $said == *"a Strimzi operator runs in the cluster already (someone-elses/strimzi-cluster-operator, watching someone-elses), and not $NS"*"OPERATORS=skip"*"KAFKA_PLATFORM=external"* ]]
}
expect "a running Strimzi operator that does not watch the namespace stops deploying, saying what to do" strimzi_elsewhere_stops
running_ones_used() {
  kubectl -n someone-elses set env deployment/strimzi-cluster-operator STRIMZI_NAMESPACE='*' >/dev/null &&
    plan_says "Strimzi operator: use someone-elses/strimzi-cluster-operator" "Zalando operator: use someone-elses/postgres-operator"
}
expect "one that watches every namespace is used, and so is the running Zalando operator: neither installed again" running_ones_used
skipped() { OPERATORS=skip plan_says "Strimzi operator: skip" "Zalando operator: skip"; }
expect "OPERATORS=skip installs neither, whatever runs" skipped
changed_chart_refused() { # a package whose sha256 is not the pinned one (here: the pin moved) is not installed
  local said
  kubectl delete namespace someone-elses --wait=true --timeout=60s >/dev/null || return 1
  said=$(KUBE_CONTEXT=offline KAFKA_PLATFORM=external ZALANDO_CHART_SHA256="$(printf '0%.0s' {1..64})" \
    ZALANDO_CHART="$zalando_dir/charts/postgres-operator/postgres-operator-${ZALANDO_OPERATOR_VERSION#v}.tgz" k8s operators 2>&1) &&
    { echo "installed: $said"; return 1; }
  echo "$said" | tail -2
  [[ $said == *"not the pinned 0000"*"not installed"* && $("$HELM" list -A -q | xargs) != *postgres-operator* ]]
}
expect "the Zalando operator's chart package whose sha256 is not the pinned one is refused, nothing installed" changed_chart_refused
operators_alone() { # the Zalando operator alone (Kafka external), once the other one is gone: this project's release only
  kubectl delete namespace someone-elses --wait=true --timeout=60s --ignore-not-found >/dev/null || return 1
  KUBE_CONTEXT=offline KAFKA_PLATFORM=external \
    ZALANDO_CHART="$zalando_dir/charts/postgres-operator/postgres-operator-${ZALANDO_OPERATOR_VERSION#v}.tgz" k8s operators || return 1
  [[ $("$HELM" list -A -q | xargs) == *postgres-operator* ]] && ! "$HELM" status platform -n "$NS" >/dev/null 2>&1 &&
    plan_says "Zalando operator: install"  # its own release, upgraded in place
}
expect "the operators install alone, without the platform chart, and their own release is upgraded, not doubled" operators_alone
platform_alone() { # the platform chart alone, with PostgreSQL's resource reported running (no operator runs here)
  local releases
  releases=$("$HELM" list -A -q | sort | xargs)
  local reporter
  ( for _ in $(seq 60); do
      kubectl -n "$NS" patch postgresql bench-postgres --subresource=status --type=merge \
        -p '{"status":{"PostgresClusterStatus":"Running"}}' >/dev/null 2>&1 && break
      sleep 1
    done ) &
  reporter=$!
  KUBE_CONTEXT=offline KAFKA_PLATFORM=external timeout 300 "$ROOT/scripts/cluster/k8s.sh" platform 2>&1 || return 1
  wait "$reporter"
  [[ $("$HELM" list -A -q | sort | xargs) == "$(xargs -n1 <<<"$releases platform" | sort | xargs)" ]]
}
expect "the platform chart installs alone: no operator installed or changed by it" platform_alone

summary kube-validate
