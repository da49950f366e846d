#!/usr/bin/env bash
# Runs every llmcalc test suite against what scripts/build.sh built:
#   native     ctest in build/native (GoogleTest)
#   sanitizers the GoogleTest suite rebuilt under ASan + UBSan (scripts/sanitize.sh)
#   fuzz       libFuzzer over evaluate, bounded time (scripts/fuzz.sh)
#   node       tests/node/*.test.mjs  (wasm in Node vs the native CLI)
#   browser    tests/browser/*.test.mjs (the page in headless Chromium)
# Usage: scripts/test.sh [--quick]   --quick: no sanitizer rebuild, no fuzzing.
# Ends with one line "llmcalc: N passed, M failed" and exits nonzero on any failure.
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/prereqs.sh
quick=0
for a in "$@"; do
  case "$a" in
    --quick) quick=1 ;;
    *) echo "test: unknown option '$a' (--quick)" >&2; exit 2 ;;
  esac
done
mkdir -p build/test-logs
LOGS=build/test-logs

# The test tools (scripts/prereqs.sh, test profile); --quick needs no clang.
absent=0
while read -r what package check; do
  [ $quick -eq 1 ] && [[ "$package" == clang || "$package" == libclang-rt-dev ]] && continue
  [ "$package" = chromium ] && [ -n "${LLMCALC_CHROMIUM:-}" ] && continue
  prereq_present "$check" && continue
  echo "test: missing $what (Debian package $package); run \`bash scripts/setup.sh test\`" >&2
  absent=1
done < <(prereqs_for test)
if [ $absent -ne 0 ]; then
  echo "llmcalc: 0 passed, 1 failed"
  exit 1
fi

total_pass=0
total_fail=0
detail=()

add() {  # add SUITE PASS FAIL
  total_pass=$((total_pass + $2)); total_fail=$((total_fail + $3))
  detail+=("$1 $2/$(($2 + $3))")
}

# --- native (ctest) ----------------------------------------------------------
if [ -f build/native/CTestTestfile.cmake ]; then
  ctest --test-dir build/native --output-on-failure -j2 2>&1 | tee "$LOGS/native.log"
  rc=${PIPESTATUS[0]}
  line=$(grep -E 'tests passed, [0-9]+ tests? failed out of [0-9]+' "$LOGS/native.log" | tail -1)
  if [ -n "$line" ]; then
    nfail=$(sed -E 's/.* ([0-9]+) tests? failed out of ([0-9]+).*/\1/' <<<"$line")
    nall=$(sed -E 's/.* ([0-9]+) tests? failed out of ([0-9]+).*/\2/' <<<"$line")
    add native $((nall - nfail)) "$nfail"
  elif [ "$rc" -ne 0 ]; then
    add native 0 1
  else
    add native 0 0
  fi
else
  echo "test: build/native has no ctest file (run scripts/build.sh native)"
  add native 0 1
fi

# --- sanitizers (the GoogleTest suite under ASan + UBSan) ----------------------
run_sanitizers() {
  if bash scripts/sanitize.sh 2>&1 | tee "$LOGS/sanitizers.log"; then
    local n
    n=$(grep -aoE '\[  PASSED  \] [0-9]+' "$LOGS/sanitizers.log" | grep -oE '[0-9]+$' | tail -1)
    add sanitizers "${n:-0}" 0
  else
    add sanitizers 0 1
  fi
}

# --- fuzzing (libFuzzer over evaluate, bounded time) ---------------------------
run_fuzz() {
  if bash scripts/fuzz.sh 2>&1 | tee "$LOGS/fuzz.log"; then add fuzz 1 0; else add fuzz 0 1; fi
}

if [ $quick -eq 0 ]; then
  run_sanitizers
  run_fuzz
fi

# --- node and browser (node:test) --------------------------------------------
run_node_suite() {  # run_node_suite NAME DIR
  local name=$1 dir=$2 files
  shopt -s nullglob
  files=("$dir"/*.test.mjs)
  shopt -u nullglob
  if [ ${#files[@]} -eq 0 ]; then
    echo "test: no $name tests in $dir"
    add "$name" 0 1
    return
  fi
  node --test --test-reporter=spec "${files[@]}" 2>&1 | tee "$LOGS/$name.log"
  local rc=${PIPESTATUS[0]}
  local p f
  p=$(grep -aE '^(ℹ|#) pass [0-9]+' "$LOGS/$name.log" | tail -1 | grep -oE '[0-9]+$')
  f=$(grep -aE '^(ℹ|#) fail [0-9]+' "$LOGS/$name.log" | tail -1 | grep -oE '[0-9]+$')
  p=${p:-0}; f=${f:-0}
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
  add "$name" "$p" "$f"
}

run_node_suite node tests/node
run_node_suite browser tests/browser

skipped=""
[ $quick -eq 1 ] && skipped="; quick: no sanitizers, no fuzzing"
echo "test: ${detail[*]} (passed/total per suite$skipped)"
echo "llmcalc: $total_pass passed, $total_fail failed"
[ "$total_fail" -eq 0 ]
