#!/usr/bin/env bash
# Prints the home of a JDK 24 or newer: $JAVA_HOME if it is one, else the `java` on PATH, else the
# newest under /usr/lib/jvm. The services compile for Java 21 and run on 24+ (JEP 491: virtual threads do not pin
# on synchronized); the default `java` here may be older.
set -euo pipefail

readonly MIN_VERSION=24

feature_version() { # $1 = a JDK home; prints its feature version (17, 21, 25, …) or nothing
  local release="$1/release"
  [[ -x "$1/bin/javac" && -f "$release" ]] || return 0
  sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$release"
}

is_recent() { local v; v=$(feature_version "$1"); [[ -n "$v" && "$v" -ge $MIN_VERSION ]]; }

candidates=()
[[ -n "${JAVA_HOME:-}" ]] && candidates+=("$JAVA_HOME")
if command -v java >/dev/null 2>&1; then
  candidates+=("$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")")
fi
while IFS= read -r dir; do candidates+=("$dir"); done < <(find /usr/lib/jvm -mindepth 1 -maxdepth 1 \( -type d -o -type l \) 2>/dev/null | sort -rV)

for home in "${candidates[@]}"; do
  if is_recent "$home"; then
    echo "$home"
    exit 0
  fi
done
echo "No JDK $MIN_VERSION or newer found (looked at JAVA_HOME, java on PATH, /usr/lib/jvm)." >&2
echo "Install one (e.g. 'apt-get install openjdk-25-jdk-headless' or Temurin 25) or point JAVA_HOME at it." >&2
exit 1
