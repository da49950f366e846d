#!/usr/bin/env bash
# Builds llmcalc. Usage: scripts/build.sh [native] [wasm] [web]   (default: all three)
#   native  build/native   CLI, library, gtest and benchmark binaries (CMake, Release)
#   wasm    build/wasm     llmcalc.js/.wasm (browser) and llmcalc.node.cjs/.wasm (Node)
#   web     build/web      the static site: index.html, css, js bundles, wasm
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
JOBS=${JOBS:-2}
parts=("$@")
[ ${#parts[@]} -eq 0 ] && parts=(native wasm web)

build_native() {
  echo "build: native"
  cmake -S . -B build/native -DCMAKE_BUILD_TYPE=Release -DLLMCALC_TESTS=ON -DLLMCALC_BENCH=ON >/dev/null
  cmake --build build/native -j"$JOBS"
}

build_wasm() {
  echo "build: wasm"
  # emcc must never see /usr/include: give it a folder holding only nlohmann/.
  local inc=build/json-include
  if [ ! -f "$inc/nlohmann/json.hpp" ] || [ /usr/include/nlohmann/json.hpp -nt "$inc/nlohmann/json.hpp" ]; then
    rm -rf "$inc" && mkdir -p "$inc"
    cp -r /usr/include/nlohmann "$inc/nlohmann"
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
  case "$p" in
    native) build_native ;;
    wasm) build_wasm ;;
    web) build_web ;;
    *) echo "build: unknown part '$p' (native, wasm, web)" >&2; exit 2 ;;
  esac
done
echo "build: ok (${parts[*]})"
