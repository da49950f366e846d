// The Sweep view: one numeric input of the scenario (any number of the
// schema, system figures included) over a lin/log range, one or more
// outputs, optionally one series per system preset; a line chart per output.
// Its settings are the schema's sweep request fields.
import { el } from '../dom.js';
import * as fmt from '../format.js';
import { baseline } from '../state/scenario.js';
import { deviceWords, fieldApplies, inDeviceWords, isNumeric, isScenarioField, labelFor, parseNumber, systemWords, unitFor } from '../state/fields.js';
import { lineChart } from '../charts/explore-charts.js';
import { explorePanel } from './explore-panel.js';
import { list } from '../state/explore-state.js';
import { checkList, numberInput, readNumber, selectInput } from '../form/explore-inputs.js';

// The outputs a sweep offers: the headline rows of the core's output table
// (schema.outputs), as [path, label, format] for the current mode.
const FORMAT_BY_UNIT = { s: fmt.seconds, bytes: fmt.bytes, fraction: fmt.percent };
export function sweepOutputs(schema, mode) {
  return (schema.outputs || [])
    .filter((o) => o.mode === mode && o.headline)
    .map((o) => [o.key, o.label, FORMAT_BY_UNIT[o.unit] || fmt.num]);
}
// What a link without the key has always meant on the page (the core's own
// request defaults, in the schema, may differ): the input, 9 steps, log scale.
const DEFAULT_INPUT = { training: 'training.global_batch', inference: 'inference.batch' };
const DEFAULT_STEPS = 9;
const DEFAULT_SCALE = 'log';
const SCALE_LABELS = { log: 'logarithmic', lin: 'linear' };
// The outputs' labels say GPU; `unit` is the word of the systems swept
// ("chip" on TPUs; "device" when the lines are of systems that differ).
function systemsUnit(presets, ids) {
  const words = new Set(ids.map((id) => systemWords(presets, id).unit));
  return words.size === 1 ? [...words][0] : 'device';
}
// Their device memory's label when they share one ("GDDR6"); HBM when they
// differ within it (HBM3 beside HBM3e); DRAM, what HBM and GDDR both are,
// when an L4's GDDR6 is swept beside an H100's HBM3.
export function systemsMemory(presets, ids) {
  const labels = new Set(ids.map((id) => systemWords(presets, id).memory));
  if (labels.size === 1) return [...labels][0];
  return [...labels].every((l) => !l || l.startsWith('HBM')) ? '' : 'DRAM';
}

// An input as the form names it, with its group and unit: "training: global batch (sequences)",
// "system: chips per node" on a TPU.
const fieldName = (field, unit, memory) => {
  const f = inDeviceWords(field, unit, memory);
  return `${f.group ? `${f.group}: ` : ''}${labelFor(f)}${unitFor(f) ? ` (${unitFor(f)})` : ''}`;
};

// Every numeric scenario field of the mode, system figures included: the
// core's sweep takes any of them by key and sets it where it lives.
export function sweepInputs(schema, mode) {
  return schema.fields.filter((f) => isScenarioField(f) && isNumeric(f) && fieldApplies(f, mode));
}

// Default range: a quarter to 4x the value in use (log), else 1 to 1024.
function defaultRange(field, state, presets) {
  const cur = parseNumber(state.values[field.key] ?? baseline(field, state, presets) ?? '');
  if (Number.isFinite(cur) && cur > 0) {
    const lo = field.type === 'int' ? Math.max(1, Math.round(cur / 4)) : cur / 4;
    return [lo, field.type === 'int' ? Math.round(cur * 4) : cur * 4];
  }
  return [1, 1024];
}

// On log-spaced points a figure spanning 4x or more is drawn on a log axis
// too: time against the batch or the GPU count is then a straight line,
// where a linear axis bends it into a seeming exponential.
function logY(sw, values) {
  const ys = values.flat().filter(Number.isFinite);
  return sw.scale === 'log' && ys.length > 1 && ys.every((v) => v > 0) && Math.max(...ys) >= 4 * Math.min(...ys);
}

export class SweepView {
  // ctx: {store, jobs}
  constructor(ctx) {
    this.ctx = ctx;
    this.controls = el('div', { class: 'explore-controls' });
    Object.assign(this, explorePanel({
      id: 'sweep',
      label: 'Sweep',
      title: 'Sweep one input',
      note: 'The scenario on the left, evaluated at each value of the chosen input; one line per system when systems are picked.',
      runLabel: 'Run sweep',
      onRun: () => this.run(),
      jobs: ctx.jobs,
      parts: [this.controls],
    }));
  }

  // The settings in use: state.x, else the defaults for the mode.
  spec(state) {
    const x = state.x || {};
    const { schema, presets } = this.ctx.store;
    const req = (k) => schema.fields.find((f) => f.key === `sweep.${k}`) || {};
    const range = (k, int = false) => ({ int, min: req(k).min ?? -Infinity, max: req(k).max ?? Infinity, name: k });
    const inputs = sweepInputs(schema, state.mode);
    const want = x['sweep.input'];
    const field = inputs.find((f) => f.key === want) || inputs.find((f) => f.key === DEFAULT_INPUT[state.mode]) || inputs[0];
    const [lo, hi] = defaultRange(field, state, presets);
    const errors = [];
    if (want && field.key !== want) errors.push(`input ${want} is not a number input in ${state.mode} mode`);
    const scale = x['sweep.scale'] || DEFAULT_SCALE;
    const log = scale === 'log';
    const from = readNumber(x['sweep.from'], lo, range('from'), errors);
    const to = readNumber(x['sweep.to'], hi, range('to'), errors);
    const steps = readNumber(x['sweep.steps'], DEFAULT_STEPS, range('steps', true), errors);
    if (log && (from <= 0 || to <= 0)) errors.push('a log sweep needs from and to above 0');
    const known = sweepOutputs(this.ctx.store.schema, state.mode).map(([k]) => k);
    let outputs = list(x['sweep.outputs']).filter((k) => known.includes(k));
    if (!outputs.length) outputs = [known[0]];
    const systems = list(x['sweep.series']).filter((s) => presets.systems?.[s]);
    return { field, inputs, from, to, steps, scale, log, scales: req('scale').values || ['log', 'lin'], outputs, systems, lo, hi, errors };
  }

  render(state) {
    const sp = this.spec(state);
    const x = state.x || {};
    const { store } = this.ctx;
    const set = (k) => (v) => store.setX(`sweep.${k}`, v);
    // the systems the lines will be of, whose words the input and outputs take (as the chart's)
    const swept = sp.systems.length ? sp.systems : [state.system];
    const unit = systemsUnit(store.presets, swept), memory = systemsMemory(store.presets, swept);
    this.controls.replaceChildren(
      selectInput({
        id: 'sweep-input',
        label: 'input',
        value: sp.field.key,
        options: sp.inputs.map((f) => [f.key, fieldName(f, unit, memory)]),
        onChange: (v) => {
          store.setX('sweep.input', v === DEFAULT_INPUT[state.mode] ? '' : v, true);
          store.setX('sweep.from', '');
          store.setX('sweep.to', '');
          this.render(store.state);
        },
      }),
      numberInput({ id: 'sweep-from', label: 'from', value: x['sweep.from'], placeholder: String(sp.lo), onInput: set('from') }),
      numberInput({ id: 'sweep-to', label: 'to', value: x['sweep.to'], placeholder: String(sp.hi), onInput: set('to') }),
      numberInput({ id: 'sweep-steps', label: 'steps', value: x['sweep.steps'], placeholder: String(DEFAULT_STEPS), onInput: set('steps') }),
      selectInput({ id: 'sweep-scale', label: 'scale', value: sp.scale, options: sp.scales.map((v) => [v, SCALE_LABELS[v] || v]), onChange: (v) => store.setX('sweep.scale', v === DEFAULT_SCALE ? '' : v, true) }),
      checkList({ id: 'sweep-outputs', legend: 'Outputs', options: sweepOutputs(this.ctx.store.schema, state.mode).map(([k, t]) => [k, deviceWords(t, unit)]), checked: sp.outputs, onChange: (vs) => store.setX('sweep.outputs', vs.join(','), true) }),
      checkList({ id: 'sweep-series', legend: 'One line per system (none: the scenario’s system)', options: Object.keys(store.presets.systems || {}).map((s) => [s, s]), checked: sp.systems, onChange: (vs) => store.setX('sweep.series', vs.join(','), true) }),
    );
  }

  async run() {
    const state = this.ctx.store.state;
    const { scenario, errors: formErrors } = this.ctx.store.scenario();
    const sp = this.spec(state);
    if (formErrors.length || sp.errors.length) {
      this.bar.finish(`Fix the input first: ${[...formErrors.map((e) => `${e.key}: ${e.message}`), ...sp.errors].join('; ')}`, 'error');
      return;
    }
    // The core sets the swept field where it lives (a system figure in the system object).
    const sweep = { input: sp.field.key, from: sp.from, to: sp.to, steps: sp.steps, scale: sp.scale, outputs: sp.outputs };
    if (sp.systems.length) sweep.series = { system: sp.systems };
    const doc = { ...scenario, sweep };
    this.bar.start('Sweeping…');
    try {
      await this.ctx.jobs.run(async (call) => {
        const t0 = performance.now();
        const out = JSON.parse(await call('sweep', JSON.stringify(doc)));
        if (out.error) throw new Error(`${out.error.path ? `${out.error.path}: ` : ''}${out.error.message}`);
        this.draw(out.sweep, sp, state);
        this.bar.finish(`Swept ${fmt.many(out.sweep.x.length, 'value')} × ${fmt.many(out.sweep.series.length, 'series', 'series')} in ${fmt.seconds((performance.now() - t0) / 1000)}.`);
        this.ran(scenario, { file: `llmcalc-sweep-${scenario.mode}`, request: doc, output: out });
      });
    } catch (err) {
      if (err && err.cancelled) return;
      this.bar.finish(`Sweep failed: ${err.message || err}`, 'error');
    }
  }

  draw(sw, sp, state) {
    const labels = new Map(sweepOutputs(this.ctx.store.schema, state.mode).map(([k, t, f]) => [k, [t, f]]));
    const series = sw.series.map((s) => ({ ...s, name: s.name === 'base' ? String(state.system || 'scenario') : s.name }));
    const unit = systemsUnit(this.ctx.store.presets, series.map((s) => s.name));
    // counts (a batch, GPUs, layers) read as whole numbers: 64 and 1,024, not 64.0 and 1.02k
    const countX = sw.x.every((x) => Number.isInteger(x));
    const memory = systemsMemory(this.ctx.store.presets, series.map((s) => s.name));
    // the input's label, with its unit where another input has the same label
    // (device memory capacity and bandwidth: "DRAM (GB/s)")
    const shown = inDeviceWords(sp.field, unit, memory);
    const shared = sp.inputs.filter((f) => labelFor(f) === labelFor(sp.field)).length > 1;
    const input = shared && unitFor(shown) ? `${labelFor(shown)} (${unitFor(shown)})` : labelFor(shown);
    const charts = sp.outputs.map((o) => {
      const [metric, f] = labels.get(o) || [o, fmt.num];
      const label = deviceWords(metric, unit);
      const values = series.map((s) => (s.values[o] || []).map((v) => (typeof v === 'number' ? v : null)));
      return lineChart({
        title: `${label} vs ${input}`,
        xs: sw.x,
        series: series.map((s, i) => ({ name: s.name, values: values[i], fits: s.fits })),
        xLog: sw.scale === 'log',
        yLog: logY(sw, values),
        xLabel: fieldName(sp.field, unit, memory),
        xFmt: countX ? (x) => (Number.isInteger(x) ? fmt.int(x) : fmt.num(x)) : fmt.num,
        yLabel: label,
        yFmt: f,
        className: 'sweep-chart',
      });
    });
    const errs = sw.series.flatMap((s) => (s.errors || []).map((e) => `${s.name === 'base' ? '' : `${s.name}, `}${input} = ${e.x}: ${e.message}`));
    charts.forEach((c, i) => {
      c.dataset.output = sp.outputs[i];
    });
    if (Number.isFinite(sw.x_multiple_of) && sw.x_multiple_of > 1)
      charts.push(el('p', { class: 'chart-note sweep-rounded', text: `The global batch is rounded to multiples of ${fmt.int(sw.x_multiple_of)} (micro-batch × dp), so that every replica runs whole micro-batches.` }));
    if (errs.length) {
      const more = errs.length > 1 ? 's' : '';
      charts.push(el('details', { class: 'sweep-errors' }, [el('summary', { text: `${errs.length} point${more} could not be computed` }), el('ul', {}, errs.slice(0, 20).map((t) => el('li', { text: t })))]));
    }
    this.out.replaceChildren(...charts);
  }
}
