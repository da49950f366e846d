// The page's pure logic against the real schema from the wasm module: the URL
// hash codec (short keys, only non-default values, v=1) and the scenario
// builder (what the page sends to evaluate).
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { decodeState, encodeState } from '../../web/src/state/url-state.js';
import { buildScenario, baseline, parseNumber } from '../../web/src/state/scenario.js';
import { Store } from '../../web/src/state/store.js';
import { fieldForPath } from '../../web/src/form/schema-form.js';
import { deviceWords, inDeviceWords, labelFor, systemWords, unitFor } from '../../web/src/state/fields.js';
import { pageContext } from './wasm.mjs';

let mod, schema, presets, defaults;
before(async () => ({ mod, schema, presets, defaults } = await pageContext()));

test('schema fields have unique keys and url keys', () => {
  const keys = schema.fields.map((f) => f.key);
  const urls = schema.fields.filter((f) => f.url).map((f) => f.url);
  assert.equal(new Set(keys).size, keys.length);
  assert.equal(new Set(urls).size, urls.length);
  assert.ok(!urls.includes('v'), '"v" is reserved for the URL version');
});

test('default state encodes to just the version', () => {
  assert.equal(encodeState(schema, defaults), 'v=1');
});

test('hash round-trips and holds only what was set', () => {
  const state = structuredClone(defaults);
  state.mode = 'inference';
  state.model = 'llama3.1-70b';
  state.values['parallelism.tp'] = '8';
  state.values['inference.batch'] = '32';
  state.values['inference.flash_attention'] = false;
  state.values['inference.kv_precision'] = 'fp8';
  const hash = encodeState(schema, state);
  assert.match(hash, /^v=1&/);
  assert.match(hash, /(^|&)tp=8(&|$)/);
  assert.match(hash, /(^|&)ifa=0(&|$)/);
  assert.deepEqual(decodeState(schema, `#${hash}`, defaults), state);
});

test('hostile or unknown hash content is ignored', () => {
  const s = decodeState(schema, '#v=1&zzz=1&mode=<script>&kp=not-a-precision&ifa=maybe&tp=' + 'x'.repeat(500), defaults);
  assert.deepEqual(s, defaults);
  assert.deepEqual(decodeState(schema, '#%E0%A4%A', defaults).mode, defaults.mode);
});

test('scenario: preset ids alone, then preset plus overrides', () => {
  const state = structuredClone(defaults);
  let { scenario, errors } = buildScenario(schema, state, presets);
  assert.deepEqual(errors, []);
  assert.equal(scenario.model, defaults.model);
  assert.equal(scenario.system, defaults.system);
  state.values['model.layers'] = '40';
  state.values['parallelism.tp'] = '2';
  state.values['training.tokens'] = '300e9';
  ({ scenario, errors } = buildScenario(schema, state, presets));
  assert.deepEqual(errors, []);
  assert.deepEqual(scenario.model, { preset: defaults.model, layers: 40 });
  assert.equal(scenario.parallelism.tp, 2);
  assert.equal(scenario.training.tokens, 300e9);
  const out = JSON.parse(mod.evaluate(JSON.stringify(scenario)));
  assert.equal(out.error, undefined, JSON.stringify(out.error));
});

test('scenario: fields of the other mode are left out', () => {
  const state = structuredClone(defaults);
  state.mode = 'inference';
  state.values['training.global_batch'] = '64';
  state.values['parallelism.pp_schedule'] = 'interleaved';
  const { scenario } = buildScenario(schema, state, presets);
  assert.equal(scenario.training, undefined);
  assert.equal(scenario.parallelism.pp_schedule, undefined);
  assert.ok(scenario.inference);
});

test('scenario: text that is not a number is an error at its field', () => {
  const state = structuredClone(defaults);
  state.values['parallelism.tp'] = 'eight';
  const { errors } = buildScenario(schema, state, presets);
  assert.deepEqual(errors, [{ key: 'parallelism.tp', message: 'not a number' }]);
  assert.ok(Number.isNaN(parseNumber('1e')));
  assert.equal(parseNumber(' 1_000 '), 1000);
});

test('model fields take their baseline from the preset', () => {
  const state = structuredClone(defaults);
  const layers = schema.fields.find((f) => f.key === 'model.layers');
  assert.equal(baseline(layers, state, presets), presets.models[defaults.model].model.layers);
  state.model = '';
  assert.equal(baseline(layers, state, presets), layers.default);
});

test('the 16-bit precisions are fp16 by default on a device without bf16 (V100), as the core runs them', () => {
  const state = structuredClone(defaults);
  const field = (k) => schema.fields.find((f) => f.key === k);
  const keys = ['training.precision', 'inference.compute_precision', 'inference.weight_precision', 'inference.kv_precision'];
  for (const k of keys) assert.equal(baseline(field(k), state, presets), 'bf16', `${k} on ${state.system}`);
  state.system = 'dgx-2';
  for (const k of keys) assert.equal(baseline(field(k), state, presets), 'fp16', `${k} on dgx-2`);
  // what the page sends leaves the precision out, and the core runs it in fp16
  state.values = { 'parallelism.tp': '2', 'parallelism.dp': '8' };
  const { scenario, errors } = buildScenario(schema, state, presets);
  assert.deepEqual(errors, []);
  assert.equal(scenario.training?.precision, undefined);
  const out = JSON.parse(mod.evaluate(JSON.stringify(scenario)));
  assert.equal(out.error, undefined, JSON.stringify(out.error));
  assert.equal(out.device.precision, 'fp16');
  // a bf16 peak set on the system makes bf16 the default again
  state.values['system.peak_bf16_tflops'] = '125';
  assert.equal(baseline(field('training.precision'), state, presets), 'bf16');
});

test('device words: a marked field says the system\'s word for a device, capitalised only to start a sentence of help', () => {
  const field = (key) => schema.fields.find((f) => f.key === key);
  const span = inDeviceWords(field('system.nvlink_span'), 'chip');
  assert.equal(`${labelFor(span)} (${unitFor(span)})`, 'scale-up domain (chips)');
  assert.match(span.help, /^Chips in one scale-up domain/);
  const node = inDeviceWords(field('system.gpus_per_node'), 'HPU');
  assert.equal(labelFor(node), 'HPUs per node');
  assert.equal(unitFor(node), '', 'the label names the unit');
  assert.equal(unitFor(field('system.gpus_per_node')), '');
  const price = inDeviceWords(field('cost.gpu_hour_usd'), 'chip');
  assert.equal(labelFor(price), 'price per chip-hour');
  assert.match(price.help, /^Price of one chip-hour .* H100 on-demand/);
  const hours = inDeviceWords(field('reliability.gpu_hours_per_interruption'), 'chip');
  assert.equal(unitFor(hours), 'chip-hours');
  assert.match(hours.help, /^Chip-hours between interruptions .* a job of N chips stops/);
  // an unmarked field, or the GPU word itself, comes back as it is
  const kernel = field('training.attention_kernel');
  assert.equal(inDeviceWords(kernel, 'chip'), kernel);
  assert.equal(inDeviceWords(field('system.nvlink_span'), 'GPU'), field('system.nvlink_span'));
  assert.equal(deviceWords('memory per GPU. GPUs idle', 'chip', true), 'memory per chip. Chips idle');
  assert.equal(deviceWords('GPUs per node', 'chip'), 'chips per node');
  // the device memory by its label: an L4's GDDR6, an H100's HBM3
  assert.deepEqual(systemWords(presets, 'l4'), { unit: 'GPU', memory: 'GDDR6' });
  assert.deepEqual(systemWords(presets, 'tpu-v5p'), { unit: 'chip', memory: 'HBM2e' });
  const capacity = inDeviceWords(field('system.hbm_GiB'), 'GPU', 'GDDR6');
  assert.equal(`${labelFor(capacity)} (${unitFor(capacity)})`, 'GDDR6 (GiB)');
  assert.equal(capacity.help, 'Device memory (GDDR6) capacity.');
  assert.equal(labelFor(inDeviceWords(field('system.hbm_GBps'), 'chip', 'HBM2e')), 'HBM2e');
  assert.equal(inDeviceWords(field('system.hbm_GBps'), 'GPU', ''), field('system.hbm_GBps'));
});

test('error paths map to the closest field', () => {
  const keys = schema.fields.map((f) => f.key);
  assert.equal(fieldForPath(keys, 'parallelism.tp'), 'parallelism.tp');
  assert.equal(fieldForPath(keys, 'model.moe.top_k'), 'model.moe.top_k');
  assert.equal(fieldForPath(keys, 'system.device.memory[0].name'), 'system');
  assert.equal(fieldForPath(keys, 'model.preset'), 'model');
  assert.equal(fieldForPath(keys, ''), null);
});

test('the store: a link decodes against the schema defaults, a first visit is the example that fits', () => {
  const store = new Store(structuredClone(schema), presets);
  assert.deepEqual(store.defaults, defaults);
  // An old link means what it meant: v=1 alone is the schema defaults.
  store.load('v=1');
  assert.deepEqual(store.state, defaults);
  store.load('');
  const first = store.state;
  assert.equal(first.mode, 'training');
  const { scenario, errors } = store.scenario();
  assert.deepEqual(errors, []);
  // The scenario is the schema's training example, as the core reads it.
  const ex = schema.examples.training;
  const same = (a, b) => JSON.parse(mod.evaluate(JSON.stringify(a))).training.iteration_time_s === JSON.parse(mod.evaluate(JSON.stringify(b))).training.iteration_time_s;
  assert.ok(same(scenario, ex), JSON.stringify(scenario));
  const out = JSON.parse(mod.evaluate(JSON.stringify(scenario)));
  assert.equal(out.training.fits, true, 'the first screen fits');
  assert.ok(out.gpus >= 8);
  // Its link holds what differs from the defaults and decodes to the same state.
  const hash = store.hash();
  assert.match(hash, /^v=1&/);
  assert.deepEqual(decodeState(schema, hash, defaults), first);
  // Each mode's example fits; reset goes back to it.
  store.state.mode = 'inference';
  store.reset();
  const inf = JSON.parse(mod.evaluate(JSON.stringify(store.scenario().scenario)));
  assert.equal(inf.error, undefined, JSON.stringify(inf.error));
  assert.equal(inf.inference.fits, true);
});

test('the store: a hand-written link that names only a view opens it on the first screen', () => {
  const store = new Store(structuredClone(schema), presets);
  store.load('');
  const first = structuredClone(store.state);
  const report = store.load('view=search');
  assert.equal(report.view, 'search');
  assert.equal(store.state.view, 'search');
  assert.deepEqual(store.state.values, first.values);
  assert.equal(store.state.model, first.model);
  // The same for an embed of a view.
  store.load('embed=1&view=summary');
  assert.deepEqual(store.state.values, first.values);
  // A link that sets any of the scenario, or that the page wrote (v=), reads
  // against the schema defaults as before.
  store.load('view=search&tp=4');
  assert.equal(store.state.values['parallelism.tp'], '4');
  assert.equal(store.state.values['parallelism.dp'], defaults.values['parallelism.dp']);
  store.load('v=1&view=search');
  assert.deepEqual(store.state.values, defaults.values);
});

test('the store: a link names a tab by its label too; a view the page has not is reported, not silently dropped', () => {
  const store = new Store(structuredClone(schema), presets);
  assert.equal(store.load('view=studies').issues.length, 0);
  assert.equal(store.state.view, 'study');
  store.load('v=1&view=Search&tp=2');
  assert.equal(store.state.view, 'search');
  assert.equal(store.state.values['parallelism.tp'], '2');
  assert.deepEqual(store.load('v=1&view=calculator').issues, []);
  assert.equal(store.state.view, undefined);
  // an embed-only view, a typing slip and a name that is no name: the calculator, said so
  for (const [link, shown] of [['v=1&view=memory', 'memory'], ['v=1&view=serach', 'serach'], ['v=1&view=%3Cb%3E', '<b>']]) {
    const report = store.load(link);
    assert.equal(store.state.view, undefined, link);
    assert.equal(report.issues.length, 1, link);
    assert.match(report.issues[0], new RegExp(`^Ignored the view "${shown}" in the link`), link);
  }
  // an embed keeps its chart view's name (embed.js says what it cannot draw)
  const embed = store.load('embed=1&view=Memory');
  assert.equal(embed.view, 'memory');
  assert.deepEqual(embed.issues, []);
});

test('the store: a link naming presets by their aliases opens on their ids; an unknown id stays for the form to flag', () => {
  const store = new Store(structuredClone(schema), presets);
  store.load('v=1&m=llama3-70b&s=h100&dp=8');
  assert.equal(store.state.model, 'llama3.1-70b');
  assert.equal(store.state.system, 'dgx-h100');
  assert.equal(store.hash(), 'v=1&m=llama3.1-70b&dp=8');  // dgx-h100 is the default system
  // the system's figures are the baselines again (an alias had none)
  assert.equal(baseline(schema.fields.find((f) => f.key === 'system.hbm_GiB'), store.state, presets), 80);
  store.load('view=search&s=mi300x');
  assert.equal(store.state.system, 'amd-mi300x');
  assert.match(store.hash(), /(^|&)s=amd-mi300x(&|$)/);
  store.load('v=1&s=h10');
  assert.equal(store.state.system, 'h10');
});

test('the store: one commit per change, named by its kind', () => {
  const store = new Store(structuredClone(schema), presets);
  store.load('v=1');
  const kinds = [];
  store.subscribe((c) => kinds.push(c.kind));
  store.edit('parallelism.tp', '2');
  store.edit('training.recompute', 'full');
  store.edit('training.recompute', 'selective'); // back to the baseline: forgotten
  store.setX('search.gpus', '16', true);
  store.setView('search');
  store.applyPlan({ parallelism: { tp: 4, pp: 1, dp: 2, sp: true }, training: { micro_batch: 2, recompute: 'selective' } });
  assert.deepEqual(kinds, ['typing', 'edit', 'edit', 'settings', 'view', 'replace']);
  assert.deepEqual(store.state.values, { 'parallelism.tp': '4', 'parallelism.dp': '2', 'parallelism.sp': true, 'training.micro_batch': '2' });
  assert.equal(store.state.view, undefined, 'applying a plan returns to the calculator');
  assert.deepEqual(store.state.x, { 'search.gpus': '16' });
});

test('applying a serving plan the search ran with chunked prefill sets its batching and budget', () => {
  const store = new Store(structuredClone(schema), presets);
  store.load('v=1&mode=inference');
  assert.equal(store.state.mode, 'inference');
  store.applyPlan({ parallelism: { tp: 2, pp: 1, dp: 4 }, inference: { batch: 64, prefill_tp: 0, batching: 'inflight', token_budget: 1024 } });
  assert.equal(store.state.values['inference.batching'], 'inflight');
  assert.equal(store.state.values['inference.token_budget'], '1024');
  assert.equal(store.state.values['inference.batch'], '64');
});
