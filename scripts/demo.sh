#!/usr/bin/env bash
# make demo: the whole comparison on one machine. Starts the local stack (unless it already runs),
# loads web-api v1 then v2 with k6, writes the report, and stops what it started, also on Ctrl-C or
# failure. RUNS=N repeats every measured run; RATE, DURATION, WARMUP_DURATION, … tune k6 (k6/articles.js).
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"

readonly K6="${K6:?K6 must name the k6 binary (the Makefile sets it)}"
RESULTS="$ROOT/results/$(date -u +%Y%m%dT%H%M%SZ)"
readonly RESULTS

started_stack=false
cleanup() {
  if $started_stack; then "$ROOT/scripts/stack.sh" down; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if [[ -n "$(pid_of infrastructure)" ]]; then
  step "Using the local stack that is already running (make down stops it)"
else
  started_stack=true
fi
"$ROOT/scripts/stack.sh" up

python3 "$ROOT/scripts/bench.py" --results "$RESULTS" --k6 "$K6" --runs "${RUNS:-1}"
python3 "$ROOT/scripts/report.py" "$RESULTS"
step "Done in $(elapsed). Open $RESULTS/report.html (or read report.md)."
