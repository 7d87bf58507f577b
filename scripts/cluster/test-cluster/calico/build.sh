#!/usr/bin/env bash
# Builds Calico's Felix and CNI plugin (which is also calico-ipam, by the name it is called with) for the test
# node, from the Go module proxy:  build.sh FELIX-OUT CNI-OUT
# github.com/projectcalico/calico is served at pseudo-versions only, and its go.mod replaces
# github.com/projectcalico/api with the nested ./api, which a module's zip leaves out. So the module is copied to
# a build directory, the api module (CALICO_API_VERSION) is put where the replace points, and both binaries are
# built there with Calico's own go.mod and go.sum: every other dependency is exactly as upstream pins it.
set -euo pipefail
# shellcheck source=../../../lib.sh
source "$(dirname "$0")/../../../lib.sh"

felix_out=${1:?usage: build.sh FELIX-OUT CNI-OUT}
cni_out=${2:?usage: build.sh FELIX-OUT CNI-OUT}
: "${CALICO_VERSION:?set by the Makefile}" "${CALICO_API_VERSION:?set by the Makefile}"

build_dir="$ROOT/.tools/build/calico-$CALICO_VERSION"
rm -rf "$build_dir"
mkdir -p "$(dirname "$build_dir")" "$(dirname "$felix_out")" "$(dirname "$cni_out")"
step "Building Calico's Felix and CNI plugin ($CALICO_VERSION) from the Go module proxy (a few minutes the first time)"
cp -r "$(go_module_dir "github.com/projectcalico/calico@$CALICO_VERSION")" "$build_dir"
cp -r "$(go_module_dir "github.com/projectcalico/api@$CALICO_API_VERSION")" "$build_dir/api"
chmod -R u+w "$build_dir"
# Static, without cgo: Felix's BPF data plane (which needs libbpf) is left out; the node runs the iptables one.
(cd "$build_dir" && CGO_ENABLED=0 go build -o "$felix_out" -gcflags "${GO_GCFLAGS:-}" -ldflags "${GO_LDFLAGS:-}" ./felix/cmd/calico-felix &&
  CGO_ENABLED=0 go build -o "$cni_out" -gcflags "${GO_GCFLAGS:-}" -ldflags "${GO_LDFLAGS:-}" ./cni-plugin/cmd/calico)
rm -rf "$build_dir"
