#!/usr/bin/env bash
# A real single-node Kubernetes cluster on this machine, for make test-cluster:
#   node.sh up      containerd + runc, etcd, kube-apiserver, controller-manager, scheduler, kubelet,
#                   kube-proxy (iptables), CoreDNS, and Calico (its CNI plugin and IPAM, Felix enforcing
#                   NetworkPolicies with iptables), as minikube --cni=calico; writes $NODE_DIR/kubeconfig
#   node.sh down    stops every process it started and removes every mount, network namespace, network
#                   interface and iptables rule it made (also after a crash: it reads what up recorded)
#   node.sh status  what runs
#   node.sh restart-kubelet  stops the kubelet and starts it again (a fault of make chaos-cluster)
#   node.sh leftovers  prints whatever of a stopped node is still on the host; fails if anything is
#   node.sh stale-bridge  names the bridge of a stopped node's network left on the host (node.sh up removes it
#                   first); fails when there is none, or when a kubelet runs
# Everything lives under $NODE_DIR (default .local/test-cluster); binaries come from .tools/bin (make
# node-tools). Root only: a kubelet needs cgroups, mounts and network namespaces.
set -euo pipefail
# shellcheck source=../../lib.sh
source "$(dirname "$0")/../../lib.sh"

readonly NODE_DIR="${NODE_DIR:-$LOCAL_DIR/test-cluster}"
readonly NODE_NAME=$TEST_NODE_NAME
# The node's own network: its address on an interface of its own (a bridge without ports: this kernel has no
# dummy interfaces), so nothing of the cluster listens on the machine's real interfaces; the pods in Calico's IP
# pool, each behind its own veth (cali…) routed by the host (Calico's model: no overlay on one node); Services on
# a virtual range.
readonly BRIDGE=rbnode0
readonly NODE_IP=10.244.0.1
readonly POD_SUBNET=10.244.1.0/24
readonly SERVICE_RANGE=10.96.0.0/16
readonly DNS_IP="$NODE_IP"
readonly API_PORT=6443
# Every port the node listens on, with what listens (make doctor checks each is free first)
readonly NODE_PORTS=("$API_PORT kube-apiserver" "2379 etcd" "10250 kubelet" "10248 kubelet's health"
  "10249 kube-proxy's metrics" "10256 kube-proxy's health" "10257 kube-controller-manager" "10259 kube-scheduler"
  "9099 Calico's Felix health")
readonly CONTAINERD_SOCKET="$NODE_DIR/containerd/containerd.sock"
readonly IPTABLES_GUARD=RB-NODE-GUARD
readonly COMPONENTS=(containerd etcd kube-apiserver kube-controller-manager kube-scheduler kubelet kube-proxy calico-felix coredns)

bin() { # bin NAME: the pinned binary the Makefile named in the environment
  local path
  case $1 in
    etcd) path=${ETCD:-} ;;
    kube-apiserver) path=${KUBE_APISERVER:-} ;;
    kube-controller-manager) path=${KUBE_CONTROLLER_MANAGER:-} ;;
    kube-scheduler) path=${KUBE_SCHEDULER:-} ;;
    kubelet) path=${KUBELET:-} ;;
    kube-proxy) path=${KUBE_PROXY:-} ;;
    coredns) path=${COREDNS:-} ;;
    calico-felix) path=${CALICO_FELIX:-} ;;
    calico-cni) path=${CALICO_CNI:-} ;;
  esac
  [[ -x "$path" ]] || die "$1 is not built: run 'make node-tools' (or make test-cluster)"
  echo "$path"
}

pid_file() { echo "$NODE_DIR/pids/$1.pid"; }
running() { local file; file=$(pid_file "$1"); [[ -f "$file" ]] && kill -0 "$(<"$file")" 2>/dev/null; }

launch() { # launch NAME COMMAND…: in the background, logging to $NODE_DIR/logs/NAME.log
  local name=$1
  shift
  "$@" >"$NODE_DIR/logs/$name.log" 2>&1 &
  echo $! >"$(pid_file "$name")"
}

admin() { KUBECONFIG="$NODE_DIR/kubeconfig" kubectl --request-timeout=10s "$@"; }

write_kubeconfig() { # write_kubeconfig FILE USER TOKEN
  local file=$1 user=$2 token=$3
  KUBECONFIG="$file" kubectl config set-cluster "$NODE_NAME" --server="https://$NODE_IP:$API_PORT" \
    --insecure-skip-tls-verify=true >/dev/null
  KUBECONFIG="$file" kubectl config set-credentials "$user" --token="$token" >/dev/null
  KUBECONFIG="$file" kubectl config set-context "$NODE_NAME" --cluster="$NODE_NAME" --user="$user" >/dev/null
  KUBECONFIG="$file" kubectl config use-context "$NODE_NAME" >/dev/null
}

# What the node adds to the host's network, besides its interface: the rules of kube-proxy, of Felix and the guard
# (by their chains' names and Felix's comments), the pods' veths (Calico names them cali…) and Felix's IP sets.
readonly NODE_RULES='KUBE-|RB-NODE|cali[-:]'
readonly CALICO_HOST_DIRS=(/var/lib/calico /var/run/calico)
# Where the controller-manager's hostPath provisioner makes the claims' volumes (a fixed path of its own).
readonly HOSTPATH_VOLUMES=/tmp/hostpath_pv
calico_ipsets() { ipset list -n 2>/dev/null | grep '^cali'; }
remove_pod_links() {
  local link
  for link in $(ip -o link show type veth 2>/dev/null | awk -F': ' '{print $2}' | cut -d@ -f1 | grep '^cali' || true); do
    ip link del "$link" 2>/dev/null || true
  done
}
remove_calico_ipsets() { # once no rule refers to them
  local set
  for set in $(calico_ipsets || true); do ipset destroy "$set" 2>/dev/null || true; done
}

# ---------- up

kubelet_running() { pgrep -x kubelet >/dev/null || pgrep -f "^[^ ]*kubelet-v" >/dev/null; }
network_left() { # a node's network on the host: its bridge or its guard chain, which only this script makes
  ip link show "$BRIDGE" >/dev/null 2>&1 || iptables -t mangle -nL "$IPTABLES_GUARD" >/dev/null 2>&1
}

remove_stale_node() {
  # A node whose processes were killed without node.sh down (a session or a CI machine that stopped
  # mid-run, a node directory deleted by hand) leaves its network behind, and a later snapshot would
  # record its rules as the host's own. Recognised by its network, and only when no kubelet runs on the
  # host: then its rules, bridge and empty network namespaces are removed before anything is recorded.
  network_left || return 0
  if kubelet_running; then
    die "a kubelet already runs on this host (node.sh status; or the other checkout's node.sh down)"
  fi
  warn "an earlier test node was not stopped: removing its interfaces, iptables rules, IP sets and network namespaces"
  local link netns tool
  remove_pod_links
  ip link del "$BRIDGE" 2>/dev/null || true
  for tool in iptables ip6tables; do
    "$tool-save" | grep -vE "$NODE_RULES" | "$tool-restore"
  done
  remove_calico_ipsets
  while read -r netns; do
    if [[ -n "$netns" && -z "$(ip netns pids "$netns" 2>/dev/null)" ]]; then
      umount -l "/var/run/netns/$netns" 2>/dev/null || true
      rm -f "/var/run/netns/$netns"
    fi
  done < <(find /var/run/netns -maxdepth 1 -mindepth 1 -name 'cni-*' -printf '%f\n' 2>/dev/null)
  find /var/log/containers -maxdepth 1 -xtype l -delete 2>/dev/null || true
}

prepare_host() {
  [[ $EUID -eq 0 ]] || die "the test node needs root (cgroups, mounts, network namespaces)"
  local tool
  for tool in containerd runc ctr iptables iptables-save iptables-restore conntrack ipset /usr/lib/cni/loopback /usr/lib/cni/portmap; do
    command -v "$tool" >/dev/null || die "$tool is missing: run 'make node-tools' (Debian packages)"
  done
  mkdir -p "$NODE_DIR"/{pids,logs,pki,cni/net.d,cni/bin,containerd,kubelet,pod-logs,etcd}
  # The node's images, containers and volumes take about 5 GB, and the kubelet keeps 2 GB free (evictionHard).
  local free_gb
  free_gb=$(df --output=avail -BG "$NODE_DIR" | tail -1 | tr -dc 0-9)
  ((free_gb >= 7)) || die "the test node needs 7 GB free beside ${NODE_DIR#"$ROOT"/}; $free_gb GB are"
  # What the node changes on the host, recorded once so that down puts it back exactly.
  if [[ ! -f "$NODE_DIR/host-before.env" ]]; then
    remove_stale_node
    {
      echo "ip_forward=$(sysctl -n net.ipv4.ip_forward)"
      echo "bridge_nf=$(sysctl -n net.bridge.bridge-nf-call-iptables)"
      echo "route_localnet=$(sysctl -n net.ipv4.conf.all.route_localnet)"
    } >"$NODE_DIR/host-before.env"
    iptables-save >"$NODE_DIR/iptables-before.rules"
    ip6tables-save >"$NODE_DIR/ip6tables-before.rules"
    find /var/run/netns -maxdepth 1 -mindepth 1 -printf '%f\n' 2>/dev/null | sort >"$NODE_DIR/netns-before.txt" || true
    # Felix writes the MTU it found to a fixed path (/var/lib/calico/mtu), and the CNI plugin may make Calico's
    # run directory: whichever of them did not exist before is the node's to remove.
    local dir
    for dir in "${CALICO_HOST_DIRS[@]}"; do [[ -e "$dir" ]] || echo "$dir"; done >"$NODE_DIR/calico-dirs-made.txt"
  fi
  sysctl -qw net.ipv4.ip_forward=1 net.bridge.bridge-nf-call-iptables=1
  if ! ip link show "$BRIDGE" >/dev/null 2>&1; then
    ip link add "$BRIDGE" type bridge
    ip addr add "$NODE_IP/24" dev "$BRIDGE"
  fi
  ip link set "$BRIDGE" up
  # A guard: nothing from a pod is forwarded anywhere but to another pod on this node (a cali… veth).
  # Service addresses are rewritten to pod addresses before forwarding, so this rule never stops a real
  # call. In mangle, which the packet passes before the filter table, where Felix accepts what policy allows.
  iptables -t mangle -N "$IPTABLES_GUARD" 2>/dev/null || iptables -t mangle -F "$IPTABLES_GUARD"
  iptables -t mangle -A "$IPTABLES_GUARD" -s "$POD_SUBNET" ! -o cali+ -j DROP
  iptables -t mangle -C FORWARD -j "$IPTABLES_GUARD" 2>/dev/null || iptables -t mangle -I FORWARD 1 -j "$IPTABLES_GUARD"
}

start_containerd() {
  local pause_ref=$1
  cat >"$NODE_DIR/containerd/config.toml" <<EOF
version = 2
root = "$NODE_DIR/containerd/root"
state = "$NODE_DIR/containerd/state"
[grpc]
  address = "$CONTAINERD_SOCKET"
[ttrpc]
  address = "$CONTAINERD_SOCKET.ttrpc"
[debug]
  address = "$CONTAINERD_SOCKET.debug"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "$pause_ref"
  # This machine's root lacks CAP_SYS_RESOURCE: without this, runc fails every sandbox while
  # setting oom_score_adj ("can't get final child's PID from pipe").
  restrict_oom_score_adj = true
  stream_server_address = "127.0.0.1"
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "$NODE_DIR/cni/bin"
    conf_dir = "$NODE_DIR/cni/net.d"
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
EOF
  # Calico's CNI plugin is also its IPAM plugin, by the name it is called with; loopback and portmap are Debian's.
  ln -sf "$(bin calico-cni)" "$NODE_DIR/cni/bin/calico"
  ln -sf "$(bin calico-cni)" "$NODE_DIR/cni/bin/calico-ipam"
  ln -sf /usr/lib/cni/loopback /usr/lib/cni/portmap "$NODE_DIR/cni/bin/"
  # As calico-node's install-cni writes it for the Kubernetes datastore, but with its files in $NODE_DIR: the
  # plugin's log, and the node's name, which start_felix writes once Felix is ready (the plugin waits for it).
  cat >"$NODE_DIR/cni/net.d/10-calico.conflist" <<EOF
{
  "cniVersion": "0.3.1",
  "name": "k8s-pod-network",
  "plugins": [
    {"type": "calico", "datastore_type": "kubernetes", "nodename_file": "$NODE_DIR/calico/nodename", "mtu": 1500,
     "log_level": "info", "log_file_path": "$NODE_DIR/logs/calico-cni.log",
     "ipam": {"type": "calico-ipam"}, "ipam_lock_file": "$NODE_DIR/calico/ipam.lock", "policy": {"type": "k8s"},
     "kubernetes": {"kubeconfig": "$NODE_DIR/pki/calico.kubeconfig"}},
    {"type": "portmap", "snat": true, "capabilities": {"portMappings": true}}
  ]
}
EOF
  launch containerd containerd --config "$NODE_DIR/containerd/config.toml"
  wait_for "containerd ready" 60 ctr --address "$CONTAINERD_SOCKET" version ||
    die "containerd did not start: $NODE_DIR/logs/containerd.log"
}

start_control_plane() {
  local token
  openssl genrsa -out "$NODE_DIR/pki/sa.key" 2048 2>/dev/null
  : >"$NODE_DIR/pki/tokens.csv"
  # The controller-manager runs every controller under its own name (no per-controller service
  # accounts here), so it needs the rights of all of them; Calico (Felix, its CNI plugin) too, for brevity
  # (minikube gives calico-node a ClusterRole of its own).
  for user in admin:system:masters kubelet:system:nodes kube-proxy: kube-controller-manager:system:masters kube-scheduler: coredns: \
    calico:system:masters; do
    local name=${user%%:*} group=${user#*:} identity
    token=$(openssl rand -hex 16)
    case $name in
      admin) identity="admin" ;;
      kubelet) identity="system:node:$NODE_NAME" ;;
      coredns) identity=reactive-bench:coredns ;;
      *) identity="system:$name" ;;
    esac
    echo "$token,$identity,$identity${group:+,$group}" >>"$NODE_DIR/pki/tokens.csv"
    write_kubeconfig "$NODE_DIR/pki/$name.kubeconfig" "$identity" "$token"
  done
  cp "$NODE_DIR/pki/admin.kubeconfig" "$NODE_DIR/kubeconfig"

  launch etcd "$(bin etcd)" "$NODE_DIR/etcd" 2379
  wait_for "etcd ready" 60 grep -q "etcd ready" "$NODE_DIR/logs/etcd.log" || die "etcd did not start: $NODE_DIR/logs/etcd.log"
  launch kube-apiserver "$(bin kube-apiserver)" --etcd-servers=http://127.0.0.1:2379 \
    --advertise-address="$NODE_IP" --bind-address="$NODE_IP" --secure-port="$API_PORT" \
    --cert-dir="$NODE_DIR/pki/apiserver" --token-auth-file="$NODE_DIR/pki/tokens.csv" \
    --authorization-mode=Node,RBAC --enable-admission-plugins=NodeRestriction \
    --service-cluster-ip-range="$SERVICE_RANGE" --kubelet-preferred-address-types=InternalIP \
    --service-account-issuer=https://kubernetes.default.svc --service-account-key-file="$NODE_DIR/pki/sa.key" \
    --service-account-signing-key-file="$NODE_DIR/pki/sa.key"
  wait_for "kube-apiserver ready on $NODE_IP:$API_PORT" 120 admin get --raw /readyz ||
    die "kube-apiserver did not start: $NODE_DIR/logs/kube-apiserver.log"
  launch kube-controller-manager "$(bin kube-controller-manager)" \
    --kubeconfig="$NODE_DIR/pki/kube-controller-manager.kubeconfig" --leader-elect=false \
    --bind-address=127.0.0.1 --secure-port=10257 --service-account-private-key-file="$NODE_DIR/pki/sa.key" \
    --root-ca-file="$NODE_DIR/pki/apiserver/apiserver.crt" --use-service-account-credentials=false \
    --controllers='*,-nodeipam,-cloud-node-lifecycle' --enable-hostpath-provisioner
  launch kube-scheduler "$(bin kube-scheduler)" --kubeconfig="$NODE_DIR/pki/kube-scheduler.kubeconfig" \
    --leader-elect=false --bind-address=127.0.0.1 --secure-port=10259
  # CoreDNS reads Services and their endpoints, nothing else.
  admin apply -f - >/dev/null <<'EOF'
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: "reactive-bench:coredns"}
rules:
  - {apiGroups: [""], resources: [services, namespaces, pods], verbs: [list, watch]}
  - {apiGroups: [discovery.k8s.io], resources: [endpointslices], verbs: [list, watch]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: "reactive-bench:coredns"}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: "reactive-bench:coredns"}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: "reactive-bench:coredns"}]
---
# Volumes on demand, like minikube's default class of the same name: the controller-manager's hostPath
# provisioner makes a directory under /tmp/hostpath_pv for each claim and removes it with the claim.
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: standard
  annotations: {storageclass.kubernetes.io/is-default-class: "true"}
provisioner: kubernetes.io/host-path
reclaimPolicy: Delete
volumeBindingMode: Immediate
EOF
}

install_calico() { # Calico's resources (Kubernetes datastore): its CRDs, one IP pool, and the datastore marked ready
  local crds
  crds="$(go_module_dir "github.com/projectcalico/calico@${CALICO_VERSION:?set by the Makefile}")/libcalico-go/config/crd"
  # Server-side: some CRDs are too large for kubectl's last-applied annotation.
  admin apply --server-side -f "$crds" >/dev/null
  admin wait --for=condition=Established -f "$crds" --timeout=60s >/dev/null
  # What calico-node's start-up would create on minikube. The pool is the node's pod subnet; one node, so
  # neither IP-in-IP nor VXLAN, and no NAT: pods never leave the node (the guard in prepare_host).
  admin apply -f - >/dev/null <<EOF
apiVersion: crd.projectcalico.org/v1
kind: IPPool
metadata: {name: default-ipv4-ippool}
spec: {cidr: $POD_SUBNET, blockSize: 26, ipipMode: Never, vxlanMode: Never, natOutgoing: false, nodeSelector: all()}
---
# Felix and the CNI plugin wait until the datastore is marked ready.
apiVersion: crd.projectcalico.org/v1
kind: ClusterInformation
metadata: {name: default}
spec: {datastoreReady: true, clusterType: "k8s,kdd", calicoVersion: "$CALICO_VERSION"}
EOF
}

start_felix() { # Felix, as calico-node runs it on minikube (iptables, Kubernetes datastore), on the host like the kubelet
  local backend=Legacy
  # Felix must write its rules with the same iptables back end as kube-proxy (the one `iptables` is here).
  iptables --version | grep -q nf_tables && backend=NFT
  # DEFAULTENDPOINTTOHOSTACTION=ACCEPT as in Calico's manifests: pods reach the node (CoreDNS runs on it). The
  # log goes to the screen only (no /var/log/calico); no usage reports.
  launch calico-felix env KUBECONFIG="$NODE_DIR/pki/calico.kubeconfig" FELIX_DATASTORETYPE=kubernetes \
    FELIX_FELIXHOSTNAME="$NODE_NAME" FELIX_IPTABLESBACKEND="$backend" FELIX_DEFAULTENDPOINTTOHOSTACTION=ACCEPT \
    FELIX_IPV6SUPPORT=false FELIX_LOGFILEPATH=none FELIX_LOGSEVERITYSYS=none FELIX_LOGSEVERITYSCREEN=info \
    FELIX_USAGEREPORTINGENABLED=false FELIX_HEALTHENABLED=true FELIX_HEALTHHOST=127.0.0.1 FELIX_HEALTHPORT=9099 \
    "$(bin calico-felix)"
  wait_for "Felix ready (Calico enforces NetworkPolicies)" 120 curl -fsS -o /dev/null http://127.0.0.1:9099/readiness ||
    die "Felix did not start: $NODE_DIR/logs/calico-felix.log"
  mkdir -p "$NODE_DIR/calico"
  printf %s "$NODE_NAME" >"$NODE_DIR/calico/nodename" # no newline: the plugin takes the file as it is
}

start_kubelet() { # with the configuration start_node_agents wrote
  launch kubelet "$(bin kubelet)" --config="$NODE_DIR/kubelet/config.yaml" \
    --kubeconfig="$NODE_DIR/pki/kubelet.kubeconfig" --root-dir="$NODE_DIR/kubelet" \
    --cert-dir="$NODE_DIR/kubelet/pki" --hostname-override="$NODE_NAME" --node-ip="$NODE_IP"
}

# node.sh restart-kubelet: the kubelet stopped (SIGTERM, as systemctl restart would) and started again, for the
# faults on Kubernetes; the pods' containers run on under containerd meanwhile, and the new kubelet adopts them.
restart_kubelet() {
  running kubelet || die "no kubelet of this node runs (node.sh up first)"
  stop_process kubelet
  start_kubelet
  wait_for "the kubelet healthy again" 120 curl -sf http://127.0.0.1:10248/healthz ||
    die "the kubelet did not start again: $NODE_DIR/logs/kubelet.log"
}

start_node_agents() {
  # Pods resolve through CoreDNS only: no search domains or servers of the host leak into them.
  echo "nameserver $DNS_IP" >"$NODE_DIR/resolv.conf"
  cat >"$NODE_DIR/kubelet/config.yaml" <<EOF
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
address: $NODE_IP
# cgroup v1 on these machines: Kubernetes 1.35+ refuses it unless told otherwise.
failCgroupV1: false
cgroupDriver: cgroupfs
failSwapOn: false
containerRuntimeEndpoint: unix://$CONTAINERD_SOCKET
authentication: {anonymous: {enabled: true}, webhook: {enabled: false}}
authorization: {mode: AlwaysAllow}
clusterDNS: [$DNS_IP]
clusterDomain: cluster.local
resolvConf: $NODE_DIR/resolv.conf
podLogsDir: $NODE_DIR/pod-logs
serializeImagePulls: false
maxPods: 40
# The node shares a large disk with the host. The defaults are shares of it (pressure below 10 % free for the node,
# 15 % for images; image collection from 85 % used): on a host with 40 GB of 270 GB free, pods would never be
# admitted, and images deleted that cannot be pulled again. A few GB is what the node needs.
evictionHard: {memory.available: 100Mi, nodefs.available: 2Gi, nodefs.inodesFree: 5%, imagefs.available: 2Gi}
imageGCHighThresholdPercent: 100
EOF
  start_kubelet
  cat >"$NODE_DIR/kube-proxy.yaml" <<EOF
apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
mode: iptables
clusterCIDR: $POD_SUBNET
hostnameOverride: $NODE_NAME
bindAddress: $NODE_IP
healthzBindAddress: 127.0.0.1:10256
metricsBindAddress: 127.0.0.1:10249
clientConnection: {kubeconfig: $NODE_DIR/pki/kube-proxy.kubeconfig}
# Leave the host's conntrack table size alone.
conntrack: {maxPerCore: 0}
EOF
  launch kube-proxy "$(bin kube-proxy)" --config="$NODE_DIR/kube-proxy.yaml"
  start_felix
  cat >"$NODE_DIR/Corefile" <<EOF
.:53 {
    bind $DNS_IP
    errors
    kubernetes cluster.local in-addr.arpa ip6.arpa {
        kubeconfig $NODE_DIR/pki/coredns.kubeconfig $NODE_NAME
        pods insecure
    }
    cache 5
}
EOF
  launch coredns "$(bin coredns)" -conf "$NODE_DIR/Corefile"
  wait_for "node $NODE_NAME ready" 120 bash -c \
    "[[ \$(KUBECONFIG='$NODE_DIR/kubeconfig' kubectl get node '$NODE_NAME' -o jsonpath='{.status.conditions[?(@.type==\"Ready\")].status}') == True ]]" ||
    die "the kubelet did not make the node ready: $NODE_DIR/logs/kubelet.log"
  wait_for "default service account created" 60 admin -n default get serviceaccount default ||
    die "kube-controller-manager did not start: $NODE_DIR/logs/kube-controller-manager.log"
}

up() {
  local pause_ref=${1:?usage: node.sh up PAUSE-IMAGE-REF PAUSE-IMAGE-TAR}
  local pause_tar=${2:?usage: node.sh up PAUSE-IMAGE-REF PAUSE-IMAGE-TAR}
  if running kubelet; then
    info "the test node already runs (node.sh down stops it)"
    return
  fi
  step "Starting the test node (Kubernetes $KUBE_VERSION; state and logs in ${NODE_DIR#"$ROOT"/})"
  prepare_host
  start_containerd "$pause_ref"
  ctr --address "$CONTAINERD_SOCKET" -n k8s.io images import "$pause_tar" >/dev/null
  start_control_plane
  install_calico
  start_node_agents
  step "Test node ready in $(elapsed): export KUBECONFIG=$NODE_DIR/kubeconfig"
}

# ---------- down

stop_process() { # stop_process NAME: TERM, then KILL after 15 s
  local file pid
  file=$(pid_file "$1")
  [[ -f "$file" ]] || return 0
  pid=$(<"$file")
  if kill "$pid" 2>/dev/null; then
    for _ in $(seq 30); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
    kill -9 "$pid" 2>/dev/null || true
  fi
  rm -f "$file"
}

remove_pods() {
  # Controllers first, so that nothing recreates what is deleted (a StatefulSet would); then every pod,
  # while the kubelet still runs: it stops their containers, unmounts their volumes, frees their network.
  stop_process kube-controller-manager
  stop_process kube-scheduler
  if running kubelet && running kube-apiserver; then
    admin delete pods --all --all-namespaces --grace-period=5 --wait=false >/dev/null 2>&1 || true
    wait_for "pods stopped" 90 bash -c \
      "[[ -z \$(KUBECONFIG='$NODE_DIR/kubeconfig' kubectl get pods -A -o name 2>/dev/null) ]]" || warn "some pods did not stop in 90 s"
  fi
  # Whatever is left runs under containerd's shims: stop the sandboxes and their containers there.
  if [[ -S "$CONTAINERD_SOCKET" ]] && running containerd; then
    local task
    for task in $(ctr --address "$CONTAINERD_SOCKET" -n k8s.io tasks ls -q 2>/dev/null); do
      ctr --address "$CONTAINERD_SOCKET" -n k8s.io tasks kill -s SIGKILL "$task" >/dev/null 2>&1 || true
    done
  fi
}

restore_firewall() { # restore_firewall iptables|ip6tables: every table exactly as before up
  local tool=$1 table
  # iptables-restore only replaces the tables its input names; a table that had nothing before (and
  # so is not in the snapshot) is emptied instead: its rules and chains are all the node's.
  for table in $("$tool-save" | sed -n 's/^\*//p'); do
    if ! grep -qx "\*$table" "$NODE_DIR/$tool-before.rules"; then
      "$tool" -t "$table" -F && "$tool" -t "$table" -X
    fi
  done
  "$tool-restore" <"$NODE_DIR/$tool-before.rules"
}

down() {
  if [[ ! -d "$NODE_DIR" ]]; then # nothing recorded: at most a stopped node's network, whoever's directory it was
    remove_stale_node
    return 0
  fi
  step "Stopping the test node"
  remove_pods
  local index
  for ((index = ${#COMPONENTS[@]} - 1; index >= 0; index--)); do stop_process "${COMPONENTS[index]}"; done
  # What still runs in the pods' cgroups: containerd ended before it could stop them (make test's stop signals
  # test-cluster's whole process group), and a shim's end does not end its container (their JVMs and Patroni were
  # left running). One node per host (up refuses a second kubelet): the pods' cgroups are its.
  local left=()
  mapfile -t left < <(find /sys/fs/cgroup/pids/kubepods -name cgroup.procs -exec cat {} + 2>/dev/null | sort -u)
  ((${#left[@]} == 0)) || kill -9 "${left[@]}" 2>/dev/null || true
  # containerd's shims outlive it by design; ours are the ones that name our socket.
  pkill -9 -f "containerd-shim-runc-v2 .*-address $CONTAINERD_SOCKET" 2>/dev/null || true
  # What the pods computed while this node ran (make test counts it beside its parts), then the kubelet's cgroups
  # (kubepods and its QoS classes, in every hierarchy), gone with their processes: left behind, the next node's pods
  # would count on from this one's CPU, and the host keeps what it had before.
  local usage=/sys/fs/cgroup/cpuacct/kubepods/cpuacct.usage
  [[ ! -r $usage ]] || awk '{ printf "%d\n", $1 / 1e9 }' "$usage" >"$NODE_DIR/pods-cpu-seconds"
  find /sys/fs/cgroup/*/kubepods /sys/fs/cgroup/kubepods -depth -type d -exec rmdir {} + 2>/dev/null || true
  local mount
  while read -r mount; do umount -l "$mount" 2>/dev/null || true; done < <(findmnt -rn -o TARGET | grep -F "$NODE_DIR/" | sort -r)
  if [[ -f "$NODE_DIR/netns-before.txt" ]]; then
    local netns
    while read -r netns; do
      umount -l "/var/run/netns/$netns" 2>/dev/null || true
      rm -f "/var/run/netns/$netns"
    done < <(comm -13 "$NODE_DIR/netns-before.txt" <(find /var/run/netns -maxdepth 1 -mindepth 1 -printf '%f\n' 2>/dev/null | sort))
  fi
  # The pods' veth ends that are still there, then the node's interface.
  remove_pod_links
  ip link del "$BRIDGE" 2>/dev/null || true
  if [[ -f "$NODE_DIR/iptables-before.rules" ]]; then
    restore_firewall iptables
    restore_firewall ip6tables
    rm -f "$NODE_DIR/iptables-before.rules" "$NODE_DIR/ip6tables-before.rules"
  fi
  remove_calico_ipsets
  if [[ -f "$NODE_DIR/calico-dirs-made.txt" ]]; then
    xargs -r rm -rf <"$NODE_DIR/calico-dirs-made.txt"
    rm -f "$NODE_DIR/calico-dirs-made.txt"
  fi
  # The volumes of claims still bound when the node stopped (the controller-manager removes the others).
  rm -rf "$HOSTPATH_VOLUMES"
  # The kubelet links every container's log here; ours point into $NODE_DIR.
  find /var/log/containers -maxdepth 1 -type l -lname "$NODE_DIR/*" -delete 2>/dev/null || true
  if [[ -f "$NODE_DIR/host-before.env" ]]; then
    local ip_forward bridge_nf route_localnet
    # shellcheck disable=SC1091 # written by prepare_host
    source "$NODE_DIR/host-before.env"
    sysctl -qw "net.ipv4.ip_forward=$ip_forward" "net.bridge.bridge-nf-call-iptables=$bridge_nf" \
      "net.ipv4.conf.all.route_localnet=$route_localnet"
    rm -f "$NODE_DIR/host-before.env"
  fi
  step "Test node stopped"
}

status() {
  local name
  for name in "${COMPONENTS[@]}"; do
    printf '%-24s %s\n' "$name" "$(running "$name" && echo "running (pid $(<"$(pid_file "$name")"))" || echo stopped)"
  done
}

leftovers() {
  local found=0
  pgrep -f "$NODE_DIR" && found=1
  findmnt -rn -o TARGET | grep -F "$NODE_DIR" && found=1
  ip link show "$BRIDGE" 2>/dev/null && found=1
  ip -o link show type veth | grep . && found=1
  iptables-save | grep -E "$NODE_RULES" && found=1
  calico_ipsets && found=1
  ls -d "$HOSTPATH_VOLUMES" "${CALICO_HOST_DIRS[@]}" 2>/dev/null && found=1
  return $found
}

case "${1:-}" in
  up) up "${2:-}" "${3:-}" ;;
  down) down ;;
  status) status ;;
  leftovers) leftovers ;;
  stale-bridge) network_left && ! kubelet_running && echo "$BRIDGE" ;;
  ports) printf '%s\n' "${NODE_PORTS[@]}" ;;
  restart-kubelet) restart_kubelet ;;
  *) die "usage: $0 up PAUSE-IMAGE-REF PAUSE-IMAGE-TAR | down | status | leftovers | stale-bridge | ports | restart-kubelet" ;;
esac
