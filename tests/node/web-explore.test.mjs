// The Search / Sweep / Studies state in the URL hash (explore-state.js via
// url-state.js) and the pure helpers of those views, against the real schema.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { decodeStateReport, encodeState } from '../../web/src/url-state.js';
import { withPageFields } from '../../web/src/page-fields.js';
import { heatmapAxes } from '../../web/src/search-view.js';
import { corePath, sweepInputs } from '../../web/src/sweep-view.js';
import { loadWasm } from './wasm.mjs';

let mod;
let schema;
let defaults;
before(async () => {
  mod = await loadWasm();
  schema = withPageFields(JSON.parse(mod.schema()));
  const def = (k) => schema.fields.find((f) => f.key === k).default;
  defaults = { mode: def('mode'), model: def('model'), system: def('system'), values: {} };
});

test('explore keys do not collide with the schema url keys', async () => {
  const { EXPLORE_KEYS } = await import('../../web/src/explore-state.js');
  const urls = new Set(schema.fields.map((f) => f.url));
  for (const k of [...Object.keys(EXPLORE_KEYS), 'view']) assert.ok(!urls.has(k), k);
});

test('view and settings round-trip; defaults stay out of the hash', () => {
  const state = structuredClone(defaults);
  state.values['training.global_batch'] = '64';
  state.view = 'sweep';
  state.x = { wi: 'system.hbm_GBps', wf: '1000', wt: '8000', wn: '8', wl: '0', wo: 'training.mfu,training.tokens_per_s', wr: 'dgx-h100,dgx-b200' };
  const hash = encodeState(schema, state);
  assert.equal(hash, 'v=1&gb=64&view=sweep&wi=system.hbm_GBps&wf=1000&wt=8000&wn=8&wl=0&wo=training.mfu%2Ctraining.tokens_per_s&wr=dgx-h100%2Cdgx-b200');
  const back = decodeStateReport(schema, hash, defaults);
  assert.deepEqual(back.issues, []);
  assert.deepEqual(back.state, state);
  assert.equal(encodeState(schema, structuredClone(defaults)), 'v=1');
  const study = decodeStateReport(schema, 'view=study&study=gpu-generations', defaults).state;
  assert.equal(study.view, 'study');
  assert.deepEqual(study.x, { study: 'gpu-generations' });
  // a pinned state carries no view
  state.pin = encodeState(schema, state, { pin: false });
  assert.doesNotMatch(state.pin, /view|wi=/);
});

test('bad explore values are reported and dropped; embed keeps view= for itself', () => {
  const r = decodeStateReport(schema, 'view=search&qg=1%3Cscript%3E&study=nope&wi=a b', defaults);
  assert.equal(r.state.view, 'search');
  assert.equal(r.state.x, undefined);
  assert.match(r.issues.join(' '), /qg = "1<script>".*study = "nope"/);
  const e = decodeStateReport(schema, 'embed=1&view=pipeline', defaults);
  assert.equal(e.view, 'pipeline');
  assert.equal(e.state.view, undefined);
  assert.equal(decodeStateReport(schema, 'view=search&embed=1', defaults).state.view, undefined);
});

test('heatmap axes: divisors up to 64 with tp x pp dividing the GPUs; fixed ones stay', () => {
  const a = heatmapAxes(16, {});
  assert.deepEqual(a.tps, [1, 2, 4, 8, 16]);
  assert.equal(a.cells.length, 15);
  const b = heatmapAxes(1024, { tp: 8 });
  assert.deepEqual(b.tps, [8]);
  assert.deepEqual(b.pps, [1, 2, 4, 8, 16, 32, 64]);
});

test('every sweep input is accepted by the core sweep', () => {
  for (const mode of ['training', 'inference']) {
    for (const f of sweepInputs(schema, mode)) {
      if (f.key.startsWith('model.moe') || f.key === 'training.tokens') continue;
      const doc = { mode, model: 'llama3.1-8b', system: 'dgx-h100', [mode]: {}, sweep: { input: corePath(f.key), from: 1, to: 2, steps: 2, outputs: [mode === 'training' ? 'training.iteration_time_s' : 'inference.tpot_s'] } };
      const out = JSON.parse(mod.sweep(JSON.stringify(doc)));
      assert.ok(out.sweep, `${f.key}: ${JSON.stringify(out.error)}`);
      assert.equal(out.sweep.x.length, 2, f.key);
    }
  }
});

test('technology-nodes budget keys: validated from the URL, sent as the core params', async () => {
  const { technologyParams } = await import('../../web/src/explore-state.js');
  const r = decodeStateReport(schema, 'view=study&study=technology-nodes&tw=900&ta=600&tr=ampere&th=HBM3&tx=<x>', defaults);
  assert.deepEqual(r.state.x, { study: 'technology-nodes', tw: '900', ta: '600', tr: 'ampere', th: 'HBM3' });
  assert.match(r.issues.join(' '), /tx/);
  assert.deepEqual(technologyParams(r.state.x), { tdp_W: 900, die_area_mm2: 600, architecture: 'ampere', hbm: 'HBM3' });
  assert.equal(technologyParams({ study: 'technology-nodes' }), null);
});
