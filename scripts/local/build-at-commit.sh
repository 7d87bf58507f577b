#!/usr/bin/env bash
# make build-at-commit COMMIT=…: every build of another commit's services, built as make build builds the checkout's,
# into target/at-commit/quarkus-app beside each service's own (the local stack starts it with SERVICE_BUILD=at-commit:
# make against-commit measures the two in turn). The commit is checked out in a worktree of its own, removed after.
set -euo pipefail
# shellcheck source=../lib.sh
source "$(dirname "$0")/../lib.sh"

[[ $# -eq 1 && -n $1 ]] || die "usage: make build-at-commit COMMIT=<a commit of this repository>"
commit=$(git -C "$ROOT" rev-parse --short "$1^{commit}" 2>/dev/null) || die "$1 is not a commit of this repository"
tree=$(mktemp -d)
cleanup() { git -C "$ROOT" worktree remove --force "$tree" 2>/dev/null || rm -rf "$tree"; }
trap cleanup EXIT

step "Building every build of the services at $commit (a worktree of its own; log in .local/logs/build-at-commit.log)"
git -C "$ROOT" worktree add --quiet --detach "$tree" "$commit"
mkdir -p "$ROOT/.local/logs"
(cd "$tree/services" && ./mvnw -B -ntp package -DskipTests -Dquarkus.package.output-directory=at-commit/quarkus-app) \
  >"$ROOT/.local/logs/build-at-commit.log" 2>&1 || { tail -30 "$ROOT/.local/logs/build-at-commit.log"; die "the build at $commit failed"; }
for application in "$tree"/services/*/v*/target/at-commit/quarkus-app; do
  module=${application#"$tree"/services/}
  module=${module%/target/at-commit/quarkus-app}
  rm -rf "$ROOT/services/$module/target/at-commit"
  mkdir -p "$ROOT/services/$module/target/at-commit"
  cp -r "$application" "$ROOT/services/$module/target/at-commit/"
  info "$module: services/$module/target/at-commit/quarkus-app"
done
echo "$commit" >"$ROOT/services/target/at-commit.txt"
step "The builds at $commit are ready: make against-commit measures them against the checkout's"
