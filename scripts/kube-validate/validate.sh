#!/usr/bin/env bash
# Validates every manifest offline, as strictly as a real cluster: a real kube-apiserver (with a real
# etcd) gets the Strimzi and Zalando CRDs, then every rendered object is applied with server-side
# dry-run and strict field validation. Manifests broken on purpose must be rejected: the check bites.
# Needs HELM, KUBE_APISERVER and ETCD (the Makefile builds them into .tools/bin).
set -euo pipefail
# shellcheck source=../lib.sh
source "$(dirname "$0")/../lib.sh"

readonly HELM="${HELM:?}" KUBE_APISERVER="${KUBE_APISERVER:?}" ETCD="${ETCD:?}"
readonly ZALANDO_MODULE="github.com/zalando/postgres-operator@v1.15.1"
readonly KUBE_VERSION="1.36.3"
readonly WORK="$LOCAL_DIR/kube-validate"
readonly NS=reactive-bench
passed=0
failed=0

pass() { passed=$((passed + 1)); printf '    \033[32mPASS\033[0m %s\n' "$1"; }
fail() { failed=$((failed + 1)); printf '    \033[31mFAIL\033[0m %s\n' "$1"; }
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
  for pid in "${apiserver_pid:-}" "${etcd_pid:-}"; do
    [[ -n "$pid" ]] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
  done
  return 0
}
trap cleanup EXIT

rm -rf "$WORK" && mkdir -p "$WORK/manifests" "$WORK/crds" "$WORK/broken"

step "CRDs: Strimzi (generated from io.strimzi:api 1.2.0) and Zalando (from $ZALANDO_MODULE)"
(cd "$ROOT/services" && ./mvnw -q -B -ntp -f "$ROOT/scripts/kube-validate/strimzi-crds/pom.xml" \
  dependency:build-classpath -Dmdep.outputFile="$WORK/strimzi.classpath") >"$WORK/maven.log" 2>&1 ||
  die "could not resolve Strimzi's CRD generator; see $WORK/maven.log"
"$JAVA_HOME/bin/java" -cp "$(<"$WORK/strimzi.classpath")" io.strimzi.crdgenerator.CrdGenerator --yaml \
  --api-versions v1 --storage-version v1 \
  "io.strimzi.api.kafka.model.kafka.Kafka=$WORK/crds/kafka.yaml" \
  "io.strimzi.api.kafka.model.nodepool.KafkaNodePool=$WORK/crds/kafkanodepool.yaml" \
  "io.strimzi.api.kafka.model.topic.KafkaTopic=$WORK/crds/kafkatopic.yaml" >/dev/null
zalando_dir=$(cd "$ROOT/scripts/kube-validate" && go mod download -json "$ZALANDO_MODULE" | python3 -c 'import json,sys; print(json.load(sys.stdin)["Dir"])')
cp "$zalando_dir/manifests/postgresql.crd.yaml" "$WORK/crds/postgresql.yaml"
info "$(cd "$WORK/crds" && echo *.yaml)"

step "Starting etcd and kube-apiserver $KUBE_VERSION on loopback"
etcd_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
api_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
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
kubectl apply --server-side -f "$WORK/crds" >/dev/null
kubectl wait --for=condition=Established crd --all --timeout=60s >/dev/null

dry_run() { kubectl apply --server-side --dry-run=server --validate=strict --field-manager=validate -n "$NS" -f "$1"; }

step "Rendering the charts"
"$HELM" template bench-v1 "$ROOT/charts/reactive-bench" -n "$NS" --kube-version "$KUBE_VERSION" --set build=v1 >"$WORK/manifests/bench-v1.yaml"
"$HELM" template bench-v2 "$ROOT/charts/reactive-bench" -n "$NS" --kube-version "$KUBE_VERSION" --set build=v2 >"$WORK/manifests/bench-v2.yaml"
"$HELM" template platform "$ROOT/charts/platform" -n "$NS" --kube-version "$KUBE_VERSION" >"$WORK/manifests/platform.yaml"
for scenario in warmup closed open; do
  "$HELM" template "k6-v2-$scenario" "$ROOT/charts/k6-job" -n "$NS" --kube-version "$KUBE_VERSION" \
    --set build=v2 --set scenario="$scenario" --set baseUrl=http://bench-v2-web-api:8080 >"$WORK/manifests/k6-$scenario.yaml"
done

step "Server-side dry-run with strict validation"
for file in "$WORK"/manifests/*.yaml; do
  expect "$(basename "$file" .yaml): $(grep -c '^kind:' "$file") objects accepted" dry_run "$file"
done

step "Broken on purpose: each must be rejected"
python3 - "$WORK" <<'PY'
import pathlib, re, sys
work = pathlib.Path(sys.argv[1])
app = (work / "manifests" / "bench-v1.yaml").read_text()
job = (work / "manifests" / "k6-closed.yaml").read_text()
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
postgres = only(platform, "postgresql")
(work / "broken" / "postgres-bad-instances.yaml").write_text(postgres.replace("numberOfInstances: 1", 'numberOfInstances: "one"'))
PY
expect_rejected "an unknown field in a Deployment" 'field not declared in schema|unknown field' "$WORK/broken/unknown-field.yaml"
expect_rejected "a Deployment whose selector does not match its pods" 'selector.*does not match' "$WORK/broken/selector-mismatch.yaml"
expect_rejected "a Job with restartPolicy Always" 'spec.template.spec.restartPolicy' "$WORK/broken/job-restart-always.yaml"
expect_rejected "a KafkaNodePool role outside the enum" 'Unsupported value: "wizard"' "$WORK/broken/nodepool-bad-role.yaml"
expect_rejected "an unknown field in a Kafka" 'replicaCount: field not declared in schema|unknown field' "$WORK/broken/kafka-unknown-field.yaml"
expect_rejected "a postgresql with a string instance count" 'numberOfInstances: expected numeric|numberOfInstances.*must be of type integer' "$WORK/broken/postgres-bad-instances.yaml"

echo "kube-validate: $passed passed, $failed failed"
((failed == 0))
