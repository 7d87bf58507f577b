#!/usr/bin/env bash
# The local stack: PostgreSQL, Kafka and the nine services (three services x three builds) on loopback, and the
# floor's three (v0: the read alone), no Docker, no Kubernetes.
#   stack.sh up       start what is not running yet, wait until everything is ready
#   stack.sh down     stop everything the stack started (also after a crash)
#   stack.sh status   what runs, where, and whether it is ready
#   stack.sh stop|start NAME     one part, for fault injection: a service (authors-v1, …), postgres or kafka
#   stack.sh stop-services [NAME…]  these services (every one if none is named) at once, the rest left running
#   stack.sh start NAME…         these services at once, ready when it returns (as a build's pods roll together)
#   stack.sh pause|resume NAME   freeze a service (SIGSTOP: it accepts connections and never answers) and thaw it
# SERVICE_SETTINGS="KEY=VALUE …" adds configuration (Quarkus environment variables) to the services it
# starts: the sweep restarts a build with each candidate setting this way. SERVICE_SETTINGS_<service>_<version>
# (SERVICE_SETTINGS_articles_v2), where set, even empty, is that one service's instead. CPU_GROUPS=DIRECTORY starts
# each service in its CPU cgroup DIRECTORY/NAME, made beforehand with its quota (benchkit's procfs.limited_group).
# LATENCY_PROXY=on (in the environment, or a service's SERVICE_SETTINGS, which wins) starts services behind the
# latency proxy: web-api reaches authors, and articles and authors reach PostgreSQL, through Toxiproxy (TOXIPROXY,
# which the Makefile sets), where latency can be added per hop (benchkit latency) without a restart.
# SERVICE_BUILD=NAME (the same two ways) starts a service from another build of it: target/NAME/quarkus-app.
# TRACING=on (the same two ways) starts services with OpenTelemetry on, exporting to Jaeger (JAEGER, which the
# Makefile sets), started with them: every request traced, its query API and UI on jaeger_url (scripts/lib.sh).
set -euo pipefail
# shellcheck source=../lib.sh
source "$(dirname "$0")/../lib.sh"

readonly INFRA_DIR="$LOCAL_DIR/infrastructure"
readonly SUPPORT="$ROOT/services/testing/support/target"

setting() { # setting NAME DEFAULT: a setting's value, in the environment or in SERVICE_SETTINGS, which wins
  local word found=${!1:-$2}
  for word in ${SERVICE_SETTINGS:-}; do
    [[ $word != "$1"=* ]] || found=${word#*=}
  done
  echo "$found"
}
switched_on() { [[ $(setting "$1" off) == on ]]; } # switched_on NAME: whether a switch is on (as setting)
through_proxy() { switched_on LATENCY_PROXY; } # whether a service starts behind the latency proxy (see above)
traced() { switched_on TRACING; }              # whether a service starts traced (see above)
# The jar a service starts from: target/quarkus-app's as make build makes it, or another build of the same service
# beside it, target/SERVICE_BUILD/quarkus-app's (without-tracing: make build-without-tracing); the floor's services,
# which are not Quarkus applications and have neither, from target/<service>-<version>.jar with its lib/.
application_jar() {
  local build
  if is_floor "${1##*-}"; then echo "$(service_dir "$1")/target/$1.jar"; return; fi
  build=$(setting SERVICE_BUILD "")
  echo "$(service_dir "$1")/target/${build:+$build/}quarkus-app/quarkus-run.jar"
}

# hop_address HOP: where a service reaches the far end of a hop (authors-v1, postgres-articles-v1): through the
# latency proxy when it starts behind it, else directly
hop_address() {
  if through_proxy; then echo "127.0.0.1:${PROXY_PORT[$1]}"; else echo "${PROXY_UPSTREAM[$1]}"; fi
}

service_env() { # the environment of one service: standard Quarkus variables only
  local name=$1 version=${1##*-}
  echo "QUARKUS_HTTP_HOST=127.0.0.1"
  echo "QUARKUS_HTTP_PORT=${SERVICE_PORT[$name]}"
  echo "QUARKUS_MANAGEMENT_HOST=127.0.0.1"
  echo "QUARKUS_MANAGEMENT_PORT=${MANAGEMENT_PORT[$name]}"
  case $name in
    authors-* | articles-*)
      local db=${name%-v*} postgres
      postgres=$(hop_address "postgres-$name")
      echo "QUARKUS_DATASOURCE_JDBC_URL=jdbc:postgresql://$postgres/$db"
      echo "QUARKUS_DATASOURCE_REACTIVE_URL=postgresql://$postgres/$db"
      # the schema's owner migrates, the service runs as a user of its own, granted the rows alone (as in the cluster)
      echo "QUARKUS_FLYWAY_USERNAME=$db"
      echo "QUARKUS_FLYWAY_PASSWORD=$db"
      echo "QUARKUS_DATASOURCE_USERNAME=${db}_app"
      echo "QUARKUS_DATASOURCE_PASSWORD=${db}_app"
      # PostgreSQL offers TLS here as in the cluster; no build uses it unless told to (SERVICE_SETTINGS, benchkit
      # tls), and every build alike: pgJDBC's own default would try TLS first, the reactive client's would not.
      echo "QUARKUS_DATASOURCE_JDBC_ADDITIONAL_JDBC_PROPERTIES_SSLMODE=disable"
      echo "QUARKUS_DATASOURCE_REACTIVE_POSTGRESQL_SSL_MODE=disable"
      if traced; then echo "QUARKUS_DATASOURCE_JDBC_TELEMETRY_ENABLED=true"; fi
      ;;
    web-api-*)
      echo "QUARKUS_REST_CLIENT_ARTICLES_URL=$(service_url "articles-$version")/$version"
      echo "QUARKUS_REST_CLIENT_AUTHORS_URL=http://$(hop_address "authors-$version")/$version"
      ;;
  esac
  echo "KAFKA_BOOTSTRAP_SERVERS=127.0.0.1:$KAFKA_PORT"
  if traced; then
    echo "QUARKUS_OTEL_SDK_DISABLED=false"
    echo "QUARKUS_OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:$JAEGER_OTLP_PORT"
    # each refused request logged, its trace id in the line (services/tracing: the log format)
    echo "QUARKUS_LOG_CATEGORY__IO_REACTIVEBENCH_PROBLEM__LEVEL=DEBUG"
  fi
  # The build's own JVM options, as make deploy gives them to its pods; SERVICE_SETTINGS, which comes after, may
  # replace them.
  local options
  options=$(build_java_options "$version")
  [[ -z "$options" ]] || echo "JDK_JAVA_OPTIONS=$options"
}

start_infrastructure() {
  if [[ -n "$(pid_of infrastructure)" ]]; then
    info "infrastructure already running"
    return
  fi
  [[ -f "$SUPPORT/classpath.txt" ]] || die "services are not built: run 'make build' first"
  : >"$LOG_DIR/infrastructure.log"
  # A self-signed certificate, so that PostgreSQL can offer TLS (its cost is measured apart: make tls).
  local tls="$INFRA_DIR/tls"
  if [[ ! -f "$tls/server.key" ]]; then
    mkdir -p "$tls"
    openssl req -x509 -newkey rsa:2048 -nodes -days 30 -subj /CN=localhost -keyout "$tls/server.key" \
      -out "$tls/server.crt" 2>/dev/null || die "openssl could not make PostgreSQL's certificate"
    chmod 600 "$tls/server.key"
  fi
  # shellcheck disable=SC2086 # the classpath file holds one colon-separated line
  nohup "$JAVA" -Xmx256m -cp "$SUPPORT/classes:$(<"$SUPPORT/classpath.txt")" \
    -Dkafka.broker.lib="$ROOT/services/testing/kafka-broker/target/lib" -Dpostgres.tls="$tls" \
    io.reactivebench.testing.LocalInfrastructure "$INFRA_DIR" "$POSTGRES_PORT" "$KAFKA_PORT" "$CONTROL_PORT" \
    >>"$LOG_DIR/infrastructure.log" 2>&1 &
  echo $! >"$PID_DIR/infrastructure.pid"
  wait_for "PostgreSQL :$POSTGRES_PORT and Kafka :$KAFKA_PORT ready" 300 \
    grep -q "infrastructure ready" "$LOG_DIR/infrastructure.log" ||
    die "infrastructure did not start; see $LOG_DIR/infrastructure.log"
}

# The latency proxy: every hop's proxy created at its start (its config file), no latency until one is added.
start_proxy() {
  [[ -z "$(pid_of toxiproxy)" ]] || return 0
  if [[ ! -x "${TOXIPROXY:-}" ]]; then
    warn "no latency proxy: TOXIPROXY does not name Toxiproxy's server (make toxiproxy builds it)"
    return 0
  fi
  local hop first=true
  {
    printf '['
    for hop in "${!PROXY_PORT[@]}"; do
      $first || printf ','
      first=false
      printf '\n  {"name": "%s", "listen": "127.0.0.1:%s", "upstream": "%s", "enabled": true}' \
        "$hop" "${PROXY_PORT[$hop]}" "${PROXY_UPSTREAM[$hop]}"
    done
    printf '\n]\n'
  } >"$LOCAL_DIR/toxiproxy.json"
  LOG_LEVEL=warn nohup "$TOXIPROXY" -host 127.0.0.1 -port "$TOXIPROXY_PORT" -config "$LOCAL_DIR/toxiproxy.json" \
    >>"$LOG_DIR/toxiproxy.log" 2>&1 &
  echo $! >"$PID_DIR/toxiproxy.pid"
  wait_for "latency proxy :$TOXIPROXY_PORT ready (${#PROXY_PORT[@]} hops, no latency)" 30 proxy_ready ||
    die "the latency proxy did not start; see $LOG_DIR/toxiproxy.log"
}

# The trace store, started with the first traced service: in memory, gone when the stack stops.
start_jaeger() {
  [[ -z "$(pid_of jaeger)" ]] || return 0
  [[ -x "${JAEGER:-}" ]] || die "TRACING=on needs Jaeger: JAEGER does not name it (make jaeger builds it; make up sets it)"
  JAEGER_OTLP_GRPC="127.0.0.1:$JAEGER_OTLP_PORT" JAEGER_QUERY_HTTP="127.0.0.1:$JAEGER_QUERY_PORT" \
    JAEGER_QUERY_GRPC="127.0.0.1:$JAEGER_QUERY_GRPC_PORT" JAEGER_HEALTH_HTTP="127.0.0.1:$JAEGER_HEALTH_PORT" \
    nohup "$JAEGER" --config "$ROOT/charts/reactive-bench/files/jaeger.yaml" >>"$LOG_DIR/jaeger.log" 2>&1 &
  echo $! >"$PID_DIR/jaeger.pid"
  wait_for "Jaeger ready: traces in on :$JAEGER_OTLP_PORT, its UI on $(jaeger_url)" 60 jaeger_ready ||
    die "Jaeger did not start; see $LOG_DIR/jaeger.log"
}

jaeger_ready() { curl -fsS "http://127.0.0.1:$JAEGER_HEALTH_PORT/status" >/dev/null; }

proxy_ready() {
  [[ $(curl -fsS "http://127.0.0.1:$TOXIPROXY_PORT/proxies" | grep -o '"listen"' | wc -l) -eq ${#PROXY_PORT[@]} ]]
}

start_service() {
  local name=$1 jar
  if traced; then start_jaeger; fi
  jar="$(application_jar "$name")"
  [[ -f "$jar" ]] || die "$name is not built: run 'make build' first (${jar#"$ROOT"/} is missing)"
  if [[ -n "$(pid_of "$name")" ]]; then
    return
  fi
  rm -f "$PID_DIR/$name.proxied" "$PID_DIR/$name.ready"
  if through_proxy; then
    [[ -n "$(pid_of toxiproxy)" ]] || die "$name is to start behind the latency proxy, which is not running"
    : >"$PID_DIR/$name.proxied"
  fi
  rm -f "$PID_DIR/$name.traced"
  # the floor has no tracing to switch on (no OpenTelemetry): it never counts as traced
  if traced && ! is_floor "${name##*-}"; then : >"$PID_DIR/$name.traced"; fi
  # Appended: a service restarted by a fault or a sweep keeps what its earlier runs logged, each run after a line
  # of its own (check_blocked.py tells each run's start-up from its serving by it).
  echo "=== $name starting $(date -u +%FT%TZ) ===" >>"$LOG_DIR/$name.log"
  local group=${CPU_GROUPS:+$CPU_GROUPS/$name}
  [[ -z $group || -w $group/cgroup.procs ]] || die "$name is to start in the CPU cgroup $group, which is not there"
  (
    # in its CPU cgroup before the JVM's first instruction, as a pod's container starts under its limit
    [[ -z $group ]] || echo "$BASHPID" >"$group/cgroup.procs"
    # shellcheck disable=SC2046,SC2086 # one word per variable and per JVM flag, on purpose
    exec env $(service_env "$name") ${SERVICE_SETTINGS:-} nohup "$JAVA" $SERVICE_JAVA_OPTS -jar "$jar"
  ) >>"$LOG_DIR/$name.log" 2>&1 &
  echo $! >"$PID_DIR/$name.pid"
}

is_ready() { curl -fsS "$(management_url "$1")/q/health/ready" >/dev/null; }

# every_ready NAME…: whether every one answers ready, the moment each is first found so noted (NAME.ready: epoch
# seconds, in the inventory as ready_at: its start's seconds to ready, each its own, not the slowest's)
every_ready() {
  local name all=0
  for name in "$@"; do
    if is_ready "$name"; then
      [[ -e $PID_DIR/$name.ready ]] || date +%s.%N >"$PID_DIR/$name.ready"
    else
      all=1
    fi
  done
  return "$all"
}

# start_services NAME…: these services started at once, each with its own settings where given (see above), then
# polled together until every one is ready; the inventory written once they are
start_services() {
  local name own listed="" late=()
  for name in "$@"; do export -n "SERVICE_SETTINGS_${name//-/_}"; done # one service's are not the others' environment
  for name in "$@"; do
    own="SERVICE_SETTINGS_${name//-/_}"
    SERVICE_SETTINGS=${!own-${SERVICE_SETTINGS:-}} start_service "$name"
    listed+="$name :${SERVICE_PORT[$name]}, "
  done
  wait_for "ready: ${listed%, }" 180 every_ready "$@" || {
    for name in "$@"; do [[ -e $PID_DIR/$name.ready ]] || { late+=("$name"); tail -20 "$LOG_DIR/$name.log" >&2; }; done
    die "${late[*]} did not become ready in 180 s; see $LOG_DIR/<name>.log"
  }
  write_inventory
}

up() {
  mkdir -p "$LOG_DIR" "$PID_DIR"
  step "Starting the local stack (logs in ${LOG_DIR#"$ROOT"/})"
  start_infrastructure
  start_proxy
  start_services "${SERVICES[@]}"
  local version ready="Local stack ready: web-api"
  for version in "${BUILDS[@]}"; do ready+=" $version on $(service_url "web-api-$version"),"; done
  for version in "${FLOOR[@]}"; do ready+=" the floor $version on $(service_url "web-api-$version"),"; done
  step "${ready%,}"
}

# .local/stack.json: what runs where, for the benchmark harness (scripts/benchkit).
write_inventory() {
  local name first=true proxy_pid jaeger_pid
  {
    printf '{\n  "java_opts": "%s",\n  "services": {' "$SERVICE_JAVA_OPTS"
    for name in "${SERVICES[@]}"; do
      $first || printf ','
      first=false
      printf '\n    "%s": {"pid": %s, "url": "%s", "management": "%s", "through_proxy": %s, "traced": %s, "ready_at": %s}' \
        "$name" "$(pid_of "$name")" "$(service_url "$name")" "$(management_url "$name")" \
        "$([[ -f "$PID_DIR/$name.proxied" ]] && echo true || echo false)" \
        "$([[ -f "$PID_DIR/$name.traced" ]] && echo true || echo false)" \
        "$(cat "$PID_DIR/$name.ready" 2>/dev/null || echo null)"
    done
    proxy_pid=$(pid_of toxiproxy)
    printf '\n  },\n  "proxy": {"pid": %s, "api": "http://127.0.0.1:%s", "hops": {' "${proxy_pid:-null}" "$TOXIPROXY_PORT"
    first=true
    for name in "${!PROXY_PORT[@]}"; do
      $first || printf ','
      first=false
      printf '\n    "%s": {"listen": "127.0.0.1:%s", "upstream": "%s"}' "$name" "${PROXY_PORT[$name]}" "${PROXY_UPSTREAM[$name]}"
    done
    printf '\n  }},\n  "postgres": {"pid": %s, "port": %s},' "$(head -1 "$INFRA_DIR/postgres/postmaster.pid" 2>/dev/null || echo null)" "$POSTGRES_PORT"
    printf '\n  "control": "http://127.0.0.1:%s",' "$CONTROL_PORT"
    jaeger_pid=$(pid_of jaeger)
    printf '\n  "jaeger": {"pid": %s, "api": "%s"},' "${jaeger_pid:-null}" "$(jaeger_url)"
    printf '\n  "kafka": {"pid": %s, "port": %s}\n}\n' "$(cat "$INFRA_DIR/kafka/broker.pid" 2>/dev/null || echo null)" "$KAFKA_PORT"
  } >"$LOCAL_DIR/stack.json"
}

stop_pid() { # stop_pid NAME PID: TERM, then KILL after 20 s
  local name=$1 pid=$2
  kill "$pid" 2>/dev/null || return 0
  for _ in $(seq 40); do
    kill -0 "$pid" 2>/dev/null || { info "stopped $name"; return 0; }
    sleep 0.5
  done
  warn "$name did not stop in 20 s; killing it"
  kill -9 "$pid" 2>/dev/null || true
}

stop_services() { # stop_services NAME…: these services all at once: each takes its seconds to close (Kafka's
  # clients, a traced one's last spans)
  local name pid stopping=()
  for name in "$@"; do
    pid=$(pid_of "$name")
    [[ -z "$pid" ]] || { stop_pid "$name" "$pid" & stopping+=($!); }
  done
  ((${#stopping[@]} == 0)) || wait "${stopping[@]}"
  for name in "$@"; do rm -f "$PID_DIR/$name.pid"; done
}

down() {
  step "Stopping the local stack"
  local name pid
  # The services first (nothing calls them now); what they use (Jaeger, the proxy, PostgreSQL and Kafka) only once
  # all are gone.
  stop_services "${SERVICES[@]}"
  for name in "${SERVICES[@]}"; do rm -f "$PID_DIR/$name.proxied" "$PID_DIR/$name.traced"; done
  pid=$(pid_of jaeger)
  [[ -z "$pid" ]] || stop_pid jaeger "$pid"
  rm -f "$PID_DIR/jaeger.pid"
  pid=$(pid_of toxiproxy)
  [[ -z "$pid" ]] || stop_pid toxiproxy "$pid"
  rm -f "$PID_DIR/toxiproxy.pid"
  pid=$(pid_of infrastructure)
  [[ -z "$pid" ]] || stop_pid infrastructure "$pid"
  rm -f "$PID_DIR/infrastructure.pid"
  # Left behind only if the infrastructure JVM was killed before its shutdown hook ran.
  local leftover
  for leftover in "$INFRA_DIR/kafka/broker.pid" "$INFRA_DIR/postgres/postmaster.pid"; do
    if [[ -f "$leftover" ]]; then
      pid=$(head -1 "$leftover")
      if kill -0 "$pid" 2>/dev/null; then stop_pid "$(basename "$(dirname "$leftover")")" "$pid"; fi
      [[ "$leftover" == */broker.pid ]] && rm -f "$leftover"
    fi
  done
  step "Local stack stopped"
}

status() {
  printf '%-16s %-8s %-7s %s\n' SERVICE PID READY URL
  local name pid ready
  pid=$(pid_of infrastructure)
  printf '%-16s %-8s %-7s %s\n' infrastructure "${pid:--}" "$([[ -n "$pid" ]] && echo yes || echo no)" \
    "postgres 127.0.0.1:$POSTGRES_PORT, kafka 127.0.0.1:$KAFKA_PORT"
  pid=$(pid_of toxiproxy)
  printf '%-16s %-8s %-7s %s\n' latency-proxy "${pid:--}" "$([[ -n "$pid" ]] && echo yes || echo no)" \
    "http://127.0.0.1:$TOXIPROXY_PORT (hops on ${PROXY_PORT[*]})"
  pid=$(pid_of jaeger)
  printf '%-16s %-8s %-7s %s\n' jaeger "${pid:--}" "$([[ -n "$pid" ]] && echo yes || echo no)" "$(jaeger_url) (TRACING=on)"
  for name in "${SERVICES[@]}"; do
    pid=$(pid_of "$name")
    ready=no
    if [[ -n "$pid" ]] && is_ready "$name" 2>/dev/null; then ready=yes; fi
    printf '%-16s %-8s %-7s %s\n' "$name" "${pid:--}" "$ready" "$(service_url "$name")"
  done
}

is_service() { [[ -n "${SERVICE_PORT[$1]:-}" ]]; }

control() { # control postgres|kafka stop|start: asks the infrastructure JVM, which answers when done
  curl -fsS --max-time 120 -X POST "http://127.0.0.1:$CONTROL_PORT/$1/$2" >/dev/null ||
    die "the infrastructure could not $2 $1; see $LOG_DIR/infrastructure.log"
}

stop_part() {
  local name=$1
  case $name in
    postgres | kafka) control "$name" stop ;;
    *)
      is_service "$name" || die "unknown part: $name (a service, postgres or kafka)"
      local pid
      pid=$(pid_of "$name")
      [[ -z "$pid" ]] || stop_pid "$name" "$pid"
      rm -f "$PID_DIR/$name.pid"
      ;;
  esac
}

start_parts() { # start_parts NAME…: postgres or kafka, or services; the inventory written again (new process ids, for
  # the harness's CPU and memory readings)
  local name
  (($#)) || die "which part? (services, or postgres or kafka alone)"
  if (($# == 1)) && [[ $1 == postgres || $1 == kafka ]]; then
    control "$1" start
    write_inventory
    return
  fi
  for name in "$@"; do is_service "$name" || die "unknown part: $name (services, or postgres or kafka alone)"; done
  start_services "$@"
}

signal_part() { # signal_part STOP|CONT NAME
  is_service "$2" || die "only a service can be paused: $2"
  local pid
  pid=$(pid_of "$2")
  [[ -n "$pid" ]] || die "$2 is not running"
  kill "-$1" "$pid"
}

case "${1:-}" in
  up) up ;;
  down) down ;;
  status) status ;;
  stop) stop_part "${2:?which part}" ;;
  stop-services)
    for name in "${@:2}"; do is_service "$name" || die "unknown service: $name"; done
    if (($# > 1)); then stop_services "${@:2}"; else stop_services "${SERVICES[@]}"; fi
    ;;
  start) start_parts "${@:2}" ;;
  pause) signal_part STOP "${2:?which service}" ;;
  resume) signal_part CONT "${2:?which service}" ;;
  *) die "usage: $0 up|down|status|stop NAME|stop-services [NAME…]|start NAME…|pause NAME|resume NAME" ;;
esac
