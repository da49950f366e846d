// The Sweep view: one numeric input of the scenario (any schema number, or a
// system figure the page edits) over a lin/log range, one or more outputs,
// optionally one series per system preset; a line chart per output.
import { el } from './dom.js';
import * as fmt from './format.js';
import { baseline, fieldApplies, parseNumber } from './scenario.js';
import { isSystemField } from './page-fields.js';
import { lineChart } from './explore-charts.js';
import { explorePanel } from './jobs.js';
import { list } from './explore-state.js';
import { checkList, numberInput, readNumber, selectInput } from './explore-inputs.js';

// [output path, label, format]
export const OUTPUTS = {
  training: [
    ['training.iteration_time_s', 'iteration time', fmt.seconds],
    ['training.tokens_per_s', 'tokens/s', fmt.num],
    ['training.mfu', 'MFU', fmt.percent],
    ['training.tflops_per_gpu', 'TFLOP/s per GPU', fmt.num],
    ['training.time_to_train_s', 'time to train', fmt.seconds],
    ['training.memory_bytes.total', 'memory per GPU', fmt.bytes],
  ],
  inference: [
    ['inference.output_tokens_per_s', 'output tokens/s', fmt.num],
    ['inference.ttft_s', 'time to first token', fmt.seconds],
    ['inference.tpot_s', 'time per output token', fmt.seconds],
    ['inference.e2e_latency_s', 'end-to-end latency', fmt.seconds],
    ['inference.max_batch', 'max batch', fmt.num],
    ['inference.memory_bytes.total', 'memory per GPU', fmt.bytes],
  ],
};
const DEFAULT_INPUT = { training: 'training.global_batch', inference: 'inference.batch' };
const DEFAULT_STEPS = 9;

// The core's path for a page field: system figures live in the preset's
// device / network lists, addressed by element name.
export function corePath(key) {
  switch (key) {
    case 'system.peak_bf16_tflops':
      return 'system.device.matmul_tflops.bf16';
    case 'system.hbm_GiB':
      return 'system.device.memory.hbm.capacity_GiB';
    case 'system.hbm_GBps':
      return 'system.device.memory.hbm.bandwidth_GBps';
    case 'system.nvlink_GBps':
      return 'system.network.nvlink.bandwidth_GBps';
    case 'system.ib_GBps':
      return 'system.network.infiniband.bandwidth_GBps';
    default:
      return key;
  }
}

export function sweepInputs(schema, mode) {
  return schema.fields.filter((f) => (f.type === 'int' || f.type === 'number') && fieldApplies(f, mode));
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

export class SweepView {
  // ctx: {state(), scenario(), setX(key, value), jobs, schema, presets}
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
    const inputs = sweepInputs(this.ctx.schema, state.mode);
    const field = inputs.find((f) => f.key === x.wi) || inputs.find((f) => f.key === DEFAULT_INPUT[state.mode]) || inputs[0];
    const [lo, hi] = defaultRange(field, state, this.ctx.presets);
    const errors = [];
    if (x.wi && field.key !== x.wi) errors.push(`input ${x.wi} is not a number input in ${state.mode} mode`);
    const log = x.wl === undefined ? true : x.wl === '1';
    const from = readNumber(x.wf, lo, { name: 'from', min: -1e15, max: 1e15 }, errors);
    const to = readNumber(x.wt, hi, { name: 'to', min: -1e15, max: 1e15 }, errors);
    const steps = readNumber(x.wn, DEFAULT_STEPS, { int: true, min: 1, max: 200, name: 'steps' }, errors);
    if (log && (from <= 0 || to <= 0)) errors.push('a log sweep needs from and to above 0');
    const known = OUTPUTS[state.mode].map(([k]) => k);
    let outputs = list(x.wo).filter((k) => known.includes(k));
    if (!outputs.length) outputs = [known[0]];
    const systems = list(x.wr).filter((s) => this.ctx.presets.systems?.[s]);
    return { field, inputs, from, to, steps, log, outputs, systems, lo, hi, errors };
  }

  render(state) {
    const sp = this.spec(state);
    const x = state.x || {};
    const set = (k) => (v) => this.ctx.setX(k, v);
    this.controls.replaceChildren(
      selectInput({
        id: 'sweep-input',
        label: 'input',
        value: sp.field.key,
        options: sp.inputs.map((f) => [f.key, `${f.key}${f.unit ? ` (${f.unit})` : ''}`]),
        onChange: (v) => {
          this.ctx.setX('wi', v === DEFAULT_INPUT[state.mode] ? '' : v, true);
          this.ctx.setX('wf', '');
          this.ctx.setX('wt', '');
          this.render(this.ctx.state());
        },
      }),
      numberInput({ id: 'sweep-from', label: 'from', value: x.wf, placeholder: String(sp.lo), onInput: set('wf') }),
      numberInput({ id: 'sweep-to', label: 'to', value: x.wt, placeholder: String(sp.hi), onInput: set('wt') }),
      numberInput({ id: 'sweep-steps', label: 'steps', value: x.wn, placeholder: String(DEFAULT_STEPS), onInput: set('wn') }),
      selectInput({ id: 'sweep-scale', label: 'scale', value: sp.log ? 'log' : 'lin', options: [['log', 'logarithmic'], ['lin', 'linear']], onChange: (v) => this.ctx.setX('wl', v === 'log' ? '' : '0', true) }),
      checkList({ id: 'sweep-outputs', legend: 'Outputs', options: OUTPUTS[state.mode].map(([k, t]) => [k, t]), checked: sp.outputs, onChange: (vs) => this.ctx.setX('wo', vs.join(','), true) }),
      checkList({ id: 'sweep-series', legend: 'One line per system (none: the scenario’s system)', options: Object.keys(this.ctx.presets.systems || {}).map((s) => [s, s]), checked: sp.systems, onChange: (vs) => this.ctx.setX('wr', vs.join(','), true) }),
    );
  }

  async run() {
    const state = this.ctx.state();
    const { scenario, errors: formErrors } = this.ctx.scenario();
    const sp = this.spec(state);
    if (formErrors.length || sp.errors.length) {
      this.bar.finish(`Fix the input first: ${[...formErrors.map((e) => `${e.key}: ${e.message}`), ...sp.errors].join('; ')}`, 'error');
      return;
    }
    const sweep = { input: corePath(sp.field.key), from: sp.from, to: sp.to, steps: sp.steps, scale: sp.log ? 'log' : 'lin', outputs: sp.outputs };
    if (sp.systems.length) sweep.series = { system: sp.systems };
    // A swept system figure replaces the page's own override of it.
    const doc = { ...scenario, sweep };
    if (isSystemField(sp.field.key) && typeof doc.system === 'object' && !sp.systems.length) doc.system = doc.system.preset;
    this.bar.start('Sweeping…');
    try {
      await this.ctx.jobs.run(async (call) => {
        const t0 = performance.now();
        const out = JSON.parse(await call('sweep', JSON.stringify(doc)));
        if (out.error) throw new Error(`${out.error.path ? `${out.error.path}: ` : ''}${out.error.message}`);
        this.draw(out.sweep, sp, state);
        this.bar.finish(`Swept ${out.sweep.x.length} values × ${out.sweep.series.length} series in ${fmt.seconds((performance.now() - t0) / 1000)}.`);
      });
    } catch (err) {
      if (err && err.cancelled) return;
      this.bar.finish(`Sweep failed: ${err.message || err}`, 'error');
    }
  }

  draw(sw, sp, state) {
    const labels = new Map(OUTPUTS[state.mode].map(([k, t, f]) => [k, [t, f]]));
    const series = sw.series.map((s) => ({ ...s, name: s.name === 'base' ? String(state.system || 'scenario') : s.name }));
    const charts = sp.outputs.map((o) => {
      const [label, f] = labels.get(o) || [o, fmt.num];
      return lineChart({
        title: `${label} vs ${sp.field.key}`,
        xs: sw.x,
        series: series.map((s) => ({ name: s.name, values: (s.values[o] || []).map((v) => (typeof v === 'number' ? v : null)) })),
        xLog: sw.scale === 'log',
        xLabel: sp.field.key,
        yLabel: label,
        yFmt: f,
        className: 'sweep-chart',
      });
    });
    const errs = sw.series.flatMap((s) => (s.errors || []).map((e) => `${s.name === 'base' ? '' : `${s.name}, `}${sp.field.key} = ${e.x}: ${e.message}`));
    charts.forEach((c, i) => {
      c.dataset.output = sp.outputs[i];
    });
    if (errs.length) {
      const more = errs.length > 1 ? 's' : '';
      charts.push(el('details', { class: 'sweep-errors' }, [el('summary', { text: `${errs.length} point${more} could not be computed` }), el('ul', {}, errs.slice(0, 20).map((t) => el('li', { text: t })))]));
    }
    this.out.replaceChildren(...charts);
  }
}
