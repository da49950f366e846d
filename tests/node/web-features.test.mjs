// Pure page logic behind sharing, embedding, compare, export and the system
// overrides, against the real schema and presets from the wasm module.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { decodeStateReport, encodeState, MAX_HASH } from '../../web/src/state/url-state.js';
import { baseline, buildScenario } from '../../web/src/state/scenario.js';
import { isNumeric, isScenarioField, systemScenario, systemValue } from '../../web/src/state/fields.js';
import { Store } from '../../web/src/state/store.js';
import { embedSnippet, embedUrl } from '../../web/src/views/embed.js';
import { compareRows, stateDiff } from '../../web/src/views/compare.js';
import { opsToCsv } from '../../web/src/views/export.js';
import { WARM_UP_SCENARIO } from '../../web/src/client/warm-up.js';
import { pageContext } from './wasm.mjs';

let mod, schema, presets, defaults;
before(async () => ({ mod, schema, presets, defaults } = await pageContext()));

test('url keys are unique and leave the page keys free; the system fields say where they live', () => {
  const urls = schema.fields.filter((f) => f.url).map((f) => f.url);
  assert.equal(new Set(urls).size, urls.length);
  for (const k of ['v', 'pin', 'embed', 'view']) assert.ok(!urls.includes(k));
  const system = schema.fields.filter((f) => f.group === 'system' && f.type !== 'preset');
  assert.ok(system.length >= 11);
  for (const f of system) assert.match(String(f.at), /^[a-z_]+(\.[a-zA-Z0-9_]+)*$/, f.key);
  assert.equal(schema.fields.find((f) => f.key === 'model.name').type, 'string');
});

test('decode reports what it set aside; oversized hashes are refused whole', () => {
  const r = decodeStateReport(schema, '#v=2&zzz=1&mode=sideways&tp=4', defaults);
  assert.equal(r.state.values['parallelism.tp'], '4');
  assert.equal(r.issues.length, 3, r.issues.join('\n'));
  const big = decodeStateReport(schema, 'v=1&tp=2&' + 'x'.repeat(MAX_HASH), defaults);
  assert.deepEqual(big.state, defaults);
  assert.match(big.issues[0], /too long/);
  const e = decodeStateReport(schema, 'v=1&embed=1&view=roofline', defaults);
  assert.deepEqual([e.embed, e.view], [true, 'roofline']);
});

test('a pin round-trips through the URL and is never nested', () => {
  const state = structuredClone(defaults);
  state.values['parallelism.tp'] = '2';
  state.pin = encodeState(schema, { ...state, values: { 'parallelism.tp': '4' } }, { pin: false });
  const hash = encodeState(schema, state);
  const back = decodeStateReport(schema, hash, defaults).state;
  assert.deepEqual(back, state);
  const pinned = decodeStateReport(schema, back.pin, defaults).state;
  assert.equal(pinned.values['parallelism.tp'], '4');
  assert.equal(pinned.pin, undefined);
  assert.deepEqual(stateDiff(schema, pinned, back), [{ key: 'parallelism.tp', from: '4', to: '2' }]);
});

test('system overrides copy the preset arrays whole and evaluate', () => {
  const state = structuredClone(defaults);
  Object.assign(state.values, { 'system.peak_bf16_tflops': '500', 'system.hbm_GBps': '1000', 'system.nvlink_GBps': '100', 'model.name': 'mine' });
  const { scenario, errors } = buildScenario(schema, state, presets);
  assert.deepEqual(errors, []);
  const preset = presets.systems[defaults.system].system;
  assert.equal(scenario.system.device.memory.length, preset.device.memory.length);
  assert.equal(scenario.system.network.length, preset.network.length);
  assert.deepEqual(scenario.model, { preset: defaults.model, name: 'mine' });
  const out = JSON.parse(mod.evaluate(JSON.stringify(scenario)));
  assert.equal(out.error, undefined, JSON.stringify(out.error));
  assert.equal(out.device.peak_flops, 500e12);
  assert.equal(out.model.name, 'mine');
  assert.deepEqual(systemScenario('x', preset, []), { system: 'x', missing: [] });
});

test('embed URL and snippet escape the state and carry embed=1&view', () => {
  const url = embedUrl('https://e.org/llmcalc/#old', 'v=1&mnm=%3Cb%3E"x', 'memory');
  assert.equal(url, 'https://e.org/llmcalc/#v=1&mnm=%3Cb%3E%22x&embed=1&view=memory');
  const s = embedSnippet('https://e.org/llmcalc/', 'v=1&tp=2', 'nope');
  assert.match(s, /src="https:\/\/e\.org\/llmcalc\/#v=1&amp;tp=2&amp;embed=1&amp;view=summary"/);
  assert.doesNotMatch(s.split('\n')[0], /<[^i/]/);
});

test('compare rows say better or worse by the direction of each metric', () => {
  const a = { training: { iteration_time_s: 10, tokens_per_s: 100, mfu: 0.5 }, gpus: 8 };
  const b = { training: { iteration_time_s: 8, tokens_per_s: 90, mfu: 0.5 }, gpus: 8 };
  const rows = Object.fromEntries(compareRows(a, b, 'training', 'training').map((r) => [r.key, r]));
  assert.equal(rows.iteration_time_s.verdict, 'better');
  assert.ok(Math.abs(rows.iteration_time_s.delta + 0.2) < 1e-12);
  assert.equal(rows.tokens_per_s.verdict, 'worse');
  assert.equal(rows.mfu.verdict, 'same');
  assert.deepEqual(compareRows(a, { inference: {} , gpus: 4 }, 'training', 'inference').map((r) => r.key), ['gpus']);
  // labelled in the devices' own word: GPUs on both, chips on two TPUs, devices across the two
  assert.equal(rows.gpus.label, 'GPUs');
  const tpu = { ...b, training: { ...b.training, tflops_per_gpu: 300 }, device: { unit_name: 'chip' } };
  const chips = Object.fromEntries(compareRows({ ...tpu, training: { ...tpu.training, tflops_per_gpu: 200 } }, tpu, 'training', 'training').map((r) => [r.key, r.label]));
  assert.equal(chips.gpus, 'Chips');
  assert.equal(chips.tflops_per_gpu, 'TFLOP/s per chip');
  const mixed = Object.fromEntries(compareRows({ ...a, training: { ...a.training, tflops_per_gpu: 200 } }, tpu, 'training', 'training').map((r) => [r.key, r.label]));
  assert.equal(mixed.gpus, 'Devices');
  assert.equal(mixed.tflops_per_gpu, 'TFLOP/s per device');
});

test('ops CSV: a header, one row per op, quoted and formula-safe', () => {
  const csv = opsToCsv({ ops: [{ name: 'a,"b"', phase: 'fwd', kind: 'gemm', count: 2, flops: 10, bytes: { hbm: 4 }, time_s: 0.5, bound: 'compute' }, { name: '=cmd()', time_s: NaN }] });
  const lines = csv.trim().split('\r\n');
  assert.equal(lines.length, 3);
  assert.equal(lines[1], '1,"a,""b""",fwd,gemm,2,10,4,,,,0.5,1,compute');
  assert.match(lines[2], /^2,'=cmd\(\),/);
});

const field = (key) => schema.fields.find((f) => f.key === key);

test('every system field reads its preset value and, overridden, reaches the core', () => {
  const preset = presets.systems['dgx-h100'].system;
  const want = {
    'system.peak_fp8_tflops': 1500, 'system.l2_MiB': 64, 'system.l2_GBps': 9000, 'system.matmul_eff': 0.5,
    'system.gpus_per_node': 4, 'system.nvlink_span': 4, 'system.hbm_GiB': 100, 'system.ib_GBps': 25,
  };
  for (const key of Object.keys(want)) assert.ok(Number.isFinite(systemValue(field(key), preset)), `${key} has a preset value`);
  const { system: sys, missing } = systemScenario('dgx-h100', preset, Object.entries(want).map(([k, v]) => [field(k), v]));
  assert.deepEqual(missing, []);
  const out = JSON.parse(mod.evaluate(JSON.stringify({ mode: 'training', model: 'llama3.1-8b', system: sys,
    parallelism: { tp: 4, dp: 2 }, training: { global_batch: 16 } })));
  assert.equal(out.error, undefined, JSON.stringify(out.error));
  // The same system object, read back field by field, gives what was set.
  const merged = structuredClone(preset);
  Object.assign(merged, { gpus_per_node: sys.gpus_per_node, network: sys.network });
  merged.device = { ...preset.device, memory: sys.device.memory,
    matmul_tflops: { ...preset.device.matmul_tflops, ...sys.device.matmul_tflops },
    efficiency: { ...preset.device.efficiency, matmul: { ...preset.device.efficiency.matmul, ...sys.device.efficiency.matmul } } };
  for (const [key, v] of Object.entries(want)) assert.equal(systemValue(field(key), merged), v, key);
  // A slower GEMM ceiling makes the same plan slower.
  const base = JSON.parse(mod.evaluate(JSON.stringify({ mode: 'training', model: 'llama3.1-8b', system: 'dgx-h100',
    parallelism: { tp: 4, dp: 2 }, training: { global_batch: 16 } })));
  const slow = JSON.parse(mod.evaluate(JSON.stringify({ mode: 'training', model: 'llama3.1-8b',
    system: systemScenario('dgx-h100', preset, [[field('system.matmul_eff'), 0.5]]).system, parallelism: { tp: 4, dp: 2 }, training: { global_batch: 16 } })));
  assert.ok(slow.training.iteration_time_s > base.training.iteration_time_s);
});

test('system paths: a capacity in one unit clears the other; one efficiency number becomes the object form', () => {
  const sys = { device: { efficiency: { matmul: 0.8 }, memory: [{ name: 'l2', capacity_GiB: 0.05 }, { name: 'hbm', capacity_MiB: 81920 }] }, network: [{ name: 'nvlink', bandwidth_GBps: 450 }] };
  assert.equal(systemValue(field('system.matmul_eff'), sys), 0.8, 'one number for every precision');
  assert.equal(systemValue(field('system.hbm_GBps'), sys), null);
  const { system, missing } = systemScenario('p', sys, [[field('system.hbm_GiB'), 141], [field('system.l2_MiB'), 60], [field('system.matmul_eff'), 0.7], [field('system.ib_GBps'), 50]]);
  assert.deepEqual(system.device.memory, [{ name: 'l2', capacity_MiB: 60 }, { name: 'hbm', capacity_GiB: 141 }]);
  assert.deepEqual(system.device.efficiency, { matmul: { bf16: 0.7 } });
  assert.deepEqual(missing.map((f) => f.key), ['system.ib_GBps'], 'no infiniband tier to set');
  assert.equal(sys.device.memory[1].capacity_MiB, 81920, 'the preset is not changed');
});

// Every option the page offers for a choice is a value the engine takes
// (one the device cannot run, or one that needs another field set, is
// refused with its reason, not as unknown).
test('every option of every scenario choice, set in the page, is accepted by the real engine', () => {
  const store = new Store(structuredClone(schema), presets);
  let checked = 0;
  for (const f of schema.fields.filter((g) => isScenarioField(g) && g.type === 'enum')) {
    for (const mode of f.modes || ['training', 'inference']) {
      for (const option of f.values) {
        const state = store.example(mode);
        state.values[f.key] = option;
        const { scenario, errors } = buildScenario(schema, state, presets);
        assert.deepEqual(errors, [], `${mode} ${f.key}=${option}`);
        const out = JSON.parse(mod.evaluate(JSON.stringify(scenario)));
        if (out.error?.path === f.key) assert.match(out.error.message, /the device has no|needs training\.(lora_rank|precision)|needs parallelism\.zero 3|needs inference\.weight_precision/, `${mode} ${f.key}=${option}: ${out.error.message}`);
        checked += 1;
      }
    }
  }
  assert.ok(checked > 60, `${checked} checked`);
});

// Every numeric input a person can set in the page (the scenario fields of
// the schema, system figures included), at its baseline value (or a value in
// range when it has none) on the first screen of its mode, reaches the core
// as a key it knows.
test('every numeric scenario field, set in the page, evaluates with the real engine (no unknown key)', () => {
  const store = new Store(structuredClone(schema), presets);
  let checked = 0;
  for (const f of schema.fields.filter((g) => isScenarioField(g) && isNumeric(g))) {
    for (const mode of f.modes || ['training', 'inference']) {
      const state = store.example(mode);
      const b = baseline(f, state, presets);
      const v = b !== null && b !== undefined ? b : f.min > 0 ? f.min : Math.min(1, f.max);
      state.values[f.key] = String(v);
      // a moe object needs its expert count (the first screens are dense models)
      if (f.key.startsWith('model.moe.') && baseline(field('model.moe.experts'), state, presets) === null) state.values['model.moe.experts'] ??= String(field('model.moe.experts').min);
      const { scenario, errors } = buildScenario(schema, state, presets);
      assert.deepEqual(errors, [], `${mode} ${f.key}`);
      const out = JSON.parse(mod.evaluate(JSON.stringify(scenario)));
      assert.doesNotMatch(String(out.error?.message), /unknown key/i, `${mode} ${f.key}: ${JSON.stringify(out.error)}`);
      // A baseline value changes nothing: the scenario still evaluates. A
      // field of an optional object the preset lacks (model.mla.*,
      // model.attention.*, model.linear_attention.*) starts that object, whose other keys are required.
      const sub = /^model\.(mla|attention|linear_attention)\./.exec(f.key);
      const starts = sub && !presets.models?.[state.model]?.model?.[sub[1]];
      if (b !== null && b !== undefined && !starts) assert.equal(out.error, undefined, `${mode} ${f.key} = ${v}: ${JSON.stringify(out.error)}`);
      checked += 1;
    }
  }
  assert.ok(checked > 40, `${checked} checked`);
});

// The worker's warm-up evaluation (web/src/client/warm-up.js) must run the
// model, not stop at an error (a renamed preset would leave the code cold).
test('the worker warm-up scenario evaluates a training plan without error', () => {
  const r = JSON.parse(mod.evaluate(WARM_UP_SCENARIO));
  assert.equal(r.error, undefined, JSON.stringify(r.error));
  assert.ok(r.training.iteration_time_s > 0);
});
