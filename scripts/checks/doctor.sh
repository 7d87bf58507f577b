#!/usr/bin/env bash
# What `make demo` and `make test` need of this machine, checked in seconds before either starts (make doctor):
# each requirement on one line, and for a missing one how to get it. Exits 1 when one is missing.
#   scripts/checks/doctor.sh demo   what the local stack, its builds and its load generator need
#   scripts/checks/doctor.sh test   that, and what the offline control plane and the real node need (root, Debian 12, …)
#   scripts/checks/doctor.sh kubernetes   what make minikube and make deploy-vN need here: the build's tools, kubectl,
#                                   minikube or a cluster kubectl reaches (not the local stack's ports, memory or cgroups)
set -euo pipefail
cd "$(dirname "$0")/../.."

readonly WHAT=${1:-test}
readonly MIN_BASH=4 MIN_GO=1.26 MIN_PYTHON=3.11 MIN_JDK=24
# Free memory and disk each needs, GiB: the nine JVMs, PostgreSQL, Kafka and the generator at once (about 6 GiB
# measured); make test runs the local stack and the node at once (test-e2e beside test-cluster: 9.7 GiB in use at
# the most in a cold run at 10d298f, the page cache aside), its tools, Go module and build caches, images and the
# node's state (15 GiB and more: the caches grow).
readonly DEMO_MEMORY_GIB=6 DEMO_DISK_GIB=4 TEST_MEMORY_GIB=12 TEST_DISK_GIB=15
# Cores: the measurements here were made on two, every check of make test leaves the headroom of a machine three
# times slower, and one core cannot run the nine services beside PostgreSQL, Kafka and the generator.
readonly MIN_CORES=2
missing=0

ok() { printf '  \033[32mok\033[0m       %s\n' "$1"; }
lacking() { printf '  \033[31mmissing\033[0m  %s: %s\n' "$1" "$2"; missing=$((missing + 1)); }
at_least() { # at_least VERSION MINIMUM: whether a dotted version is MINIMUM or newer
  [[ "$(printf '%s\n%s\n' "$2" "$1" | sort -V | head -1)" == "$2" ]]
}
check() { # check NAME HOW-TO-GET COMMAND...: the command succeeds, or the requirement is missing
  local name=$1 how=$2
  shift 2
  if "$@" >/dev/null 2>&1; then ok "$name"; else lacking "$name" "$how"; fi
}
version_of() { # version_of COMMAND...: the first dotted version its output names
  "$@" 2>&1 | grep -oE '[0-9]+\.[0-9]+(\.[0-9]+)?' | head -1
}
versioned() { # versioned NAME MINIMUM HOW-TO-GET COMMAND...
  local name=$1 minimum=$2 how=$3 found
  shift 3
  found=$(version_of "$@" || true)
  if [[ -n $found ]] && at_least "$found" "$minimum"; then ok "$name $found (≥ $minimum)"
  else lacking "$name ≥ $minimum" "${found:+found $found; }$how"; fi
}
free_gib() { awk '/^MemAvailable:/ {print int($2 / 1048576)}' /proc/meminfo; }
disk_gib() { df -Pk . | awk 'NR == 2 {print int($4 / 1048576)}'; }
# Without ss or ip a port or route would look free: each fails instead, and the tool is named as missing.
port_free() { local listening; listening=$(ss -Hltn "sport = :$1") && [[ -z $listening ]]; }
route_free() { local routes; routes=$(ip route show) && ! grep -q "^$1" <<<"$routes"; }
cgroup_version() { # 2 (unified), 1 (a cpu hierarchy of its own), or nothing
  if [[ -f /sys/fs/cgroup/cgroup.controllers ]]; then echo 2; elif [[ -d /sys/fs/cgroup/cpu ]]; then echo 1; fi
}
cpu_controller() { # the CPU controller a quota is set in (the CPU map's, as a pod's limit): v1's cpu hierarchy, v2's cpu
  case $(cgroup_version) in
    1) [[ -f /sys/fs/cgroup/cpu/cpu.cfs_quota_us ]] ;;
    2) grep -qw cpu /sys/fs/cgroup/cgroup.controllers ;;
    *) false ;;
  esac
}
reachable() { # reachable URL: an artefact a registry serves answers 200 (a HEAD request, 20 s at most)
  [[ $(curl -sS -o /dev/null -w '%{http_code}' -I --max-time 20 "$1" 2>/dev/null) == 200 ]]
}
maven_reachable() { # the services' Quarkus BOM, from the mirror ~/.m2/settings.xml names, else Maven's own default
  local version mirror
  version=$(sed -n 's|.*<quarkus.platform.version>\(.*\)</quarkus.platform.version>.*|\1|p' services/pom.xml)
  mirror=$(sed -n 's|.*<url>\(.*\)</url>.*|\1|p' "$HOME/.m2/settings.xml" 2>/dev/null | head -1)
  reachable "${mirror:-https://repo.maven.apache.org/maven2}/io/quarkus/platform/quarkus-bom/$version/quarkus-bom-$version.pom"
}
apt_reachable() { # a package the node installs, from the mirror apt is configured with; on a machine whose package
  # lists are not fetched yet (make test runs apt-get update itself), the Release file of its first source
  local uri base suite
  uri=$(apt-get download --print-uris runc 2>/dev/null | head -1 | cut -d"'" -f2)
  if [[ -n $uri ]]; then reachable "$uri"; return; fi
  read -r base suite < <(first_apt_source)
  [[ -n $base && -n $suite ]] && reachable "${base%/}/dists/$suite/Release"
}
first_apt_source() { # "URI SUITE" of the first enabled source: one-line (sources.list) or deb822 (*.sources)
  local file
  for file in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [[ -f $file ]] || continue
    awk '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i ~ /^https?:/) { print $i, $(i + 1); exit } }' "$file" | grep . && return
  done
  for file in /etc/apt/sources.list.d/*.sources; do
    [[ -f $file ]] || continue
    awk '/^URIs:/ { uri = $2 } /^Suites:/ { suite = $2 } uri && suite { print uri, suite; exit }' "$file" | grep . && return
  done
}
# A test node stopped without node.sh down (a killed session) leaves its routes on its own bridge and its pods'
# veths; node.sh up removes them before it starts, so only somebody else's network in the ranges is in the way.
stale_bridge="" # the bridge of such a node's network (node.sh stale-bridge), read where make test's needs are
foreign_route_free() { # foreign_route_free PREFIX: no route there but a stopped test node's
  if [[ -z $stale_bridge ]]; then route_free "$1"; return; fi
  ! ip route show | grep "^$1" | grep -vqE " dev ($stale_bridge|cali[0-9a-f]+) "
}

go_proxy_reachable() { timeout 30 go list -m -versions golang.org/x/sync; }
readonly GO_PROXY_HOW="go list -m -versions golang.org/x/sync failed: GOPROXY"
finish() { # the verdict, once every check of $WHAT has run: fails where one is missing
  if ((missing)); then
    echo "==> $missing missing: $said would stop on it later" >&2
    exit 1
  fi
  echo "==> Everything $said needs is here"
}

said="make $WHAT"
[[ $WHAT != kubernetes ]] || said="the Kubernetes path"
echo "==> What $said needs of this machine"
# The local stack reads Linux's /proc and cgroups; its embedded PostgreSQL's binaries exist for these two (services/pom.xml).
if [[ $WHAT == kubernetes ]]; then :
elif [[ $(uname -s) == Linux && $(uname -m) =~ ^(x86_64|aarch64)$ ]]; then ok "Linux on $(uname -m)"
else lacking "Linux on x86-64 or arm64" "$(uname -s) $(uname -m): the local stack reads Linux's /proc and cgroups, and runs PostgreSQL's linux-amd64 or linux-arm64v8 binaries"; fi
if ((BASH_VERSINFO[0] >= MIN_BASH)); then ok "bash $BASH_VERSION (≥ $MIN_BASH)"
else lacking "bash ≥ $MIN_BASH" "found $BASH_VERSION (macOS ships 3.2: brew install bash)"; fi
if jdk=$(scripts/local/find-jdk.sh 2>/dev/null); then ok "a JDK ≥ $MIN_JDK ($jdk)"
else lacking "a JDK ≥ $MIN_JDK" "set JAVA_HOME to one (Temurin 25 or OpenJDK 25: apt-get install openjdk-25-jdk-headless where packaged)"; fi
versioned "Go" "$MIN_GO" "the load generator and the tools are built with it: https://go.dev/dl (or GOTOOLCHAIN=auto)" \
  go env GOVERSION
versioned "Python" "$MIN_PYTHON" "apt-get install python3" python3 --version
check "Python's venv" "apt-get install python3-venv" python3 -c 'import ensurepip, venv'
check "curl" "apt-get install curl" command -v curl
check "openssl" "apt-get install openssl" command -v openssl
check "a git checkout (images and reports are named by its commit)" "git clone the project; a tarball has no commit" \
  git rev-parse --verify HEAD
if [[ $WHAT == kubernetes ]]; then
  echo "==> and for make minikube, make deploy-vN and make bench"
  versioned "kubectl" 1.30 "https://kubernetes.io/docs/tasks/tools/ (the client of a Kubernetes 1.30 or newer)" \
    kubectl version --client
  if command -v minikube >/dev/null; then ok "minikube $(minikube version --short 2>/dev/null) (make minikube starts its profile)"
  elif kubectl cluster-info --request-timeout=5s >/dev/null 2>&1; then
    ok "no minikube, but kubectl reaches a cluster: context $(kubectl config current-context) (deploying there needs KUBE_CONTEXT)"
  else lacking "minikube, or a cluster kubectl reaches" "https://minikube.sigs.k8s.io/docs/start/, then make minikube"; fi
  # helm and the images' programs are built from the Go module proxy once; a deploy after that needs it no more
  if [[ ! -x ${HELM:-} ]]; then
    check "the Go module proxy reachable (helm, the images' programs)" "$GO_PROXY_HOW" go_proxy_reachable
  fi
  finish
  exit 0
fi
cores=$(nproc)
if ((cores >= MIN_CORES)); then ok "$cores cores (≥ $MIN_CORES)"
else lacking "$MIN_CORES cores" "$cores: the nine services, PostgreSQL, Kafka and the load generator run at once"; fi
if cpu_controller; then ok "cgroup v$(cgroup_version) with its CPU controller (the CPU map's quotas, as a pod's limit)"
else lacking "a CPU cgroup controller" "cgroup v$(cgroup_version): no cpu controller in /sys/fs/cgroup (the CPU map limits each service there)"; fi
check "ss (iproute2: which ports are in use)" "apt-get install iproute2" command -v ss
check "ip (iproute2: which routes are in use)" "apt-get install iproute2" command -v ip
memory=$(free_gib) disk=$(disk_gib)
need_memory=$DEMO_MEMORY_GIB need_disk=$DEMO_DISK_GIB
[[ $WHAT == demo ]] || need_memory=$TEST_MEMORY_GIB need_disk=$TEST_DISK_GIB
if ((memory >= need_memory)); then ok "$memory GiB of memory available (≥ $need_memory)"
else lacking "$need_memory GiB of memory available" "$memory GiB: stop what else runs"; fi
if ((disk >= need_disk)); then ok "$disk GiB free on this disk (≥ $need_disk)"
else lacking "$need_disk GiB free on this disk" "$disk GiB"; fi
# shellcheck source=../lib.sh
ports=$(source scripts/lib.sh && echo "$POSTGRES_PORT $KAFKA_PORT $CONTROL_PORT ${SERVICE_PORT[*]} ${MANAGEMENT_PORT[*]} $TOXIPROXY_PORT" \
  "${PROXY_PORT[*]} $JAEGER_OTLP_PORT $JAEGER_QUERY_PORT $JAEGER_QUERY_GRPC_PORT $JAEGER_HEALTH_PORT")
busy=()
for port in $ports; do port_free "$port" || busy+=("$port"); done
if ((${#busy[@]} == 0)); then ok "the local stack's ports are free (services, PostgreSQL, Kafka, the latency proxy, Jaeger)"
else lacking "the local stack's ports free" "${busy[*]} in use (make down stops a stack left running)"; fi
# The first run downloads from each kind of registry through its own client's configuration (nothing else is reached).
check "Maven's repository reachable (the services' dependencies)" "Maven downloads from it: its mirror in ~/.m2/settings.xml" \
  maven_reachable
check "the Go module proxy reachable (the load generator and the tools)" "$GO_PROXY_HOW" go_proxy_reachable
check "PyPI reachable (the harness's Python packages)" "python3 -m pip index versions pip failed: pip's index-url" \
  timeout 30 python3 -m pip index versions pip

if [[ $WHAT == test ]]; then
  echo "==> and the offline control plane and the real node (make test-cluster) need"
  if ((EUID == 0)); then ok "root"; else lacking "root" "the node runs containerd, kubelet, iptables rules and a bridge"; fi
  distribution="$(sed -n 's/^ID=//p' /etc/os-release 2>/dev/null | tr -d '"') $(sed -n 's/^VERSION_ID=//p' \
    /etc/os-release 2>/dev/null | tr -d '"')"
  if [[ $distribution == "debian 12" ]]; then ok "Debian 12 (its packages: containerd, runc, CNI plugins, iptables)"
  else lacking "Debian 12" "$distribution: scripts/cluster/test-cluster/install-packages.sh installs Debian 12's packages"; fi
  check "apt-get" "the node's packages are installed with it" command -v apt-get
  check "Debian's archive reachable (the node's packages)" "apt-get download --print-uris runc gave no reachable URL: apt's sources" \
    apt_reachable
  # which version of each of the node's packages is there or would be installed, each at least its least one
  read -r -a node_packages <<<"${NODE_DEB_PACKAGES:-}"
  if packages=$(scripts/cluster/test-cluster/install-packages.sh --plan "${node_packages[@]}" 2>&1); then
    ok "the node's Debian packages, each at least NODE_DEB_PACKAGES' version${packages:+:}"
    [[ -z $packages ]] || printf '%s\n' "${packages//    /             }"
  else lacking "the node's Debian packages" "${packages##*xx*  }"; fi
  if [[ $(cgroup_version) == 1 ]]; then ok "cgroup v1 (the real node's kubelet and containerd run on it)"
  else lacking "cgroup v1 for the real node" "this machine runs cgroup v$(cgroup_version): the node of make test-cluster has only run on cgroup v1 and is not supported on v2 yet (Debian 12 boots v2 unless given systemd.unified_cgroup_hierarchy=0)"; fi
  if dpkg-query -W -f='${Status}' containerd.io 2>/dev/null | grep -q "install ok installed"; then
    lacking "no Docker CE containerd" "containerd.io is installed: Debian's containerd, which the node installs, conflicts with it (apt-get remove containerd.io, or run make test on another machine)"
  else ok "no Docker CE containerd (containerd.io) to conflict with Debian's"; fi
  if pgrep -x dockerd >/dev/null; then
    lacking "no Docker daemon running" "dockerd runs: it sets iptables' FORWARD policy to DROP, which cuts the node's pods off (systemctl stop docker)"
  else ok "no Docker daemon running (its iptables rules would cut the node's pods off)"; fi
  while read -r port listener; do
    check "port $port free (the node's $listener)" "something listens there (make node-down stops a node left up)" \
      port_free "$port"
  done < <(scripts/cluster/test-cluster/node.sh ports)
  stale_bridge=$(scripts/cluster/test-cluster/node.sh stale-bridge 2>/dev/null) || stale_bridge=""
  for range in 10.244. 10.96.; do
    check "no route in ${range}0.0/16 (the node's pods and Services)" \
      "a network here uses it (make node-down stops a node left up)" foreign_route_free "$range"
  done
  if [[ -n $stale_bridge ]]; then
    echo "  note     a stopped test node's network is left on this machine: make test-cluster removes it first (or make node-down now)"
  fi
  check "cgroups mounted" "the node's containers need /sys/fs/cgroup" test -d /sys/fs/cgroup
fi
finish
