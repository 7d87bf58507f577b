#!/usr/bin/env bash
# make test-cluster: the user's commands against a real node on this machine. Starts the node (node.sh), builds and
# loads every image (images.sh), proves the node is real (a container under runc with its cgroup limits, DNS for Service
# names, a ClusterIP Service between pods, on Calico's network), puts up the stand-in for Kafka (Strimzi's operator
# cannot be had here), installs the Zalando operator from its own chart (`make operators`), which makes PostgreSQL
# (`make platform`), then runs `make deploy-vN` for every build, each finding them there (the node is then tainted for
# PostgreSQL alone a moment, and its pod made again there), `make bench` (short), v1 saturated with its Services'
# endpoints watched, `make cpu-map-cluster` (v2 at half a CPU), a short `make chaos-cluster` (a rolling update under
# load), a second `make deploy-v1` over the running release (behind its latency proxy and traced into a Jaeger of its
# own: a short `make latency-map-cluster`, a fault made in the proxy, the traces of a GET and a POST checked), then
# `make deploy-v0` rolled under load and `make undeploy`, exactly as a user would (the charts' NetworkPolicies enforced
# by Calico's Felix, and probed), with KAFKA_PLATFORM=external and IMAGES=containerd. Tears the node down at the end,
# also on failure or Ctrl-C, and checks that nothing of it is left. Ends with "test-cluster: N passed, N failed".
set -euo pipefail
# shellcheck source=../../lib.sh
source "$(dirname "$0")/../../lib.sh"

export NODE_DIR="$LOCAL_DIR/test-cluster"
readonly HERE="$ROOT/scripts/cluster/test-cluster"
readonly NS=reactive-bench
readonly CHECK_NS=node-check
PAUSE_IMAGE="" LOAD_IMAGE="" BASE_IMAGE=""
eval "$("$HERE/images.sh" refs)"
export KUBECONFIG="$NODE_DIR/kubeconfig"
# What make deploy-vN, bench and undeploy get on this node: everything else is as on minikube. The Zalando
# operator's chart is the package of its release, which its Go module carries (charts/postgres-operator).
ZALANDO_CHART="$(go_module_dir "github.com/zalando/postgres-operator@${ZALANDO_OPERATOR_VERSION:?set by the Makefile}")/charts/postgres-operator/postgres-operator-${ZALANDO_OPERATOR_VERSION#v}.tgz"
export KAFKA_PLATFORM=external POSTGRES_PLATFORM=operators ZALANDO_CHART ZALANDO_VALUES="$HERE/postgres-operator/values.yaml"
export IMAGES=containerd BASE_IMAGE CONTAINERD_ADDRESS="$NODE_DIR/containerd/containerd.sock"
export VALUES="$HERE/values.yaml" PLATFORM_VALUES="$HERE/platform-values.yaml" LOAD_IMAGE LOAD_IMAGE_PULL_POLICY=Never LOAD_CPU_REQUEST=250m
export CONTAINERS_STORAGE_CONF="$NODE_DIR/buildah/storage.conf"
# The node's own processes run on this machine: make bench reports their CPU apart (their pid files).
export NODE_PROCESSES="$NODE_DIR/pids"

standin_ready() { # what Strimzi would create, made by hand: a Kafka broker and its Services
  kubectl create namespace "$NS" --dry-run=client -o yaml | kubectl apply -f - >/dev/null
  kubectl -n "$NS" apply -f "$HERE/operator-standins/manifests.yaml" >/dev/null
  kubectl -n "$NS" rollout status statefulset/bench-kafka-dual-role --timeout=360s >/dev/null
}

start_node() { # a fresh node with every image loaded
  "$HERE/node.sh" down >/dev/null 2>&1 || true
  rm -rf "$NODE_DIR"
  mkdir -p "$NODE_DIR"
  "$HERE/images.sh" base
  "$HERE/images.sh" node
  "$HERE/images.sh" postgres-operator
  "$HERE/node.sh" up "$PAUSE_IMAGE" "$NODE_DIR/images/$(echo "${PAUSE_IMAGE#*/}" | tr '/:' '__').tar"
  "$HERE/images.sh" load "$NODE_DIR"/images/*.tar
}

node_environment() { # what make deploy-vN and make bench need to use this node, as lines to source
  local name
  for name in KUBECONFIG KAFKA_PLATFORM POSTGRES_PLATFORM ZALANDO_CHART ZALANDO_VALUES IMAGES BASE_IMAGE CONTAINERD_ADDRESS VALUES PLATFORM_VALUES LOAD_IMAGE LOAD_IMAGE_PULL_POLICY \
    LOAD_CPU_REQUEST CONTAINERS_STORAGE_CONF NODE_PROCESSES; do
    printf 'export %s=%q\n' "$name" "${!name}"
  done
}

# make node-up / node-down: the same node, left running for manual use (longer benchmarks, port-forwards).
case "${1:-test}" in
  up)
    start_node
    step "The stand-in for what Strimzi would create (Kafka); make deploy-vN installs the Zalando operator"
    standin_ready
    node_environment >"$NODE_DIR/env"
    step "The node is up: source ${NODE_DIR#"$ROOT"/}/env, then make deploy-v1, make bench, …; make node-down stops it"
    exit 0
    ;;
  down) "$HERE/node.sh" down; exit 0 ;;
  test) ;;
  *) die "usage: $0 [test|up|down]" ;;
esac

# A failed run is read from its end (CI shows only the end): the first failure and the node's state at that moment
# are kept, and printed last.
readonly FIRST_FAILURE="$NODE_DIR/first-failure.txt"
node_state() { # why pods may not start or answer: the node's Ready condition, pods not ready, the latest warnings, the kubelet's last errors
  local kubectl=(kubectl --request-timeout=10s)
  if "${kubectl[@]}" get nodes --no-headers 2>/dev/null \
    -o custom-columns='NODE:.metadata.name,READY:.status.conditions[?(@.type=="Ready")].status,WHY:.status.conditions[?(@.type=="Ready")].message,TAINTS:.spec.taints[*].key'; then
    "${kubectl[@]}" get pods -A --no-headers 2>/dev/null |
      awk '{split($3, ready, "/")} $4 != "Completed" && ($4 != "Running" || ready[1] != ready[2])' | head -4
    "${kubectl[@]}" get events -A --field-selector type=Warning --sort-by=.lastTimestamp --no-headers 2>/dev/null \
      -o custom-columns='OBJECT:.involvedObject.name,REASON:.reason,MESSAGE:.message' | tail -3
  else
    echo "the API server does not answer"
  fi
  grep -hE '^E[0-9]{4} ' "$NODE_DIR/logs/kubelet.log" 2>/dev/null | tail -2
}
expect() {
  local what=$1; shift
  if "$@" >"$NODE_DIR/last.log" 2>&1; then pass "$what"; return; fi
  fail "$what"
  sed 's/^/      /' "$NODE_DIR/last.log" | tail -15
  [[ -e $FIRST_FAILURE ]] ||
    { echo "the first failure: $what"; tail -3 "$NODE_DIR/last.log"; node_state 2>&1; } | cut -c1-240 | head -16 >"$FIRST_FAILURE"
}

teardown() {
  [[ -z ${images_ahead_pid:-} ]] || kill -- "-$images_ahead_pid" 2>/dev/null || true # images built ahead: test.sh's session
  "$HERE/node.sh" down || true
}
trap teardown EXIT
trap 'exit 130' INT TERM

start_node
# Every build's images (and the floor's) built into the node ahead from its start, by make images-vN in a session of
# the lowest priority: beside this suite's first checks and test-e2e's last timed loads under make test (an image build
# starts no JVM and no pod), and beside the operator and PostgreSQL, so that each deploy finds its images
# there (their tag is their content's digest) and only rolls its pods out. A file marks each build's images done; a
# deploy waits for its build's, or for the end of it all.
images_ahead() { # images_ahead VERSION…: make images-VERSION of each in turn
  local version
  for version in "$@"; do
    (cd "$ROOT" && make --no-print-directory "images-$version") || return 1
    touch "$NODE_DIR/images-$version.ahead"
  done
}
export -f images_ahead
export ROOT NODE_DIR
setsid "$ROOT/scripts/local/lowest-priority.sh" bash -c 'images_ahead "$@"' images_ahead "${BUILDS[@]}" v0 \
  >"$NODE_DIR/images-ahead.log" 2>&1 &
images_ahead_pid=$!
built_ahead() { [[ -e $NODE_DIR/images-$1.ahead ]] || ! kill -0 "$images_ahead_pid" 2>/dev/null; } # or given up
deploy_built_ahead() { # deploy_built_ahead VERSION: make deploy-VERSION once its images are built ahead (or that has
  # ended), its output kept
  wait_for "the images of $1, built ahead" 1800 built_ahead "$1" &&
    make_target "deploy-$1" 2>&1 | tee "$NODE_DIR/deploy-$1.log"
}

step "The node's Debian packages: each at least its least version (NODE_DEB_PACKAGES), whatever point release the archive serves"
read -r -a node_packages <<<"${NODE_DEB_PACKAGES:?set by the Makefile}"
expect "every package of the node is installed at a version at least its least one" \
  "$HERE/install-packages.sh" --plan "${node_packages[@]}"
least_moved() { # least_moved LEAST accepted|refused TEXT: the plan, with containerd's least version moved to LEAST, ends so and says TEXT
  local said outcome=accepted
  said=$("$HERE/install-packages.sh" --plan "containerd=$1" 2>&1) || outcome=refused
  echo "$said"
  [[ $outcome == "$2" && $said == *"$3"* ]]
}
expect "a least version older than any the archive still serves (its point release dropped) is met by what is installed" \
  least_moved 0 accepted "installed (at least 0)"
expect "a least version newer than the archive serves stops the install, saying what the archive serves" \
  least_moved 999 refused "the archive serves containerd"

step "The node is real"
kubectl create namespace "$CHECK_NS" >/dev/null
kubectl -n "$CHECK_NS" apply -f - >/dev/null <<EOF
apiVersion: v1
kind: Pod
metadata: {name: probe, labels: {app: probe}}
spec:
  automountServiceAccountToken: false
  containers:
    - name: web
      image: $BASE_IMAGE
      imagePullPolicy: Never
      # The JDK's own little web server (module jdk.httpserver) serves /tmp.
      command: [java, -Xmx32m, -m, jdk.httpserver, -b, 0.0.0.0, -p, "8000", -d, /tmp]
      resources: {limits: {cpu: 500m, memory: 128Mi}}
      ports: [{containerPort: 8000}]
---
apiVersion: v1
kind: Service
metadata: {name: probe}
spec: {selector: {app: probe}, ports: [{port: 80, targetPort: 8000}]}
EOF
expect "a pod starts from an image built here (no pull)" kubectl -n "$CHECK_NS" wait pod/probe --for=condition=Ready --timeout=300s
container_id=$(kubectl -n "$CHECK_NS" get pod probe -o jsonpath='{.status.containerStatuses[0].containerID}')
expect "its container runs under runc (runc state: running)" bash -c \
  "runc --root /run/containerd/runc/k8s.io state '${container_id#containerd://}' | grep -q '\"status\": \"running\"'"
cgroup_limits() {
  local memory quota
  memory=$(kubectl -n "$CHECK_NS" exec probe -- cat /sys/fs/cgroup/memory/memory.limit_in_bytes)
  quota=$(kubectl -n "$CHECK_NS" exec probe -- sh -c 'cat /sys/fs/cgroup/cpu/cpu.cfs_quota_us 2>/dev/null || cat /sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us')
  echo "memory.limit_in_bytes=$memory cpu.cfs_quota_us=$quota"
  [[ $memory == 134217728 && $quota == 50000 ]]
}
expect "the container's own cgroup holds its limits (128 MiB, 0.5 CPU)" cgroup_limits
reachability() { # reachability NAMESPACE LABELS OPEN DROPPED: from a load generator's pod (loadgen probe)
  kubectl -n "$1" run "reach-$RANDOM" --image="$LOAD_IMAGE" --image-pull-policy=Never --restart=Never -i --quiet --rm \
    ${2:+--labels="$2"} --env="OPEN=$3" --env="DROPPED=$4" --overrides='{"spec":{"automountServiceAccountToken":false}}' \
    -- probe </dev/null
}
expect "a pod reaches another through a Service name (CoreDNS) and its ClusterIP (kube-proxy), on Calico's network" \
  reachability "$CHECK_NS" "" http://probe.node-check.svc.cluster.local/ ""
on_calicos_network() { # the pod's address came from Calico's IPAM (the plugin notes it on the pod), routed to a cali… veth
  local address
  address=$(kubectl -n "$CHECK_NS" get pod probe -o jsonpath='{.metadata.annotations.cni\.projectcalico\.org/podIP}')
  echo "address ${address:-none}: $(ip route get "${address%/*}" 2>&1)"
  [[ -n $address ]] && ip route get "${address%/*}" | grep -q ' dev cali'
}
expect "the pod's address is from Calico's IPAM, routed by the host to its own cali… veth" on_calicos_network
kubectl delete namespace "$CHECK_NS" --wait=false >/dev/null # its pods end meanwhile: nothing after needs them gone

make_target() { (cd "$ROOT" && make --no-print-directory "$@"); }

step "The stand-in for what Strimzi would create (Kafka)"
expect "Kafka (with its topics) ready" standin_ready
# Before the first deploy's wait: neither starts a JVM or a load, and under make test PostgreSQL is made while
# test-e2e's last timed loads run (a cold run at ecfdc7a: its first deploy, which made them, took 118 s after that
# wait; the next two 50-60 s).
step "make operators, then make platform: the Zalando operator from its own chart, which makes PostgreSQL"
expect "make operators installs the Zalando operator, make platform has it make PostgreSQL (Running)" \
  make_target operators platform

load_job() { # load_job VERSION SCENARIO SUMMARY SETTING=VALUE…: one scenario as a load Job against the build's web-api
  # (what make bench runs), its run's summary in SUMMARY, its figures printed
  (cd "$ROOT/scripts" && "${BENCHKIT_PYTHON:?}" - "$NS" "$@" <<'PY'
import json, pathlib, sys
from benchkit.platforms import loadjobs
namespace, version, scenario, summary, *settings = sys.argv[1:]
loadjobs.run_load_job(namespace, version, scenario, pathlib.Path(summary), dict(s.split("=", 1) for s in settings),
                      loadjobs.service_url(version, "web-api"))
print(f"{version} {scenario}:", json.loads(pathlib.Path(summary).read_text())["figures"])
PY
  )
}
# make test starts this suite beside test-e2e's last loads: no deploy (JVMs starting, then load) until they have run
if [[ -n ${START_DEPLOYS_AFTER:-} && ! -e $START_DEPLOYS_AFTER ]]; then
  step "Waiting for make test-e2e's last timed load to have run (START_DEPLOYS_AFTER) before the first deploy"
  while [[ ! -e $START_DEPLOYS_AFTER ]]; do sleep 2; done
  last_outcome_at=$SECONDS # the wait is not the next check's time
fi
# The images not yet built ahead get their share from here on, as the deploys would: at the lowest priority beside the
# parts at normal one (test-e2e's last checks, test-k8s), a cold make test's first deploy waited 9 minutes for them.
"$ROOT/scripts/local/normal-priority.sh" "$images_ahead_pid"
step "make deploy-vN for every build (${BUILDS[*]}), each finding the operator and PostgreSQL there"
for version in "${BUILDS[@]}"; do
  expect "make deploy-$version" deploy_built_ahead "$version"
done
found_there() { # the images built ahead (make images-vN, all of it done), and found there by every deploy
  wait "$images_ahead_pid" || { echo "make images-vN failed: $(tail -5 "$NODE_DIR/images-ahead.log")"; return 1; }
  local version
  for version in "${BUILDS[@]}"; do
    [[ $(grep -c "in the cluster already" "$NODE_DIR/deploy-$version.log") == 3 ]] ||
      { echo "make deploy-$version built images again:"; grep "Image " "$NODE_DIR/deploy-$version.log"; return 1; }
  done
}
expect "make images-vN built every build's images into the node ahead (and the floor's), and each deploy found its three there" \
  found_there
for version in "${BUILDS[@]}"; do
  expect "helm test bench-$version: a complete answer of /$version/articles through web-api's Service" \
    "${HELM:?}" test "bench-$version" -n "$NS" --timeout 2m
done

step "NetworkPolicies, enforced by Calico's Felix: what the charts admit gets through, nothing else"
# Every build at once: the URLs of each, for one probe per kind of peer.
urls() { # urls PATTERN: PATTERN for every build, with {v} its version
  local version
  for version in "${BUILDS[@]}"; do printf '%s ' "${1//\{v\}/$version}"; done
}
readonly SERVICE="http://bench-{v}" LOAD_GENERATOR_LABELS="app.kubernetes.io/name=loadgen,app.kubernetes.io/component=load-generator,app.kubernetes.io/part-of=reactive-bench"
# What only web-api and the bench's load generator may call: articles and authors of every build.
HOPS="$(urls "$SERVICE-articles:8080/{v}/articles")$(urls "$SERVICE-authors:8080/{v}/authors?name=Niklas%20Heidloff")"
readonly HOPS
expect "a pod with the bench's load-generator labels (the hop scenarios' load Jobs) reaches articles and authors" \
  reachability "$NS" "$LOAD_GENERATOR_LABELS" \
  "$HOPS" ""
# After the pod above: articles and authors have answered already, so where admitted they answer in milliseconds,
# far inside the 3 s after which a request without an answer counts as dropped.
expect "a pod without web-api's labels gets web-api's complete answer (web-api reaches articles and authors), and nothing from articles or authors (dropped)" \
  reachability "$NS" "" "$(urls "$SERVICE-web-api:8080/{v}/articles")" \
  "$HOPS"
metrics_from_monitoring_only() { # metricsFrom: a pod in the namespace monitoring reads /q/metrics on the management
  # port, and not the API port; a pod elsewhere reads neither (the two pods at once: each waits out its drops)
  local metrics api monitoring elsewhere=0
  metrics="$(urls "$SERVICE-articles.$NS:9000/q/metrics")$(urls "$SERVICE-authors.$NS:9000/q/metrics")"
  api="$(urls "$SERVICE-articles.$NS:8080/{v}/articles")$(urls "$SERVICE-authors.$NS:8080/{v}/authors?name=Niklas%20Heidloff")"
  reachability monitoring "" "$metrics" "$api" & monitoring=$!
  reachability default "" "" "$metrics" || elsewhere=$?
  wait "$monitoring" && ((elsewhere == 0))
}
kubectl create namespace monitoring >/dev/null
expect "a pod in the namespace monitoring reads articles' and authors' /q/metrics on the management port (metricsFrom), not their API; one in another namespace reads neither" \
  metrics_from_monitoring_only
kubectl delete namespace monitoring --wait=false >/dev/null

readonly CLUSTER=bench-postgres OPERATOR_LABELS="cluster-name=bench-postgres,application=spilo"
made_by_operator() { # made_by_operator KIND/NAME: it exists and carries the labels the operator gives its objects
  [[ $(kubectl -n "$NS" get "$1" -o jsonpath='{.metadata.labels.cluster-name}/{.metadata.labels.application}' 2>/dev/null) == "$CLUSTER/spilo" ]]
}
made_by_the_operator() { # the objects the operator made for the platform chart's postgresql, listed
  kubectl -n "$NS" get postgresql,statefulset,pods,services,endpoints,secrets,pvc -l "$OPERATOR_LABELS" -o name | sort
  kubectl -n "$NS" get postgresql "$CLUSTER" -o jsonpath='postgresql/{.metadata.name}: {.status.PostgresClusterStatus}{"\n"}'
  kubectl get pv -o custom-columns=VOLUME:.metadata.name,CLAIM:.spec.claimRef.name,CLASS:.spec.storageClassName --no-headers
  local object
  for object in "statefulset.apps/$CLUSTER" "pod/$CLUSTER-0" "service/$CLUSTER" "service/$CLUSTER-repl" \
    "endpoints/$CLUSTER" "persistentvolumeclaim/pgdata-$CLUSTER-0" \
    secret/{postgres,standby,articles,authors}".$CLUSTER.credentials.postgresql.acid.zalan.do"; do
    made_by_operator "$object" || { echo "missing, or not the operator's: $object"; return 1; }
  done
  [[ $(kubectl -n "$NS" get pod "$CLUSTER-0" -o jsonpath='{.metadata.labels.spilo-role}') == master ]] ||
    { echo "$CLUSTER-0 is not labelled spilo-role=master (Patroni's leader label)"; return 1; }
  [[ $(kubectl -n "$NS" get postgresql "$CLUSTER" -o jsonpath='{.status.PostgresClusterStatus}') == Running ]]
}
expect "the Zalando operator reconciled the postgresql: StatefulSet, Patroni's leader, Services, Secrets, a provisioned volume" \
  made_by_the_operator
placed_as_given() { # PostgreSQL's pod carries the platform chart's placement (PLATFORM_VALUES) and runs where it says
  local get=(kubectl -n "$NS" get pod "$CLUSTER-0" -o) affinity tolerations node
  affinity=$("${get[@]}" jsonpath='{range .spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[*].matchExpressions[*]}{.key} {.operator} {.values[*]};{end}')
  tolerations=$("${get[@]}" jsonpath='{range .spec.tolerations[?(@.key=="reactive-bench.example/dedicated")]}{.operator} {.effect};{end}')
  node=$("${get[@]}" jsonpath='{.spec.nodeName}')
  echo "node affinity: $affinity tolerations: $tolerations on: $node"
  [[ $affinity == "kubernetes.io/hostname In reactive-bench-node;" && $tolerations == "Exists NoSchedule;" &&
     $node == reactive-bench-node ]]
}
expect "the platform chart's placement for PostgreSQL (nodeSelector, tolerations) reaches the operator's pod" placed_as_given
postgres_pod() { kubectl -n "$NS" get pod "$CLUSTER-0" -o jsonpath="$1" 2>/dev/null; } # postgres_pod JSONPATH
as_postgres() { kubectl -n "$NS" exec "$CLUSTER-0" -- psql -h /run/postgresql -U postgres "$@"; } # as_postgres PSQL_ARG…: the superuser, by the socket
as_user() { # as_user USER CONNINFO SQL: psql in PostgreSQL's pod as USER of the operator's Secret, into its database
  # (articles for articles and articles_app), connecting as CONNINFO says (host, sslmode, …)
  local password
  password=$(kubectl -n "$NS" get secret "${1//_/-}.$CLUSTER.credentials.postgresql.acid.zalan.do" -o jsonpath='{.data.password}' | base64 -d)
  kubectl -n "$NS" exec "$CLUSTER-0" -- env PGPASSWORD="$password" psql "user=$1 dbname=${1%_app} $2" -tAc "$3"
}
refused_for_the_taint() { # the scheduler's word on the pod untolerated, printed; whether it names the taint
  local why
  why=$(kubectl -n "$NS" get pod untolerated -o jsonpath='{.status.conditions[?(@.type=="PodScheduled")].message}')
  echo "without the toleration: $why"
  [[ $why == *"untolerated taint"* ]]
}
remade_there() { # remade_there UID: PostgreSQL's pod is another than UID, ready, on the tainted node
  local now
  now=$(postgres_pod '{.metadata.uid} {.status.conditions[?(@.type=="Ready")].status} {.spec.nodeName}')
  [[ ${now%% *} != "$1" && $now == *" True $TEST_NODE_NAME" ]]
}
patroni_leader() { [[ $(postgres_pod '{.metadata.labels.spilo-role}') == master ]]; }
tainted_and_tolerated() { # the node dedicated for a moment (tainted NoSchedule): a pod without the toleration stays
  # unscheduled; PostgreSQL's pod, deleted, is made again by the operator's StatefulSet on that node, which it tolerates
  local taint=reactive-bench.example/dedicated=platform:NoSchedule uid status=0
  uid=$(postgres_pod '{.metadata.uid}')
  kubectl taint node "$TEST_NODE_NAME" "$taint" >/dev/null || return 1
  kubectl -n "$NS" run untolerated --image="$PAUSE_IMAGE" --image-pull-policy=Never --restart=Never \
    --overrides='{"spec":{"automountServiceAccountToken":false}}' >/dev/null &&
    wait_for "the pod without the toleration refused by the scheduler" 60 refused_for_the_taint &&
    refused_for_the_taint &&
    kubectl -n "$NS" delete pod "$CLUSTER-0" --wait=false >/dev/null &&
    wait_for "PostgreSQL's pod made again, ready, on the tainted node" 240 remade_there "$uid" ||
    status=1
  kubectl -n "$NS" delete pod untolerated --wait=false >/dev/null 2>&1 || true
  kubectl taint node "$TEST_NODE_NAME" "$taint-" >/dev/null || status=1
  ((status == 0)) || return 1
  # Patroni's leader again, and every build answering completely from it before anything measures
  wait_for "Patroni's leader label" 120 patroni_leader &&
    for version in "${BUILDS[@]}"; do "${HELM:?}" test "bench-$version" -n "$NS" --timeout 3m >/dev/null || return 1; done
}
expect "the node tainted for PostgreSQL alone: a pod without the toleration is not scheduled, PostgreSQL's pod is made again there, and every build answers from it" \
  tainted_and_tolerated
roles_and_databases() { # the operator made the owners and their databases by SQL, as the CR asks
  local owners
  owners=$(as_postgres -tAc \
    "select datname || '=' || pg_get_userbyid(datdba) from pg_database where datname in ('articles', 'authors') order by 1")
  echo "databases and owners: ${owners//$'\n'/, }"
  [[ $owners == $'articles=articles\nauthors=authors' ]]
}
expect "the operator made the databases articles and authors, each owned by its user" roles_and_databases
services_as_their_own_users() { # the builds connect as <service>_app, which owns nothing and cannot change the schema;
  # the tables are the owner's, whom Flyway migrated as
  local connected owners refused
  connected=$(as_postgres -tAc \
    "select distinct datname || '=' || usename from pg_stat_activity where client_addr is not null and datname in ('articles', 'authors') order by 1")
  owners=$(as_postgres -d articles -tAc \
    "select distinct tableowner from pg_tables where schemaname in ($(printf "'%s'," "${BUILDS[@]}" | sed 's/,$//'))")
  refused=$(as_user articles_app "host=$(postgres_pod '{.status.podIP}') sslmode=require" \
    "create table ${BUILDS[0]}.intruder (id int)" 2>&1) && { echo "articles_app changed the schema: $refused"; return 1; }
  echo "connected from the pods: ${connected//$'\n'/, }; the builds' tables owned by: $owners; articles_app creating a table: $refused"
  [[ $connected == $'articles=articles_app\nauthors=authors_app' && $owners == articles ]] && grep -q "permission denied" <<<"$refused"
}
expect "the builds serve as each service's own user (not the owner Flyway migrates as), which cannot change the schema" \
  services_as_their_own_users
tls_required() { # a connection from another host without TLS is refused, with TLS it is let in (the Secret's password)
  local ip plain tls
  ip=$(postgres_pod '{.status.podIP}')
  plain=$(as_user articles "host=$ip sslmode=disable" 'select 1' 2>&1) &&
    { echo "a connection without TLS was let in: $plain"; return 1; }
  echo "without TLS: $plain"
  tls=$(as_user articles "host=$ip sslmode=require" 'select ssl from pg_stat_ssl where pid = pg_backend_pid()')
  echo "with TLS, as the articles user of the operator's Secret: ssl=$tls"
  grep -q "no encryption" <<<"$plain" && [[ $tls == t ]]
}
expect "PostgreSQL refuses a connection without TLS and admits the Secret's user with it" tls_required
tls_verified() { # PostgreSQL serves the platform chart's certificate: verified against its CA (the ConfigMap the
  # services mount), by the master Service's name; refused against another CA
  local other verified refused
  kubectl -n "$NS" get configmap "$CLUSTER-ca" -o jsonpath='{.data.ca\.crt}' |
    kubectl -n "$NS" exec -i "$CLUSTER-0" -- sh -c 'cat >/tmp/platform-ca.crt' || return 1
  other=$(openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 -subj /CN=another-ca \
    -keyout /dev/null 2>/dev/null) || return 1
  kubectl -n "$NS" exec -i "$CLUSTER-0" -- sh -c 'cat >/tmp/another-ca.crt' <<<"$other" || return 1
  verified=$(as_user articles "host=$CLUSTER.$NS.svc sslmode=verify-full sslrootcert=/tmp/platform-ca.crt" \
    'select ssl from pg_stat_ssl where pid = pg_backend_pid()' 2>&1) || { echo "the platform's CA: $verified"; return 1; }
  refused=$(as_user articles "host=$CLUSTER.$NS.svc sslmode=verify-ca sslrootcert=/tmp/another-ca.crt" 'select 1' 2>&1) &&
    { echo "another CA was trusted: $refused"; return 1; }
  echo "verify-full against $CLUSTER-ca: ssl=$verified; another CA: $refused"
  [[ $verified == t ]] && grep -q "certificate verify failed" <<<"$refused"
}
expect "PostgreSQL's certificate is the platform chart's: verified against its CA by the Service's name, refused against another" \
  tls_verified
services_verify_postgres() { # every data service of every build verifies PostgreSQL against that CA, and trusts nothing else
  local version service variables
  for version in "${BUILDS[@]}"; do
    for service in articles authors; do
      variables=$(kubectl -n "$NS" get deploy "bench-$version-$service" -o jsonpath='{range .spec.template.spec.containers[0].env[*]}{.name}={.value}{"\n"}{end}')
      if ! grep -q "^QUARKUS_DATASOURCE_JDBC_URL=.*sslmode=verify-ca&sslrootcert=/etc/postgresql-ca/ca.crt$" <<<"$variables" ||
        ! grep -qx "QUARKUS_DATASOURCE_REACTIVE_POSTGRESQL_SSL_MODE=verify-ca" <<<"$variables" ||
        ! grep -qx "QUARKUS_DATASOURCE_REACTIVE_TRUST_CERTIFICATE_PEM_CERTS=/etc/postgresql-ca/ca.crt" <<<"$variables" ||
        grep -q "TRUST_ALL" <<<"$variables"; then
        echo "bench-$version-$service: $(grep -E 'JDBC_URL|SSL_MODE|TRUST' <<<"$variables" | tr '\n' ' ')"
        return 1
      fi
    done
  done
  # ready, each of them: a client told verify-ca without that file, or without trust, would not have connected
  echo "every data service of ${BUILDS[*]}: verify-ca against /etc/postgresql-ca/ca.crt ($CLUSTER-ca), no trust-all, and ready"
}
expect "every build's data services verify PostgreSQL's certificate against the platform's CA alone" services_verify_postgres
builds_on_the_operators_secrets() { # each data service reads its password from the Secret the operator made
  local version service secret variable
  for version in "${BUILDS[@]}"; do
    for service in articles authors; do
      for variable in QUARKUS_DATASOURCE_PASSWORD QUARKUS_FLYWAY_PASSWORD; do
        secret=$(kubectl -n "$NS" get deploy "bench-$version-$service" -o jsonpath="{.spec.template.spec.containers[0].env[?(@.name==\"$variable\")].valueFrom.secretKeyRef.name}")
        made_by_operator "secret/$secret" ||
          { echo "bench-$version-$service reads $variable from $secret, which the operator did not make"; return 1; }
      done
    done
  done
  echo "every data service reads its own user's and its owner's Secret (articles-app/articles, authors-app/authors), made by the operator"
}
expect "the builds connect with the Secrets the operator made" builds_on_the_operators_secrets

step "make bench: its default scenarios (closed, open, curve, the hops alone, profile), short, of v3"
# Every scenario a user's make bench runs, of one build, at small counts gentle enough for 2 cores shared by
# everything. One build: what the node adds is each figure's source (load Jobs, the pods' cgroups, JFR through kubectl
# exec, the node's CPU), the same for every build; whether the builds did the same work is judged from their own
# counts by the same code on every platform, and make test-e2e judges it for every build and the floor. v3 here, so
# that each build meets load in its pods: v1 the overload and the proxy's faults below, v2 the CPU map and the faults.
# A warm-up of 300 requests first, so that no cold JIT turns author look-ups into time-outs; one step of the curve, 5 s, the ladder once (a user's bench climbs it, and
# repeats it); the open model for 6 s; a profiled run as long as a measured one (600 requests: 50-250 CPU samples per
# service, enough to show each library); 3 s with no load for the background rate (here and in the runs below).
export RESULTS="$NODE_DIR/results" RUNS=1 USERS=10 WARMUP_ITERATIONS=30 WARMUP_MAX_WINDOWS=2 ITERATIONS=60 DURATION=6s \
  CURVE_SHARES=1.0 CURVE_STEP_DURATION=5s CURVE_REPEATS=1 BACKGROUND_SECONDS=3
unset SCENARIOS
BENCHED=(v3)
bench_as_a_user() { VERSIONS="$(IFS=,; echo "${BENCHED[*]}")" make_target bench; }
expect "make bench writes a report" bench_as_a_user
results_hold() { check_results "$RESULTS/bench.json" "$@"; }
ran_every_scenario() { # each build benched left a summary of every default scenario's run
  local version run
  for version in "${BENCHED[@]}"; do
    for run in closed-1 open-1 articles-alone-1 authors-alone-1; do
      [[ -s "$RESULTS/runs/$version-$run.json" ]] || { echo "no run $version-$run"; return 1; }
    done
    compgen -G "$RESULTS/runs/$version-curve-*-1.json" >/dev/null || { echo "no curve step of $version"; return 1; }
  done
}
expect "every default scenario ran for every build, the hops alone included" ran_every_scenario
# What an in-cluster request's cost is made of, each read as data from bench.json (the closed runs: a round each).
CLOSED='(r for c in d["cells"] if c["mode"] == "closed" for r in c["rounds"])'
expect "bench.json has every figure of an in-cluster run's cost (throttling, JIT, GC, the load generator, background, node, ergonomics, warm-up)" \
  results_hold "all(r['throttling']['web-api']['periods'] > 0 for r in $CLOSED)" \
  "all(r['jvm'][s][f] is not None for r in $CLOSED for s in ('web-api', 'authors') for f in ('jit_cpu_seconds', 'jit_seconds', 'gc_seconds', 'gc_cpu_seconds'))" \
  "all(r[f] > 0 for r in $CLOSED for f in ('generator_cpu_ms', 'cpu_ms_background_off', 'cpu_ms_per_complete'))" \
  "all(r['node_cpu_s'] > 0 for r in $CLOSED)" \
  "all(d['environment']['background_cpu_per_s'][v]['web-api'] > 0 for v in d['versions'])" \
  "all(e['web-api']['processors'] == 1 and e['web-api']['cpu_limit'] == 1 for e in d['environment']['ergonomics'].values())" \
  "all(d['settled'][v] is not None and len(d['environment']['warmup'][v]['windows']) >= 1 for v in d['versions'])"
expect "bench.json: what the kernel counted of every pod per complete answer (context switches, run delay, system calls, packets)" \
  results_hold "all(r['scheduling'][p][f] > 0 for r in $CLOSED for p in ('web-api', 'articles', 'authors', 'postgres') for f in ('voluntary_switches', 'packets'))" \
  "all(r['scheduling']['web-api']['read_syscalls'] > 0 and r['scheduling']['web-api']['threads_peak'] > 1 for r in $CLOSED)" \
  "d['environment']['scheduler'] in ('CFS', 'EEVDF')"
profiled_in_pods() { # a flame graph of every service of every build, and the libraries' shares in the report
  [[ -s "$RESULTS/profiles/profile.json" ]] || { echo "no profile.json"; return 1; }
  flame_graphs "$RESULTS" "${BENCHED[@]}"
}
expect "profile: JFR in every pod through kubectl exec, a flame graph per service and build, the libraries' shares" \
  profiled_in_pods
expect "CPU and memory come from real cgroups (each service's CPU per request, its cgroup's peak and anonymous memory)" \
  results_hold "all(r[s + '_cpu_ms'] > 0 for r in $CLOSED for s in ('web-api', 'articles', 'authors'))" \
  "all(m is not None and m > 0 for r in $CLOSED for figures in r['memory_mib'].values() for m in figures.values())" \
  "all(any(label.startswith('cgroup peak since start') for label in figures) for r in $CLOSED for figures in r['memory_mib'].values())"
expect "no pod restarted during the runs" \
  results_hold "not any(r['restarts'] for c in d['cells'] for r in c['rounds'])"

# Readiness under overload: v1's articles and authors answer their readiness check from the connection pool, whose
# queue their requests wait in too (5 s time-out, three failures). Saturated, could every replica go unready at once and
# take its Service's endpoints with it? 400 requests a second for 30 s (the open model), far past what one pod of each
# serves (web-api lets its most in flight in, each five look-ups, and sheds the rest); every second, each Service's
# ready endpoints.
endpoints_kept_under_overload() {
  local watched="$NODE_DIR/overload-endpoints.txt" watcher status=0
  : >"$watched"
  ( while :; do
      kubectl -n "$NS" get endpointslices -o jsonpath='{range .items[*]}{.metadata.labels.kubernetes\.io/service-name}{" "}{range .endpoints[*]}{.conditions.ready}{","}{end}{"\n"}{end}' \
        2>/dev/null | awk -v at="$SECONDS" '$1 ~ /^bench-v1-(web-api|articles|authors)$/ { print at, $1, gsub(/true/, "", $2) }' >>"$watched"
      sleep 1
    done ) &
  watcher=$!
  load_job v1 open "$NODE_DIR/overload.json" RATE=400 DURATION=30s | tee "$NODE_DIR/overload.txt" || status=$?
  kill "$watcher" 2>/dev/null || true
  wait "$watcher" 2>/dev/null || true
  # kept beside the watched endpoints (a passing check's output is not printed)
  echo "readiness probes of v1 that timed out, since its deploy: $(kubectl -n "$NS" get events --field-selector reason=Unhealthy -o jsonpath='{range .items[*]}{.involvedObject.name}{" x"}{.count}{": "}{.message}{"\n"}{end}' | grep '^bench-v1-.*Readiness probe failed.*[Tt]imeout' || echo none)" |
    tee -a "$NODE_DIR/overload.txt"
  python3 - "$watched" <<'PY' | tee -a "$NODE_DIR/overload.txt" || status=1
import collections, sys
least, seen = collections.defaultdict(lambda: 99), collections.Counter()
for line in open(sys.argv[1]):
    at, service, ready = line.split()
    least[service] = min(least[service], int(ready))
    seen[service] += 1
print("the fewest ready endpoints while it ran: " + ", ".join(f"{s} {least[s]} (of {seen[s]} looks)" for s in sorted(seen)))
sys.exit(not (len(seen) == 3 and all(least[s] >= 1 and seen[s] >= 10 for s in seen)))
PY
  return "$status"
}
expect "v1 saturated (400 requests a second against one pod of each service): every Service keeps a ready endpoint throughout" \
  endpoints_kept_under_overload

unreachable_target_stops_the_job() { # a Job whose target never answers stops at once, saying so, not at its deadline
  local started=$SECONDS output
  output=$(cd "$ROOT/scripts" && "${BENCHKIT_PYTHON:?}" -c 'import pathlib, sys
from benchkit.platforms import loadjobs
loadjobs.run_load_job(sys.argv[1], "v1", "smoke", pathlib.Path(sys.argv[2]), {"REACH_SECONDS": "5"}, "http://no-such-service:8080")' \
    "$NS" "$NODE_DIR/unreachable.json" 2>&1) && { echo "the Job passed: $output"; return 1; }
  echo "$output (after $((SECONDS - started)) s; the Job's deadline is 2400 s)"
  grep -q "cannot reach http://no-such-service:8080/" <<<"$output" && ((SECONDS - started < 300))
}
expect "a load Job that cannot reach its target stops at once and says so (exit 3, the target named)" \
  unreachable_target_stops_the_job

split_over_two_pods() { # LOAD_PODS=2: an Indexed Job, each pod half the users or every other request due, the
  # samples merged into one run; the pods' start skew bounded (loadjobs.late_pods: run_load_job refuses a late pod)
  (cd "$ROOT/scripts" && LOAD_START_SECONDS=10 "${BENCHKIT_PYTHON:?}" -c 'import json, os, pathlib, sys
from benchkit.platforms import loadjobs
namespace, work = sys.argv[1], pathlib.Path(sys.argv[2])
models = {"closed": ({"USERS": "10", "ITERATIONS": "30"}, 300), "open": ({"RATE": "50", "DURATION": "6s"}, 300)}
ok = True
os.environ["LOAD_PODS"] = "2"
for scenario, (settings, due) in models.items():
    loadjobs.run_load_job(namespace, "v2", scenario, work / f"split-{scenario}.json", settings,
                          loadjobs.service_url("v2", "web-api"))
    run = json.loads((work / f"split-{scenario}.json").read_text())
    sent, unsent = run["figures"]["requests"], run["figures"]["dropped"]
    split = run["pods"]
    names, skews = [p["pod"] for p in split], [p["start_skew_ms"] for p in split]
    print(f"{scenario}: {sent} sent, {unsent} unsent of {due} due; pods {names} started {skews} ms after their agreed instant")
    # Every request due goes out once, from one pod or the other: sent, or (the open model) unsent, due so close to the
    # end of the run that its sender woke after it (2 of 300 in one pod on a loaded machine: the scheduler, not the
    # split). A run from one pod is every other load Job of this suite.
    ok &= sent + unsent == due and (scenario == "open" or unsent == 0) and len(split) == 2 and not loadjobs.late_pods(split)
sys.exit(not ok)' "$NS" "$NODE_DIR")
}
expect "a run split over two pods (LOAD_PODS=2) sends every request due once, closed and open, each pod named, both started together" \
  split_over_two_pods

step "Each build by CPU per pod, reconfigured in its pods: a short make cpu-map-cluster of v2 at half a CPU per service"
# A pod's size is what the node adds to a reconfiguration: the limit patched, the variables the chart sizes by it (v2's
# event loops) rolled with it, both given back at the end, as make sweep-cluster's candidates are (the sweep's own
# rule runs at a pod's size in make test-e2e, every platform's reconfiguration in the harness's unit tests).
resources_of() { kubectl -n "$NS" get deploy "bench-v2-$1" -o jsonpath='{.spec.template.spec.containers[0].resources}'; }
variables_of() { kubectl -n "$NS" get deploy "bench-v2-$1" -o jsonpath='{range .spec.template.spec.containers[0].env[*]}{.name}={.value} {end}'; }
as_deployed() { local service; for service in web-api articles authors; do echo "$service $(resources_of "$service") $(variables_of "$service")"; done; }
deployed_v2=$(as_deployed)
short_cpu_map_in_pods() {
  RESULTS="$NODE_DIR/cpu-map" VERSIONS=v2 CPU_MAP_SIZES=0.5 ITERATIONS=20 WARMUP_ITERATIONS=30 \
    WARMUP_MAX_WINDOWS=1 OPEN_RATE=20 CAPACITY_SHARES=0.3 OPEN_SECONDS=3 make_target cpu-map-cluster
}
expect "make cpu-map-cluster rolls v2's pods under a limit of 0.5 CPU, warms and measures them" short_cpu_map_in_pods
expect "cpu-map.json (pods): v2 measured at 0.5 CPU, each JVM under that limit counting one processor, one event loop" \
  check_results "$NODE_DIR/cpu-map/cpu-map.json" \
  '[(c["build"], c["size"]) for c in d["cells"]] == [("v2", "0.5")] and d["cells"][0]["rounds"][0]["complete_per_s"] > 0' \
  'all(s["cpu_limit"] == 0.5 and s["processors"] == 1 for s in d["ergonomics"]["0.5 CPU"]["v2"].values())' \
  'all(s["event_loop_count"] == 1 for s in d["ergonomics"]["0.5 CPU"]["v2"].values())' \
  'any(t and t["throttled"] > 0 for t in d["cells"][0]["rounds"][0]["throttling"].values())' \
  'd["cells"][0]["rounds"][0]["open_p99"] > 0 and len(d["cells"][0]["rounds"][0]["capacity_steps"]) == 1' \
  'all(d["cells"][0]["rounds"][0]["scheduling"][s]["voluntary_switches"] > 0 and d["cells"][0]["rounds"][0]["scheduling"][s]["packets"] > 0 for s in ("web-api", "articles", "authors"))' \
  'd["forks"] and all(0 < d["cells"][0]["rounds"][0]["fork"][s]["ready_s"] <= d["cells"][0]["rounds"][0]["fork"]["first_answer_s"] for s in ("web-api",))'
runs_as_deployed() { # every Deployment of v2 with the resources and variables it was deployed with
  local now
  now=$(as_deployed)
  [[ $now == "$deployed_v2" ]] || { printf 'deployed:\n%s\nnow:\n%s\n' "$deployed_v2" "$now"; return 1; }
  echo "bench-v2-web-api, -articles and -authors: resources and variables as deployed"
}
expect "after the CPU map v2's Deployments run as deployed again (their limit, no variable of the map left)" runs_as_deployed

step "Faults under load, short: make chaos-cluster's web-api rolling update, v2"
# The faults here are the platform's (a rollout replaces a pod), made the same way whichever build runs in the pods;
# what each build does about a fault is its fault-tolerance code, which make test-e2e puts under faults for every
# build. So one build here, v2 (v1 meets the proxy's fault in its pods below), and one of the platform's faults: a
# pod deleted ends the same way a rolled one does (SIGTERM, its endpoint removed, the shutdown delay), and the floor's
# roll below replaces every pod of a release under load.
chaos_quick() { # the harness's own checks: reads answered (or 503 at once), writes 201 or 503, no event lost or streamed twice
  RESULTS="$NODE_DIR/chaos" VERSIONS=v2 CHAOS_FAULTS="web-api rolling update" CHAOS_QUICK=1 make_target chaos-cluster
}
expect "a rolling update of web-api under load, v2: nothing lost, no request dropped" chaos_quick

without_the_policies() { # the same kind of pod as above, once the builds' NetworkPolicies are gone
  kubectl -n "$NS" delete networkpolicy -l app.kubernetes.io/managed-by=Helm &&
    reachability "$NS" "" "$HOPS" ""
}
expect "the control: once the NetworkPolicies are deleted, a pod without web-api's labels reaches articles and authors" \
  without_the_policies

step "A second make deploy-v1 over the running release: behind a latency proxy of its own, traced"
cluster_url() { # cluster_url SERVICE PORT_NAME: http://ClusterIP:port (the node reaches Services directly)
  kubectl -n "$NS" get service "$1" -o jsonpath="http://{.spec.clusterIP}:{.spec.ports[?(@.name=='$2')].port}"
}
answers_again() { # answers_again FILE: once v1's fresh pods answer GET /v1/articles (200), that answer in FILE; they
  # may still answer 503 just after the rollout (seen once, in a cold make test), which a check's first call must not meet
  local url
  url="$(cluster_url bench-v1-web-api http)/v1/articles"
  wait_for "v1 answers after the rollout" 120 curl -fsS --max-time 10 "$url" -o "$1" ||
    { echo "no answer of $url within 120 s: $(curl -sS --max-time 10 "$url" 2>&1 | head -c 300)"; return 1; }
}
deploy_behind_the_proxy() { # traced too: the traces below read this release's Jaeger (one rollout, not two)
  LATENCY_PROXY=on TRACING=on make_target deploy-v1 || return 1
  # the authors of its newest articles, whom the trace check below has a GET fan out to again (the faults write too)
  answers_again "$NODE_DIR/second-deploy-answer.json" || return 1
  seed_authors=$(authors_of "$NODE_DIR/second-deploy-answer.json")
}
expect "make deploy-v1 again, with LATENCY_PROXY=on and TRACING=on, upgrades its release: its hops through a latency proxy of its own, every service traced into a Jaeger of its own" \
  deploy_behind_the_proxy

step "When the services wait, in the pods: a short make latency-map-cluster of v1 behind its release's latency proxy"
short_latency_map_in_pods() { # the short grid's variables for this one command; v1 alone (v2's and v3's releases
  # have no proxy)
  RESULTS="$NODE_DIR/latency-map" VERSIONS=v1 LATENCY_AUTHORS_MS=0,20 LATENCY_DATABASE_MS=5 MAP_RATES=20 MAP_USERS="" \
    MAP_STEP_DURATION=5s RUNS=1 WARMUP_ITERATIONS=30 WARMUP_MAX_WINDOWS=1 make_target latency-map-cluster
}
expect "make latency-map-cluster sets the latency in the release's proxy, checks it where it is set, measures a short grid" \
  short_latency_map_in_pods
expect "latency-map.json (pods): every hop's latency and the proxy's own observed as set, every cell measured, no answer of v1 faster than its row's latency" \
  latency_map_holds "$NODE_DIR/latency-map/latency-map.json"
slow_authors_in_pods() { # a fault only the proxy makes: every answer of authors past web-api's 1 s time-out (quick:
  # the short warm-up and wait of make test's subset; the map has just warmed v1)
  RESULTS="$NODE_DIR/chaos-proxy" CHAOS_FAULTS="authors slower than the time-out" VERSIONS=v1 CHAOS_QUICK=1 \
    make_target chaos-cluster
}
expect "make chaos-cluster, authors slower than the time-out (in v1's latency proxy): reads 200, the circuit opens, nothing lost" \
  slow_authors_in_pods
step "Traces in the pods: one GET and one POST of the second deploy-v1 read back from the release's Jaeger"
traces_in_pods() { # web-api's log followed into a file meanwhile, for the refused request's line and its trace id
  [[ -n ${seed_authors:-} ]] || { echo "no seed authors: they are read after the second deploy"; return 1; }
  local log="$NODE_DIR/traced-web-api-v1.log" follower status=0
  kubectl -n "$NS" logs -f deploy/bench-v1-web-api >"$log" 2>&1 &
  follower=$!
  check_traces "$(cluster_url bench-v1-jaeger query)" "$(cluster_url bench-v1-web-api http)" v1 \
    --authors "$seed_authors" --keep "$NODE_DIR/traces-v1.json" --log "$log" || status=$?
  kill "$follower" 2>/dev/null || true
  return "$status"
}
expect "v1 in pods: a GET is one trace (web-api, articles, five author look-ups in parallel, each statement, over TLS to PostgreSQL), a POST's reaches web-api through Kafka, a refused one's log line names its trace" \
  traces_in_pods

step "The floor (v0) rolled under load: its services honour the shutdown delay as the builds' do"
floor_load_running() {
  kubectl -n "$NS" get pods -l app.kubernetes.io/component=load-generator,reactive-bench.example/build=v0 --no-headers |
    grep -q ' Running '
}
floor_rolls_without_loss() { # 30 requests a second to v0's web-api for 45 s; its three Deployments rolled 10 s in
  local status=0 load
  deploy_built_ahead v0 || return 1
  load_job v0 open "$NODE_DIR/floor-rolled.json" RATE=30 DURATION=45s &
  load=$!
  wait_for "v0's load Job running" 120 floor_load_running && sleep 10 && kubectl -n "$NS" rollout restart deployment bench-v0-web-api bench-v0-articles bench-v0-authors &&
    kubectl -n "$NS" rollout status deployment bench-v0-web-api --timeout=180s &&
    kubectl -n "$NS" rollout status deployment bench-v0-articles --timeout=180s &&
    kubectl -n "$NS" rollout status deployment bench-v0-authors --timeout=180s || status=$?
  wait "$load" || status=$?
  ((status == 0)) && check_results "$NODE_DIR/floor-rolled.json" \
    'd["figures"]["requests"] > 0 and d["figures"]["complete"] == d["figures"]["requests"]'
}
expect "v0's three Deployments rolled under load: every request answered complete (none failed, degraded or shed)" \
  floor_rolls_without_loss
step "Every image the node ran, and its SBOM"
images_with_sboms() { # every image of the project's in the node's containerd has an SBOM naming it: docs/sbom's, or
  # the one written as it was built (the node's base and its Spilo-compatible image: images.sh)
  local image name file found=() missing=()
  while read -r image; do
    name=${image#localhost/reactive-bench/} # (its tag or digest cut off below)
    file="$ROOT/docs/sbom/$name.cdx.json"
    [[ -s $file ]] || file="$NODE_DIR/sbom/$name.cdx.json"
    if [[ -s $file ]] && python3 -c 'import json, sys; d = json.load(open(sys.argv[1]))
assert d["metadata"]["component"]["name"] == sys.argv[2] and d["components"]' "$file" "localhost/reactive-bench/$name"; then
      found+=("$name")
    else
      missing+=("$name")
    fi
  done < <(ctr --address "$CONTAINERD_ADDRESS" -n k8s.io images ls -q | grep '^localhost/reactive-bench/' |
    sed -E 's/[:@].*//' | sort -u)
  echo "with an SBOM: ${found[*]:-none}; without one: ${missing[*]:-none}"
  ((${#found[@]} > 0 && ${#missing[@]} == 0))
}
expect "every image of the project's the node ran has an SBOM naming it (docs/sbom, or written as it was built: the node's base, the Spilo-compatible image)" \
  images_with_sboms

step "make undeploy: every build, the floor, Kafka's topics, PostgreSQL"
expect "make undeploy" make_target undeploy
builds_left() { # prints what is left of the builds and load Jobs (Helm's objects and releases); fails if anything
  local left
  left="$(kubectl -n "$NS" get all,configmaps,secrets -l app.kubernetes.io/managed-by=Helm -o name)$("${HELM:?}" list -n "$NS" -q)"
  echo "left: ${left:-nothing}"
  [[ -z "$left" ]]
}
expect "nothing of the builds or the load Jobs is left" builds_left
operator_cleaned_up() { # what the operator made for the postgresql went with it; the provisioner then removes the volume
  # (the Kafka stand-in's claim stays: make undeploy leaves an external Kafka alone)
  local left
  for _ in $(seq 30); do
    left="$(kubectl -n "$NS" get postgresql -o name)$(kubectl -n "$NS" get statefulset,pods,services,endpoints,secrets,pvc \
      -l "$OPERATOR_LABELS" -o name 2>/dev/null)$(kubectl get pv --no-headers \
      -o custom-columns=NAME:.metadata.name,CLAIM:.spec.claimRef.name | awk '$2 !~ /^data-0-bench-kafka/ {print $1}')"
    [[ -z "$left" ]] && break
    sleep 2
  done
  echo "left: ${left:-nothing}"
  [[ -z "$left" ]]
}
expect "make undeploy: the operator removed everything it made (StatefulSet, pod, Services, Secrets, claim, volume)" \
  operator_cleaned_up

step "Tearing the node down"
trap - EXIT
"$HERE/node.sh" down
expect "no process, mount, interface, iptables rule, IP set or volume of the node is left" "$HERE/node.sh" leftovers

if [[ -s $FIRST_FAILURE ]]; then
  step "The first failure, and the node's state at that moment (${FIRST_FAILURE#"$ROOT"/})"
  sed 's/^/    /' "$FIRST_FAILURE"
fi
summary test-cluster
