#!/usr/bin/env bash
# The images of the test node, none pulled: every one is built here with buildah (daemonless, from
# Debian) and loaded into the node's containerd.
#   images.sh base      a JRE base: a jlink runtime of this machine's JDK, the C libraries it and the other
#                       images' programs need, sh, cat and sleep (for kubectl exec and the stand-ins' scripts), users 185 and 12345
#   images.sh node      the pause image (a static Go program), the load generator's image (loadgen) and the
#                       stand-in for what Strimzi's operator would run (Kafka)
#   images.sh postgres-operator  the Zalando operator (its binary) and a Spilo-compatible image (Debian's
#                       PostgreSQL 17 and Patroni 4, scripts/cluster/test-cluster/postgres-operator/) for it to run
#   images.sh spilo-compatible  only the Spilo-compatible image's archive, into its cache (make test builds it
#                       in the background, while the local parts run)
#   images.sh load TAR… import image archives into the node's containerd
# The node is this machine, so its programs (pause, the operator, loadgen) are built for this machine's architecture;
# a user's cluster gets its own (scripts/cluster/k8s.sh, make cluster-binaries).
# The services' images (three per build) are built by scripts/cluster/k8s.sh from services/Dockerfile.jvm, the file minikube
# builds, with BASE_IMAGE set to the base built here.
set -euo pipefail
# shellcheck source=../../lib.sh
source "$(dirname "$0")/../../lib.sh"

readonly NODE_DIR="${NODE_DIR:-$LOCAL_DIR/test-cluster}"
readonly HERE="$ROOT/scripts/cluster/test-cluster"
readonly ARCHIVES="$NODE_DIR/images"
readonly CONTAINERD_SOCKET="$NODE_DIR/containerd/containerd.sock"
# Image references as the kubelet asks for them, under the local-only registry name `localhost` (nothing is ever
# pulled for them, and no public namespace could serve one in their place).
readonly BASE_IMAGE="${BASE_IMAGE:-localhost/reactive-bench/jre-base:latest}"
readonly PAUSE_IMAGE="localhost/reactive-bench/pause:${KUBE_VERSION:?set by the Makefile}"
readonly LOAD_IMAGE="localhost/reactive-bench/loadgen:${LOADGEN_VERSION:?set by the Makefile}"
readonly KAFKA_STANDIN_IMAGE="localhost/reactive-bench/standin-kafka:4.3.1"
# The Zalando operator from its Go module, and what it runs for a postgresql: a Spilo-compatible image (not Spilo).
readonly POSTGRES_OPERATOR_IMAGE="localhost/reactive-bench/postgres-operator:${ZALANDO_OPERATOR_VERSION:?set by the Makefile}"
readonly SPILO_COMPATIBLE_IMAGE="localhost/reactive-bench/spilo-compatible:pg17-patroni4"

# The Spilo-compatible image is a minute and a half of mmdebstrap and depends only on its two pinned packages and
# its entrypoint: its archive is kept here, outside the node's directory (which every make test-cluster starts
# afresh), and built again only when one of those changes.
readonly SPILO_CACHE="$LOCAL_DIR/spilo-compatible"
# The SBOMs of the node's images whose content is this machine's or Debian's archive's of the day (its base, the
# Spilo-compatible image), written as they are built (scripts/supply-chain/sbom.py --built-image); every other
# image's is in docs/sbom.
readonly NODE_SBOMS="$NODE_DIR/sbom"

# buildah keeps its images under $NODE_DIR (or the cache's own directory), never in the machine's container storage.
export CONTAINERS_STORAGE_CONF="$NODE_DIR/buildah/storage.conf"
storage_conf() { # storage_conf [DIR]: buildah's storage in DIR, the node's by default
  local dir=${1:-$NODE_DIR/buildah}
  mkdir -p "$dir" "$ARCHIVES"
  export CONTAINERS_STORAGE_CONF="$dir/storage.conf"
  cat >"$CONTAINERS_STORAGE_CONF" <<EOF
[storage]
driver = "overlay"
graphroot = "$dir/root"
runroot = "$dir/run"
EOF
}

archive_file() { echo "$ARCHIVES/$(echo "${1#*/}" | tr '/:' '__').tar"; } # archive_file REF: where its archive goes
archive() { # archive REF [FILE]: buildah's image as a docker-archive tar, named REF, for ctr import (FILE: the node's by default)
  local ref=$1 file=${2:-$(archive_file "$1")}
  rm -f "$file"
  buildah push -q "$ref" "docker-archive:$file:$ref" >/dev/null
  echo "$file"
}

copy_with_libraries() { # copy_with_libraries ROOTFS FILE…: the files and every shared library they load
  local rootfs=$1 file library
  shift
  for file in "$@"; do
    cp -L --parents "$file" "$rootfs" 2>/dev/null || cp -L "$file" "$rootfs$file"
    while read -r library; do
      [[ -e "$rootfs$library" ]] || cp -L --parents "$library" "$rootfs"
    done < <(ldd "$file" 2>/dev/null | grep -oE '/[^ ]+\.so[^ ]*' || true)
  done
}

base() {
  storage_conf
  step "Base image $BASE_IMAGE: a jlink runtime of $("$JAVA" -version 2>&1 | head -1)"
  local rootfs="$NODE_DIR/buildah/base-rootfs"
  rm -rf "$rootfs" && mkdir -p "$rootfs"/{etc,tmp,opt,bin} && chmod 1777 "$rootfs/tmp"
  # The modules a Quarkus service, the Kafka broker and JFR use: all of Java SE and the JDK's runtime
  # extras, none of its development tools.
  "$JAVA_HOME/bin/jlink" --add-modules java.se,jdk.unsupported,jdk.management,jdk.management.jfr,jdk.jfr,jdk.crypto.ec,jdk.crypto.cryptoki,jdk.naming.dns,jdk.zipfs,jdk.httpserver,jdk.net,jdk.charsets,jdk.localedata,jdk.security.auth,jdk.jcmd,jdk.attach \
    --strip-debug --no-man-pages --no-header-files --output "$rootfs/opt/java"
  local elf=()
  mapfile -t elf < <(find "$rootfs/opt/java" -type f \( -name '*.so' -o -path '*/bin/*' \))
  # The runtime's own libraries, seen from inside the image, plus a shell and cat for kubectl exec.
  local file
  for file in "${elf[@]}"; do
    while read -r library; do
      [[ -e "$rootfs$library" ]] || cp -L --parents "$library" "$rootfs"
    done < <(ldd "$file" 2>/dev/null | grep -oE '/[^ ]+\.so[^ ]*' | grep -v "^$rootfs" || true)
  done
  copy_with_libraries "$rootfs" /bin/sh /bin/cat /bin/sleep "$(readlink -f /bin/sh)" /lib64/ld-linux-x86-64.so.2
  printf '%s\n' 'root:x:0:0:root:/root:/bin/sh' 'default:x:185:185:service:/home/default:/bin/sh' \
    'loadgen:x:12345:12345:loadgen:/home/loadgen:/bin/sh' >"$rootfs/etc/passwd"
  printf '%s\n' 'root:x:0:' 'default:x:185:' 'loadgen:x:12345:' >"$rootfs/etc/group"
  printf '%s\n' 'passwd: files' 'group: files' 'hosts: files dns' >"$rootfs/etc/nsswitch.conf"
  # Its SBOM, from what it holds: this machine's JDK and packages, which no document kept in docs/sbom could follow
  local name=${BASE_IMAGE##*/}
  python3 "$ROOT/scripts/supply-chain/sbom.py" --built-image "${name%%:*}" "$rootfs" "$NODE_SBOMS/${name%%:*}.cdx.json" >/dev/null
  local container
  container=$(buildah from --quiet scratch)
  buildah copy --quiet "$container" "$rootfs" / >/dev/null
  buildah config --env JAVA_HOME=/opt/java --env PATH=/opt/java/bin:/usr/bin:/bin --user 185:185 \
    --workingdir /tmp "$container"
  buildah commit --quiet --rm "$container" "$BASE_IMAGE" >/dev/null
  info "$(du -sh "$rootfs" | cut -f1) root filesystem ($(elapsed))"
}

containerfile() { # containerfile REF FILE CONTEXT: build one image FROM the base
  buildah build --quiet --pull-never --layers --build-arg "BASE_IMAGE=$BASE_IMAGE" -t "$1" -f "$2" "$3" >/dev/null
}

node_images() {
  storage_conf
  local context="$NODE_DIR/buildah/context"
  rm -rf "$context" && mkdir -p "$context"

  step "Image $PAUSE_IMAGE (static Go program)"
  local container
  container=$(buildah from --quiet scratch)
  buildah copy --quiet "$container" "${PAUSE:?set by the Makefile}" /pause >/dev/null
  buildah config --entrypoint '["/pause"]' --user 65535:65535 "$container"
  buildah commit --quiet --rm "$container" "$PAUSE_IMAGE" >/dev/null

  step "Image $LOAD_IMAGE (loadgen, the binary the local harness uses)"
  mkdir -p "$context/loadgen" && cp "${LOADGEN:?set by the Makefile}" "$context/loadgen/loadgen"
  containerfile "$LOAD_IMAGE" "$ROOT/load/Containerfile" "$context/loadgen"

  step "Stand-in for what Strimzi's operator would run: Kafka 4.3.1 (KRaft)"
  local broker="$ROOT/services/testing/kafka-broker/target/lib"
  [[ -d "$broker" ]] || die "Kafka broker jars missing: run 'make build' first"
  mkdir -p "$context/kafka" && cp -r "$broker" "$context/kafka/lib"
  cp "$HERE/operator-standins/kafka-entrypoint.sh" "$context/kafka/"
  containerfile "$KAFKA_STANDIN_IMAGE" "$HERE/operator-standins/kafka.Containerfile" "$context/kafka"

  local ref
  # The base too: the node check runs a pod from it.
  for ref in "$BASE_IMAGE" "$PAUSE_IMAGE" "$LOAD_IMAGE" "$KAFKA_STANDIN_IMAGE"; do archive "$ref" >/dev/null; done
  info "archives in ${ARCHIVES#"$ROOT"/} ($(elapsed))"
}

debian_mirror() { # the Debian archive this machine's apt uses (its suites differ: the path is the same)
  # shellcheck disable=SC2016 # apt's own format variable
  apt-get indextargets --format '$(REPO_URI)' | grep -m1 -E '/debian/?$' ||
    die "no Debian archive in this machine's apt sources: the Spilo-compatible image is built from Debian's packages"
}

postgres_operator_images() {
  storage_conf
  step "Image $POSTGRES_OPERATOR_IMAGE (the operator's own binary, built from its Go module)"
  local container
  container=$(buildah from --quiet scratch)
  buildah copy --quiet "$container" "${POSTGRES_OPERATOR:?set by the Makefile}" /postgres-operator >/dev/null
  buildah config --entrypoint '["/postgres-operator"]' --user 1000:1000 "$container"
  buildah commit --quiet --rm "$container" "$POSTGRES_OPERATOR_IMAGE" >/dev/null

  archive "$POSTGRES_OPERATOR_IMAGE" >/dev/null
  (spilo_compatible_image)
  local cached node_archive
  cached=$(spilo_compatible_archive) node_archive=$(archive_file "$SPILO_COMPATIBLE_IMAGE")
  ln -f "$cached" "$node_archive" 2>/dev/null || cp "$cached" "$node_archive"
  mkdir -p "$NODE_SBOMS" && cp "${cached%.tar}.cdx.json" "$NODE_SBOMS/spilo-compatible.cdx.json"
  info "($(elapsed))"
}

spilo_compatible_archive() { # the cached archive's path for the pinned packages and this entrypoint
  local key
  key=$(printf '%s\n' "$SPILO_COMPATIBLE_IMAGE" "$SPILO_POSTGRESQL" "$SPILO_PATRONI" |
    cat - "$HERE/postgres-operator/spilo-compatible-entrypoint.py" |
    sha256sum | cut -c1-12)
  echo "$SPILO_CACHE/spilo-compatible-$key.tar"
}

spilo_compatible_image() { # its archive in the cache, built unless the cache holds it already
  local file
  file=$(spilo_compatible_archive)
  if [[ -s $file && -s ${file%.tar}.cdx.json ]]; then
    step "Image $SPILO_COMPATIBLE_IMAGE: built before, ${file#"$ROOT"/}"
    return
  fi
  local work="$SPILO_CACHE/work"
  rm -rf "$work"
  storage_conf "$work/buildah"
  # Debian trixie (13): PostgreSQL 17 and Patroni 4, the versions Spilo 4 runs; bookworm has PostgreSQL 15 only.
  # Whatever trixie serves that day, at least the two least versions (SPILO_POSTGRESQL, SPILO_PATRONI): the archive
  # drops a point release once the next one is out, so an exact pin would stop a new machine on that day.
  step "Image $SPILO_COMPATIBLE_IMAGE: Patroni $SPILO_PATRONI and PostgreSQL $SPILO_POSTGRESQL from Debian trixie"
  local rootfs="$work/rootfs" container
  # shellcheck disable=SC2016 # the hooks' $1 (the root file system) is mmdebstrap's, expanded by its shell
  printf 'deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] %s trixie main\n' "$(debian_mirror)" |
    mmdebstrap --quiet --mode=root --variant=apt --format=directory --dpkgopt=force-confold \
      --include="postgresql-17,patroni,openssl,python3-yaml" \
      --setup-hook='mkdir -p "$1/etc/postgresql-common" && echo "create_main_cluster = false" >"$1/etc/postgresql-common/createcluster.conf"' \
      --customize-hook='rm -rf "$1"/usr/share/doc/* "$1"/usr/share/man/* "$1"/var/cache/apt/* "$1"/var/lib/apt/lists/*' \
      trixie "$rootfs" - >/dev/null
  local package least found
  for package in "postgresql-17=$SPILO_POSTGRESQL" "patroni=$SPILO_PATRONI"; do
    least=${package#*=} found=$(dpkg-query --admindir="$rootfs/var/lib/dpkg" -W -f='${Version}' "${package%%=*}")
    dpkg --compare-versions "$found" ge "$least" ||
      die "trixie serves ${package%%=*} $found, older than $least, the least version this project accepts"
    info "debian package: ${package%%=*} $found (trixie)"
  done
  install -m 755 "$HERE/postgres-operator/spilo-compatible-entrypoint.py" "$rootfs/usr/local/bin/spilo-compatible-entrypoint"
  container=$(buildah from --quiet scratch)
  buildah copy --quiet "$container" "$rootfs" / >/dev/null
  # UTF-8 for initdb (the operator's initdb options name no encoding), PostgreSQL's own tools first on the path.
  buildah config --entrypoint '["/usr/local/bin/spilo-compatible-entrypoint"]' --workingdir /home/postgres \
    --env LANG=C.UTF-8 --env PATH=/usr/lib/postgresql/17/bin:/usr/local/bin:/usr/bin:/bin \
    --port 5432 --port 8008 "$container"
  buildah commit --quiet --rm "$container" "$SPILO_COMPATIBLE_IMAGE" >/dev/null
  archive "$SPILO_COMPATIBLE_IMAGE" "$file.partial" >/dev/null
  # One archive is kept: the one of these versions, with its SBOM (what trixie served that day).
  rm -f "$SPILO_CACHE"/spilo-compatible-*.tar "$SPILO_CACHE"/spilo-compatible-*.cdx.json
  mv "$file.partial" "$file"
  python3 "$ROOT/scripts/supply-chain/sbom.py" --built-image spilo-compatible "$rootfs" "${file%.tar}.cdx.json" >/dev/null
  buildah rmi --all --force >/dev/null
  rm -rf "$work"
  info "$(du -h "$file" | cut -f1) archive in ${SPILO_CACHE#"$ROOT"/} ($(elapsed))"
}

load() { # load TAR…: into the node's containerd, where the kubelet finds them
  local file
  for file in "$@"; do
    ctr --address "$CONTAINERD_SOCKET" -n k8s.io images import "$file" >/dev/null ||
      die "could not import $file into the test node's containerd"
  done
}

case "${1:-}" in
  base) base ;;
  node) node_images ;;
  postgres-operator) postgres_operator_images ;;
  spilo-compatible) spilo_compatible_image ;;
  archive) shift; archive "$@" ;;
  load) shift; load "$@" ;;
  refs) printf 'PAUSE_IMAGE=%s\nLOAD_IMAGE=%s\nBASE_IMAGE=%s\n' "$PAUSE_IMAGE" "$LOAD_IMAGE" "$BASE_IMAGE" ;;
  *) die "usage: $0 base | node | postgres-operator | spilo-compatible | archive REF | load TAR… | refs" ;;
esac
