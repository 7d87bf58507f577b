#!/usr/bin/env bash
# make demo / make chaos: the whole comparison on one machine. Starts the local stack, then
#   demo.sh        loads each build's web-api in turn (loadgen) and writes the report (results/<time>/report.html)
#   demo.sh chaos  injects every fault into every build under load (results/chaos-<time>/chaos.html)
#   demo.sh sweep  each build's concurrency settings, one at a time (results/sweep-<time>/sweep.html)
#   demo.sh tls    what TLS to PostgreSQL costs each build, with and without (results/tls-<time>/tls.html)
#   demo.sh reads  how v1 and v3 read, in a transaction or without (results/reads-<time>/reads.html)
#   demo.sh proxy  what the latency proxy costs with no latency, through it or not (results/proxy-<time>/proxy.html)
#   demo.sh bakeoff  the load generators against v2 (results/bakeoff-<time>/bakeoff.md)
#   demo.sh latency-map  every build over downstream latency × load, behind the latency proxy
#                        (results/latency-map-<time>/latency-map.html)
# and stops what it started, also on Ctrl-C or failure.
# RUNS=N repeats every measured run (benchkit bench reads it: 3 when unset); RATE, DURATION,
# WARMUP_ITERATIONS, … tune the load (load/scenarios.json).
set -euo pipefail
readonly MODE="${1:-bench}"
# A stack of its own, started with fresh data (the seed: one request = one articles call and five
# author look-ups), so that every run measures the same thing. DEMO_DIR overrides where it lives.
LOCAL_DIR="${DEMO_DIR:-$(cd "$(dirname "$0")/.." && pwd)/.local/$MODE}"
export LOCAL_DIR
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"

readonly LOADGEN="${LOADGEN:?LOADGEN must name the loadgen binary (the Makefile sets it)}"
RESULTS="$ROOT/results/$([[ $MODE != bench ]] && echo "$MODE-")$(date -u +%Y%m%dT%H%M%SZ)"
readonly RESULTS

started_stack=false
cleanup() {
  if $started_stack; then "$ROOT/scripts/stack.sh" down; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Earlier results given by path are checked before anything starts, and named absolutely (benchkit runs elsewhere).
for given in SWEEP SWEEP_KEEP; do
  if [[ -n ${!given:-} ]]; then
    [[ -f ${!given}/sweep.json ]] || die "$given=${!given}: no sweep.json there (give a results/sweep-<time> directory)"
    printf -v "$given" '%s' "$(cd "${!given}" && pwd)"
  fi
done

if curl -s -o /dev/null "$(service_url web-api-v1)"; then
  die "The local stack's ports are in use: stop it first (make down)"
fi
rm -rf "$LOCAL_DIR"
started_stack=true
# the latency map's services go through the latency proxy from their start (stack.sh)
[[ $MODE != latency-map ]] || export LATENCY_PROXY=on
"$ROOT/scripts/stack.sh" up

case $MODE in
  bench)
    benchkit bench --results "$RESULTS" --loadgen "$LOADGEN" ${SCENARIOS:+--scenarios "$SCENARIOS"}
    # SWEEP=results/sweep-<time>: the sweep that chose the builds' settings goes into the report.
    if [[ -n ${SWEEP:-} ]]; then cp "$SWEEP/sweep.json" "$RESULTS/"; fi
    benchkit report "$RESULTS"
    step "Done in $(elapsed). Open $RESULTS/report.html (or read report.md)."
    ;;
  chaos)
    # CHAOS_FAULTS, CHAOS_VERSIONS, CHAOS_ROUNDS, CHAOS_QUICK choose, as for make chaos-cluster (e.g. CHAOS_FAULTS=overload CHAOS_ROUNDS=30).
    benchkit chaos --results "$RESULTS" --loadgen "$LOADGEN" ${CHAOS_FAULTS:+--faults "$CHAOS_FAULTS"} \
      ${CHAOS_VERSIONS:+--versions "$CHAOS_VERSIONS"} ${CHAOS_ROUNDS:+--rounds "$CHAOS_ROUNDS"} ${CHAOS_QUICK:+--quick}
    step "Done in $(elapsed). Open $RESULTS/chaos.html (or read chaos.md)."
    ;;
  sweep)
    benchkit sweep --results "$RESULTS" --loadgen "$LOADGEN" ${SWEEP_ONLY:+--only "$SWEEP_ONLY"} \
      ${SWEEP_VERSIONS:+--versions "$SWEEP_VERSIONS"} ${SWEEP_KEEP:+--keep "$SWEEP_KEEP"}
    step "Done in $(elapsed). Open $RESULTS/sweep.html (or read sweep.md)."
    ;;
  tls|reads|proxy)
    # an A/B of one setting (benchkit ab); AB_VERSIONS chooses the builds
    benchkit ab "$MODE" --results "$RESULTS" --loadgen "$LOADGEN" ${AB_VERSIONS:+--versions "$AB_VERSIONS"}
    step "Done in $(elapsed). Open $RESULTS/$MODE.html (or read $MODE.md)."
    ;;
  latency-map)
    # LATENCY_AUTHORS_MS, LATENCY_DATABASE_MS, LATENCY_JITTER, MAP_RATES, MAP_USERS, MAP_STEP_DURATION, MAP_REPEATS
    # choose the grid (scripts/benchkit/knobs.py)
    benchkit latency-map --results "$RESULTS" --loadgen "$LOADGEN" ${MAP_VERSIONS:+--versions "$MAP_VERSIONS"}
    step "Done in $(elapsed). Open $RESULTS/latency-map.html (or read latency-map.md)."
    ;;
  bakeoff)
    benchkit bakeoff --results "$RESULTS" --loadgen "$LOADGEN" --vegeta "${VEGETA:?set by the Makefile}" --wrk wrk
    step "Done in $(elapsed). Read $RESULTS/bakeoff.md (the figures in bakeoff.json)."
    ;;
  *) die "usage: $0 [bench|chaos|sweep|tls|reads|proxy|latency-map|bakeoff]" ;;
esac
