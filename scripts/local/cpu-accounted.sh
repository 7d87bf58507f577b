#!/usr/bin/env bash
# cpu-accounted.sh PART COMMAND…: COMMAND with the CPU that it and everything it starts compute counted apart, as
# make test's PART: this process moves itself into a cpuacct cgroup of that name under CPU_ACCOUNTS, then becomes
# COMMAND, so that no child starts outside it (the local stack's daemons, the node's containerd and control plane
# included; the node's pods not: the kubelet puts them in cgroups of its own). The cgroup's cpuacct.usage is the
# part's CPU, whoever ran on which core.
#
# Only where cpuacct is a hierarchy of its own (cgroup v1 with cpuacct apart from cpu, as on Debian 12 booted
# with cgroup v1): moving a process into a cgroup of the cpu controller would change how the kernel shares the cores
# (a group of its own, weighed against the others whatever the processes' nice values), and then what is measured
# would not be make test as it runs. Elsewhere COMMAND simply runs, and the parts' CPU is not known.
# Needs: CPU_ACCOUNTS (a directory under the cpuacct hierarchy; scripts/checks/make-test.sh makes it).
set -euo pipefail
part=$1
shift
if [[ -n ${CPU_ACCOUNTS:-} && -d $CPU_ACCOUNTS ]]; then
  mkdir -p "$CPU_ACCOUNTS/$part"
  echo $$ >"$CPU_ACCOUNTS/$part/cgroup.procs"
fi
exec "$@"
