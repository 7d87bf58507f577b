#!/usr/bin/env bash
# lowest-priority.sh COMMAND…: COMMAND at the lowest CPU priority, in the session setsid gave this script (kill it
# with its process group: kill -- -PID). nice alone is not enough: with the kernel's autogroup each session's group
# of processes gets an equal share of the cores whatever its processes' nice values, so a niced background started
# with setsid took half of them from the foreground. The session's group is given nice 19 as well.
set -euo pipefail
[[ $(ps -o sid= -p $$ | tr -d ' ') == "$$" ]] || { echo "$0: start it with setsid (it lowers its session's share)" >&2; exit 2; }
if [[ -w /proc/self/autogroup ]]; then echo 19 >/proc/self/autogroup; fi # a kernel without autogroup: nice suffices
exec nice -n 19 "$@"
