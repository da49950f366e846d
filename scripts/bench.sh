#!/usr/bin/env bash
# Benchmarks: the Google Benchmark binary (native core) when it was built,
# then the wasm module in Node timing evaluate() on the spec examples.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -x build/native/tests/llmcalc_bench ]; then
  build/native/tests/llmcalc_bench "$@"
else
  echo "bench: build/native/tests/llmcalc_bench not built; skipping native benchmark"
fi
if [ -f build/wasm/wasm/llmcalc.node.cjs ]; then
  node scripts/bench-wasm.mjs
else
  echo "bench: build/wasm/wasm/llmcalc.node.cjs not built; skipping wasm benchmark"
fi
