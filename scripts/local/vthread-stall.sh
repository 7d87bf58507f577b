#!/usr/bin/env bash
# make vthread-stall: v3's overload stall outside Quarkus (services/virtual-threads/stall-reproducer). Starts a real
# PostgreSQL, then RUNS overload runs, each a fresh JVM on the runtime under test, and counts the runs with a stall.
#   STALL_JAVA_HOME   the runtime under test (default: the JDK that builds, scripts/local/find-jdk.sh); a jlink runtime
#                     without javac is fine (e.g. a newer JDK 25 update)
#   STALL_ARGS        the reproducer's options: --runs 10 --seconds 60 --carriers 8 --pool agroal|semaphore
#                     --max-pool 10 --waits timed|untimed --in-flight 100 --cpu-micros 100 --jvm-option OPTION …
#   RESULTS           where to write (default results/vthread-stall-<time>)
set -euo pipefail
source "$(dirname "$0")/../lib.sh"

readonly MODULE="$ROOT/services/virtual-threads/stall-reproducer"
[[ -d "$MODULE/target/classes" && -d "$MODULE/target/lib" ]] || die "build it first: make vthread-stall builds it"
runtime="${STALL_JAVA_HOME:-$JAVA_HOME}"
[[ -x "$runtime/bin/java" ]] || die "no java in STALL_JAVA_HOME=$runtime"
results="${RESULTS:-$ROOT/results/vthread-stall-$(date -u +%Y%m%dT%H%M%SZ)}"
step "Runtime under test: $("$runtime/bin/java" -version 2>&1 | head -1)"
# shellcheck disable=SC2086 # STALL_ARGS is a list of options
exec "$runtime/bin/java" -cp "$MODULE/target/classes:$MODULE/target/lib/*" \
  io.reactivebench.vthreadstall.StallReproducer --java "$runtime/bin/java" --results "$results" ${STALL_ARGS:-}
