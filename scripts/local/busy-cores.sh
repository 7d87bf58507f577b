#!/usr/bin/env bash
# busy-cores.sh N [NICE|idle]: N busy loops until this script is killed with its process group (start it with setsid;
# kill -- -PID). make test's BUSY_CORES and test-e2e's CPU_HOGS use it: a check that holds only on an idle machine
# fails where it runs.
#   NICE   at that priority (default 19; through lowest-priority.sh for nice 19 to hold against other sessions)
#   idle   in a CPU cgroup marked idle (cpu.idle, Linux 5.15 and later, root): the loops take only the CPU that nothing
#          else wants. make test's stand-in for a fresh machine's background build must not slow that very build,
#          which at nice 19 in a session of its own it did (the kernel shares the cores between sessions equally);
#          where no such cgroup can be made, nice 19.
set -euo pipefail
count=${1:?how many busy loops}
priority=${2:-19}

idle_group=""
if [[ $priority == idle ]]; then
  priority=19
  root=/sys/fs/cgroup/cpu # cgroup v1's CPU controller, else the unified hierarchy
  [[ -d $root ]] || root=/sys/fs/cgroup
  group=$root/reactive-bench-busy-cores
  if mkdir -p "$group" 2>/dev/null && echo 1 >"$group/cpu.idle" 2>/dev/null && echo $$ >"$group/cgroup.procs" 2>/dev/null; then
    idle_group=$group
  else
    rmdir "$group" 2>/dev/null || true
    echo "busy-cores.sh: no idle CPU cgroup here (needs root and Linux 5.15 or later): the loops run at nice 19" >&2
  fi
fi

leave() { # the loops stopped, this script back in the root group, the idle group removed
  trap - TERM INT EXIT
  pkill -P $$ 2>/dev/null || true
  wait 2>/dev/null || true
  if [[ -n $idle_group ]]; then
    echo $$ >"$root/cgroup.procs" 2>/dev/null || true
    rmdir "$idle_group" 2>/dev/null || true
  fi
}
trap 'leave; exit 0' TERM INT
trap leave EXIT

for _ in $(seq "$count"); do
  nice -n "$priority" bash -c 'while :; do :; done' &
done
wait
