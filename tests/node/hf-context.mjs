// Shared by the Hugging Face import tests (hf-config*.test.mjs): the real
// core (loaded once per file with loadContext in before()), its presets, and
// checks of an imported model against them.
import assert from 'node:assert/strict';
import { loadWasm } from './wasm.mjs';

export const ctx = { mod: null, presets: null };
export async function loadContext() {
  ctx.mod = await loadWasm();
  ctx.presets = JSON.parse(ctx.mod.presets());
}

export const ARCH = ['layers', 'hidden', 'heads', 'kv_heads', 'head_dim', 'ffn_hidden', 'ffn_type', 'norm', 'vocab', 'tied_embeddings'];

export function samePreset(model, presetId) {
  const p = ctx.presets.models[presetId].model;
  for (const k of ARCH) assert.equal(model[k], p[k], `${presetId}.${k}`);
  if (p.moe) {
    assert.equal(model.moe.experts, p.moe.experts);
    assert.equal(model.moe.top_k, p.moe.top_k);
  }
}

export function evaluates(model) {
  const scenario = { mode: 'inference', model, system: 'dgx-h100', parallelism: { tp: 1 }, inference: { batch: 1, input_tokens: 128, output_tokens: 8 } };
  const out = JSON.parse(ctx.mod.evaluate(JSON.stringify(scenario)));
  assert.equal(out.error, undefined, JSON.stringify(out.error));
  return out;
}

// The preset's model with what config.json says differently: the label and
// the context length (the presets keep the pre-training length).
export function asPreset(r, presetId) {
  const p = ctx.presets.models[presetId].model;
  // the lengths differ: a preset's seq_len is the pre-training length and its
  // context the published window, a config's max_position_embeddings YaRN's ceiling
  const { name: _n, seq_len: _s, context: _c, ...got } = r.model;
  const { name: _pn, seq_len: _ps, context: _pc, ...want } = p;
  assert.deepEqual(got, want, presetId);
}

export async function closest(model) {
  const { closestPreset } = await import('../../web/src/form/custom-model.js');
  const schema = JSON.parse(ctx.mod.schema());
  const keys = schema.fields.filter((f) => f.key.startsWith('model.') && f.key !== 'model.name').map((f) => f.key.slice(6));
  return closestPreset(model, ctx.presets.models, keys);
}

export function kvTypes(model, system = 'gb200-nvl72', tp = 8) {
  const scenario = { mode: 'inference', model, system, parallelism: { tp }, inference: { batch: 1, input_tokens: 1024, output_tokens: 8 } };
  const out = JSON.parse(ctx.mod.evaluate(JSON.stringify(scenario)));
  assert.equal(out.error, undefined, JSON.stringify(out.error));
  return out.inference.kv_cache_by_layer_type;
}
