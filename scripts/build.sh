#!/usr/bin/env bash
# Builds llmcalc. Usage: scripts/build.sh [native] [wasm] [web]   (default: all three)
#   native  build/native   CLI, library, gtest and benchmark binaries (CMake, Release)
#   wasm    build/wasm     llmcalc.js/.wasm (browser) and llmcalc.node.cjs/.wasm (Node)
#   web     build/web      the static site: index.html, css, js bundles, wasm
# Stops before any build step when a prerequisite is missing, naming it and
# how to get it (scripts/setup.sh build). GoogleTest and Google Benchmark are
# optional: without them the native build has no test or benchmark binary.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/prereqs.sh
ROOT=$PWD
JOBS=${JOBS:-2}
parts=("$@")
[ ${#parts[@]} -eq 0 ] && parts=(native wasm web)

# What each part needs: names from the build profile of scripts/prereqs.sh.
needs() {
  case "$1" in
    native) echo "cmake g++ nlohmann/json.hpp" ;;
    wasm) echo "cmake emcc node nlohmann/json.hpp" ;;
    web) echo "node" ;;
  esac
}

# Prints one line per missing prerequisite of the parts given; fails if any.
check_prereqs() {
  local want=" " part what package check missing=0
  for part in "$@"; do want+="$(needs "$part") "; done
  while read -r what package check; do
    [[ "$want" == *" $what "* ]] || continue
    prereq_present "$check" && continue
    echo "build: missing $what (Debian package $package); run \`npm run setup\` or \`bash scripts/setup.sh build\`" >&2
    missing=1
  done < <(prereqs_for build)
  if [[ "$want" == *" node "* ]] && [ ! -f node_modules/esbuild/package.json ]; then
    echo "build: missing node_modules (esbuild, Observable Plot); run \`npm ci\` or \`bash scripts/setup.sh build\`" >&2
    missing=1
  fi
  return "$missing"
}

on_off() { if prereq_present "header:$1"; then echo ON; else echo OFF; fi; }

build_native() {
  echo "build: native"
  local tests bench
  tests=$(on_off gtest/gtest.h)
  bench=$(on_off benchmark/benchmark.h)
  [ "$tests" = ON ] || echo "build: no GoogleTest (libgtest-dev): native tests not built; \`bash scripts/setup.sh test\` adds them"
  [ "$bench" = ON ] || echo "build: no Google Benchmark (libbenchmark-dev): benchmark not built; \`bash scripts/setup.sh bench\` adds it"
  cmake -S . -B build/native -DCMAKE_BUILD_TYPE=Release -DLLMCALC_TESTS="$tests" -DLLMCALC_BENCH="$bench" >/dev/null
  cmake --build build/native -j"$JOBS"
}

build_wasm() {
  echo "build: wasm"
  # emcc must never see /usr/include: give it a folder holding only nlohmann/.
  local inc=build/json-include src
  src=$(header_dir nlohmann/json.hpp)/nlohmann
  if [ ! -f "$inc/nlohmann/json.hpp" ] || [ "$src/json.hpp" -nt "$inc/nlohmann/json.hpp" ]; then
    rm -rf "$inc" && mkdir -p "$inc"
    cp -r "$src" "$inc/nlohmann"
  fi
  # emcc's JS optimizer needs Debian's node modules (acorn, ...).
  export NODE_PATH=/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}
  emcmake cmake -S . -B build/wasm -DCMAKE_BUILD_TYPE=Release \
    -DLLMCALC_JSON_INCLUDE="$ROOT/$inc" -DLLMCALC_TESTS=OFF -DLLMCALC_BENCH=OFF >/dev/null
  cmake --build build/wasm -j"$JOBS"
}

build_web() {
  echo "build: web"
  [ -f build/wasm/wasm/llmcalc.js ] || { echo "build: run 'scripts/build.sh wasm' first" >&2; exit 1; }
  node scripts/build-web.mjs
}

for p in "${parts[@]}"; do
  case "$p" in native | wasm | web) ;; *) echo "build: unknown part '$p' (native, wasm, web)" >&2; exit 2 ;; esac
done
check_prereqs "${parts[@]}" || exit 1

for p in "${parts[@]}"; do
  case "$p" in
    native) build_native ;;
    wasm) build_wasm ;;
    web) build_web ;;
  esac
done
echo "build: ok (${parts[*]})"
