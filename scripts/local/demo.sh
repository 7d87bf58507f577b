#!/usr/bin/env bash
# make demo, make chaos, make sweep, …: one experiment on one machine (scripts/local/demo.sh [EXPERIMENT], bench by
# default; `python -m benchkit experiments` lists them). Refuses a setting given wrong, starts a local stack of its
# own with fresh data (the seed: one request = one articles call and five author look-ups, so that every run measures
# the same thing), runs the experiment (benchkit run: its settings from the environment, `make knobs`), writes its
# document and report to results/[EXPERIMENT-]<time>/, and stops what it started, also on Ctrl-C or failure.
# DEMO_DIR overrides where the stack lives.
set -euo pipefail
readonly EXPERIMENT="${1:-bench}"
LOCAL_DIR="${DEMO_DIR:-$(cd "$(dirname "$0")/../.." && pwd)/.local/$EXPERIMENT}"
export LOCAL_DIR
# shellcheck source=../lib.sh
source "$(dirname "$0")/../lib.sh"

RESULTS="$ROOT/results/$([[ $EXPERIMENT != bench ]] && echo "$EXPERIMENT-")$(date -u +%Y%m%dT%H%M%SZ)"
readonly RESULTS

started_stack=false
cleanup() {
  if $started_stack; then "$ROOT/scripts/local/stack.sh" down; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

settings=$(benchkit settings "$EXPERIMENT") # refuses a setting given wrong; the timing below keeps what it says
if curl -s -o /dev/null "$(service_url web-api-v1)"; then
  die "The local stack's ports are in use: stop it first (make down)"
fi
rm -rf "$LOCAL_DIR"
started_stack=true
# the latency map's services go through the latency proxy from their start (stack.sh)
[[ $EXPERIMENT != latency-map ]] || export LATENCY_PROXY=on
"$ROOT/scripts/local/stack.sh" up
benchkit run "$EXPERIMENT" --platform local --results "$RESULTS"
step "Done in $(elapsed). Open $RESULTS (its .html report, or read the .md)."
# how long it took, and with which of its settings, for scripts/checks/timings.py (docs/timings.json)
mkdir -p "$ROOT/.local/logs"
printf '%s\t%s\t%s\t%s\n' "$EXPERIMENT" $((SECONDS - SECONDS_AT_START)) "$(git -C "$ROOT" rev-parse --short HEAD)" \
  "$settings" >>"$ROOT/.local/logs/experiment-times.tsv"
