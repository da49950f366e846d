# What each command needs, in one table; sourced by scripts/setup.sh (installs
# what is missing) and scripts/build.sh (names what is missing).
# Entry: "WHAT PACKAGE CHECK", CHECK one of cmd:NAME, header:PATH, glob:PATTERN.

PREREQS_BUILD=(
  "cmake cmake cmd:cmake"
  "g++ g++ cmd:g++"
  "emcc emscripten cmd:emcc"
  "nlohmann/json.hpp nlohmann-json3-dev header:nlohmann/json.hpp"
  "node nodejs cmd:node"
  "npm npm cmd:npm"
)
PREREQS_BENCH=(
  "benchmark/benchmark.h libbenchmark-dev header:benchmark/benchmark.h"
)
PREREQS_TEST=(
  "gtest/gtest.h libgtest-dev header:gtest/gtest.h"
  "${PREREQS_BENCH[@]}"
  "chromium chromium cmd:chromium"
  "clang++ clang cmd:clang++"
  "libclang_rt.fuzzer libclang-rt-dev glob:/usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a"
)

# header_dir PATH: the system include folder holding PATH, or nothing.
header_dir() {
  local d
  for d in /usr/include /usr/local/include; do
    if [ -f "$d/$1" ]; then echo "$d"; return 0; fi
  done
  return 1
}

# prereq_present CHECK: whether the thing is there.
prereq_present() {
  local kind=${1%%:*} what=${1#*:}
  case "$kind" in
    cmd) command -v "$what" >/dev/null 2>&1 ;;
    header) header_dir "$what" >/dev/null ;;
    glob) compgen -G "$what" >/dev/null ;;
    *) echo "prereqs: unknown check '$1'" >&2; return 2 ;;
  esac
}

# prereqs_for PROFILE: prints the entries a profile needs, one a line.
prereqs_for() {
  case "$1" in
    build) printf '%s\n' "${PREREQS_BUILD[@]}" ;;
    bench) printf '%s\n' "${PREREQS_BUILD[@]}" "${PREREQS_BENCH[@]}" ;;
    test) printf '%s\n' "${PREREQS_BUILD[@]}" "${PREREQS_TEST[@]}" ;;
    *) return 1 ;;
  esac
}
