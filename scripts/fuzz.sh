#!/usr/bin/env bash
# Builds the libFuzzer target with ASan+UBSan and runs it for FUZZ_SECONDS
# (default 20) over a corpus seeded with presets, spec examples and the
# validation scenarios. Crashes land in tests/fuzz/crashes/ and are kept as
# regression inputs (tests/fuzz/regressions/ is replayed by every run).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${FUZZ_SECONDS:-20}
json_inc=build/json-include
mkdir -p "$json_inc" && [ -e "$json_inc/nlohmann" ] || cp -r /usr/include/nlohmann "$json_inc/"
cmake -S . -B build/fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ \
  -DLLMCALC_FUZZ=ON -DLLMCALC_SANITIZE=ON -DLLMCALC_TESTS=ON -DLLMCALC_BENCH=OFF \
  -DLLMCALC_JSON_INCLUDE="$PWD/$json_inc" >/dev/null
cmake --build build/fuzz -j2 --target llmcalc_fuzz >/dev/null
corpus=build/fuzz/corpus
mkdir -p "$corpus" tests/fuzz/regressions tests/fuzz/crashes
# Seeds: every scenario the project knows.
for f in tests/spec/*.json; do cp "$f" "$corpus/spec-$(basename "$f")"; done
for f in tests/validation/public/*.json; do
  node -e 'const c=JSON.parse(require("fs").readFileSync(process.argv[1]));process.stdout.write(JSON.stringify(c.scenario))' "$f" \
    > "$corpus/case-$(basename "$f")"
done
for f in core/presets/models/*.json; do
  node -e 'const c=JSON.parse(require("fs").readFileSync(process.argv[1]));process.stdout.write(JSON.stringify({mode:"inference",model:c.model,system:"dgx-h100",inference:{batch:4}}))' "$f" \
    > "$corpus/model-$(basename "$f")"
done
# Replay the kept regressions first, then explore.
if compgen -G "tests/fuzz/regressions/*" >/dev/null; then
  build/fuzz/tests/llmcalc_fuzz tests/fuzz/regressions/* 2>&1 | tail -2
fi
build/fuzz/tests/llmcalc_fuzz "$corpus" -max_total_time="$seconds" -max_len=4096 -timeout=5 \
  -artifact_prefix=tests/fuzz/crashes/ -print_final_stats=1 2>&1 | grep -E "stat::number_of_executed_units|stat::peak_rss|Done|ERROR|SUMMARY" || true
if compgen -G "tests/fuzz/crashes/*" >/dev/null; then echo "fuzz: crashes found in tests/fuzz/crashes"; exit 1; fi
echo "fuzz: ok (${seconds}s)"
