#!/usr/bin/env bash
# Rewrites what the model's numbers are checked against, from the native CLI:
# the per-regime accuracy table results quote (core/presets/validation/
# accuracy.json, from the published runs), then the golden outputs of the
# spec examples (tests/fixtures/golden/). Run after a deliberate change to
# the model; the native and wasm tests then hold both builds to these files.
set -euo pipefail
cd "$(dirname "$0")/.."
cli=build/native/llmcalc
[ -x "$cli" ] || { echo "update-golden: build the native CLI first (bash scripts/build.sh native)" >&2; exit 1; }
"$cli" validate --accuracy tests/validation/public > core/presets/validation/accuracy.json.tmp
mv core/presets/validation/accuracy.json.tmp core/presets/validation/accuracy.json
# The table is embedded in the library: rebuild before writing outputs that quote it.
cmake --build build/native --target llmcalc -j "${JOBS:-2}" > /dev/null
mkdir -p tests/fixtures/golden
for f in tests/spec/*.json; do
  "$cli" run "$f" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>process.stdout.write(JSON.stringify(JSON.parse(s),null,1)+"\n"))' \
    > "tests/fixtures/golden/$(basename "$f")"
done
echo "update-golden: $(ls tests/fixtures/golden | wc -l) files"
