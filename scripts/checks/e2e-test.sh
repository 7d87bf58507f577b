#!/usr/bin/env bash
# End-to-end tests on the real local stack (part of make test): every build answers with byte-identical
# JSON, the smoke load scenario passes its thresholds for each, a POST reaches the SSE stream (in about a second),
# the report generator produces every section, schemathesis finds nothing against each service's own
# OpenAPI document, v3 survives two faults under load (make chaos --quick), v2's and v3's requests are traced in
# Jaeger, no Vert.x thread waited on an event loop, and `down` leaves nothing.
set -euo pipefail
# A stack of its own, with fresh data: the seed articles, so one request means five author look-ups.
LOCAL_DIR="$(cd "$(dirname "$0")/../.." && pwd)/.local/e2e"
export LOCAL_DIR
# shellcheck source=../lib.sh
source "$(dirname "$0")/../lib.sh"

readonly LOADGEN="${LOADGEN:?LOADGEN must name the loadgen binary (the Makefile sets it)}"
readonly SCHEMATHESIS="${SCHEMATHESIS:?SCHEMATHESIS must name the st binary (the Makefile sets it)}"
readonly JAEGER="${JAEGER:?JAEGER must name Jaeger, which may still be building (the Makefile sets it)}"
readonly WORK="$LOCAL_DIR/work"

expect() { # expect DESCRIPTION COMMAND…
  local what=$1
  shift
  if "$@"; then pass "$what"; else fail "$what"; fi
}

if curl -s -o /dev/null "$(service_url web-api-v1)"; then
  die "Something already listens on the local stack's ports (make down stops the local stack)"
fi
# CPU_HOGS=N: N busy loops at normal priority compete for the cores during the whole suite (off by default),
# to prove that no check depends on how fast the machine is that minute (two on two cores: each core shared).
hogs=""
stop_everything() {
  [[ -z $hogs ]] || kill -- "-$hogs" 2>/dev/null || true
  "$ROOT/scripts/local/stack.sh" down >/dev/null 2>&1 || true
}
trap stop_everything EXIT
rm -rf "$LOCAL_DIR" && mkdir -p "$WORK"
if ((${CPU_HOGS:-0} > 0)); then
  setsid "$ROOT/scripts/local/busy-cores.sh" "$CPU_HOGS" 0 &
  hogs=$!
  step "$CPU_HOGS busy loops compete for the $(nproc) cores until the suite ends (CPU_HOGS)"
fi
"$ROOT/scripts/local/stack.sh" up

# What make demo and make bench measure by default: every build, and the floor (v0: the read alone) beside them.
readonly MEASURED=("${BUILDS[@]}" "${FLOOR[@]}")
step "Same bytes from every build (${BUILDS[*]}) and the floor (${FLOOR[*]})"
complete_answer() { # complete_answer VERSION FILE: the first answer without a fallen-back author look-up
  local version=$1 file=$2 attempt
  for attempt in $(seq 20); do
    # A just-started JVM can miss the 1 s look-up time-out on its first requests (a degraded answer), and
    # the circuit then stays open for 5 s.
    curl -fsS "$(service_url "web-api-$version")/$version/articles" >"$file"
    grep -q '"authorBlog":null' "$file" || return 0
    info "$version: answer $attempt was degraded (a cold look-up timed out); asking again in 1 s"
    sleep 1
  done
  # never complete: the byte-for-byte comparison below must not run on a degraded answer
  die "$version: 20 answers in a row were degraded (a look-up fell back every time)"
}
for version in "${MEASURED[@]}"; do
  complete_answer "$version" "$WORK/$version.json"
done
for version in "${MEASURED[@]:1}"; do
  expect "GET /$version/articles answers the same JSON as GET /v1/articles, byte for byte ($(wc -c <"$WORK/v1.json") bytes)" \
    cmp -s "$WORK/v1.json" "$WORK/$version.json"
done
expect "the answer holds the ten seed articles of five authors" python3 -c '
import json, sys
articles = json.load(open(sys.argv[1]))
sys.exit(not (len(articles) == 10 and len({a["authorName"] for a in articles}) == 5))' "$WORK/v1.json"

step "The smoke load scenario, each build in turn, and the report"
# A short warm-up before the profiled run, as a benchmark has: a cold JVM under a burst times out look-ups. One
# window of it, here and in the sweep below: the rule that adds windows until the JIT settles is the same code on
# every platform, and runs in make test-cluster's bench (two windows there).
# Ten users, as in make test-cluster's runs, each sending ten times as many requests as the default hundred would: a
# just-started JVM meets 50 look-ups at once instead of 500. With a hundred, beside the node's tools compiling, v1's
# and v2's restarted services answered 7 warm-up windows in a row incomplete (look-ups past their 1 s time-out) in
# the sweep and the answer of a cold make test at f140306, a minute of load each time.
export USERS=10 WARMUP_ITERATIONS=200 WARMUP_MAX_WINDOWS=1
# The window with no load that gives each process's background rate: long enough to read one, not to publish it.
export BACKGROUND_SECONDS=3
# run EXPERIMENT RESULTS SETTING=VALUE…: one experiment on this stack, its settings for this call alone
run() ( export "${@:3}"; benchkit run "$1" --platform local --results "$2" )
# The profiled run of v3 alone: what make test checks of a profile, that no carrier was pinned, concerns virtual threads;
# make test-cluster's bench profiles v3 in its pods too. make demo and make bench profile every build.
expect "the smoke load passes its thresholds for ${MEASURED[*]}, and a short profiled run of v3 records each of its services" \
  run bench "$WORK/results" RUNS=1 SCENARIOS=smoke,profile PROFILE_VERSIONS=v3 ITERATIONS=100
unset WARMUP_ITERATIONS
expect "every build's smoke run crossed no threshold of load/scenarios.json (judged on its samples)" python3 -c '
import json, sys
builds, paths = int(sys.argv[1]), sys.argv[2:]
summaries = {path: json.load(open(path)) for path in paths}
crossed = {path: s["thresholds_crossed"] for path, s in summaries.items() if s["thresholds_crossed"]}
print(crossed or f"{len(summaries)} smoke runs of {builds} builds", end="")
sys.exit(len(summaries) != builds or bool(crossed))' "${#MEASURED[@]}" "$WORK"/results/runs/v*-smoke-1.json
expect "the report generator runs and finds equal work" benchkit report "$WORK/results"
# What the report shows, read as data from the cell document it was rendered from (bench.json: a cell per build and
# scenario, a round per run).
SMOKE='(r for c in d["cells"] if c["mode"] == "smoke" for r in c["rounds"])'
expect "bench.json: every build and the floor did the same work, call for call (1 articles and 5 authors calls per complete answer)" \
  check_results "$WORK/results/bench.json" 'd["equal_work"]' \
  'all(t["articles"] == t["complete"] > 0 and t["authors"] == 5 * t["complete"] for t in d["work"]["smoke"].values())'
expect "bench.json: every build's CPU per request (whole system, each service), peak RSS and latency of complete answers" \
  check_results "$WORK/results/bench.json" "len([c for c in d['cells'] if c['mode'] == 'smoke']) == ${#MEASURED[@]}" \
  "all(r[k] > 0 for r in $SMOKE for k in ('cpu_ms', 'web-api_cpu_ms', 'articles_cpu_ms', 'authors_cpu_ms'))" \
  "all(m > 0 for r in $SMOKE for figures in r['memory_mib'].values() for m in figures.values())" \
  "all(r['p99'] > 0 for r in $SMOKE)"
expect "bench.json: what the kernel counted of every process per complete answer (context switches, run delay, system calls, threads)" \
  check_results "$WORK/results/bench.json" \
  "all(r['scheduling'][p]['voluntary_switches'] > 0 and r['scheduling'][p]['read_syscalls'] > 0 and r['scheduling'][p]['threads'] > 1 for r in $SMOKE for p in ('web-api', 'articles', 'authors'))" \
  "all(r['scheduling']['every process']['run_delay_ms'] is not None for r in $SMOKE)" \
  "all(r['scheduling']['web-api']['packets'] is None for r in $SMOKE)"
expect "bench.json: SQL parity, 1 statement per request to articles and 5 to authors in every build, and nothing else (no transaction around a read)" \
  check_results "$WORK/results/bench.json" "len(d['sql']) == ${#MEASURED[@]}" \
  'all(abs(v["data_statements_per_request"]["articles"] - 1) < 0.01 and abs(v["data_statements_per_request"]["authors"] - 5) < 0.01 for v in d["sql"].values())' \
  'all(v["transactions_per_request"][db] < 0.5 for v in d["sql"].values() for db in ("articles", "authors"))'
expect "a flame graph of every service of v3, the build profiled" flame_graphs "$WORK/results" v3
expect "no virtual thread pinned its carrier during v3's profiled run (JFR, each of its services), and no other build was profiled" python3 -c '
import json, sys
summary = json.load(open(sys.argv[1]))
pins = {f"{s} {v}": p["pins"] for v, services in summary.items() for s, p in services.items() if p["pins"]["count"]}
print(pins or f"profiled: {sorted(summary)}, no carrier pinned", end="")
sys.exit(bool(pins) or sorted(summary) != ["v3"] or len(summary["v3"]) != 3)' "$WORK/results/profiles/profile.json"
expect "report.html embeds its charts and loads nothing from the network" \
  bash -c "grep -q '<svg' '$WORK/results/report.html' && ! grep -qE '(src|href)=\"https?:' '$WORK/results/report.html'"
report_flags_unequal_work() { # the check must bite: v2 doing one author call too many is a FAIL
  local tampered="$WORK/tampered"
  rm -rf "$tampered" && cp -r "$WORK/results" "$tampered"
  python3 - "$tampered/runs/v2-smoke-1.cost.json" <<'PY'
import json, sys
cost = json.load(open(sys.argv[1]))
cost["requests_served"]["authors"] += cost["requests_served"]["web-api"]
json.dump(cost, open(sys.argv[1], "w"))
PY
  ! benchkit report "$tampered" >/dev/null 2>&1 &&
    check_results "$tampered/bench.json" 'd["equal_work"] is False'
}
expect "the report says FAIL when v2 made more author calls than v1" report_flags_unequal_work

step "A POST through web-api reaches the SSE stream"
# Every time limit below leaves the headroom of a machine three times slower than the one that measured it.
stream_delivers() { # stream_delivers VERSION: a client connected before the POST sees the article within 15 s
  local version=$1 url title stream
  url="$(service_url "web-api-$version")/$version/articles"
  title="e2e $version $RANDOM$RANDOM"
  echo "$title" >"$WORK/title-$version"
  stream="$WORK/stream-$version.txt"
  curl -sSiN --max-time 15 "$url/stream" >"$stream" &
  local reader=$!
  wait_for "stream client connected to $version" 30 grep -q "^HTTP/1.1 200" "$stream" || return 1
  curl -fsS -o /dev/null -H 'Content-Type: application/json' \
    -d "{\"title\":\"$title\",\"url\":\"https://example.org/e2e\",\"author\":\"Ada Lovelace\"}" "$url" || return 1
  local found=1 posted=$EPOCHREALTIME
  if wait_for "event received" 15 grep -q "$title" "$stream"; then
    found=0
    info "$version: streamed $(awk -v from="$posted" -v to="$EPOCHREALTIME" 'BEGIN { printf "%.1f", to - from }') s after the POST"
  fi
  kill "$reader" 2>/dev/null || true
  return $found
}
for version in "${BUILDS[@]}"; do
  expect "$version: the created article arrives as a server-sent event within 15 s" stream_delivers "$version"
done
keeps_to_its_own() { # keeps_to_its_own VERSION OTHER: its newest articles hold its own POST, not the other's
  local newest
  newest=$(curl -fsS "$(service_url "web-api-$1")/$1/articles") || return 1
  grep -qF "$(<"$WORK/title-$1")" <<<"$newest" && ! grep -qF "$(<"$WORK/title-$2")" <<<"$newest"
}
for version in "${BUILDS[@]}"; do
  for other in "${BUILDS[@]}"; do
    [[ $other == "$version" ]] || expect "each build keeps to its own schema: $version lists its own new article, not $other's" \
      keeps_to_its_own "$version" "$other"
  done
done

step "Faults under load: the quick subset of make chaos, of v3"
# Each fault the local platform makes, once: of one build, as test-cluster puts one build under each of the node's
# faults. What each build does about a fault is its own code, which its contract suite (make test-services) proves
# against real HTTP and a real broker: a failed look-up falls back, the circuit opens and closes again, articles are
# accepted while Kafka is down and published once it is back. make chaos puts every build under every fault. v3
# here: on the node v1 meets the proxy's fault and v2 a rolling update.
# A warm-up of 1,000 requests (the quick subset's own is 3,000): the smoke's warm-up, its measured and profiled
# runs have warmed the JIT already; a window whose answers are incomplete is warmed again all the same.
readonly FAULTED=v3
expect "authors and Kafka stopped under load, $FAULTED: every expectation held (events lost = 0)" \
  run chaos "$WORK/chaos" VERSIONS="$FAULTED" CHAOS_QUICK=1 WARMUP_ITERATIONS=100 WARMUP_MAX_WINDOWS=1
expect "chaos.json (a cell document: a fault a mode) has a verdict of every quick fault for $FAULTED" \
  check_results "$WORK/chaos/chaos.json" \
  "d['design'] == 'chaos' and all(r['passed'] for c in d['cells'] for r in c['rounds'])" \
  "sorted((r['fault'], r['version']) for c in d['cells'] for r in c['rounds']) == [('authors stopped', '$FAULTED'), ('kafka stopped', '$FAULTED')]"

step "The sweep, one setting of v2 in pods of half a CPU (make sweep varies each build's settings this way, at any size)"
expect "v2's services restart with each pipelining limit under a quota of half a CPU each, and the sweep writes its table" \
  run sweep "$WORK/sweep" VERSIONS=v2 SWEEP_ONLY="pipelining limit" SWEEP_CPUS=0.5 SWEEP_REPEATS=1 \
  ITERATIONS=100 WARMUP_ITERATIONS=100 WARMUP_MAX_WINDOWS=1
expect "sweep.json: both limits measured at half a CPU, one chosen" check_results "$WORK/sweep/sweep.json" \
  'sorted(c["value"] for c in d["cells"] if c["build"] == "v2" and c["setting"] == "pipelining limit") == [1, 256]' \
  'd["builds"]["v2"]["chosen"]["pipelining limit"] in (1, 256) and d["builds"]["v2"]["cpus"] == 0.5'
for cost in "$WORK"/sweep/runs/*.cost.json; do
  expect "${cost##*/}: every service of v2 ran under its quota" check_results "$cost" \
    'all(d["throttling"][s]["periods"] > 0 for s in ("web-api", "articles", "authors"))'
done
expect "after the sweep v2 runs as it ships again (no setting of the sweep left in its environment, outside any quota)" bash -c "
  ! grep -qaE 'QUARKUS_DATASOURCE_REACTIVE_POSTGRESQL_PIPELINING_LIMIT=' /proc/\$(cat '$PID_DIR/authors-v2.pid')/environ &&
  ! grep -q reactive-bench /proc/\$(cat '$PID_DIR/web-api-v2.pid')/cgroup"

step "The answer, decided: a short make answer of v1 against itself at half a CPU (the CPU map's runner, the A/A in the same forks, a look)"
# make answer is the CPU map (make cpu-map: every build, the whole ladder) with the A/A (v1 again, on v1's services) in
# every round's forks, and rounds added while a quoted cell is undecided: its run here is the CPU map's too. One build
# at one size, one round: a limit is set and taken off again (every service outside any quota after), each JVM counts
# what it was given, the quota holds the loaded build back; no limit at all is how every other run here runs. v1 here,
# v2 in make test-cluster's pods (its event loops sized by the limit); the map's ratios between builds are
# test_cpumap's, as every Design's are the engine's. With v1 alone it quotes no cell: its first look, after its one
# round, stops it, with a second look left unused. Adding rounds, its words and its stop rule over sessions are
# test_cpumap's and test_decide's.
expect "make answer restarts v1 and its second slot in a fork each and stops at its first look, as it quotes no cell" \
  run answer "$WORK/answer" VERSIONS=v1 CPU_MAP_SIZES=0.5 RUNS=1 ANSWER_LOOKS=2 ITERATIONS=100 \
  WARMUP_ITERATIONS=100 WARMUP_MAX_WINDOWS=1 OPEN_RATE=40 CAPACITY_SHARES=0.3 OPEN_SECONDS=3
expect "answer.json: v1 and the A/A in one round, each a fork of its own (two starts of each service) warmed without its quota then under it, the looks it was measured under" \
  check_results "$WORK/answer/answer.json" \
  'd["design"] == "answer" and d["looks"] == 2 and d["forks"] and [(c["build"], c["size"]) for c in d["cells"]] == [("v1", "0.5"), ("v1 again", "0.5")]' \
  'd["warmed_before_quota"] and all(r["spent_s"]["warming_without_quota"] > 0 and r["spent_s"]["warming_under_quota"] > 0 for c in d["cells"] for r in c["rounds"])' \
  'all(len(c["rounds"]) == 1 for c in d["cells"])' \
  'all(len({r["fork"][s]["started"] for c in d["cells"] for r in c["rounds"]}) == 2 for s in ("web-api", "articles", "authors"))' \
  'all(any(t and t["throttled"] > 0 for t in r["throttling"].values()) for c in d["cells"] for r in c["rounds"])'
expect "answer.json: each JVM under the quota counting one processor, its threads scheduled, the open model and the capacity measured, the quota the bound" \
  check_results "$WORK/answer/answer.json" \
  'all(s["cpu_limit"] == 0.5 and s["processors"] == 1 for s in d["ergonomics"]["0.5 CPU"]["v1"].values())' \
  'all(r["scheduling"][s]["voluntary_switches"] > 0 and r["scheduling"][s]["threads"] > 1 for c in d["cells"] for r in c["rounds"] for s in ("web-api", "articles", "authors"))' \
  'all(r["open_p99"] > 0 and r["capacity_steps"] and r["bound_by"]["by"] == "quota" for c in d["cells"] for r in c["rounds"])'
expect "answer.json: each fork's time to ready and to web-api's first complete answer, and each service's peak memory" \
  check_results "$WORK/answer/answer.json" \
  'all(0 < r["fork"]["web-api"]["ready_s"] <= r["fork"]["first_answer_s"] < 600 for c in d["cells"] for r in c["rounds"])' \
  'all(r["peak_memory_mib_by_service"][s] > 0 for c in d["cells"] for r in c["rounds"] for s in ("web-api", "articles", "authors"))'
expect "after make answer every service runs outside any quota again" bash -c "
  ! grep -q reactive-bench /proc/\$(cat '$PID_DIR/web-api-v1.pid')/cgroup /proc/\$(cat '$PID_DIR/authors-v1.pid')/cgroup"

step "When the services wait: a short latency map of v2 (make latency-map runs every build over the whole grid)"
# One build here, v1 in make test-cluster's pods; the map's ratios to v1 are test_latencymap's.
expect "v2 restarts behind the latency proxy, the latency is checked where it is set, and a short grid is measured" \
  run latency-map "$WORK/latency-map" VERSIONS=v2 LATENCY_AUTHORS_MS=0,20 LATENCY_DATABASE_MS=5 MAP_RATES=40 \
  MAP_USERS= MAP_STEP_DURATION=3s RUNS=1 WARMUP_ITERATIONS=300 WARMUP_MAX_WINDOWS=1
expect "latency-map.json: every hop's latency and the proxy's own observed as set, every cell measured, no answer faster than its row's latency" \
  latency_map_holds "$WORK/latency-map/latency-map.json" \
  'all(r["peaks"]["web-api"]["connections"] > 0 for c in d["cells"] for r in c["rounds"])'
expect "after the map v2 connects directly again (its services restarted as they were)" \
  check_results "$LOCAL_DIR/stack.json" \
  'not any(s["through_proxy"] for name, s in d["services"].items() if name.endswith("-v2"))'

# The last timed load has run: make test starts test-cluster's deploys from here on, beside what follows
# (make-test.sh). The sweep stays before it: after it, beside test-cluster's deploys, its warm-up at half a CPU never
# came out complete (15 windows and more; 749 s instead of 131 in a cold make test at 09899bf).
[[ -z ${E2E_LOAD_ENDED:-} ]] || touch "$E2E_LOAD_ENDED"

# v2 and v3 here; v1 in make test-cluster's pods, through the same check (check_traces) over TLS to PostgreSQL.
readonly TRACED=(v2 v3)
step "Traces: one GET and one POST of ${TRACED[*]}, read back from Jaeger (TRACING=on)"
# Jaeger is built in make test's background (a few minutes of compiling), meanwhile the steps above ran untraced. It
# builds at the lowest priority from the end of test-services on, after the node's tools in line for the CPU (make test
# waits for them: scripts/checks/make-test.sh): up to an hour here, the headroom of a machine three times slower.
traced_again() { # those builds' services restarted with tracing on, Jaeger started with them; the others run on
  local name traced_services=()
  wait_for "Jaeger built (make jaeger)" 3600 test -x "$JAEGER" || return 1
  for name in "${SERVICES[@]}"; do
    [[ " ${TRACED[*]} " != *" ${name##*-} "* ]] || traced_services+=("$name")
  done
  "$ROOT/scripts/local/stack.sh" stop-services "${traced_services[@]}" >/dev/null || return 1
  TRACING=on "$ROOT/scripts/local/stack.sh" up >/dev/null
}
expect "${TRACED[*]}'s services restart traced, and Jaeger with them" traced_again
expect "stack.json: every service of ${TRACED[*]} traced, none of the others (the floor has no tracing), Jaeger running" \
  check_results "$LOCAL_DIR/stack.json" \
  "all(s['traced'] == (name.rsplit('-', 1)[1] in '${TRACED[*]}'.split()) for name, s in d['services'].items())" \
  'd["jaeger"]["pid"]'
mkdir -p "$WORK/traces"
# The steps above created articles by one author: the check first creates one by each of the seed's five, so that the
# read it judges fans out to five look-ups again.
seed_authors=$(authors_of "$WORK/v1.json")
for version in "${TRACED[@]}"; do
  expect "$version: a GET is one trace (web-api, articles, five author look-ups in parallel, each statement), a POST's reaches web-api through Kafka, a refused one's log line names its trace" \
    check_traces "$(jaeger_url)" "$(service_url "web-api-$version")" "$version" --authors "$seed_authors" \
    --keep "$WORK/traces/traces.json" --log "$LOG_DIR/web-api-$version.log"
done
expect "traces.json: each traced build's read fanned out to the seed's five authors, every verdict held" \
  check_results "$WORK/traces/traces.json" "sorted(d['builds']) == sorted('${TRACED[*]}'.split())" \
  'all(b["read"]["authors"] == 5 and all(v["holds"] for r in ("read", "write") for v in b[r]["verdicts"]) for b in d["builds"].values())'

# Last: the articles it creates have authors nobody knows, so web-api's answers lose their author details.
step "Property-based tests from each service's own OpenAPI document (schemathesis)"
# Every check but two that test Quarkus REST itself, not our API: its 405 answer has no Allow header,
# and its automatic OPTIONS lists the methods of the whole resource class.
fuzz() { # fuzz SERVICE: generated valid and invalid requests; never a 500, always the documented answer
  local url
  url=$(service_url "$1")
  "$SCHEMATHESIS" run "$url/q/openapi?format=json" --url "$url" --checks all \
    --exclude-checks unsupported_method,allow_header_conformance --exclude-path-regex '/stream$' \
    --max-examples 25 --seed 20261122 --request-timeout 10 --no-color >"$WORK/fuzz-$1.txt" 2>&1 ||
    { grep -A12 "^_" "$WORK/fuzz-$1.txt" | head -40 >&2; return 1; }
}
for name in "${SERVICES[@]}"; do
  ! is_floor "${name##*-}" || continue # the floor publishes no OpenAPI document: it serves the measured read alone
  expect "$name answers every generated request as its OpenAPI document says" fuzz "$name"
done

step "Logs"
# A waiting stack counts at any length; a busy one (a cold JVM loading classes) never at start-up, and once serving from
# 10 s on or the same log's longest start-up report: scripts/checks/check_blocked.py.
expect "no Vert.x thread waited on an event loop in any service of any build (busy start-up class loading aside)" \
  check_blocked "$LOG_DIR"/*-v[0-9]*.log
expect "the logs say which build runs" grep -q "web-api-v2 .* started in" "$LOG_DIR/web-api-v2.log"

step "Stopping"
pids=$(cat "$PID_DIR"/*.pid)
"$ROOT/scripts/local/stack.sh" down
leftovers() {
  local pid
  for pid in $pids; do kill -0 "$pid" 2>/dev/null && return 1; done
  for name in "${SERVICES[@]}"; do curl -s -o /dev/null "$(service_url "$name")" && return 1; done
  ! (exec 3<>"/dev/tcp/127.0.0.1/$POSTGRES_PORT") 2>/dev/null && ! (exec 3<>"/dev/tcp/127.0.0.1/$KAFKA_PORT") 2>/dev/null
}
expect "down leaves no process and no open port behind" leftovers

summary e2e
