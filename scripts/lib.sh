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

# Loopback ports of the local stack; v2 = v1 + 10.
readonly POSTGRES_PORT="${POSTGRES_PORT:-15432}"
readonly KAFKA_PORT="${KAFKA_PORT:-19092}"
# The infrastructure's control port: stops and starts PostgreSQL and Kafka for the fault-injection suite.
readonly CONTROL_PORT="${CONTROL_PORT:-19099}"
declare -rA SERVICE_PORT=(
  ["web-api-v1"]=8080 ["articles-v1"]=8081 ["authors-v1"]=8082
  ["web-api-v2"]=8090 ["articles-v2"]=8091 ["authors-v2"]=8092
)
# Start order: each service's dependencies first.
readonly SERVICES=(authors-v1 articles-v1 web-api-v1 authors-v2 articles-v2 web-api-v2)

# The same JVM flags for every service of both builds (recorded in every report).
readonly SERVICE_JAVA_OPTS="${SERVICE_JAVA_OPTS:--Xms256m -Xmx512m -XX:+UseG1GC -XX:+ExitOnOutOfMemoryError}"

JAVA_HOME="${JAVA_HOME:-$("$ROOT/scripts/find-jdk.sh")}"
export JAVA_HOME
readonly JAVA="$JAVA_HOME/bin/java"

SECONDS_AT_START=$SECONDS
step() { printf '\033[36m==>\033[0m %s\n' "$*"; }
info() { printf '    %s\n' "$*"; }
warn() { printf '\033[33m!!\033[0m  %s\n' "$*" >&2; }
die() { printf '\033[31mxx\033[0m  %s\n' "$*" >&2; exit 1; }
# The benchmark harness, on the interpreter make benchkit installs (matplotlib, pytest); the system's
# python3 is enough for what needs the standard library only (unschedulable).
benchkit() { (cd "$ROOT/scripts" && "${BENCHKIT_PYTHON:-python3}" -m benchkit "$@"); }
elapsed() { printf '%ds' $((SECONDS - SECONDS_AT_START)); }

# Test outcomes for the shell test suites (e2e, kube-validate), closed by `summary NAME`.
passed=0
failed=0
pass() { passed=$((passed + 1)); printf '    \033[32mPASS\033[0m %s\n' "$1"; }
fail() { failed=$((failed + 1)); printf '    \033[31mFAIL\033[0m %s\n' "$1"; }
summary() { # prints "NAME: N passed, N failed" and fails when anything failed
  echo "$1: $passed passed, $failed failed"
  ((failed == 0))
}

# service_dir web-api-v1 -> services/web-api/v1
service_dir() { echo "$ROOT/services/${1%-v*}/${1##*-}"; }
service_url() { echo "http://127.0.0.1:${SERVICE_PORT[$1]}"; }

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
