#!/usr/bin/env bash
# The Kubernetes side of reactive-bench.
#   k8s.sh check             kubectl is there and a cluster answers (every Makefile target asks this first)
#   k8s.sh minikube          start the minikube profile of minikube/profile.env
#   k8s.sh deploy v1|v2      operators (if missing), the platform, the build's images and chart; waits for rollout
#   k8s.sh bench             k6 Jobs against every deployed build, one after the other; then the report
#   k8s.sh undeploy          remove both builds, the platform and the namespace (operators stay)
# Idempotent: every step can be rerun. Tool versions come from the Makefile (HELM, chart versions).
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
# shellcheck source=../minikube/profile.env
source "$ROOT/minikube/profile.env"

readonly HELM="${HELM:-helm}"
readonly STRIMZI_CHART="oci://quay.io/strimzi-helm/strimzi-kafka-operator"
readonly STRIMZI_CHART_VERSION="${STRIMZI_CHART_VERSION:?set by the Makefile}"
readonly ZALANDO_CHART_REPO="https://opensource.zalando.com/postgres-operator/charts/postgres-operator"
readonly ZALANDO_CHART_VERSION="${ZALANDO_CHART_VERSION:?set by the Makefile}"
readonly NS="$BENCH_NAMESPACE"

require_tool() { # require_tool NAME HOW-TO-GET-IT
  command -v "$1" >/dev/null 2>&1 || die "$1 is not installed: $2"
}

require_cluster() {
  require_tool kubectl "see https://kubernetes.io/docs/tasks/tools/"
  kubectl cluster-info --request-timeout=5s >/dev/null 2>&1 ||
    die "No reachable Kubernetes cluster (context: $(kubectl config current-context 2>/dev/null || echo none)); start one with 'make minikube'"
}

start_minikube() {
  require_tool minikube "see https://minikube.sigs.k8s.io/docs/start/"
  step "Starting minikube profile $MINIKUBE_PROFILE (Kubernetes $MINIKUBE_KUBERNETES_VERSION, $MINIKUBE_CPUS CPUs, $MINIKUBE_MEMORY)"
  minikube start -p "$MINIKUBE_PROFILE" --kubernetes-version="$MINIKUBE_KUBERNETES_VERSION" \
    --cpus="$MINIKUBE_CPUS" --memory="$MINIKUBE_MEMORY" --disk-size="$MINIKUBE_DISK_SIZE" --cni="$MINIKUBE_CNI"
  minikube profile "$MINIKUBE_PROFILE"
}

install_operators() {
  if ! kubectl get deployment -n strimzi strimzi-cluster-operator >/dev/null 2>&1; then
    step "Installing the Strimzi operator $STRIMZI_CHART_VERSION (official chart)"
    "$HELM" upgrade --install strimzi "$STRIMZI_CHART" --version "$STRIMZI_CHART_VERSION" \
      --namespace strimzi --create-namespace --set "watchNamespaces={$NS}" --wait --timeout 10m
  fi
  if ! kubectl get deployment -n postgres-operator postgres-operator >/dev/null 2>&1; then
    step "Installing the Zalando postgres-operator $ZALANDO_CHART_VERSION (official chart)"
    "$HELM" upgrade --install postgres-operator postgres-operator --repo "$ZALANDO_CHART_REPO" \
      --version "$ZALANDO_CHART_VERSION" --namespace postgres-operator --create-namespace --wait --timeout 10m
  fi
}

deploy_platform() {
  step "Kafka (KRaft, one node) and PostgreSQL (one instance) through their operators"
  kubectl create namespace "$NS" --dry-run=client -o yaml | kubectl apply -f - >/dev/null
  "$HELM" upgrade --install platform "$ROOT/charts/platform" --namespace "$NS" >/dev/null
  kubectl -n "$NS" wait kafka/bench-kafka --for=condition=Ready --timeout=15m >/dev/null
  info "Kafka ready ($(elapsed))"
  wait_for "PostgreSQL running" 900 bash -c \
    "[[ \$(kubectl -n '$NS' get postgresql bench-postgres -o jsonpath='{.status.PostgresClusterStatus}') == Running ]]" ||
    die "PostgreSQL did not start: kubectl -n $NS describe postgresql bench-postgres"
}

build_images() { # build_images VERSION TAG: the three images of one build, inside minikube
  local version=$1 tag=$2 service
  for service in web-api articles authors; do
    step "Building image reactive-bench/$service-$version:$tag in minikube"
    minikube -p "$MINIKUBE_PROFILE" image build -t "reactive-bench/$service-$version:$tag" \
      -f Dockerfile.jvm --build-opt="build-arg=SERVICE=$service/$version" "$ROOT/services" >/dev/null
  done
}

deploy() {
  local version=$1
  [[ "$version" == v1 || "$version" == v2 ]] || die "usage: $0 deploy v1|v2"
  require_cluster
  install_operators
  deploy_platform
  local tag
  tag="$(git -C "$ROOT" rev-parse --short HEAD)-$(date +%s)"
  build_images "$version" "$tag"
  step "helm upgrade --install bench-$version (waits for the rollout)"
  "$HELM" upgrade --install "bench-$version" "$ROOT/charts/reactive-bench" --namespace "$NS" \
    --set build="$version" --set image.tag="$tag" --wait --timeout 10m
  step "bench-$version ready in $(elapsed): kubectl -n $NS port-forward svc/bench-$version-web-api 8080:8080"
}

bench() {
  require_cluster
  local versions=()
  for version in v1 v2; do
    if "$HELM" status "bench-$version" --namespace "$NS" >/dev/null 2>&1; then versions+=("$version"); fi
  done
  ((${#versions[@]} > 0)) || die "Nothing deployed: run 'make deploy-v1' and/or 'make deploy-v2' first"
  kubectl -n "$NS" create configmap k6-script --from-file="$ROOT/k6/articles.js" --dry-run=client -o yaml |
    kubectl apply -f - >/dev/null
  local results
  results="$ROOT/results/$(date -u +%Y%m%dT%H%M%SZ)-minikube"
  python3 "$ROOT/scripts/bench.py" --kubernetes "$NS" --results "$results" --versions "$(IFS=,; echo "${versions[*]}")" \
    --runs "${RUNS:-1}" --where "Kubernetes ($(kubectl config current-context))"
  python3 "$ROOT/scripts/report.py" "$results"
}

undeploy() {
  require_cluster
  step "Removing both builds, the platform and namespace $NS (the operators stay)"
  for release in bench-v1 bench-v2 platform; do
    "$HELM" uninstall "$release" --namespace "$NS" --wait >/dev/null 2>&1 || true
  done
  kubectl delete namespace "$NS" --ignore-not-found --wait=true >/dev/null
}

case "${1:-}" in
  check) require_cluster ;;
  minikube) start_minikube ;;
  deploy) deploy "${2:-}" ;;
  bench) bench ;;
  undeploy) undeploy ;;
  *) die "usage: $0 check | minikube | deploy v1|v2 | bench | undeploy" ;;
esac
