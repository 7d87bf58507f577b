#!/usr/bin/env bash
# Shared by the scripts: where things are, the local stack's layout, and one-line progress output.
# Sourced, never run.
# shellcheck disable=SC2034 # the variables are for the scripts that source this file

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
readonly ROOT
readonly LOCAL_DIR="${LOCAL_DIR:-$ROOT/.local}"
readonly LOG_DIR="$LOCAL_DIR/logs"
readonly PID_DIR="$LOCAL_DIR/pids"
readonly TOOLS_DIR="$ROOT/.tools/bin"
# The test node's name, and its kubeconfig's context (scripts/cluster/test-cluster/node.sh)
readonly TEST_NODE_NAME=reactive-bench-node

# The builds (services/builds.conf, the one list of them, parsed by benchkit alone): BUILDS (v1 v2 v3), the floor
# FLOOR (v0: the read alone, in plain Vert.x; the local stack runs it beside them), and BUILD_JAVA_OPTIONS and
# BUILD_CHART_VALUES by version.
build_declarations=$(cd "$ROOT/scripts" && python3 -m benchkit builds shell) ||
  { echo "cannot read services/builds.conf (python3 -m benchkit builds shell)" >&2; exit 1; }
eval "$build_declarations"
unset build_declarations
readonly BUILDS FLOOR

# Loopback ports of the local stack: web-api, articles, authors of v1 on 8080-8082, v2 on 8090-8092, v3 on 8100-8102,
# the floor's below them on 8070-8072; each service's management interface (health, metrics) 1000 above its API
# port (9080-9082, …).
readonly POSTGRES_PORT="${POSTGRES_PORT:-15432}"
readonly KAFKA_PORT="${KAFKA_PORT:-19092}"
# The infrastructure's control port: stops and starts PostgreSQL and Kafka for the fault-injection suite.
readonly CONTROL_PORT="${CONTROL_PORT:-19099}"
declare -A SERVICE_PORT=() MANAGEMENT_PORT=()
SERVICES=() # start order: each service's dependencies first
# The builds at 0, 1, 2 (their order in builds.conf), the floor at -1: its ports below theirs.
declare -A PORT_INDEX=()
for ((i = 0; i < ${#BUILDS[@]}; i++)); do PORT_INDEX[${BUILDS[i]}]=$i; done
for ((i = 0; i < ${#FLOOR[@]}; i++)); do PORT_INDEX[${FLOOR[i]}]=$((-1 - i)); done
for version in "${BUILDS[@]}" "${FLOOR[@]}"; do
  SERVICE_PORT["web-api-$version"]=$((8080 + 10 * PORT_INDEX[$version]))
  SERVICE_PORT["articles-$version"]=$((8081 + 10 * PORT_INDEX[$version]))
  SERVICE_PORT["authors-$version"]=$((8082 + 10 * PORT_INDEX[$version]))
  SERVICES+=("authors-$version" "articles-$version" "web-api-$version")
done
for service_name in "${!SERVICE_PORT[@]}"; do
  MANAGEMENT_PORT[$service_name]=$((SERVICE_PORT[$service_name] + 1000))
done
unset service_name
readonly SERVICE_PORT MANAGEMENT_PORT SERVICES

# The latency proxy (Toxiproxy): its API, and one proxy per hop that latency can be added to, per build: web-api to
# authors, and each data service to PostgreSQL. A build's services go through it when started with LATENCY_PROXY=on
# (make latency-map); otherwise they connect directly and the proxy idles. v1's hops listen on 18500-18502, v2's on
# 18510-18512, v3's on 18520-18522, the floor's on 18490-18492.
readonly TOXIPROXY_PORT="${TOXIPROXY_PORT:-18474}"
declare -A PROXY_PORT=() PROXY_UPSTREAM=()
for version in "${BUILDS[@]}" "${FLOOR[@]}"; do
  PROXY_PORT["authors-$version"]=$((18500 + 10 * PORT_INDEX[$version]))
  PROXY_UPSTREAM["authors-$version"]="127.0.0.1:${SERVICE_PORT["authors-$version"]}"
  PROXY_PORT["postgres-articles-$version"]=$((18501 + 10 * PORT_INDEX[$version]))
  PROXY_PORT["postgres-authors-$version"]=$((18502 + 10 * PORT_INDEX[$version]))
  PROXY_UPSTREAM["postgres-articles-$version"]="127.0.0.1:$POSTGRES_PORT"
  PROXY_UPSTREAM["postgres-authors-$version"]="127.0.0.1:$POSTGRES_PORT"
done
unset version
readonly PROXY_PORT PROXY_UPSTREAM PORT_INDEX

# The trace store of TRACING=on (Jaeger, which JAEGER names; the Makefile sets it): OTLP in, its query API and UI out.
readonly JAEGER_OTLP_PORT="${JAEGER_OTLP_PORT:-14317}"
readonly JAEGER_QUERY_PORT="${JAEGER_QUERY_PORT:-16686}"
readonly JAEGER_QUERY_GRPC_PORT="${JAEGER_QUERY_GRPC_PORT:-16685}"
readonly JAEGER_HEALTH_PORT="${JAEGER_HEALTH_PORT:-13133}"
jaeger_url() { echo "http://127.0.0.1:$JAEGER_QUERY_PORT"; }

# The same JVM flags for every service of every build (recorded in every report).
readonly SERVICE_JAVA_OPTS="${SERVICE_JAVA_OPTS:--Xms256m -Xmx512m -XX:+UseG1GC -XX:+ExitOnOutOfMemoryError}"
# go_module_dir MODULE@VERSION: where the Go module cache holds that module (downloaded if it is not there yet)
go_module_dir() { go mod download -json "$1" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p'; }
# build_java_options v3: the JVM options of one build beyond those (services/builds.conf), or nothing.
build_java_options() { printf '%s\n' "${BUILD_JAVA_OPTIONS[$1]:-}"; }
# build_chart_values v2: the chart values of one build in its pods (services/builds.conf), as name=value words.
build_chart_values() { printf '%s\n' "${BUILD_CHART_VALUES[$1]:-}"; }

JAVA_HOME="${JAVA_HOME:-$("$ROOT/scripts/local/find-jdk.sh")}"
export JAVA_HOME
readonly JAVA="$JAVA_HOME/bin/java"

SECONDS_AT_START=$SECONDS
# Each step with the time of day it began: a long run's log read against the machine's load at that moment.
step() { printf '\033[36m==>\033[0m %(%H:%M:%S)T %s\n' -1 "$*"; }
info() { printf '    %s\n' "$*"; }
warn() { printf '\033[33m!!\033[0m  %s\n' "$*" >&2; }
die() { printf '\033[31mxx\033[0m  %s\n' "$*" >&2; exit 1; }
# The benchmark harness, on the interpreter make benchkit installs (matplotlib, pytest); the system's
# python3 is enough for what needs the standard library only (unschedulable).
benchkit() { (cd "$ROOT/scripts" && "${BENCHKIT_PYTHON:-python3}" -m benchkit "$@"); }
# check_results FILE EXPRESSION…: whether each holds of a results file, read as data (scripts/checks/check_results.py)
check_results() { "${BENCHKIT_PYTHON:-python3}" "$ROOT/scripts/checks/check_results.py" "$@"; }
# check_traces JAEGER WEB_API VERSION …: a GET and a POST traced and judged (scripts/checks/check_traces.py)
check_traces() { "${BENCHKIT_PYTHON:-python3}" "$ROOT/scripts/checks/check_traces.py" "$@"; }
# check_blocked LOG…: Vert.x's blocked-thread reports that count (scripts/checks/check_blocked.py)
check_blocked() { "${BENCHKIT_PYTHON:-python3}" "$ROOT/scripts/checks/check_blocked.py" "$@"; }
# flame_graphs RESULTS [VERSION…]: a bench's profile run left a flame graph of every service of each build (every
# build unless named)
flame_graphs() {
  local results=$1 version service versions
  shift
  versions=("$@")
  ((${#versions[@]})) || versions=("${BUILDS[@]}")
  for version in "${versions[@]}"; do
    for service in web-api articles authors; do
      [[ -s "$results/profiles/$version-$service.svg" ]] || { echo "no flame graph of $service $version"; return 1; }
    done
  done
}
# latency_map_holds MAP CHECK…: a short latency map that holds on any machine (benchkit latency-map-verdicts: every
# hop's latency and the proxy's own cost observed within their bounds, every cell measured, no complete answer faster
# than its row's latency less the jitter, which a build that bypassed its proxy cannot pass), and the caller's own
# checks; each build's fastest answers and p50s printed first, the verdicts last (what does not hold last of all), where
# a failure's excerpt shows them.
latency_map_holds() {
  local map=$1 status=0
  shift
  check_results "$map" '[(c["build"], c["mode"], r["fastest"], r["p50"]) for c in d["cells"] for r in c["rounds"]]' || true
  (($# == 0)) || check_results "$map" "$@" || status=$?
  benchkit latency-map-verdicts "$map" || status=$?
  return "$status"
}
# authors_of ANSWER: the distinct authors of an answer of GET /vN/articles (on stdin without one), comma-separated
authors_of() {
  python3 -c 'import json, sys; print(",".join(dict.fromkeys(a["authorName"] for a in json.load(sys.stdin))))' <"${1:-/dev/stdin}"
}
elapsed() { printf '%ds' $((SECONDS - SECONDS_AT_START)); }

# Test outcomes for the shell test suites (e2e, kube-validate), closed by `summary NAME`.
# Each outcome shows the seconds since the one before, so a slow part of a suite shows in any log of it.
passed=0
failed=0
failures=()
last_outcome_at=$SECONDS
outcome() { # outcome COLOUR WORD WHAT
  printf '    \033[%sm%s\033[0m %s (%ds)\n' "$1" "$2" "$3" $((SECONDS - last_outcome_at))
  last_outcome_at=$SECONDS
}
pass() { passed=$((passed + 1)); outcome 32 PASS "$1"; }
fail() { failed=$((failed + 1)); failures+=("$1"); outcome 31 FAIL "$1"; }
summary() { # prints what failed, then "NAME: N passed, N failed", and fails when anything failed: the last lines of a
  # log, the part CI and make test show of a failed suite, name each failure however long the suite ran after it
  local what
  for what in "${failures[@]}"; do printf '    \033[31mFAILED\033[0m %s\n' "$what"; done
  echo "$1: $passed passed, $failed failed, in $(elapsed)"
  ((failed == 0))
}

# is_floor VERSION: whether it is the floor's (FLOOR), not one of the builds
is_floor() {
  local version
  for version in "${FLOOR[@]}"; do [[ $version != "$1" ]] || return 0; done
  return 1
}

# service_dir web-api-v1 -> services/web-api/v1
service_dir() { echo "$ROOT/services/${1%-v*}/${1##*-}"; }
service_url() { echo "http://127.0.0.1:${SERVICE_PORT[$1]}"; }
management_url() { echo "http://127.0.0.1:${MANAGEMENT_PORT[$1]}"; }

pid_of() { # prints the pid of a running process of the stack, or nothing
  local file="$PID_DIR/$1.pid"
  [[ -f "$file" ]] || return 0
  local pid
  pid=$(<"$file")
  if kill -0 "$pid" 2>/dev/null; then echo "$pid"; fi
}

# wait_for DESCRIPTION TIMEOUT_SECONDS COMMAND…: retries COMMAND each half second
wait_for() {
  local what=$1 timeout=$2
  shift 2
  local deadline=$((SECONDS + timeout))
  until "$@" >/dev/null 2>&1; do
    if ((SECONDS >= deadline)); then
      return 1
    fi
    sleep 0.5
  done
  info "$what ($(elapsed))"
}
