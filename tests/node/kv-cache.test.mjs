// KV-cache bytes per layer type (tests/fixtures/kv-cache.json, shared with
// tests/cpp/architectures_test.cpp): the wasm build gives the hand-derived
// bytes per token per layer, the tokens each type caches, and the cache of one
// sequence, for every architecture family (MLA, GQA, sliding window, chunked).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, test } from 'node:test';
import { loadWasm, repoRoot } from './wasm.mjs';

const fixture = JSON.parse(readFileSync(join(repoRoot, 'tests', 'fixtures', 'kv-cache.json'), 'utf8'));
let mod;
before(async () => {
  mod = await loadWasm();
});

for (const v of fixture.vectors) {
  test(`kv cache: ${v.preset} ${v.kv_precision}`, () => {
    const scenario = {
      mode: 'inference', model: v.preset, system: 'dgx-b200', parallelism: { tp: 1 },
      inference: { batch: 1, input_tokens: fixture.context - fixture.output_tokens, output_tokens: fixture.output_tokens, kv_precision: v.kv_precision },
    };
    const out = JSON.parse(mod.evaluate(JSON.stringify(scenario)));
    assert.equal(out.error, undefined, JSON.stringify(out.error));
    const types = out.inference.kv_cache_by_layer_type;
    assert.equal(types.length, v.layer_types.length);
    let full = 0;
    v.layer_types.forEach((want, i) => {
      assert.equal(types[i].type, want.type);
      assert.equal(types[i].layers, want.layers);
      assert.equal(types[i].bytes_per_token_per_layer, want.bytes_per_token_per_layer);
      assert.equal(types[i].tokens_cached, want.tokens_cached);
      if ('bytes_per_sequence' in want) assert.equal(types[i].bytes_per_sequence, want.bytes_per_sequence);
      if (types[i].tokens_cached === fixture.context) full += types[i].bytes_per_token;
    });
    assert.equal(full, v.full_context_bytes_per_token);
    assert.equal(out.inference.memory_bytes.kv_cache, v.bytes_per_sequence);
  });
}
