// The Search / Sweep / Studies state in the URL hash (the schema's request
// fields, state/explore-state.js via state/url-state.js) and the pure helpers
// of those views, against the real schema; every sweep input the page offers
// is accepted by the core's sweep.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { decodeStateReport, encodeState } from '../../web/src/state/url-state.js';
import { exploreKeys, studyNames, technologyParams } from '../../web/src/state/explore-state.js';
import { baseline, buildScenario } from '../../web/src/state/scenario.js';
import { Store } from '../../web/src/state/store.js';
import { heatmapAxes, ownPlanText, releasePlan, searchSpec } from '../../web/src/views/search-view.js';
import { batchingWords, frontBatchingWords, moreGpusText, narrowedText, narrowerWeights, nextGpuCount } from '../../web/src/views/plan-words.js';
import { sweepInputs, systemsMemory } from '../../web/src/views/sweep-view.js';
import { pageContext } from './wasm.mjs';

let mod, schema, presets, defaults;
before(async () => ({ mod, schema, presets, defaults } = await pageContext()));

test('request fields: each with a url key but budget.node; none collides with the page keys', () => {
  const keys = exploreKeys(schema);
  for (const url of ['qg', 'qt', 'qf', 'qo', 'qx', 'wi', 'wf', 'wt', 'wn', 'wl', 'wo', 'wr', 'study', 'tw', 'ta', 'tx', 'tr', 'th']) assert.ok(keys.has(url), url);
  for (const k of ['v', 'pin', 'embed', 'view']) assert.ok(!keys.has(k), k);
  const requests = new Set(schema.fields.filter((f) => f.request).map((f) => f.request));
  assert.deepEqual([...requests].sort(), ['derive', 'search', 'study', 'sweep']);
  assert.deepEqual(studyNames(schema), ['gpu-generations', 'technology-nodes', 'dram-scaling', 'inference-boundedness', 'systems', 'scaling', 'models', 'published-runs']);
});

test('view and settings round-trip; defaults stay out of the hash; old wl=0 is linear', () => {
  const state = structuredClone(defaults);
  state.values['training.global_batch'] = '64';
  state.view = 'sweep';
  state.x = { 'sweep.input': 'system.hbm_GBps', 'sweep.from': '1000', 'sweep.to': '8000', 'sweep.steps': '8', 'sweep.scale': 'lin', 'sweep.outputs': 'training.mfu,training.tokens_per_s', 'sweep.series': 'dgx-h100,dgx-b200' };
  const hash = encodeState(schema, state);
  assert.equal(hash, 'v=1&gb=64&view=sweep&wi=system.hbm_GBps&wf=1000&wt=8000&wn=8&wl=lin&wo=training.mfu%2Ctraining.tokens_per_s&wr=dgx-h100%2Cdgx-b200');
  const back = decodeStateReport(schema, hash, defaults);
  assert.deepEqual(back.issues, []);
  assert.deepEqual(back.state, state);
  assert.equal(encodeState(schema, structuredClone(defaults)), 'v=1');
  // links written before the scale was an enum
  const old = decodeStateReport(schema, hash.replace('wl=lin', 'wl=0'), defaults);
  assert.deepEqual(old.state, state);
  assert.equal(decodeStateReport(schema, 'view=sweep&wl=1', defaults).state.x['sweep.scale'], 'log');
  const study = decodeStateReport(schema, 'view=study&study=gpu-generations', defaults).state;
  assert.equal(study.view, 'study');
  assert.deepEqual(study.x, { 'study.name': 'gpu-generations' });
  // a pinned state carries no view
  state.pin = encodeState(schema, state, { pin: false });
  assert.doesNotMatch(state.pin, /view|wi=/);
});

test('bad explore values are reported and dropped; embed keeps view= for itself', () => {
  const r = decodeStateReport(schema, 'view=search&qg=1%3Cscript%3E&study=nope&wi=a b&wl=sideways', defaults);
  assert.equal(r.state.view, 'search');
  assert.equal(r.state.x, undefined);
  assert.match(r.issues.join(' '), /qg = "1<script>".*study = "nope"/);
  assert.match(r.issues.join(' '), /wl = "sideways"/);
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

test('the search request comes from the schema: defaults, ranges, latency bounds only for inference', () => {
  const t = searchSpec(schema, { ...defaults, x: { 'search.gpus': '16', 'search.max_tpot_s': '0.05' } });
  assert.deepEqual(t.errors, []);
  assert.equal(t.search.gpus, 16);
  assert.ok(Number.isInteger(t.search.top));
  assert.equal(t.search.max_tpot_s, undefined, 'no latency bound in training');
  const i = searchSpec(schema, { ...defaults, mode: 'inference', x: { 'search.max_tpot_s': '0.05', 'search.max_ttft_s': '0' } });
  assert.equal(i.search.max_tpot_s, 0.05);
  assert.equal(i.search.max_ttft_s, undefined, '0 is no bound');
  const bad = searchSpec(schema, { ...defaults, x: { 'search.gpus': '0.5' } });
  assert.match(bad.errors.join(' '), /GPUs: expected a whole number/);
});

// The value a sweep of `field` runs around: its baseline, else a value in range.
function around(field, state) {
  const b = Number(baseline(field, state, presets));
  if (Number.isFinite(b) && b > 0) return b;
  return Math.max(field.min > 0 ? field.min : 1, 1);
}

test('every sweep input of the page, system figures included, is accepted by the core sweep (no unknown key)', () => {
  const store = new Store(structuredClone(schema), presets);
  for (const mode of ['training', 'inference']) {
    const state = store.example(mode);
    const { scenario, errors } = buildScenario(schema, state, presets);
    assert.deepEqual(errors, []);
    const inputs = sweepInputs(schema, mode);
    assert.ok(inputs.some((f) => f.at), 'system figures are offered');
    assert.ok(!inputs.some((f) => f.request), 'request fields are not');
    for (const f of inputs) {
      const v = around(f, state);
      const out = mode === 'training' ? 'training.iteration_time_s' : 'inference.tpot_s';
      const doc = { ...scenario, sweep: { input: f.key, from: v, to: f.type === 'int' ? v + 1 : v * 1.01, steps: 2, scale: 'lin', outputs: [out] } };
      const res = JSON.parse(mod.sweep(JSON.stringify(doc)));
      assert.ok(res.sweep, `${mode} ${f.key}: ${JSON.stringify(res.error)}`);
      // (a global batch lands on multiples of micro_batch x dp, which may merge the two)
      if (res.sweep.x_multiple_of > 1) assert.ok(res.sweep.x.every((x) => x % res.sweep.x_multiple_of === 0), f.key);
      else assert.equal(res.sweep.x.length, 2, f.key);
      const problems = res.sweep.series.flatMap((s) => s.errors || []).map((e) => e.message);
      assert.ok(!problems.some((m) => /unknown key/i.test(m)), `${mode} ${f.key}: ${problems.join('; ')}`);
    }
  }
});

// The core's walk to more GPUs (search output more_gpus) in the Search view's words.
test('no plan fits: the walk to more GPUs in words, found or not', () => {
  const run = (doc) => JSON.parse(mod.search(JSON.stringify(doc))).search;
  const s = run({ mode: 'training', model: 'llama3.1-70b', system: 'dgx-h100', training: { global_batch: 512, seq_len: 8192 }, search: { gpus: 8 } });
  assert.equal(s.feasible, 0);
  assert.match(moreGpusText(s.more_gpus, 'training'), /^Doubling the GPUs, a plan fits on 16 \(fewer than 1[45] cannot hold the weights, gradients and optimizer states; searched 16\): TP \d+ · PP \d+ · DP \d+ · .*\.$/);
  const none = { searched_gpus: [512, 1024], memory_floor_gpus: 284, evaluated: 10 };
  assert.equal(moreGpusText(none, 'inference', 'chip'), 'Doubling the chips, no plan fits on up to 1,024 (fewer than 284 cannot hold the weights; searched 512, 1,024).');
  // the page's own searches for "Find a plan that fits" ask for no walk
  const quiet = run({ mode: 'training', model: 'llama3.1-70b', system: 'dgx-h100', training: { global_batch: 512, seq_len: 8192 }, search: { gpus: 8, more_gpus: false } });
  assert.equal(quiet.more_gpus, undefined);
});

test('no plan fits: the next GPU count is a whole node, then twice the GPUs, skipping counts that cannot hold the leanest plan', () => {
  const GiB = 2 ** 30;
  // one GPU of an 8-GPU node, just over: the node
  assert.deepEqual(nextGpuCount(1, 8, 81 * GiB, 80 * GiB), { gpus: 8, atLeast: 2 });
  // 1.22 TiB of 173 GiB on one GPU of a 72-GPU rack: the rack (at least 8)
  assert.deepEqual(nextGpuCount(1, 72, 1.22 * 1024 * GiB, 173 * GiB), { gpus: 72, atLeast: 8 });
  // 2 TiB of 80 GiB on one GPU: at least 26, so the node doubled twice
  assert.deepEqual(nextGpuCount(1, 8, 2048 * GiB, 80 * GiB), { gpus: 32, atLeast: 26 });
  // a node's worth: twice the GPUs, or more when the bound says so
  assert.deepEqual(nextGpuCount(8, 8, 100 * GiB, 80 * GiB), { gpus: 16, atLeast: 10 });
  assert.deepEqual(nextGpuCount(8, 8, 800 * GiB, 80 * GiB), { gpus: 128, atLeast: 80 });
  // no closest plan: the next size up
  assert.deepEqual(nextGpuCount(4, 8, 0, 0), { gpus: 8, atLeast: 5 });
  assert.deepEqual(nextGpuCount(16, 8, 0, 0), { gpus: 32, atLeast: 17 });
  // no node to offer (a TPU's torus): the count doubles, skipping what cannot hold the plan
  assert.deepEqual(nextGpuCount(8, NaN, 150 * GiB, 95 * GiB), { gpus: 16, atLeast: 13 });
});

test('technology-nodes budget: validated from the URL, sent as the core params', () => {
  const r = decodeStateReport(schema, 'view=study&study=technology-nodes&tw=900&ta=600&tr=ampere&th=HBM3&tx=<x>', defaults);
  assert.deepEqual(r.state.x, { 'study.name': 'technology-nodes', 'budget.tdp_W': '900', 'budget.die_area_mm2': '600', 'budget.architecture': 'ampere', 'budget.hbm': 'HBM3' });
  assert.match(r.issues.join(' '), /tx/);
  assert.deepEqual(technologyParams(schema, r.state.x), { tdp_W: 900, die_area_mm2: 600, architecture: 'ampere', hbm: 'HBM3' });
  assert.equal(technologyParams(schema, { 'study.name': 'technology-nodes' }), null);
  const out = JSON.parse(mod.study_request(JSON.stringify({ name: 'technology-nodes', params: technologyParams(schema, r.state.x) })));
  assert.equal(out.error, undefined, JSON.stringify(out.error));
});

test('chart axes in seconds and bytes: one unit for every tick, from the axis start', async () => {
  const fmt = await import('../../web/src/format.js');
  // 13 s to 200 s: minutes throughout (the unit of the top), ticks from the start
  const t = fmt.axisTicks('seconds', 200, 5, 13);
  assert.deepEqual(t.ticks.map(t.format), ['0.5\u00a0min', '1\u00a0min', '1.5\u00a0min', '2\u00a0min', '2.5\u00a0min', '3\u00a0min']);
  // zero to 26 minutes: 5-minute steps (the nearest whole step to five ticks)
  const z = fmt.axisTicks('seconds', 26 * 60);
  assert.deepEqual(z.ticks.map(z.format), ['0\u00a0min', '5\u00a0min', '10\u00a0min', '15\u00a0min', '20\u00a0min', '25\u00a0min']);
  // memory from 9 GiB to 84 GiB: whole GiB steps, not decimal bytes shown in GiB
  const m = fmt.axisTicks('bytes', 84 * 2 ** 30, 5, 9 * 2 ** 30);
  assert.deepEqual(m.ticks.map(m.format), ['20\u00a0GiB', '40\u00a0GiB', '60\u00a0GiB', '80\u00a0GiB']);
  // bars start at zero, as before
  assert.equal(fmt.axisTicks('seconds', 2).ticks[0], 0);
});

test('log axes: decades, else 1-2-5 steps, labelled without trailing zeros', async () => {
  const fmt = await import('../../web/src/format.js');
  const { logTicks } = await import('../../web/src/charts/plot-kit.js');
  assert.deepEqual(logTicks([0.3, 2000]), [1, 10, 100, 1000]);
  // a sweep of the global batch from 128 to 2048: less than two decades
  assert.deepEqual(logTicks([110, 2400]), [200, 500, 1000, 2000]);
  assert.deepEqual(logTicks([110, 2400]).map(fmt.compact), ['200', '500', '1k', '2k']);
  assert.deepEqual(logTicks([2.1, 4.5]), [3, 4]);
  assert.equal(logTicks([2.1, 2.9]), undefined);  // Plot picks its own
  assert.deepEqual([0.02, 0.125, 1500, 2.5e6, 1e15].map(fmt.compact), ['0.02', '0.125', '1.5k', '2.5M', '1P']);
  assert.equal(fmt.num(1000), '1.00k');  // values keep three digits
  // a unit format (a sweep's iteration time) drops its trailing zeros on a tick
  const tick = fmt.trimmed(fmt.seconds);
  assert.deepEqual([10, 20, 50, 100, 0.0015, 1.25].map(tick).map((t) => t.replace('\u00a0', ' ')), ['10 s', '20 s', '50 s', '100 s', '1.5 ms', '1.25 s']);
  assert.deepEqual([0.1, 0.25].map(fmt.trimmed(fmt.percent)), ['10%', '25%']);
});

test("a sweep's memory word: the systems' own when they share it, HBM across HBMs, DRAM across HBM and GDDR", () => {
  assert.equal(systemsMemory(presets, ['l4']), 'GDDR6');
  assert.equal(systemsMemory(presets, ['dgx-h100', 'dgx-h200']), '');  // HBM3 and HBM3e: HBM stays
  assert.equal(systemsMemory(presets, ['dgx-h100', 'l4']), 'DRAM');
});

test('log axes of durations tick at round values of the unit each label is in', async () => {
  const fmt = await import('../../web/src/format.js');
  const { durationLogTicks } = await import('../../web/src/charts/plot-kit.js');
  const labels = (d, least = 2) => durationLogTicks(d, least).map(fmt.trimmed(fmt.seconds)).map((t) => t.replace('\u00a0', ' '));
  // a sweep's iteration time from 4 to 62 minutes: 1-2-5 seconds would read 8.33 min, 16.7 min, 33.3 min
  assert.deepEqual(labels([240, 3700]), ['5 min', '10 min', '20 min', '50 min']);
  // below two minutes, decades of seconds as before; then whole minutes
  assert.deepEqual(labels([0.3, 2000]), ['1 s', '10 s', '100 s', '10 min']);
  assert.deepEqual(labels([1e-4, 0.05]), ['100 µs', '1 ms', '10 ms']);
  // one decade tick (10 h) is too few: 1-2-5 hours
  assert.deepEqual(labels([3 * 3600, 40 * 3600]), ['5 h', '10 h', '20 h']);
  // where seconds meet minutes no tick crowds the one before (100 s, 2 min)
  assert.deepEqual(labels([100, 400]), ['100 s', '5 min']);
  // three at least (a y axis): 1-2-5 gives 50 s and 100 s only, so every mantissa, none crowding
  assert.deepEqual(labels([25, 190], 3), ['30 s', '50 s', '80 s', '2 min', '3 min']);
  assert.equal(durationLogTicks([130, 170]), undefined);  // Plot picks its own
});

test('counts read in the singular for one: a one-point sweep says "1 value"', async () => {
  const fmt = await import('../../web/src/format.js');
  assert.deepEqual([0, 1, 2, 1500].map((n) => fmt.many(n, 'value')), ['0 values', '1 value', '2 values', '1,500 values']);
  assert.equal(fmt.many(1, 'series', 'series'), '1 series');
  assert.equal(fmt.many(3, 'series', 'series'), '3 series');
});

// The unit follows the rounded value: 0.9997 s is "1.00 s", not "1000 ms" (a
// search heatmap's cell once read "1000 ms" and overflowed at 390 px).
test('values that round up to the next unit take it: 1.00 s, not 1000 ms', async () => {
  const fmt = await import('../../web/src/format.js');
  const plain = (s) => s.replace('\u00a0', ' ');
  assert.deepEqual([0.9997, 0.9994, 0.0009996, 0.0009994, 9.996e-7].map(fmt.seconds).map(plain),
    ['1.00 s', '999 ms', '1.00 ms', '999 µs', '1.00 µs']);
  assert.deepEqual([999.6, 999.4, 999_700, 99.96].map((x) => fmt.num(x)), ['1.00k', '999', '1.00M', '100']);
  assert.equal(fmt.count(999_800_000), '1.00B');
});

test('log axes of bytes tick at powers of two, thinned to fit', async () => {
  const { octaveTicks, thinTicks } = await import('../../web/src/charts/plot-kit.js');
  const GiB = 2 ** 30;
  // a Pareto front from 2.3 to 56 GiB per GPU: 4, 8, 16, 32 GiB, not 4.66, 9.31, 18.6 GiB (decades of bytes)
  assert.deepEqual(octaveTicks([2.3 * GiB, 56 * GiB]), [4, 8, 16, 32].map((g) => g * GiB));
  assert.deepEqual(octaveTicks([2 * GiB, 64 * GiB], 3), [2, 8, 32].map((g) => g * GiB));
  assert.equal(octaveTicks([5 * GiB, 7 * GiB]), undefined);
  assert.deepEqual(thinTicks([1, 2, 3, 4, 5, 6, 7], 4), [1, 3, 5, 7]);
  assert.deepEqual(thinTicks([1, 2], 4), [1, 2]);
});

test('chart axes in percent: distinct labels however narrow the range', async () => {
  const fmt = await import('../../web/src/format.js');
  // a share of linear scaling between 99.8% and 100.3%: three-digit labels would print "100%" four times
  const n = fmt.axisTicks('percent', 1.003, 5, 0.998);
  assert.deepEqual(n.ticks.map(n.format), ['99.8%', '99.9%', '100%', '100.1%', '100.2%', '100.3%']);
  // a wide range: whole steps
  const w = fmt.axisTicks('percent', 1.05, 5, 0.6);
  assert.deepEqual(w.ticks.map(w.format), ['60%', '70%', '80%', '90%', '100%']);
});

test('FLOP counts and memory labels read as a visitor reads them', async () => {
  const fmt = await import('../../web/src/format.js');
  assert.equal(fmt.flops(1.21e17), '121\u00a0PFLOP');
  assert.equal(fmt.flops(3.2e9), '3.20\u00a0GFLOP');
  assert.equal(fmt.flops(12), '12.0\u00a0FLOP');
  assert.equal(fmt.flops(NaN), '–');
  const result = { device: { roofs: [{ name: 'l2', label: 'l2' }, { name: 'hbm', label: 'GDDR6' }] } };
  assert.equal(fmt.levelLabel(result, 'hbm'), 'GDDR6');
  assert.equal(fmt.levelLabel(result, 'compute'), 'compute');
  assert.equal(fmt.levelLabel({}, 'hbm'), 'hbm');
});

test('parameter counts read as model cards write them (B for billions)', async () => {
  const fmt = await import('../../web/src/format.js');
  assert.equal(fmt.count(8.03e9), '8.03B');
  assert.equal(fmt.count(1.04e12), '1.04T');
  assert.equal(fmt.count(3.5e8), '350M');
  assert.equal(fmt.count(12), '12.0');
  assert.equal(fmt.count(Infinity), '–');
});

test('no serving plan fits: the weight precisions tried next are the narrower ones, fp8 then int4', () => {
  assert.deepEqual(narrowerWeights('bf16'), ['fp8', 'int4']);
  assert.deepEqual(narrowerWeights('fp32'), ['fp8', 'int4']);
  assert.deepEqual(narrowerWeights(undefined), ['fp8', 'int4'], 'the default is bf16');
  assert.deepEqual(narrowerWeights('fp8'), ['int4']);
  assert.deepEqual(narrowerWeights('int8'), ['int4']);
  assert.deepEqual(narrowerWeights('int4'), []);
  assert.deepEqual(narrowerWeights('fp4'), []);
  assert.deepEqual(narrowerWeights('mxfp4'), [], 'GPT-OSS checkpoints are 4-bit already');
  assert.deepEqual(narrowerWeights('nvfp4'), []);
  assert.equal(narrowedText('fp8', { inference: { compute_precision: 'fp8' } }), 'fp8 weights and fp8 math (W8A8)');
  assert.equal(narrowedText('fp8', { inference: { compute_precision: 'bf16' } }), 'fp8 weights (weight-only kernels, bf16 math)');
  assert.equal(narrowedText('int4', { inference: {} }), 'int4 weights (weight-only kernels, bf16 math)');
});

test('no serving plan fits: the format a model is released in is tried first, then those narrower than it', () => {
  assert.deepEqual(narrowerWeights('bf16', 'mxfp4'), ['mxfp4'], 'gpt-oss: int4 holds no less than mxfp4');
  assert.deepEqual(narrowerWeights('bf16', 'fp8'), ['fp8', 'int4'], 'DeepSeek-V3: fp8 once, then int4');
  assert.deepEqual(narrowerWeights('fp8', 'fp8'), ['int4'], 'stored as released: the ladder below');
  assert.deepEqual(narrowerWeights('mxfp4', 'mxfp4'), []);
  assert.deepEqual(narrowerWeights('fp8', 'mxfp4'), ['mxfp4']);
  assert.deepEqual(narrowerWeights('bf16', 'bf16'), ['fp8', 'int4'], 'a 16-bit release changes nothing');
  assert.equal(narrowedText('mxfp4', { inference: {} }, 'mxfp4'), 'mxfp4 weights (weight-only kernels, bf16 math), the format the model is released in');
  assert.equal(narrowedText('fp8', { inference: { compute_precision: 'fp8' } }, 'fp8'), 'fp8 weights and fp8 math (W8A8), the format the model is released in');
  assert.equal(narrowedText('int4', { inference: {} }, 'fp8'), 'int4 weights (weight-only kernels, bf16 math)');
});

test('search: the page searches the whole plan by default; the plan on the left is compared with the best found', () => {
  const state = { mode: 'training', values: {} };
  assert.equal(searchSpec(schema, state).search.vary, 'plan');
  assert.equal(searchSpec(schema, { ...state, x: { 'search.vary': 'unset' } }).search.vary, 'unset');
  // releasePlan leaves what the core's "plan" search frees: each heatmap cell fixes only tp and pp.
  const given = { mode: 'training', model: 'llama3.1-8b', system: 'dgx-h100', parallelism: { tp: 2, dp: 4, zero: 1, reduce_precision: 'bf16' }, training: { global_batch: 64, micro_batch: 2, recompute: 'full' } };
  const free = releasePlan(given);
  assert.deepEqual(free.parallelism, { reduce_precision: 'bf16' });
  assert.deepEqual(free.training, { global_batch: 64 });
  assert.equal(given.parallelism.tp, 2, 'the scenario itself is left alone');
  // Against the core: the plan on the left, and the best of a whole-plan search on its GPUs.
  const own = JSON.parse(mod.evaluate(JSON.stringify(given)));
  const found = JSON.parse(mod.search(JSON.stringify({ ...given, search: { vary: 'plan', top: 1 } }))).search;
  const text = ownPlanText(given, own, found.best[0], 'training');
  const m = text.match(/^The plan on the left \(TP 2 · PP 1 · DP 4 · ZeRO 1 · micro-batch 2 · recompute full\) takes [\d.]+\s(s|ms|min), ([\d.]+)% longer than the best plan found\.$/);
  assert.ok(m, text);
  const more = own.training.iteration_time_s / found.best[0].iteration_time_s - 1;
  assert.ok(Math.abs(Number(m[2]) / 100 - more) < 0.01 * more, `${m[2]}% vs ${more}`);
  assert.equal(ownPlanText(given, { training: { fits: false } }, found.best[0], 'training'), 'The plan on the left (TP 2 · PP 1 · DP 4 · ZeRO 1 · micro-batch 2 · recompute full) does not fit.');
  assert.match(ownPlanText(given, own, own.training, 'training'), /takes [\d.]+\s(s|ms|min), as fast as the best plan found\.$/);
});

test('batchingWords names how colocated serving plans interleave prefill with decode', () => {
  assert.equal(batchingWords({ batch: 8 }), 'static batching: each batch is prefilled, then decoded');
  assert.equal(batchingWords({ batching: 'inflight' }), 'in-flight batching: prompts are prefilled whole between decode steps');
  assert.equal(batchingWords({ batching: 'inflight', token_budget: 8192 }), 'in-flight batching with chunked prefill inside the decode steps');
  assert.equal(batchingWords({ batching: 'static', token_budget: 8192 }), 'static batching: each batch is prefilled, then decoded');
  assert.equal(batchingWords(undefined), 'static batching: each batch is prefilled, then decoded');
  // A front's plans: each way they batch once, whatever their budgets.
  const front = [{ inference: { batch: 8 } }, { inference: { batching: 'inflight', token_budget: 512 } }, { inference: { batching: 'inflight', token_budget: 2048 } }];
  assert.equal(frontBatchingWords(front), 'static batching: each batch is prefilled, then decoded; or in-flight batching with chunked prefill inside the decode steps');
  assert.equal(frontBatchingWords(front.slice(0, 1)), 'static batching: each batch is prefilled, then decoded');
  assert.equal(frontBatchingWords([]), 'static batching: each batch is prefilled, then decoded');
});
