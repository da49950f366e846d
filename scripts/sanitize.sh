#!/usr/bin/env bash
# Builds the GoogleTest suite with AddressSanitizer + UndefinedBehaviorSanitizer
# (build/asan) and runs it; any sanitizer report fails the run.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build/asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLLMCALC_SANITIZE=ON \
  -DLLMCALC_TESTS=ON -DLLMCALC_BENCH=OFF >/dev/null
cmake --build build/asan -j"${JOBS:-2}" --target llmcalc_tests >/dev/null
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
build/asan/tests/llmcalc_tests --gtest_brief=1
