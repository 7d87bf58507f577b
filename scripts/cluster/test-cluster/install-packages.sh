#!/usr/bin/env bash
# Installs the test node's container runtime from Debian's packages, at the pinned versions the Makefile
# names (NODE_DEB_PACKAGES): containerd, runc, the CNI plugins, buildah, iptables, conntrack.
# Does nothing when they are installed already.
set -euo pipefail
# shellcheck source=../../lib.sh
source "$(dirname "$0")/../../lib.sh"

missing=()
for package in "$@"; do
  name=${package%%=*} version=${package#*=}
  [[ "$(dpkg-query -W -f='${Version}' "$name" 2>/dev/null || true)" == "$version" ]] || missing+=("$package")
done
((${#missing[@]} == 0)) && exit 0
[[ $EUID -eq 0 ]] || die "installing ${missing[*]} needs root (apt-get)"
step "Installing from Debian's packages: ${missing[*]}"
apt-get update -qq >/dev/null
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
