#!/usr/bin/env bash
# make test: every part, scheduled for a two-core machine on its first run (the Makefile's test target runs this).
#
# What the node needs (the Go builds of Kubernetes, Calico, CoreDNS, the Zalando operator and helm; Debian's packages
# and the Spilo-compatible image) is prepared in the background from the start, at the lowest priority while
# test-static and test-services run: those leave the CPU they do not use to it. From then on the
# node's tools are what make test waits for (test-cluster is the longest part, and needs them), so they take their
# share at normal priority, beside test-e2e. test-cluster starts once they are ready, its first deploy once test-e2e's
# last timed load has run (below: why not beside that load). Beside test-cluster: test-k8s (its tools, kwok and the
# other architecture's programs, built in the background after the node's), and test-licenses beside it at the lowest
# priority (it reads every Go program in .tools/bin, test-k8s's too). Jaeger builds from
# the end of test-services on, at the lowest priority until the node's tools are ready (normal after), in the time the others leave idle (test-e2e's trace step and
# test-cluster's traced deploy wait for it): beside the node's tools from the start, it took 164 of the 374 CPU-seconds
# the two got while test-services ran (a cold run at ec5c283).
#
# test-e2e's, test-k8s's and test-licenses's logs are printed after test-cluster's output (test-e2e's as soon as it
# fails). The second each part ended, from the start, goes to TEST_TIMES with the CPU-seconds the machine's cores had
# computed for everything but BUSY_CORES's loops by then (scripts/checks/timings.py publishes them).
# Needs: NODE_LOG JAEGER_LOG E2E_LOG TEST_K8S_LOG TEST_LICENSES_LOG TEST_TIMES BUSY_CORES (the Makefile sets them).
set -euo pipefail
cd "$(dirname "$0")/../.."
: "${NODE_LOG:?}" "${JAEGER_LOG:?}" "${E2E_LOG:?}" "${TEST_K8S_LOG:?}" "${TEST_LICENSES_LOG:?}" "${TEST_TIMES:?}"
mkdir -p "$(dirname "$NODE_LOG")" "$(dirname "$TEST_TIMES")"

started=$(date +%s)
at() { echo "$((($(date +%s) - started) / 60)) min"; }
busy_cpu_seconds() { # what the machine's cores have computed since it booted, whoever for (/proc/stat: user, nice, system, irq, softirq)
  awk '$1 == "cpu" { printf "%d", ($2 + $3 + $4 + $7 + $8) / 100 }' /proc/stat
}
cpu_at_start=$(busy_cpu_seconds)
stolen_seconds() { # what the hypervisor took from the machine's cores since it booted (/proc/stat: steal)
  awk '$1 == "cpu" { printf "%d", $9 / 100 }' /proc/stat
}
steal_at_start=$(stolen_seconds)
# BUSY_CORES's loops stand in for a fresh machine's background build: what they computed is not make test's work, and
# the marks leave it out (read from their session while they run, from LOOPS_CPU once test-e2e's end stopped them:
# every mark after that, test-k8s's and test-licenses's in a session of their own, reads the file).
# Counted in, they made a cold run's cores look 100% busy where make test kept them 93-96% busy.
LOOPS_CPU="$TEST_TIMES.loops"
rm -f "$LOOPS_CPU"
loops_cpu_seconds() {
  if [[ -s $LOOPS_CPU ]]; then cat "$LOOPS_CPU"; return; fi
  if [[ -z ${busy:-} ]]; then echo 0; return; fi
  ps -s "$busy" -o times= | awk '{ seconds += $1 } END { printf "%d", seconds }'
}
mark() {
  printf '%s\t%s\t%s\n' "$1" $(($(date +%s) - started)) $(($(busy_cpu_seconds) - cpu_at_start - $(loops_cpu_seconds))) \
    >>"$TEST_TIMES"
}
printf 'started\t%s\t%s\n' "$started" "$(git rev-parse --short HEAD)" >"$TEST_TIMES"
# Each part's own CPU (scripts/local/cpu-accounted.sh), where cpuacct is a hierarchy of its own: one cgroup a part
# under one of this run's, the last run's left behind emptied first. TEST_TIMES.cpu gets each part's CPU-seconds at
# the end, with the node's pods', beside the whole machine's (what their sum leaves out: the system's own).
CPU_BY_PART="$TEST_TIMES.cpu"
# and what the node's pods computed, which test-cluster's node.sh down leaves here as it removes their cgroups
PODS_CPU=.local/test-cluster/pods-cpu-seconds
rm -f "$CPU_BY_PART" "$PODS_CPU"
CPU_ACCOUNTS=""
accounts=/sys/fs/cgroup/cpuacct
if [[ -w $accounts && ! -e $accounts/cpu.shares ]]; then
  for old_run in "$accounts"/make-test-*/; do
    [[ -d $old_run ]] || continue
    rmdir "$old_run"*/ "$old_run" 2>/dev/null || true
  done
  CPU_ACCOUNTS="$accounts/make-test-$started"
  mkdir -p "$CPU_ACCOUNTS"
fi
export CPU_ACCOUNTS
cpu_by_part() { # each part's CPU-seconds so far, then the whole machine's (BUSY_CORES's loops left out) and the steal
  local part
  [[ -n $CPU_ACCOUNTS ]] || return 0
  for part in "$CPU_ACCOUNTS"/*/; do
    printf '%s\t%s\n' "$(basename "$part")" "$(awk '{ printf "%d", $1 / 1e9 }' "$part/cpuacct.usage")"
  done
  [[ ! -s $PODS_CPU ]] || printf 'node-pods\t%s\n' "$(cat "$PODS_CPU")"
  printf 'machine\t%s\n' $(($(busy_cpu_seconds) - cpu_at_start - $(loops_cpu_seconds)))
  printf 'steal\t%s\n' $(($(stolen_seconds) - steal_at_start))
}

busy="" node="" node_ready="" jaeger="" e2e="" e2e_load="" cluster="" k8s="" licences=""
stop() { # stop [LOG]: every part still running, stopped with its process group (test-cluster tears its node down
  # first); then LOG's end, where a log read from its end shows it
  trap - INT TERM
  local pid
  for pid in $e2e_load $node_ready; do kill "$pid" 2>/dev/null || true; done
  for pid in $cluster $e2e $k8s $licences $node $jaeger $busy; do kill -- "-$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  if [[ -n ${1:-} ]]; then
    echo "==> The end of $1:"
    tail -60 "$1"
  fi
  exit 1
}
trap stop INT TERM
normal_priority() { scripts/local/normal-priority.sh "$1"; } # normal_priority PID: lowest-priority.sh's session PID
e2e_ended() { # e2e_ended STATUS: its end marked, or its log's end shown and everything stopped
  if (($1 != 0)); then
    echo "==> test-e2e failed at $(at): everything else stopped (its log: $E2E_LOG)"
    stop "$E2E_LOG"
  fi
  mark test-e2e
  echo "==> test-e2e passed at $(at): $(grep -E '^e2e: ' "$E2E_LOG" | tail -1) (its log is printed at the end)"
  busy_cores_stopped
  e2e=""
  [[ -z $e2e_load ]] || { kill "$e2e_load" 2>/dev/null || true; e2e_load=""; }
}
busy_cores_stopped() { # BUSY_CORES's loops end with test-e2e's load: a fresh machine's background build is over by then
  [[ -n $busy ]] || return 0
  loops_cpu_seconds >"$LOOPS_CPU"
  kill -- "-$busy" 2>/dev/null || true
  busy=""
}

if ((${BUSY_CORES:-0} > 0)); then
  echo "==> $BUSY_CORES cores kept busy with what nothing else wants until test-e2e ends (BUSY_CORES)"
  setsid scripts/local/lowest-priority.sh scripts/local/busy-cores.sh "$BUSY_CORES" idle &
  busy=$!
fi
echo "==> Meanwhile, in the background (nice 19): what the node needs (log in $NODE_LOG)"
# lowest_priority COMMAND…: the rest of a part at the lowest priority, from inside the session setsid gave it (which
# lowest-priority.sh, for a session's start, refuses to be): its session's share of the cores lowered, and nice 19
lowest_priority() {
  echo 19 >/proc/self/autogroup 2>/dev/null || true
  nice -n 19 "$@"
}
node_tools() { # Debian's packages and the Spilo-compatible image (mostly downloads) beside the Go builds, then
  # NODE_READY made; then what test-k8s builds, so that it does not compile beside test-cluster (a cold run at ad4e2c1:
  # test-k8s built kwok and the other architecture's programs there, 9 of test-cluster's 21 minutes beside it). Built
  # in a part of their own after the node's (a cold run at 09899bf), they were ready 12 minutes after them, beside
  # test-e2e's last checks and the deploys, and test-k8s began 10 minutes after the deploys instead of with them. Here
  # they follow at once, beside test-cluster's first steps (no load), which no longer wait for them: in a cold run at
  # 6a13a47 the node's tools were ready at minute 27, kwok's and the rest's 174 CPU-seconds (70fe98f's) in it, and
  # test-cluster's first deploy waited for its images and its node, 1.4 minutes after test-e2e's last timed load.
  # They build at the lowest priority again: test-k8s wants them only beside test-cluster, and at normal priority
  # they took the cores from test-e2e's sweep and answer, whose last timed load test-cluster's deploys then waited
  # for (a cold run at f140306: the node ready at minute 25, the deploys waiting for that load until minute 31).
  local packages built=0 packaged=0
  make node-packages &
  packages=$!
  make node-binaries helm || built=$?
  wait "$packages" || packaged=$?
  ((built || packaged)) && return $((built ? built : packaged))
  touch "$NODE_READY"
  lowest_priority scripts/local/cpu-accounted.sh test-k8s-tools make test-k8s-tools
}
test_k8s() { # its end marked
  scripts/local/cpu-accounted.sh test-k8s make test-k8s >"$TEST_K8S_LOG" 2>&1 || return
  mark test-k8s
}
# In a session of its own at the lowest priority, beside test-k8s rather than after it: test-k8s mostly waits (69
# CPU-seconds in 6 minutes), and after it test-licenses ended 0.6 minutes after test-cluster (a cold run at c4fbb1c).
test_licenses() { # its end marked
  lowest_priority scripts/local/cpu-accounted.sh test-licenses make test-licenses >"$TEST_LICENSES_LOG" 2>&1 || return
  mark test-licenses
}
# for the sessions of their own that setsid starts them in (bash -c NAME)
export -f lowest_priority node_tools test_k8s test_licenses mark busy_cpu_seconds loops_cpu_seconds
# The file the background makes once what test-cluster needs is there (test-k8s's tools then still building)
NODE_READY="$TEST_TIMES.node-ready"
rm -f "$NODE_READY"
export started cpu_at_start LOOPS_CPU TEST_K8S_LOG TEST_LICENSES_LOG TEST_TIMES NODE_READY
setsid scripts/local/cpu-accounted.sh node-tools scripts/local/lowest-priority.sh bash -c node_tools >"$NODE_LOG" 2>&1 &
node=$!
# parts of their own that end when such a file is there, for next_to_end to wait on with the others
until_made() { while [[ ! -e $1 ]]; do sleep 2; done; }
until_made "$NODE_READY" &
node_ready=$!

scripts/local/cpu-accounted.sh test-services make test-static test-services loadgen || stop # loadgen here: test-e2e and test-cluster both start from it
mark test-services
echo "==> test-services passed at $(at); the node's tools at normal priority from now on, test-e2e beside them (log in $E2E_LOG), Jaeger's build at the lowest (log in $JAEGER_LOG)"
normal_priority "$node"
setsid scripts/local/cpu-accounted.sh jaeger scripts/local/lowest-priority.sh make jaeger >"$JAEGER_LOG" 2>&1 &
jaeger=$!
# The file test-e2e makes once its last timed load has run: what it checks after that (traces, schemathesis, its
# logs) is neither disturbed by test-cluster's first steps (the node's start, the deploys) nor disturbs them.
E2E_LOAD_ENDED="$TEST_TIMES.e2e-load-ended"
rm -f "$E2E_LOAD_ENDED"
E2E_LOAD_ENDED="$E2E_LOAD_ENDED" setsid scripts/local/cpu-accounted.sh test-e2e make test-e2e JAEGER_FROM_BACKGROUND=1 >"$E2E_LOG" 2>&1 &
e2e=$!
until_made "$E2E_LOAD_ENDED" &
e2e_load=$!

# next_to_end [NAME…]: waits for the first of the parts named (node, node_ready, jaeger, e2e, e2e_load, cluster) still running to end, and
# deals with it: a failure stops everything at once (test-e2e's and the background's with their logs' ends shown).
next_to_end() {
  local name pids=() status=0 ended
  for name in "$@"; do [[ -z ${!name} ]] || pids+=("${!name}"); done
  wait -n -p ended "${pids[@]}" || status=$?
  case $ended in
    "$node")
      ((status == 0)) || { echo "==> What the node or test-k8s needs failed to build or install"; stop "$NODE_LOG"; }
      echo "==> What test-k8s needs is ready at $(at)"
      node="" ;;
    "$node_ready")
      mark node-tools
      echo "==> What the node needs is ready at $(at)"
      # Jaeger's build, if still running, at normal priority from now on: test-e2e's trace step waits for it, and
      # at the lowest it held test-e2e's end into test-cluster's bench (a cold run at cf87867: ready at minute 34)
      [[ -z $jaeger ]] || normal_priority "$jaeger"
      node_ready="" ;;
    "$jaeger")
      ((status == 0)) || { echo "==> Jaeger failed to build"; stop "$JAEGER_LOG"; }
      jaeger="" ;;
    "$e2e") e2e_ended "$status" ;;
    "$e2e_load")
      echo "==> test-e2e's last timed load has run at $(at): what it checks from now on does not depend on speed"
      busy_cores_stopped
      e2e_load="" ;;
    "$cluster")
      ((status == 0)) || stop
      mark test-cluster
      cluster="" ;;
  esac
}
# test-cluster starts once the node's tools are ready: its images, the node, the Kafka stand-in and PostgreSQL (no load, the
# images built at the lowest priority) beside test-e2e's last loads. Its first deploy waits for test-e2e's last
# measured load to have run (START_DEPLOYS_AFTER, or test-e2e's end): beside it, each suite's load and JVM starts
# disturbed the other's checks on a warm machine, where the node's tools are ready at once (three warm .ci/run, three
# failures: a split load Job's unsent requests, a chaos run's reads degraded before its fault and unavailable during
# it). What test-e2e checks after that load overlaps test-cluster's deploys (minutes before its first load).
while [[ -n $node_ready ]]; do next_to_end node node_ready jaeger e2e e2e_load; done
echo "==> test-cluster starts at $(at): its images, node, Kafka and PostgreSQL now, its first deploy once test-e2e's last timed load has run"
START_DEPLOYS_AFTER="$E2E_LOAD_ENDED" setsid scripts/local/cpu-accounted.sh test-cluster make test-cluster &
cluster=$!
# test-k8s once its tools are built too
while [[ -n $e2e && -n $e2e_load ]] || [[ -n $node ]]; do next_to_end node jaeger e2e e2e_load cluster; done
echo "==> beside test-cluster from $(at): test-k8s, and test-licenses beside it at the lowest priority (logs in $TEST_K8S_LOG, $TEST_LICENSES_LOG)"
setsid bash -c test_k8s &
k8s=$!
setsid bash -c test_licenses &
licences=$!
# test-cluster, what is left of test-e2e (its checks after its last load) and of Jaeger's build (test-e2e waited for its
# program alone, and test-cluster deploys a traced release with a Jaeger of its own): one's failure stops the others.
while [[ -n $cluster$jaeger$e2e ]]; do next_to_end cluster jaeger e2e; done
k8s_status=0 licences_status=0
wait "$k8s" || k8s_status=$?
k8s=""
wait "$licences" || licences_status=$?
licences=""
echo "==> test-e2e (beside the node's tools):"
cat "$E2E_LOG"
echo "==> test-k8s (beside test-cluster):"
cat "$TEST_K8S_LOG"
((k8s_status == 0)) || stop
echo "==> test-licenses (beside test-k8s):"
cat "$TEST_LICENSES_LOG"
((licences_status == 0)) || stop
mark passed
cpu_by_part >"$CPU_BY_PART"
[[ -z $CPU_ACCOUNTS ]] || rmdir "$CPU_ACCOUNTS"/*/ "$CPU_ACCOUNTS" 2>/dev/null || true
echo "==> make test passed in $(at)"
