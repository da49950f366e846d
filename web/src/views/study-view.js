// The Studies view: one button per named study of the core; each runs in the
// jobs worker and shows its table (gpu-generations adds a waterfall of the
// cumulative speed-up factors, systems a bar per system, scaling a line of
// the share of linear scaling, models a bar of each model's GPU-hours per
// million tokens, published-runs a dot per published measurement at its
// error). systems, scaling and models run the scenario on the left; the
// others are fixed.
// #view=study&study=<name> opens one directly.
import { el } from '../dom.js';
import * as fmt from '../format.js';
import { factorBars, lineChart, valueBars, waterfall } from '../charts/explore-charts.js';
import { publishedRuns } from './published-runs.js';
import { str, table } from './study-table.js';
import { explorePanel } from './explore-panel.js';
import { planText } from './plan-words.js';
import { studyNames, technologyParams } from '../state/explore-state.js';
import { isNumeric, requestFields, systemWords } from '../state/fields.js';
import { numberInput, selectInput } from '../form/explore-inputs.js';

const TITLES = {
  'gpu-generations': 'GPU generations (GPT-3 175B training)',
  'technology-nodes': 'Technology nodes 12 nm → 1 nm (a die under area, power and edge budgets)',
  'dram-scaling': 'DRAM scaling (Llama 3.1 70B decode)',
  'inference-boundedness': 'Inference boundedness (prefill vs decode)',
  systems: 'Systems for this scenario (every system preset, its plan searched)',
  // in the word of the scenario's devices (study output unit_name: a TPU's "chip")
  scaling: (unit) => `${fmt.capital(unit)} count for this scenario (⅛× to 8× its ${unit}s, its plan searched)`,
  models: 'Models for this scenario (every model preset on its system, its plan searched)',
  'published-runs': 'Published runs (every measurement the model is validated against, rerun here)',
};

// A study's heading, for its output `d`.
function studyTitle(name, d) {
  const title = TITLES[name] || name;
  return typeof title === 'function' ? title(fmt.unitWord(d.unit_name)) : title;
}

// The buttons of the studies of the scenario, under their group's heading
// (the titles above stay the results' headings).
const LINK_LABELS = {
  systems: 'Every system preset',
  scaling: (unit) => `${fmt.capital(unit)} count, ⅛× to 8×`,
  models: 'Every model preset',
  'published-runs': 'Published runs: the model against measurements',
};

// The view's introduction, counting the scenario's devices in `unit` ("chips" on a TPU).
function studiesNote(unit) {
  return `What-if analyses built into the core (same as llmcalc study NAME). The first three run the scenario on the left on every system preset, at ⅛× to 8× its ${unit}s, or with every model preset in its place; the fixed examples ignore it, and Published runs checks the model against every published measurement of the validation set.`;
}

// How the technology budget's fields are shown (the fields are the schema's
// derive request): label, and names for enum values.
const BUDGET = {
  'budget.tdp_W': { label: 'power budget' },
  'budget.die_area_mm2': { label: 'die area' },
  'budget.package_area_mm2': { label: 'package area' },
  'budget.architecture': { label: 'architecture', names: { hopper: 'Hopper (H100)', ampere: 'Ampere (A100)' } },
  'budget.hbm': { label: 'memory', none: 'each node’s HBM' },
};
// The studies that run the scenario on the left (its JSON is their params).
export const SCENARIO_STUDIES = new Set(['systems', 'scaling', 'models']);
const slug = (key) => key.replace(/[^a-zA-Z0-9]+/g, '-');

// A bound as a reader names it: the row's memory level by its label ("HBM3e"
// for the level keyed "hbm"), from the device roofs the row carries.
const bound = (r, name) => (name === undefined || name === null ? '–' : fmt.levelLabel({ device: { roofs: r.roofs } }, name));
const PLAN = [
  ['iteration', (r) => fmt.seconds(r.iteration_time_s)],
  ['speed-up', (r) => fmt.times(r.speedup)],
  ['MFU', (r) => fmt.percent(r.mfu)],
  ['TP', (r) => str(r.parallelism?.tp)],
  ['PP', (r) => str(r.parallelism?.pp)],
  ['DP', (r) => str(r.parallelism?.dp)],
  ['CP', (r) => str(r.parallelism?.cp)],
  ['ZeRO', (r) => str(r.parallelism?.zero)],
  ['micro-batch', (r) => str(r.micro_batch)],
  ['recompute', (r) => str(r.recompute)],
  ['bound', (r) => (r.bound ? fmt.partLabel(r.bound) : '–')],
];

function gpuGenerations(d) {
  const step = [['system / step', (r) => str(r.step)]];
  return [
    table('Each system’s best plan', d.generations || [], [...step, ...PLAN], 'generations'),
    waterfall({ title: 'A100 → GB200, one factor at a time (cumulative speed-up)', steps: (d.decomposition || []).map((r) => ({ label: r.step, value: r.speedup })) }),
    table('One factor at a time', d.decomposition || [], [...step, ...PLAN], 'decomposition'),
  ];
}

const GB = (b) => `${fmt.num(b / 1e9)} GB`;

function technologyNodes(d) {
  const rows = d.rows || [];
  const node = [['node', (r) => str(r.node)]];
  return [
    table('Derived devices (the same area, power and die-edge budgets at every node)', rows, [
      ...node,
      ['SMs', (r) => fmt.int(r.sm_count)],
      ['clock', (r) => `${fmt.num(r.frequency_GHz)} GHz${r.power_limited ? ' (power-limited)' : ''}`],
      ['voltage', (r) => `${fmt.num(r.voltage_V)} V`],
      ['bf16 peak', (r) => fmt.flopsRate(r.bf16_flops)],
      ['L2', (r) => `${fmt.num(r.l2_bytes / 1e6)} MB`],
      ['HBM', (r) => `${r.hbm_stacks} × ${r.hbm} (${r.hbm_limit})`],
      ['HBM bandwidth', (r) => `${fmt.num(r.hbm_Bps / 1e12)} TB/s`],
      ['HBM capacity', (r) => GB(r.hbm_bytes)],
      ['W compute / HBM / links', (r) => ['compute', 'hbm', 'io'].map((k) => fmt.num(r.power_W?.[k])).join(' / ')],
      ['pJ/FLOP', (r) => fmt.num(r.energy_pJ_per_flop)],
    ], 'devices'),
    waterfall({ title: 'GPT-3 175B training speed-up over 12 nm', steps: rows.filter((r) => r.training?.fits).map((r) => ({ label: r.node, value: r.training.speedup })) }),
    table('Workloads on them: what bounds each', rows, [
      ...node,
      ['iteration', (r) => (r.training?.fits ? fmt.seconds(r.training.iteration_time_s) : 'does not fit')],
      ['speed-up', (r) => fmt.times(r.training?.speedup)],
      ['MFU', (r) => fmt.percent(r.training?.mfu)],
      ['training bound', (r) => (r.training?.bound ? fmt.partLabel(r.training.bound) : '–')],
      ['TTFT', (r) => fmt.seconds(r.inference?.ttft_s)],
      ['TPOT', (r) => fmt.seconds(r.inference?.tpot_s)],
      ['prefill bound', (r) => bound(r, r.inference?.bound?.prefill)],
      ['decode bound', (r) => bound(r, r.inference?.bound?.decode)],
    ], 'workloads'),
  ];
}

function dramScaling(d) {
  return [
    table('One H100 with its HBM replaced', d.rows || [], [
      ['memory', (r) => str(r.memory)],
      ['stacks', (r) => str(r.stacks)],
      ['capacity', (r) => `${fmt.num(r.capacity_GB)} GB`],
      ['bandwidth', (r) => fmt.bandwidth(r.bandwidth_GBps * 1e9)],
      ['TPOT batch 1', (r) => fmt.seconds(r.tpot_s_batch1)],
      ['tokens/s batch 1', (r) => fmt.num(r.tokens_per_s_batch1)],
      ['max batch', (r) => fmt.int(r.max_batch)],
      ['batch', (r) => fmt.int(r.batch)],
      ['TPOT', (r) => fmt.seconds(r.tpot_s)],
      ['output tokens/s', (r) => fmt.num(r.output_tokens_per_s)],
      ['per GPU', (r) => fmt.num(r.output_tokens_per_s_per_gpu)],
    ], 'rows'),
    el('ul', { class: 'chart-note study-sources' }, (d.rows || []).map((r) => el('li', { text: `${r.memory}: ${r.source || ''}` }))),
  ];
}

// A level's column header: its labels on the systems of the table
// ("HBM2e / HBM3 / HBM3e" for the level keyed "hbm").
function levelNames(systems, level) {
  const names = systems.filter((s) => (s.levels || []).includes(level)).map((s) => bound(s, level));
  return [...new Set(names.length ? names : [level])].join(' / ');
}

function boundedness(d) {
  const levels = [...new Set((d.systems || []).flatMap((s) => s.levels || []))];
  return [
    table('What bounds each phase', d.systems || [], [
      ['system', (s) => str(s.system)],
      ['device', (s) => str(s.device)],
      ['peak', (s) => fmt.flopsRate(s.peak_flops)],
      ['prefill bound', (s) => bound(s, s.bound?.prefill)],
      ['decode bound', (s) => bound(s, s.bound?.decode)],
      ...levels.map((l) => [`ridge ${levelNames(d.systems || [], l)} (FLOP/B)`, (s) => fmt.num(s.ridges?.[l])]),
    ], 'systems'),
  ];
}

// What a system row holds: its plan's memory of the GPU's, or by how much
// the leanest plan misses.
function systemMemory(r) {
  const cap = Number.isFinite(r.capacity_bytes) ? ` of ${fmt.bytes(r.capacity_bytes)}` : '';
  if (r.plan) return `${fmt.bytes(r.plan.memory_bytes_total)}${cap}`;
  return Number.isFinite(r.closest_memory_bytes) ? `needs ${fmt.bytes(r.closest_memory_bytes)}${cap}` : '–';
}

// The plan's kind of run against published runs: "9.3% (−9.3%), 4 runs",
// and whether none of them ran on this system's GPU.
function systemAccuracy(r) {
  const a = r.accuracy;
  if (!a || !Number.isFinite(a.mean_abs_error)) return '–';
  const bias = a.mean_error;
  const signed = Number.isFinite(bias) ? ` (${bias >= 0 ? '+' : '−'}${fmt.percent(Math.abs(bias))})` : '';
  return `${fmt.percent(a.mean_abs_error)}${signed}, ${fmt.int(a.cases)} run${a.cases === 1 ? '' : 's'}${a.device_validated ? '' : ', none on this GPU'}`;
}

// A cell of a row's plan, or – when no plan fits.
const ofPlan = (get) => (r) => (r.plan ? get(r.plan) : '–');

// The plan's headline figures: training time, tokens/s and MFU; serving
// output tokens/s per GPU (per `unit`, the system's word for a device), TTFT and TPOT.
function planFigures(training, unit = 'GPU') {
  return training
    ? [['iteration', ofPlan((p) => fmt.seconds(p.iteration_time_s))], ['tokens/s', ofPlan((p) => fmt.num(p.tokens_per_s))], ['MFU', ofPlan((p) => fmt.percent(p.mfu))]]
    : [[`output tokens/s per ${unit}`, ofPlan((p) => fmt.num(p.output_tokens_per_s_per_gpu))], ['TTFT', ofPlan((p) => fmt.seconds(p.ttft_s))], ['TPOT', ofPlan((p) => fmt.seconds(p.tpot_s))]];
}

// The columns a study's table ends with: memory, GPU-hours (and, with
// `full`, kWh and the model's error on runs of the plan's kind) per million
// tokens, and the plan or why there is none. `unit`: the system's word for a
// device ("GPU"; a TPU's "chip": chip-hours).
function tailColumns(training, full = true, unit = 'GPU') {
  const per = `/ M ${training ? '' : 'output '}tokens`;
  return [
    [`memory / ${unit}`, systemMemory],
    [`${unit}-hours ${per}`, (r) => (r.per_million_tokens ? fmt.num(r.per_million_tokens.gpu_hours) : '–')],
    ...(full
      ? [
          [`kWh ${per}`, (r) => (Number.isFinite(r.per_million_tokens?.kwh) ? fmt.num(r.per_million_tokens.kwh) : '–')],
          ['model error on published runs of the plan’s kind (bias)', systemAccuracy],
        ]
      : []),
    ['plan', (r) => (r.error ? `error: ${r.error}` : r.plan ? planText(r.plan) : 'does not fit')],
  ];
}

function systems(d) {
  const rows = d.rows || [];
  const training = d.mode === 'training';
  // a system without the scenario's math precision runs the nearest it has (core: fit_math_to_system)
  const ran = (r) => (r.precision ? ` (${r.precision.run}: no ${r.precision.scenario})` : '');
  const name = (r) => `${r.system}${r.own ? ' (this scenario’s system)' : ''}${ran(r)}`;
  // The speed-up after the figure it is taken from (iteration time or tokens/s per GPU).
  const figures = planFigures(training);
  figures.splice(training ? 2 : 1, 0, ['speed-up', (r) => fmt.times(r.speedup)]);
  // the bar the others are measured against: the scenario's system, or where
  // no plan fits there the slowest system that holds one (core: speed_reference)
  const bars = rows.filter((r) => Number.isFinite(r.speedup)).sort((a, b) => b.speedup - a.speedup).map((r) => ({ label: name(r), value: r.speedup, own: r.reference }));
  const reference = rows.find((r) => r.reference);
  const what = training ? 'iteration time' : 'output tokens/s per GPU';
  const over = !reference || reference.own ? 'this scenario’s system' : reference.system;
  return [
    bars.length ? factorBars({ title: `Speed-up over ${over} (${what}, each system's best plan on ${fmt.many(d.gpus, 'GPU')})`, bars }) : null,
    systemsReferenceNote(rows, reference),
    table('Each system’s best plan', rows, [['system', name], ['device', (r) => str(r.device)], ...figures, ...tailColumns(training)], 'systems'),
  ];
}

// Why the speed-ups are not over the scenario's own system: no plan fits
// there (or anywhere); null when they are.
function systemsReferenceNote(rows, reference) {
  if (reference?.own) return null;
  const own = rows.find((r) => r.own);
  const text = reference
    ? `No plan fits on this scenario’s system (${own?.system}), so the speed-ups are over ${reference.system}, the slowest system that holds one.`
    : 'No system holds a plan of this scenario, so there are no speed-ups; the table gives the memory the leanest plan needs on each.';
  return el('p', { class: 'chart-note reference-note', text });
}

// Why a share of linear scaling can pass 100%: more GPUs leave each one less
// to hold, so plans the scenario's count cannot fit run there. Named when the
// recompute policy is what changed; null when no share passes 100%.
function superlinearNote(d, rows, unit) {
  const base = rows.find((r) => r.reference) ?? rows.find((r) => r.own);
  // the kept global batch first, then the grown one (the chart's two lines)
  const above = [...rows, ...(d.weak || [])].find((r) => r.gpus > (base?.gpus ?? Infinity) && r.efficiency > 1.005);
  if (!above) return null;
  const rc = (r) => r.plan?.training?.recompute;
  const words = (r) => (rc(r) === 'none' ? 'keeps every activation' : `recomputes (${rc(r)})`);
  const why = rc(base) && rc(above) && rc(base) !== rc(above)
    ? `: on ${fmt.int(base.gpus)} the best plan ${words(base)} to fit, on ${fmt.int(above.gpus)} it ${words(above)}`
    : ` (compare the plans and their memory per ${unit})`;
  return el('p', {
    class: 'chart-note superlinear-note',
    text: `Above 100%: each ${unit} holds less when there are more, so plans too large for ${fmt.many(base?.gpus ?? d.gpus, unit)} run on more${why}.`,
  });
}

// Why the shares are not from the scenario's own count: no plan fits there
// (or at any count); null when they are.
function scalingReferenceNote(d, reference, unit) {
  if (reference?.own) return null;
  const text = reference
    ? `No plan fits on the scenario’s ${fmt.many(d.gpus, unit)}, so the speed-ups and shares of linear scaling are from ${fmt.many(reference.gpus, unit)}, the fewest that hold one.`
    : `No ${unit} count here holds a plan of this scenario, so there are no speed-ups; the table gives the memory the leanest plan needs at each.`;
  return el('p', { class: 'chart-note reference-note', text });
}

// The scenario at ⅛× to 8× its GPUs: a line of the share of linear scaling
// (training: global batch kept, and grown with the GPUs), and a table.
function scaling(d) {
  const rows = d.rows || [];
  const weak = new Map((d.weak || []).map((r) => [r.gpus, r]));
  const training = d.mode === 'training';
  const unit = fmt.unitWord(d.unit_name);  // the system's word for a device: "GPU", a TPU's "chip"
  const gpus = (r) => `${fmt.int(r.gpus)}${r.own ? ' (this scenario’s count)' : r.reference ? ' (the fewest that fit)' : ''}`;
  // the count the shares are over: the scenario's, or where no plan fits
  // there the fewest GPUs that hold one (core: scaling_rows)
  const reference = rows.find((r) => r.reference);
  const share = (r) => (Number.isFinite(r?.efficiency) ? fmt.percent(r.efficiency) : '–');
  // Serving: the whole run's output tokens/s, not per GPU (the GPU count varies).
  const figures = planFigures(training, unit);
  if (!training) figures[0] = ['output tokens/s', (r) => (Number.isFinite(r.throughput) ? fmt.num(r.throughput) : '–')];
  // Weak scaling's columns: its global batch, tokens/s and share of linear at that count.
  const grown = weak.size
    ? [
        [`global batch grown with the ${unit}s`, (r) => (weak.get(r.gpus) ? fmt.int(weak.get(r.gpus).global_batch) : '–')],
        ['its tokens/s', (r) => (Number.isFinite(weak.get(r.gpus)?.throughput) ? fmt.num(weak.get(r.gpus).throughput) : '–')],
        ['its share of linear', (r) => share(weak.get(r.gpus))],
      ]
    : [];
  const xs = [...new Set([...rows, ...weak.values()].filter((r) => Number.isFinite(r.efficiency)).map((r) => r.gpus))].sort((a, b) => a - b);
  const line = (list) => xs.map((n) => list.find((r) => r.gpus === n)?.efficiency ?? null);
  const series = [{ name: training ? 'global batch kept' : d.system || 'this scenario', values: line(rows) }];
  if (weak.size) series.push({ name: `global batch grown with the ${unit}s`, values: line([...weak.values()]) });
  return [
    xs.length
      ? lineChart({
          title: `Share of linear scaling from ${fmt.many(reference?.gpus ?? d.gpus, unit)} (${training ? 'tokens/s' : 'output tokens/s'} per ${unit} against ${reference && !reference.own ? 'theirs' : 'the scenario’s'}; 100% = linear)`,
          // GPU counts a factor of two apart, evenly spaced: x is log2 of the count
          xs: xs.map((n) => Math.log2(n)),
          series,
          xLabel: `${unit}s`,
          yLabel: 'share of linear scaling',
          xFmt: (v) => fmt.int(2 ** v),
          yFmt: fmt.percent,
          xTicks: true,
          className: 'scaling-chart',
        })
      : null,
    scalingReferenceNote(d, reference, unit),
    superlinearNote(d, rows, unit),
    table(`The best plan at each ${unit} count`, rows, [
      [`${fmt.capital(unit)}s`, gpus],
      ...(training ? [['global batch', (r) => fmt.int(r.global_batch)]] : []),
      ...figures,
      ['speed-up', (r) => fmt.times(r.speedup)],
      ['share of linear', share],
      ...(training ? [['goodput (interruptions)', (r) => (Number.isFinite(r.goodput) ? fmt.percent(r.goodput) : '–')]] : []),
      ...grown,
      ...tailColumns(training, false, unit),
    ], 'scaling'),
  ];
}

// A model's parameters, and those a token uses when fewer (MoE): "46.7G (12.9G active)".
function parameters(r) {
  if (!Number.isFinite(r.parameters)) return '–';
  return r.parameters_active < r.parameters ? `${fmt.count(r.parameters)} (${fmt.count(r.parameters_active)} active)` : fmt.count(r.parameters);
}

// Every model preset on the scenario's system: a bar of each one's cost per
// million tokens (cheapest first), the table smallest model first, up to
// those no plan holds.
function models(d) {
  const rows = d.rows || [];
  const training = d.mode === 'training';
  const name = (r) => `${r.model}${r.own ? ' (this scenario’s model)' : ''}`;
  const tokens = training ? 'tokens' : 'output tokens';
  const bars = rows
    .filter((r) => Number.isFinite(r.per_million_tokens?.gpu_hours))
    .sort((a, b) => a.per_million_tokens.gpu_hours - b.per_million_tokens.gpu_hours)
    .map((r) => ({ label: name(r), value: r.per_million_tokens.gpu_hours, own: r.own }));
  const unit = fmt.unitWord(d.unit_name);  // the system's word for a device: "GPU", a TPU's "chip"
  const where = `${fmt.many(d.gpus, unit)} of ${d.system}`;
  return [
    bars.length ? valueBars({ title: `${fmt.capital(unit)}-hours per million ${tokens} (each model's best plan on ${where}; the models that fit)`, bars }) : null,
    table('Each model’s best plan', rows, [['model', name], ['parameters', parameters], ...planFigures(training, unit), ...tailColumns(training, true, unit)], 'models'),
  ];
}

// A study as one section: the embedded view of that name (systems, scaling,
// models of the scenario; published-runs).
export function scenarioStudyFigure(name, d) {
  return el('section', { class: 'study study-embed', 'data-view': name, 'data-study': name }, [
    d.workload ? el('p', { class: 'chart-note', text: `Workload: ${d.workload}` }) : null,
    ...RENDER[name](d),
  ]);
}

const RENDER = {
  'gpu-generations': gpuGenerations,
  'technology-nodes': technologyNodes,
  'dram-scaling': dramScaling,
  'inference-boundedness': boundedness,
  systems,
  scaling,
  models,
  'published-runs': publishedRuns,
};

export class StudyView {
  // ctx: {store, jobs}
  constructor(ctx) {
    this.ctx = ctx;
    this.links = el('nav', { class: 'study-links', 'aria-label': 'Studies' });
    this.params = el('div', { class: 'explore-controls study-params', hidden: true });
    this.timer = null;
    Object.assign(this, explorePanel({
      id: 'study',
      label: 'Studies',
      title: 'Studies',
      note: studiesNote('GPU'),
      runLabel: 'Run again',
      onRun: () => this.run(),
      jobs: ctx.jobs,
      parts: [this.links, this.params],
    }));
  }

  render(state) {
    const current = state.x?.['study.name'];
    const { store } = this.ctx;
    // The scenario's word for a device: "Chip count" on a TPU.
    const { unit } = systemWords(store.presets, state.system);
    this.root.querySelector('.chart-note').textContent = studiesNote(unit);
    const label = (name) => {
      const text = LINK_LABELS[name] || TITLES[name] || name;
      return typeof text === 'function' ? text(unit) : text;
    };
    const link = (name) =>
      el('button', {
        type: 'button',
        class: `study-link${name === current ? ' active' : ''}`,
        'data-study': name,
        'aria-pressed': name === current ? 'true' : 'false',
        text: label(name),
        onclick: () => {
          store.setX('study.name', name, true);
          this.render(store.state);
          this.run();
        },
      });
    // The studies of the scenario on the left first, then the fixed examples.
    const names = studyNames(store.schema);
    const group = (heading, list) =>
      list.length ? el('div', { class: 'study-group', role: 'group', 'aria-label': heading }, [el('span', { class: 'study-group-label', text: heading }), ...list.map(link)]) : null;
    this.links.replaceChildren(
      ...[
        group('Of the scenario on the left (its plan searched in each case):', names.filter((n) => SCENARIO_STUDIES.has(n))),
        group('Fixed examples:', names.filter((n) => !SCENARIO_STUDIES.has(n))),
      ].filter(Boolean),
    );
    this.bar.node.hidden = !current;
    this.renderParams(state, current);
  }

  // technology-nodes: the die's budgets (the derive request's fields that a
  // link can carry), in the URL; a change re-runs the study.
  renderParams(state, current) {
    this.params.hidden = current !== 'technology-nodes';
    if (this.params.hidden) return this.params.replaceChildren();
    const x = state.x || {};
    const set = (key) => (v) => {
      this.ctx.store.setX(key, v);
      clearTimeout(this.timer);
      this.timer = setTimeout(() => this.run(), 600);
    };
    const fields = requestFields(this.ctx.store.schema, 'derive').filter((f) => f.url);
    this.params.replaceChildren(
      ...fields.map((f) => {
        const show = BUDGET[f.key] || {};
        const id = `study-${slug(f.key.slice(f.key.indexOf('.') + 1))}`;
        const label = show.label || f.key.slice(f.key.indexOf('.') + 1);
        if (isNumeric(f)) return numberInput({ id, label, unit: f.unit, value: x[f.key], placeholder: f.default === null || f.default === undefined ? 'auto' : String(f.default), onInput: set(f.key) });
        const options = (f.values || []).map((v) => [v, show.names?.[v] || v]);
        if (f.default === null || f.default === undefined) options.unshift(['', show.none || 'auto']);
        return selectInput({ id, label, value: x[f.key] ?? f.default ?? '', options, onChange: set(f.key) });
      }),
    );
  }

  // The scenario on the left, for the studies that run it (systems, scaling, models).
  scenario() {
    const { scenario, errors } = this.ctx.store.scenario();
    if (errors.length) throw new Error(`the scenario has input errors (${errors.map((e) => `${e.key}: ${e.message}`).join('; ')})`);
    return scenario;
  }

  async run() {
    const { store } = this.ctx;
    const name = store.x('study.name');
    if (!studyNames(store.schema).includes(name)) return;
    this.bar.node.hidden = false;
    this.bar.start(`Running ${name}…`);
    try {
      await this.ctx.jobs.run(async (call) => {
        const t0 = performance.now();
        const params = name === 'technology-nodes' ? technologyParams(store.schema, store.state.x) : SCENARIO_STUDIES.has(name) ? this.scenario() : null;
        const d = JSON.parse(params ? await call('study_request', JSON.stringify({ name, params })) : await call('study', name));
        if (d.error) throw new Error(d.error.message);
        this.out.replaceChildren(
          el('section', { class: 'study', 'data-study': name }, [
            el('h3', { text: studyTitle(name, d) }),
            d.workload ? el('p', { class: 'chart-note', text: `Workload: ${d.workload}` }) : null,
            ...RENDER[name](d),
          ]),
        );
        this.bar.finish(`${name} took ${fmt.seconds((performance.now() - t0) / 1000)}.`);
        // The fixed studies never go out of date.
        this.ran(SCENARIO_STUDIES.has(name) ? params : null, { file: `llmcalc-study-${name}`, request: params ? { name, params } : { name }, output: d });
      });
    } catch (err) {
      if (err && err.cancelled) return;
      this.bar.finish(`The study failed: ${err.message || err}`, 'error');
    }
  }
}
