#!/usr/bin/env bash
# normal-priority.sh PID: the session lowest-priority.sh lowered (started with setsid as PID) back at normal priority:
# its autogroup's share, and the nice value of every process of its group (what they start from now on inherits it;
# a command that asks for nice itself, as buildah's builds do, keeps its own within the group's share).
set -euo pipefail
pid=${1:?usage: $0 PID}
echo 0 >"/proc/$pid/autogroup" 2>/dev/null || true # a kernel without autogroup: nice alone
renice -n 0 -g "$pid" >/dev/null 2>&1 || true
