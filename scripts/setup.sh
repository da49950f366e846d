#!/usr/bin/env bash
# Installs what llmcalc needs to build and test, and only what is missing.
# Safe to run again: a second run does nothing but check.
set -euo pipefail
cd "$(dirname "$0")/.."

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

# Debian packages: command or file that proves each one is present.
missing=()
have_cmd() { command -v "$1" >/dev/null 2>&1; }
have_cmd cmake                       || missing+=(cmake)
have_cmd g++                         || missing+=(g++)
have_cmd emcc                        || missing+=(emscripten)
[ -f /usr/include/nlohmann/json.hpp ] || missing+=(nlohmann-json3-dev)
[ -f /usr/include/gtest/gtest.h ]     || missing+=(libgtest-dev)
[ -f /usr/include/benchmark/benchmark.h ] || missing+=(libbenchmark-dev)
have_cmd chromium                    || missing+=(chromium)
have_cmd clang++                     || missing+=(clang)
compgen -G "/usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a" >/dev/null || missing+=(libclang-rt-dev)
have_cmd node                        || missing+=(nodejs)
have_cmd npm                         || missing+=(npm)

if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update
  $SUDO apt-get install -y --no-install-recommends \
    cmake g++ clang libclang-rt-dev emscripten nlohmann-json3-dev libgtest-dev libbenchmark-dev chromium
  if ! have_cmd node || ! have_cmd npm; then
    $SUDO apt-get install -y --no-install-recommends nodejs npm
  fi
fi

# npm packages: reinstall when node_modules is absent or older than the lock file.
stamp=node_modules/.package-lock.json
if [ ! -d node_modules ] || [ ! -f "$stamp" ] || [ package-lock.json -nt "$stamp" ]; then
  echo "setup: npm ci"
  npm ci --no-audit --no-fund
fi
echo "setup: ok"
