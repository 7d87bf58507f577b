#!/usr/bin/env bash
# busy-cores.sh N [NICE]: N busy loops at priority NICE (default 19, as a fresh machine's background build) until
# this script is killed with its process group (start it with setsid, through lowest-priority.sh for nice 19 to hold
# against other sessions; kill -- -PID). make test's BUSY_CORES and test-e2e's CPU_HOGS use it: a check that holds
# only on an idle machine fails where it runs.
set -euo pipefail
count=${1:?how many busy loops}
priority=${2:-19}
for _ in $(seq "$count"); do
  nice -n "$priority" bash -c 'while :; do :; done' &
done
wait
