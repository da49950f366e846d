#!/usr/bin/env bash
# Installs what a command needs, and only what is missing (Debian, as root or
# with sudo). Safe to run again: a second run does nothing but check.
# Usage: scripts/setup.sh [PROFILE]   (default: test)
#   build  build and serve: cmake, g++, emscripten, nlohmann-json3-dev, node, npm; npm ci
#   bench  build + libbenchmark-dev
#   test   build + libgtest-dev, libbenchmark-dev, chromium, clang, libclang-rt-dev
# The table is scripts/prereqs.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/prereqs.sh

profile=${1:-test}
if ! entries=$(prereqs_for "$profile"); then
  echo "setup: unknown profile '$profile' (build, bench, test)" >&2
  exit 2
fi

# Debian packages whose check fails, each once.
missing=()
while read -r what package check; do
  prereq_present "$check" || [[ " ${missing[*]} " == *" $package "* ]] || missing+=("$package")
done <<<"$entries"

if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  echo "setup ($profile): installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update
  $SUDO apt-get install -y --no-install-recommends "${missing[@]}"
fi

# npm packages: reinstall when node_modules is absent or older than the lock file.
stamp=node_modules/.package-lock.json
if [ ! -d node_modules ] || [ ! -f "$stamp" ] || [ package-lock.json -nt "$stamp" ]; then
  echo "setup: npm ci"
  npm ci --no-audit --no-fund
fi
echo "setup: ok ($profile)"
