#!/usr/bin/env bash
# Installs the test node's container runtime from Debian's packages: containerd, runc, the CNI plugins, buildah,
# iptables, conntrack, mmdebstrap, ipset. Each is given as NAME=LEAST (the Makefile's NODE_DEB_PACKAGES): the least
# version this project was tested with. Debian's archive drops a point release once the next one is out, so an exact
# pin would stop every new machine on that day; any version at least LEAST will do, and the one the archive serves is
# installed. Every package's version is said once it is there ("debian package: NAME VERSION", which
# scripts/checks/timings.py keeps beside make test's times).
#
#   install-packages.sh NAME=LEAST…          installs what is missing or older than LEAST (root)
#   install-packages.sh --plan NAME=LEAST…   says what it would do, changing nothing (make doctor); fails where the
#                                            archive serves no version at least LEAST
set -euo pipefail
# shellcheck source=../../lib.sh
source "$(dirname "$0")/../../lib.sh"

plan=false
if [[ ${1:-} == --plan ]]; then plan=true; shift; fi

# (nothing where dpkg or apt knows no such package)
installed_version() { { dpkg-query -W -f='${Status} ${Version}' "$1" 2>/dev/null || true; } | awk '$3 == "installed" { print $4 }'; }
candidate_version() { { apt-cache policy "$1" 2>/dev/null || true; } | awk '$1 == "Candidate:" && $2 != "(none)" { print $2 }'; }
at_least() { dpkg --compare-versions "$1" ge "$2"; }

missing=() problems=()
for package in "$@"; do
  name=${package%%=*} least=${package#*=}
  installed=$(installed_version "$name")
  if [[ -n $installed ]] && at_least "$installed" "$least"; then
    $plan && info "$name $installed installed (at least $least)"
    continue
  fi
  missing+=("$name=$least")
done

# what the archive serves of each missing package, against its least version: "NAME=VERSION" to install, or why not
choose() {
  local package name least candidate
  for package in "${missing[@]}"; do
    name=${package%%=*} least=${package#*=}
    candidate=$(candidate_version "$name")
    if [[ -z $candidate ]]; then
      problems+=("the archive serves no $name (apt's sources: apt-cache policy $name)")
    elif ! at_least "$candidate" "$least"; then
      problems+=("the archive serves $name $candidate, older than $least, the least version this project accepts (NODE_DEB_PACKAGES)")
    else
      chosen+=("$name=$candidate")
    fi
  done
}

refuse_problems() { # stops, saying each problem choose found
  ((${#problems[@]} == 0)) && return
  local said
  said=$(printf '%s; ' "${problems[@]}")
  die "${said%; }"
}

if $plan; then
  ((${#missing[@]} == 0)) && exit 0
  chosen=()
  if [[ -z $(find /var/lib/apt/lists -maxdepth 1 -name '*Packages*' -print -quit 2>/dev/null) ]]; then
    info "would install ${missing[*]%%=*} (which versions: known once apt-get update has fetched the archive's lists)"
    exit 0
  fi
  choose
  for package in "${chosen[@]}"; do info "would install ${package%%=*} ${package#*=}"; done
  refuse_problems
  exit 0
fi

if ((${#missing[@]} > 0)); then
  [[ $EUID -eq 0 ]] || die "installing ${missing[*]%%=*} needs root (apt-get)"
  apt-get update -qq >/dev/null
  chosen=()
  choose
  refuse_problems
  step "Installing from Debian's packages: ${chosen[*]}"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${chosen[@]}" >/dev/null
fi
for package in "$@"; do
  name=${package%%=*}
  info "debian package: $name $(installed_version "$name")"
done
