#!/usr/bin/env bash
# The Kubernetes side of reactive-bench.
#   k8s.sh check             kubectl is there and a cluster answers (every Makefile target asks this first)
#   k8s.sh minikube          start the minikube profile of minikube/profile.env
#   k8s.sh plan              what deploying would change, and where: the context, the images, the operators
#   k8s.sh deploy VERSION    namespace, operators, the platform, the build's images and chart; waits for rollout
#   k8s.sh operators         the Strimzi and Zalando operators alone, where none runs
#   k8s.sh platform          the platform chart alone (Kafka and PostgreSQL through running operators)
#   k8s.sh bench             load Jobs against every deployed build, one after the other; then the report
#   k8s.sh sweep             each deployed build's concurrency settings in its pods (make sweep-cluster)
#   k8s.sh undeploy          remove every build, the platform and the namespace (operators stay)
#   k8s.sh architecture      the nodes' architecture, which the images are built for
# Idempotent: every step can be rerun, also after an undeploy. Tool versions come from the Makefile.
#
# What changes a cluster (deploy, operators, platform, run, undeploy) goes on by itself only in minikube's profile
# (MINIKUBE_PROFILE) or the test node's context; in any other, KUBE_CONTEXT must name the current context, so that a
# kubectl pointed elsewhere by accident changes nothing there.
#
# Switches (environment), for clusters other than minikube; the defaults are what `make deploy-vN` does:
#   KUBE_CONTEXT                 the current context's name, where it is neither minikube's nor the test node's.
#   OPERATORS=auto|skip          auto: each operator installed (this project's release, pinned) where none runs,
#                                and a running one used where it watches the namespace (default). skip: never
#                                installed; the platform's resources wait for operators that run or will.
#   PLATFORM=operators|external  operators: Strimzi and Zalando install Kafka and PostgreSQL (default).
#                                external: skip both; the objects the operators would create must exist
#                                (Services bench-postgres and bench-kafka-kafka-bootstrap, the credentials
#                                Secrets), and undeploy leaves them and the namespace alone.
#   KAFKA_PLATFORM, POSTGRES_PLATFORM
#                                the same choice for one of the two (default: PLATFORM); the test node runs the
#                                Zalando operator beside a Kafka stand-in (Strimzi's operator cannot be had there).
#   ZALANDO_CHART, ZALANDO_VALUES the operator's chart (default: its official repository at ZALANDO_CHART_VERSION, its
#                                package's sha256 ZALANDO_CHART_SHA256, checked, as a package given here is;
#                                or a directory: the test node's, from the operator's Go module) and a values file.
#   IMAGES=minikube|containerd|registry
#                                minikube: `minikube image build` (the default in minikube's context; elsewhere it
#                                must be given, containerd on the test node). containerd: buildah builds, then
#                                `ctr images import` into CONTAINERD_ADDRESS. registry: buildah builds and
#                                pushes to IMAGE_REPOSITORY (e.g. registry.example.com/reactive-bench).
#   BASE_IMAGE                   the JRE image Dockerfile.jvm builds on (its default otherwise).
#   IMAGE_TAG                    the build's images' tag (default: the build's own, VERSION-<digest of what its
#                                three images hold>: the same files, the same tag; build_tag).
#   CLUSTER_ARCH                 the nodes' architecture the images are built for (amd64, arm64, …; default:
#                                the one Kubernetes reports for every node; needed where they differ).
#   VALUES                       extra values files for the build's chart, space-separated (sizing of a
#                                cluster other than minikube's profile).
#   PLATFORM_VALUES              the same for the platform chart (Kafka's and PostgreSQL's sizing).
set -euo pipefail
# shellcheck source=../lib.sh
source "$(dirname "$0")/../lib.sh"
# shellcheck source=../../minikube/profile.env
source "$ROOT/minikube/profile.env"

readonly HELM="${HELM:-helm}"
readonly STRIMZI_CHART="oci://quay.io/strimzi-helm/strimzi-kafka-operator"
readonly STRIMZI_CHART_VERSION="${STRIMZI_CHART_VERSION:?set by the Makefile}"
readonly ZALANDO_CHART_REPO="https://opensource.zalando.com/postgres-operator/charts/postgres-operator"
readonly ZALANDO_CHART_VERSION="${ZALANDO_CHART_VERSION:?set by the Makefile}"
readonly ZALANDO_CHART_SHA256="${ZALANDO_CHART_SHA256:?set by the Makefile}"
# How long the Zalando operator waits for a PostgreSQL pod it deleted to be gone (install_operators says why not 10m)
readonly ZALANDO_POD_DELETION_WAIT=1m
readonly NS="$BENCH_NAMESPACE"
readonly PLATFORM="${PLATFORM:-operators}"
readonly KAFKA_PLATFORM="${KAFKA_PLATFORM:-$PLATFORM}" POSTGRES_PLATFORM="${POSTGRES_PLATFORM:-$PLATFORM}"
readonly OPERATORS="${OPERATORS:-auto}"
readonly TEST_NODE_CONTEXT="$TEST_NODE_NAME"
readonly BUILD_SERVICES=(web-api articles authors)
# The names the platform chart gives (and the operators derive their objects' names from).
readonly POSTGRES_CLUSTER=bench-postgres KAFKA_CLUSTER=bench-kafka

require_tool() { # require_tool NAME HOW-TO-GET-IT
  command -v "$1" >/dev/null 2>&1 || die "$1 is not installed: $2"
}

require_cluster() {
  require_tool kubectl "see https://kubernetes.io/docs/tasks/tools/"
  kubectl cluster-info --request-timeout=5s >/dev/null 2>&1 ||
    die "No reachable Kubernetes cluster (context: $(kubectl config current-context 2>/dev/null || echo none)); start one with 'make minikube'"
  local choice
  for choice in PLATFORM KAFKA_PLATFORM POSTGRES_PLATFORM; do
    [[ "${!choice}" == operators || "${!choice}" == external ]] || die "$choice must be operators or external, not ${!choice}"
  done
  [[ "$OPERATORS" =~ ^(auto|skip)$ ]] || die "OPERATORS must be auto or skip, not $OPERATORS"
}

current_context() { kubectl config current-context 2>/dev/null || echo "none"; }

# require_own_context: stops unless the current context is one this project may change by itself (minikube's
# profile, the test node's) or the one KUBE_CONTEXT names; says which cluster it is about to change.
require_own_context() {
  local context server
  context=$(current_context)
  server=$(kubectl config view --minify -o jsonpath='{.clusters[0].cluster.server}' 2>/dev/null || true)
  case $context in
    "$MINIKUBE_PROFILE" | "$TEST_NODE_CONTEXT") ;;
    *)
      [[ ${KUBE_CONTEXT:-} == "$context" ]] || die "kubectl's current context is '$context' (${server:-no server}), \
neither minikube's ($MINIKUBE_PROFILE) nor the test node's ($TEST_NODE_CONTEXT): nothing was changed there. To deploy \
into it, name it: KUBE_CONTEXT=$context (and IMAGES, OPERATORS, PLATFORM as it needs: k8s.sh plan shows what would change)" ;;
  esac
  info "context $context (${server:-no server})"
}

# IMAGES follows the context: minikube's builds into minikube; any other context says where its images go.
images_mode() {
  if [[ -n ${IMAGES:-} ]]; then
    [[ "$IMAGES" =~ ^(minikube|containerd|registry)$ ]] || die "IMAGES must be minikube, containerd or registry, not $IMAGES"
    [[ $IMAGES != minikube || $(current_context) == "$MINIKUBE_PROFILE" ]] ||
      die "IMAGES=minikube builds into minikube's profile $MINIKUBE_PROFILE, not into context $(current_context)"
    echo "$IMAGES"
  elif [[ $(current_context) == "$MINIKUBE_PROFILE" ]]; then
    echo minikube
  else
    die "context $(current_context) is not minikube's: say where its images go (IMAGES=containerd with CONTAINERD_ADDRESS, or IMAGES=registry with IMAGE_REPOSITORY)"
  fi
}

start_minikube() {
  require_tool minikube "see https://minikube.sigs.k8s.io/docs/start/"
  step "Starting minikube profile $MINIKUBE_PROFILE (Kubernetes $MINIKUBE_KUBERNETES_VERSION, $MINIKUBE_CPUS CPUs, $MINIKUBE_MEMORY)"
  minikube start -p "$MINIKUBE_PROFILE" --kubernetes-version="$MINIKUBE_KUBERNETES_VERSION" \
    --cpus="$MINIKUBE_CPUS" --memory="$MINIKUBE_MEMORY" --disk-size="$MINIKUBE_DISK_SIZE" --cni="$MINIKUBE_CNI"
  minikube profile "$MINIKUBE_PROFILE"
}

ensure_namespace() {
  # First of all: the Strimzi chart binds its operator into this namespace, which must therefore exist.
  kubectl create namespace "$NS" --dry-run=client -o yaml | kubectl apply -f - >/dev/null
}

# The operators this project installs: (namespace, helm release, what its image is called) of each.
readonly STRIMZI_RELEASE=strimzi ZALANDO_RELEASE=postgres-operator
readonly STRIMZI_IMAGE="strimzi/operator:" ZALANDO_IMAGE="postgres-operator:"

# operators_running IMAGE: "namespace/deployment release watched" of every Deployment in the cluster whose containers
# run an operator of that image (release: the helm release it belongs to, or -; watched: the namespaces it says it
# watches, STRIMZI_NAMESPACE or WATCHED_NAMESPACE, or - where it does not say).
operators_running() {
  kubectl get deployments -A --request-timeout=20s -o jsonpath='{range .items[*]}{.metadata.namespace}/{.metadata.name}{"\t"}{.metadata.annotations.meta\.helm\.sh/release-name}{"\t"}{.spec.template.spec.containers[*].env[?(@.name=="STRIMZI_NAMESPACE")].value}{.spec.template.spec.containers[*].env[?(@.name=="WATCHED_NAMESPACE")].value}{"\t"}{.spec.template.spec.containers[*].image}{"\n"}{end}' |
    awk -F '\t' -v image="$1" 'index($4, image) { print $1, ($2 == "" ? "-" : $2), ($3 == "" ? "-" : $3) }'
}

# operator_plan NAME NAMESPACE RELEASE IMAGE: what deploying does about one operator, one line: "install" (none runs,
# or this project's own release does: upgraded, a no-op where nothing changed), "use NAMESPACE/DEPLOYMENT" (another
# one runs and watches our namespace), "skip" (OPERATORS=skip); stops, saying why, where another runs that does not.
operator_plan() {
  local name=$1 namespace=$2 release=$3 image=$4 found deployment owner watched
  [[ $OPERATORS == skip ]] && { echo skip; return; }
  found=$(operators_running "$image") || die "could not list the cluster's Deployments to look for a running $name operator"
  while read -r deployment owner watched; do
    [[ -n $deployment ]] || continue
    [[ ${deployment%%/*} == "$namespace" && $owner == "$release" ]] && continue  # this project's own
    # Strimzi watches the namespaces STRIMZI_NAMESPACE lists (its own where that is not a list); Zalando's
    # WATCHED_NAMESPACE, where set, overrides its configuration, whose default is every namespace.
    if [[ $watched == "*" || ",$watched," == *",$NS,"* ]] || [[ $name == Zalando && $watched == - ]]; then
      echo "use $deployment"
      return
    fi
    [[ $watched != - ]] || watched="its own namespace"
    local part=Kafka switch=KAFKA_PLATFORM
    [[ $name != Zalando ]] || part=PostgreSQL switch=POSTGRES_PLATFORM
    die "a $name operator runs in the cluster already ($deployment, watching $watched), and not $NS: a second one \
would reconcile the same resources. Let it watch $NS and deploy with OPERATORS=skip, or bring $part yourself \
($switch=external)"
  done <<<"$found"
  echo install
}

# operator_plans: sets the caller's strimzi and zalando to what deploying does about each operator (operator_plan),
# or none where Kafka or PostgreSQL is external; stops where operator_plan does
operator_plans() {
  strimzi="none (KAFKA_PLATFORM=external)" zalando="none (POSTGRES_PLATFORM=external)"
  [[ $KAFKA_PLATFORM != operators ]] ||
    strimzi=$(operator_plan Strimzi "$STRIMZI_RELEASE" "$STRIMZI_RELEASE" "$STRIMZI_IMAGE") || exit 1
  [[ $POSTGRES_PLATFORM != operators ]] ||
    zalando=$(operator_plan Zalando "$ZALANDO_RELEASE" "$ZALANDO_RELEASE" "$ZALANDO_IMAGE") || exit 1
}

# plan: what deploying would change, and where, without changing anything (stops where deploying would)
plan() {
  require_cluster
  require_own_context
  local images strimzi zalando
  images=$(images_mode) || exit 1
  info "images: $images"
  operator_plans
  info "Strimzi operator: $strimzi"
  info "Zalando operator: $zalando"
  info "platform chart: $([[ $KAFKA_PLATFORM == operators || $POSTGRES_PLATFORM == operators ]] &&
    echo "installed in $NS ($([[ $KAFKA_PLATFORM == operators ]] && echo "Kafka ")$([[ $POSTGRES_PLATFORM == operators ]] && echo PostgreSQL))" ||
    echo "none: Kafka and PostgreSQL exist in $NS already")"
}

verified_chart() { # the Zalando operator's chart package, fetched by version (or ZALANDO_CHART's), installed only if
  # its sha256 is the pinned one: a version's package changed where it is served is refused, not installed
  local package=${ZALANDO_CHART:-} found
  if [[ -z $package ]]; then
    mkdir -p "$LOCAL_DIR/charts"
    package="$LOCAL_DIR/charts/postgres-operator-$ZALANDO_CHART_VERSION.tgz"
    rm -f "$package"
    "$HELM" pull postgres-operator --repo "$ZALANDO_CHART_REPO" --version "$ZALANDO_CHART_VERSION" \
      --destination "$LOCAL_DIR/charts" >&2 || die "could not fetch the Zalando operator's chart $ZALANDO_CHART_VERSION from $ZALANDO_CHART_REPO"
  fi
  if [[ -f $package ]]; then
    found=$(sha256sum "$package" | cut -d' ' -f1)
    [[ $found == "$ZALANDO_CHART_SHA256" ]] ||
      die "the Zalando operator's chart $package has sha256 $found, not the pinned $ZALANDO_CHART_SHA256 (ZALANDO_CHART_SHA256, for $ZALANDO_CHART_VERSION): not installed"
  fi # a directory given as ZALANDO_CHART is the user's own
  echo "$package"
}

install_operators() {
  # This project's release every time, not only when missing: `helm upgrade --install` puts back what an undeploy
  # removed with the namespace (Strimzi's RoleBindings in it) and is a no-op otherwise; never beside another
  # operator that runs (operator_plan). Resources are set here so that the CPU and memory budget
  # (minikube/profile.env) holds by design, not by the charts' defaults.
  local strimzi zalando
  operator_plans
  [[ $strimzi != use* ]] || info "Strimzi: the operator running in ${strimzi#use }, which watches $NS"
  [[ $zalando != use* ]] || info "Zalando: the operator running in ${zalando#use }, which watches $NS"
  if [[ $strimzi == install ]]; then
    step "Strimzi operator $STRIMZI_CHART_VERSION (official chart), watching namespace $NS"
    "$HELM" upgrade --install "$STRIMZI_RELEASE" "$STRIMZI_CHART" --version "$STRIMZI_CHART_VERSION" \
      --namespace "$STRIMZI_RELEASE" --create-namespace --set "watchNamespaces={$NS}" \
      --set resources.requests.cpu="$STRIMZI_OPERATOR_CPU" --set resources.requests.memory="$STRIMZI_OPERATOR_MEMORY" \
      --set resources.limits.memory="$STRIMZI_OPERATOR_MEMORY" --wait --timeout 10m >/dev/null
    # What the Strimzi operator needs in the namespace, checked rather than assumed.
    kubectl auth can-i create pods -n "$NS" --as=system:serviceaccount:strimzi:strimzi-cluster-operator >/dev/null ||
      die "the Strimzi operator may not create pods in $NS: kubectl -n $NS get rolebindings"
  fi
  if [[ $zalando == install ]]; then
    local chart values=()
    chart=$(verified_chart)
    [[ -z ${ZALANDO_VALUES:-} ]] || values=(--values "$ZALANDO_VALUES")
    step "Zalando postgres-operator ${ZALANDO_CHART:-$ZALANDO_CHART_VERSION (official chart)}, sha256 ${ZALANDO_CHART_SHA256:0:12}…"
    # pod_deletion_wait_timeout: when a postgresql is deleted the operator deletes its pod, then waits for the pod's
    # deletion event before it deletes the Services, Endpoints and Secrets. It can miss that event (zalando/
    # postgres-operator#2919, seen here in make undeploy) and then waits out the timeout, 10 minutes by default.
    "$HELM" upgrade --install "$ZALANDO_RELEASE" "$chart" --namespace "$ZALANDO_RELEASE" --create-namespace \
      --set configTimeouts.pod_deletion_wait_timeout="$ZALANDO_POD_DELETION_WAIT" \
      --set resources.requests.cpu="$ZALANDO_OPERATOR_CPU" --set resources.requests.memory="$ZALANDO_OPERATOR_MEMORY" \
      --set resources.limits.memory="$ZALANDO_OPERATOR_MEMORY" "${values[@]}" --wait --timeout 10m >/dev/null
  fi
}

# wait_until DESCRIPTION SECONDS COMMAND…: like wait_for, but fails with a diagnosis of the namespace.
wait_until() {
  local what=$1 seconds=$2
  shift 2
  wait_for "$what" "$seconds" "$@" && return 0
  warn "$what: not after ${seconds}s. What the namespace shows:"
  kubectl -n "$NS" get pods -o wide >&2 || true
  kubectl -n "$NS" get events --sort-by=.lastTimestamp 2>/dev/null | tail -10 >&2 || true
  # A pod that does not stop: what its process last said (what it waits on at its shutdown).
  local pod
  for pod in $(stopping_pods 2>/dev/null); do
    warn "$pod is stopping; its last lines:"
    kubectl -n "$NS" logs "$pod" --all-containers --tail=15 >&2 2>&1 || true
  done
  die "$what timed out"
}

# stop_allowance: the seconds the kubelet may take to stop the namespace's pods (the builds' gone, the platform's): their longest
# terminationGracePeriodSeconds (the Zalando operator gives PostgreSQL's 5 minutes; Kubernetes' default is 30),
# after which it kills them, and two minutes for the kill, the volumes and the API to follow; five minutes at least
# (the Zalando operator's own wait for its pod, ZALANDO_POD_DELETION_WAIT, ends well inside it).
stop_allowance() {
  local longest
  longest=$(kubectl -n "$NS" --request-timeout=20s get pods \
    -o jsonpath='{range .items[*]}{.spec.terminationGracePeriodSeconds}{"\n"}{end}' 2>/dev/null | sort -n | tail -1)
  longest=$(( ${longest:-30} + 120 ))
  echo $(( longest > 300 ? longest : 300 ))
}

deploy_platform() {
  local kafka=false postgres=false ready=()
  if [[ $KAFKA_PLATFORM == operators ]]; then
    kafka=true ready+=("kubectl -n '$NS' wait kafka/$KAFKA_CLUSTER --for=condition=Ready --timeout=5s")
  fi
  if [[ $POSTGRES_PLATFORM == operators ]]; then
    postgres=true
    ready+=("[[ \$(kubectl -n '$NS' get postgresql $POSTGRES_CLUSTER -o jsonpath='{.status.PostgresClusterStatus}') == Running ]]")
  fi
  step "Through their operators: $($kafka && echo "Kafka (KRaft, one node) ")$($postgres && echo "PostgreSQL (one instance)")"
  local values=()
  mapfile -t values < <(values_files PLATFORM_VALUES)
  "$HELM" upgrade --install platform "$ROOT/charts/platform" --namespace "$NS" "${values[@]}" \
    --set kafka.enabled="$kafka" --set postgres.enabled="$postgres" >/dev/null
  local all
  all=$(printf ' && %s' "${ready[@]}")
  watch_scheduling "the platform" 900 bash -c "${all# && }"
}

require_platform() { # what the operators would have created must be there, for each part that is external
  step "Using the existing $([[ $KAFKA_PLATFORM == external ]] && echo "Kafka ")$([[ $POSTGRES_PLATFORM == external ]] && echo "PostgreSQL ")in $NS"
  local missing=() object user
  if [[ $POSTGRES_PLATFORM == external ]]; then
    kubectl -n "$NS" get "service/$POSTGRES_CLUSTER" >/dev/null 2>&1 || missing+=("service/$POSTGRES_CLUSTER")
    for user in articles articles-app authors authors-app; do # each database's owner and its service's user
      object="secret/$user.$POSTGRES_CLUSTER.credentials.postgresql.acid.zalan.do"
      kubectl -n "$NS" get "$object" >/dev/null 2>&1 || missing+=("$object")
    done
    object="configmap/$POSTGRES_CLUSTER-ca" # the CA the services verify PostgreSQL's certificate against
    kubectl -n "$NS" get "$object" >/dev/null 2>&1 || missing+=("$object")
  fi
  if [[ $KAFKA_PLATFORM == external ]]; then
    object="service/$KAFKA_CLUSTER-kafka-bootstrap"
    kubectl -n "$NS" get "$object" >/dev/null 2>&1 || missing+=("$object")
  fi
  ((${#missing[@]} == 0)) || die "KAFKA_PLATFORM=$KAFKA_PLATFORM, POSTGRES_PLATFORM=$POSTGRES_PLATFORM, but $NS lacks: ${missing[*]}"
}

# watch_scheduling WHAT SECONDS COMMAND…: waits for COMMAND to succeed, and stops at once, saying why,
# when a pod in the namespace cannot be scheduled or its image cannot be had: waiting would not help.
watch_scheduling() {
  local what=$1 seconds=$2
  shift 2
  local deadline=$((SECONDS + seconds)) stuck
  until "$@" >/dev/null 2>&1; do
    stuck=$(pods_that_cannot_start)
    [[ -z "$stuck" ]] || die "$what cannot start: $stuck"
    ((SECONDS < deadline)) || wait_until "$what" 0 false
    sleep 2
  done
  info "$what ready ($(elapsed))"
}

pods_that_cannot_start() { # why pods of the namespace cannot start (unschedulable, no image), or nothing
  BENCHKIT_PYTHON=python3 benchkit unschedulable "$NS"
}

dockerfile_of() { # dockerfile_of VERSION: the floor's services are a jar and its libraries, not Quarkus' fast-jar layout
  if is_floor "$1"; then echo Dockerfile.floor; else echo Dockerfile.jvm; fi
}

build_tag() { # build_tag VERSION: the build's own image tag, VERSION-<digest of what its three images hold>: the
  # Dockerfile, the base image and every file it copies (services/.dockerignore's). The same files give the same tag,
  # so a build's three images can be named, and pinned, apart from the other builds', and a deploy of an unchanged
  # build rolls nothing.
  local version=$1 service digest
  digest=$(
    cd "$ROOT/services"
    {
      cat "$(dockerfile_of "$version")"
      echo "${BASE_IMAGE:-}"
      for service in "${BUILD_SERVICES[@]}"; do
        if is_floor "$version"; then
          find "$service/$version/target/lib" "$service/$version/target" -maxdepth 1 -type f \( -path '*/lib/*' -o -name "*-$version.jar" \) -print0
        else
          find "$service/$version/target/quarkus-app" -type f -print0
        fi | sort -z | xargs -0 sha256sum
      done
    } | sha256sum
  )
  echo "$version-${digest:0:12}"
}

build_images() { # build_images VERSION TAG: the three images of one build (or of the floor), where the cluster finds them
  local version=$1 tag=$2 service image
  for service in "${BUILD_SERVICES[@]}"; do
    image="$(image_repository)/$service-$version:$tag"
    # the tag is a digest of what the image holds: one the cluster has already is this build, unchanged
    if [[ -z ${IMAGE_TAG:-} ]] && image_in_cluster "$image"; then
      step "Image $image: in the cluster already (its tag is its content's digest)"
      continue
    fi
    build_image "$image" "$ROOT/services" "$(dockerfile_of "$version")" "SERVICE=$service/$version"
  done
}

image_in_cluster() { # image_in_cluster IMAGE: the cluster's container runtime holds it (containerd, minikube; a registry: not asked)
  case $IMAGES in
    containerd) [[ -n $(ctr --address "${CONTAINERD_ADDRESS:?}" -n k8s.io images ls -q "name==$1" 2>/dev/null) ]] ;;
    minikube) minikube -p "$MINIKUBE_PROFILE" image ls 2>/dev/null | grep -qxF "$1" ;;
    *) return 1 ;;
  esac
}

cluster_architecture() { # the architecture of the cluster's nodes as Kubernetes reports it (CLUSTER_ARCH where they differ)
  [[ -z "${CLUSTER_ARCH:-}" ]] || { echo "$CLUSTER_ARCH"; return; }
  local found
  found=$(kubectl get nodes -o jsonpath='{range .items[*]}{.status.nodeInfo.architecture}{"\n"}{end}' | sort -u | xargs)
  case $(wc -w <<<"$found") in
    1) echo "$found" ;;
    0) die "the cluster reports no node's architecture" ;;
    *) die "the cluster's nodes are of several architectures ($found): CLUSTER_ARCH=… builds the images for one, and a nodeSelector on kubernetes.io/arch (VALUES, LOAD_NODE_SELECTOR) keeps the pods on its nodes" ;;
  esac
}

build_program_image() { # build_program_image IMAGE NAME VERSION CONTAINERFILE: a static program, built for the
  # cluster's nodes (the Makefile's rule for .tools/bin/linux-ARCH/NAME-VERSION), on the cluster's base
  local image=$1 name=$2 version=$3 containerfile=$4 context="$LOCAL_DIR/$2-image" arch program
  arch=${CLUSTER_ARCH:?resolved before any image is built}
  program="${LOCALBIN:?set by the Makefile}/linux-$arch/$name-$version"
  (cd "$ROOT" && make --no-print-directory "$program" >&2)
  [[ $(BENCHKIT_PYTHON=python3 benchkit architecture "$program") == "$arch" ]] || die "$program is not built for $arch"
  rm -rf "$context" && mkdir -p "$context"
  cp "$program" "$context/$name" && cp "$containerfile" "$context/"
  build_image "$image" "$context" Containerfile
}

build_load_image() { # the load generator's image (load/Containerfile), unless LOAD_IMAGE names one already there
  [[ -z "${LOAD_IMAGE:-}" ]] || return 0
  LOAD_IMAGE="$(image_repository)/loadgen:${LOADGEN_VERSION:?set by the Makefile}"
  LOAD_IMAGE_PULL_POLICY=$(pull_policy)
  CLUSTER_ARCH=$(cluster_architecture) # once: a mixed cluster stops here, before anything is built
  export LOAD_IMAGE LOAD_IMAGE_PULL_POLICY CLUSTER_ARCH
  build_program_image "$LOAD_IMAGE" loadgen "$LOADGEN_VERSION" "$ROOT/load/Containerfile"
}

pull_policy() { # what the images built here are pulled with: never, but from a registry of the user's own
  if [[ $IMAGES == registry ]]; then echo IfNotPresent; else echo Never; fi
}

build_proxy_image() { # the latency proxy's image (scripts/latency-proxy/Containerfile), for LATENCY_PROXY=on
  PROXY_IMAGE_TAG="${TOXIPROXY_VERSION:?set by the Makefile}"
  build_program_image "$(image_repository)/latency-proxy:$PROXY_IMAGE_TAG" toxiproxy-server "$TOXIPROXY_VERSION" \
    "$ROOT/scripts/latency-proxy/Containerfile"
}

build_tracing_image() { # Jaeger's image (scripts/tracing/Containerfile), for TRACING=on
  TRACING_IMAGE_TAG="${JAEGER_VERSION:?set by the Makefile}"
  build_program_image "$(image_repository)/jaeger:$TRACING_IMAGE_TAG" jaeger "$JAEGER_VERSION" \
    "$ROOT/scripts/tracing/Containerfile"
}

build_image() { # build_image IMAGE CONTEXT FILE [BUILD_ARG…]: one image from CONTEXT/FILE, where the cluster finds it
  local image=$1 context=$2 file=$3 arg
  shift 3
  local build_args=("$@") minikube_args=() buildah_args=()
  [[ -z "${BASE_IMAGE:-}" ]] || build_args+=("BASE_IMAGE=$BASE_IMAGE")
  for arg in "${build_args[@]}"; do minikube_args+=("--build-opt=build-arg=$arg"); buildah_args+=("--build-arg=$arg"); done
  step "Image $image ($IMAGES)"
  case $IMAGES in
    minikube)
      minikube -p "$MINIKUBE_PROFILE" image build -t "$image" -f "$file" "${minikube_args[@]}" "$context" >/dev/null
      ;;
      containerd | registry)
        require_tool buildah "apt-get install buildah (daemonless image builds)"
        # for the nodes' architecture (Dockerfile.jvm and the Containerfiles only copy: no emulation needed)
        buildah_args+=("--platform=linux/${CLUSTER_ARCH:?resolved before any image is built}")
        # At the lowest CPU priority: here the images are built on the cores the running pods serve from (the test
        # node's two), and a redeploy under load at normal priority starved them (5 s in which even the chaos
        # harness's sampler did not run, and four look-ups past their 1 s time-out).
        nice -n 19 buildah build --quiet --pull-never --layers "${buildah_args[@]}" \
          -t "$image" -f "$context/$file" "$context" >/dev/null
        if [[ $IMAGES == registry ]]; then
          nice -n 19 buildah push --quiet "$image" "docker://$image" >/dev/null
        else
          local archive
          archive="$LOCAL_DIR/images/$(basename "${image%:*}").tar"
          mkdir -p "$(dirname "$archive")" && rm -f "$archive"
          nice -n 19 buildah push --quiet "$image" "docker-archive:$archive:$image" >/dev/null
          ctr --address "${CONTAINERD_ADDRESS:?IMAGES=containerd needs CONTAINERD_ADDRESS}" -n k8s.io images import "$archive" >/dev/null
          rm -f "$archive"
        fi
        ;;
  esac
}

image_repository() {
  case $IMAGES in
    # a registry name nobody can push to: an image not in the cluster fails to start, never pulled from elsewhere
    minikube | containerd) echo localhost/reactive-bench ;;
    registry) echo "${IMAGE_REPOSITORY:?IMAGES=registry needs IMAGE_REPOSITORY, e.g. registry.example.com/reactive-bench}" ;;
  esac
}

values_files() { # values_files [VARIABLE]: the --values options of the files it names (default VALUES)
  local variable=${1:-VALUES} file
  for file in ${!variable:-}; do
    [[ -f "$file" ]] || die "$variable names $file, which does not exist"
    printf -- '--values\n%s\n' "$file"
  done
}

for_a_build() { # for_a_build COMMAND VERSION: VERSION a build's or the floor's, the cluster there and its context this
  # project's to change, IMAGES where its images go
  [[ " ${BUILDS[*]} ${FLOOR[*]} " == *" $2 "* ]] ||
    die "usage: $0 $1 VERSION (one of ${BUILDS[*]}, or the floor ${FLOOR[*]}: services/builds.conf)"
  require_cluster
  require_own_context
  IMAGES=$(images_mode) || exit 1
  readonly IMAGES
}

release_images() { # release_images VERSION: every image a release of VERSION runs, where the cluster finds them (the
  # build's three, the load generator's for helm test, the latency proxy's with LATENCY_PROXY=on, Jaeger's with
  # TRACING=on); RELEASE_TAG, PROXY_IMAGE_TAG and TRACING_IMAGE_TAG their tags
  local version=$1
  RELEASE_TAG=${IMAGE_TAG:-$(build_tag "$version")} # IMAGE_TAG=…: a tag of the user's own instead of the build's
  CLUSTER_ARCH=$(cluster_architecture) # once: a mixed cluster stops here, before anything is built
  export CLUSTER_ARCH
  build_images "$version" "$RELEASE_TAG"
  build_load_image # helm test's pod runs the load generator's probe
  [[ ${LATENCY_PROXY:-off} != on ]] || build_proxy_image
  if [[ ${TRACING:-off} == on ]]; then
    ! is_floor "$version" || die "TRACING=on: the floor ($version) has no tracing to switch on (services/builds.conf)"
    build_tracing_image
  fi
}

images() { # images VERSION: what deploy VERSION builds, built, and nothing deployed (a helm install of one's own, or
  # a deploy later that finds them there)
  local version=$1
  for_a_build images "$version"
  release_images "$version"
  step "The images of $version are where the cluster finds them ($IMAGES): $(image_repository)/<service>-$version:$RELEASE_TAG"
}

deploy() {
  local version=$1
  for_a_build deploy "$version"
  ensure_namespace
  if [[ $KAFKA_PLATFORM == operators || $POSTGRES_PLATFORM == operators ]]; then
    install_operators
    deploy_platform
  fi
  if [[ $KAFKA_PLATFORM == external || $POSTGRES_PLATFORM == external ]]; then
    require_platform
  fi
  local values=()
  release_images "$version"
  mapfile -t values < <(values_files VALUES)
  # LATENCY_PROXY=on: the build's hops through a latency proxy of its own (make latency-map-cluster)
  if [[ ${LATENCY_PROXY:-off} == on ]]; then
    values+=(--set latencyProxy.enabled=true --set latencyProxy.image.tag="$PROXY_IMAGE_TAG")
  fi
  # TRACING=on: every service traced into a Jaeger of the release's own (TRACING_SAMPLED: the share of requests)
  if [[ ${TRACING:-off} == on ]]; then
    values+=(--set tracing.enabled=true --set tracing.image.tag="$TRACING_IMAGE_TAG")
    [[ -z "${TRACING_SAMPLED:-}" ]] || values+=(--set-string tracing.sampled="$TRACING_SAMPLED")
  fi
  local setting
  for setting in $(build_chart_values "$version"); do values+=(--set "$setting"); done
  # REPLICAS=2: two pods per service (the fault runs: a rolling update then never leaves one pod alone)
  local service
  [[ -z "${REPLICAS:-}" ]] || for service in "${BUILD_SERVICES[@]}"; do values+=(--set "services.$service.replicas=$REPLICAS"); done
  step "helm upgrade --install bench-$version (waits for the rollout)"
  # helm waits for the rollout; meanwhile a pod that cannot be scheduled, or has no image, stops it at once.
  local outcome="$LOCAL_DIR/helm-bench-$version"
  mkdir -p "$LOCAL_DIR" && rm -f "$outcome".*
  ( "$HELM" upgrade --install "bench-$version" "$ROOT/charts/reactive-bench" --namespace "$NS" "${values[@]}" \
      --set build="$version" --set-string buildJavaOpts="$(build_java_options "$version")" --set image.repository="$(image_repository)" --set image.tag="$RELEASE_TAG" \
      --set image.pullPolicy="$(pull_policy)" --set test.image="$LOAD_IMAGE" \
      --set test.pullPolicy="${LOAD_IMAGE_PULL_POLICY:-$(pull_policy)}" \
      --wait --timeout 10m >/dev/null 2>"$outcome.err"
    echo $? >"$outcome.rc" ) &
  watch_scheduling "bench-$version" 660 test -f "$outcome.rc"
  wait
  [[ $(<"$outcome.rc") == 0 ]] || die "helm upgrade --install bench-$version failed: $(tail -3 "$outcome.err")"
  # helm's wait ends when the new pods are ready; a pod they replace still serves its callers' pooled connections
  # while it stops (the chart's shutdown: up to 20 s). Whatever comes next (a bench, a trace) meets only the new ones.
  wait_for "the pods bench-$version replaced have stopped" 120 no_pod_stopping "bench-$version" ||
    die "pods of bench-$version still stopping after 120 s: kubectl -n $NS get pods"
  step "bench-$version ready in $(elapsed): kubectl -n $NS port-forward svc/bench-$version-web-api 8080:8080"
}

# run_experiment NAME: an experiment against the deployed builds (benchkit run NAME --platform kubernetes: the
# load generator as Jobs, every figure from the pods' own cgroups), its settings from the environment as on the
# local stack (make knobs). chaos's clients reach web-api by its ClusterIP, so it runs where that routes: on the
# node itself (the test node), or beside `minikube tunnel`; so does the latency map's, which drives each release's
# latency proxy through its API. A sweep rolls every Deployment back to its chart's settings at the end.
run_experiment() {
  require_cluster
  require_own_context
  IMAGES=$(images_mode) || exit 1
  readonly IMAGES
  [[ $1 == chaos ]] || build_load_image
  benchkit run "$1" --platform kubernetes ${RESULTS:+--results "$RESULTS"}
}

# stopping_pods [SELECTOR…]: the names of the namespace's pods that are terminating, one a line
stopping_pods() {
  kubectl -n "$NS" --request-timeout=20s get pods "$@" \
    -o jsonpath='{range .items[?(@.metadata.deletionTimestamp)]}{.metadata.name}{"\n"}{end}'
}

# no_pod_stopping RELEASE: true when none of the release's pods is terminating
no_pod_stopping() {
  local stopping
  stopping=$(stopping_pods -l "app.kubernetes.io/instance=$1") || return 1
  [[ -z $stopping ]]
}

# gone KIND NAME…: true when none of them exists any more
# (A kubectl that fails, say an apiserver too busy to answer, proves nothing: only an empty list is gone.)
gone() {
  local kind=$1 names
  shift
  names=$(kubectl -n "$NS" --request-timeout=20s get "$kind" "$@" -o name 2>/dev/null) || return 1
  [[ -z $names ]]
}

undeploy() {
  require_cluster
  require_own_context
  kubectl get namespace "$NS" >/dev/null 2>&1 || { info "namespace $NS does not exist: nothing to remove"; return; }
  step "Removing the builds and the load Jobs"
  local release
  for release in $("$HELM" list --namespace "$NS" --short); do
    [[ $release == platform ]] || "$HELM" uninstall "$release" --namespace "$NS" --wait --timeout 2m >/dev/null
  done
  wait_until "the builds' pods gone" 120 gone pods -l app.kubernetes.io/part-of=reactive-bench,app.kubernetes.io/managed-by=Helm
  if [[ $KAFKA_PLATFORM == external && $POSTGRES_PLATFORM == external ]]; then
    step "The platform and namespace $NS stay (PLATFORM=external): $(elapsed)"
    return
  fi
  # In dependency order: the topic while its topic operator (part of Kafka) can still remove its
  # finalizer, then Kafka and PostgreSQL, then the namespace. Every wait is bounded and says what is stuck.
  if kubectl get crd kafkatopics.kafka.strimzi.io >/dev/null 2>&1; then
    step "Removing the KafkaTopic, then Kafka and PostgreSQL"
    kubectl -n "$NS" delete kafkatopics --all --wait=false >/dev/null
    wait_until "KafkaTopics removed by the topic operator" 120 gone kafkatopics
  fi
  # Read before the operators start to stop them: what a pod is allowed, once it is stopping, is in its spec.
  local allowance
  allowance=$(stop_allowance)
  if "$HELM" status platform --namespace "$NS" >/dev/null 2>&1; then
    "$HELM" uninstall platform --namespace "$NS" --wait --timeout 5m >/dev/null
  fi
  if [[ $KAFKA_PLATFORM == external || $POSTGRES_PLATFORM == external ]]; then
    # What the operator made goes (it deletes it a moment after its custom resource); what exists without it, and
    # the namespace it lives in, stay.
    if [[ $POSTGRES_PLATFORM == operators ]]; then
      wait_until "what the Zalando operator made gone" "$allowance" gone statefulsets,pods,services,endpoints,secrets,persistentvolumeclaims \
        -l "cluster-name=$POSTGRES_CLUSTER"
    else
      wait_until "what Strimzi made gone" "$allowance" gone pods,services -l "strimzi.io/cluster=$KAFKA_CLUSTER"
    fi
    step "Removed in $(elapsed); the namespace $NS and the external $([[ $KAFKA_PLATFORM == external ]] && echo Kafka || echo PostgreSQL) stay"
    return
  fi
  wait_until "Kafka and PostgreSQL pods gone" "$allowance" gone pods
  step "Removing namespace $NS"
  if ! kubectl delete namespace "$NS" --timeout=3m >/dev/null 2>&1; then
    warn "namespace $NS is still terminating; objects left, with their finalizers:"
    kubectl api-resources --verbs=list --namespaced -o name 2>/dev/null |
      xargs -n 1 kubectl -n "$NS" get --ignore-not-found -o custom-columns=KIND:.kind,NAME:.metadata.name,FINALIZERS:.metadata.finalizers --no-headers 2>/dev/null >&2 || true
    die "namespace $NS did not go away in 3 minutes"
  fi
  step "Removed in $(elapsed) (the operators stay)"
}

case "${1:-}" in
  check) require_cluster ;;
  minikube) start_minikube ;;
  plan) plan ;;
  deploy) deploy "${2:-}" ;;
  images) images "${2:-}" ;;
  operators) require_cluster && require_own_context && install_operators ;;
  platform) require_cluster && require_own_context && ensure_namespace && deploy_platform ;;
  run) run_experiment "${2:?usage: $0 run bench|sweep|latency-map|chaos|cpu-map}" ;;
  undeploy) undeploy ;;
  architecture) cluster_architecture ;;
  *) die "usage: $0 check | minikube | plan | deploy VERSION | images VERSION | operators | platform | run EXPERIMENT | undeploy | architecture" ;;
esac
