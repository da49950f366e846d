// The Search view: the current scenario with a GPU count (and, for inference,
// latency bounds) goes to the core's search in the jobs worker. Shows the
// counters, a TP x PP heatmap (one small search per cell, after the main
// one), the ranked plans with an Apply button each, and the time-vs-memory
// Pareto front.
import { el } from '../dom.js';
import * as fmt from '../format.js';
import { heatmap, scatter } from '../charts/explore-charts.js';
import { explorePanel } from './explore-panel.js';
import { numberInput, readNumber, selectInput } from '../form/explore-inputs.js';
import { fieldApplies, requestFields, systemWords } from '../state/fields.js';
import { accuracySummary, listText, unvalidatedKinds } from './results.js';
import { narrowerWeights, planText, planWarnings, sharedWarnings } from './plan-words.js';
import { morePlan, noPlan, servingChart } from './search-results.js';
import { planTable, planTime, training } from './plan-table.js';

const MAX_AXIS = 64;
// The GPUs a link to the view without qg has always searched.
export const LINK_GPUS = 8;
// How the search request's fields are shown (the fields come from the schema):
// label, and what a link without the key has always meant on the page when
// the table gives no default (8 GPUs); help: the table's help shown below.
const SHOW = {
  'search.gpus': { label: 'GPUs', fallback: LINK_GPUS },
  'search.top': { label: 'plans shown', fallback: 10 },
  'search.max_ttft_s': { label: 'max TTFT', inference: true },
  'search.max_tpot_s': { label: 'max TPOT', inference: true },
  'search.memory_share': { label: 'memory share', fallback: 1, help: true },
  // The form always gives a whole plan, so the page searches all of it unless
  // told to keep what the form sets (the table's default, as the CLI reads it).
  'search.vary': { label: 'searches', page: 'plan', options: [['plan', 'the whole plan'], ['unset', 'only what the form leaves unset']] },
};
const slug = (key) => key.replace(/[^a-zA-Z0-9]+/g, '-');

// The search request's fields shown in a mode (latency bounds are for inference).
function searchFields(schema, mode) {
  // search.more_gpus (a switch) keeps its default: the view shows the walk when nothing fits
  return requestFields(schema, 'search').filter((f) => f.type !== 'bool' && fieldApplies(f, mode) && (!SHOW[f.key]?.inference || mode === 'inference'));
}

// The search request of a state: {search, errors}. Empty fields take the
// table's default; a latency bound of 0 or none is no bound.
export function searchSpec(schema, state, overrides = {}) {
  const x = { ...(state.x || {}), ...overrides };
  const errors = [];
  const search = {};
  for (const f of searchFields(schema, state.mode)) {
    const show = SHOW[f.key] || {};
    const name = f.key.slice('search.'.length);
    if (f.type === 'enum') {
      search[name] = (f.values || []).includes(x[f.key]) ? x[f.key] : show.page ?? f.default;
      continue;
    }
    const v = readNumber(x[f.key], f.default ?? show.fallback ?? null, { int: f.type === 'int', min: f.min, max: f.max, name: show.label || name }, errors);
    if (v !== null && !(show.inference && v <= 0)) search[name] = v;
  }
  return { search, errors };
}

// One search of that ladder: the scenario with `weights` stored, computing
// in `math` (undefined: the scenario's), at `batch` (undefined: free).
function withWeights(free, sec, weights, math, batch) {
  const inference = { ...sec, weight_precision: weights };
  if (math !== undefined) inference.compute_precision = math;
  if (batch !== undefined) inference.batch = batch;
  return { ...free, inference };
}

// The scenario with its plan left free for "Find a plan that fits": no
// parallelism; training without its micro-batch and recompute; serving at
// its batch (`batchDefault` when it gives none).
function freePlan(scenario, batchDefault) {
  const free = { ...structuredClone(scenario), parallelism: {} };
  const sec = free[free.mode];
  if (free.mode === 'training') {
    delete sec.micro_batch;
    delete sec.recompute;
  } else if (sec.batch === undefined) sec.batch = batchDefault;
  return free;
}

// Training, while nothing fits: the optimizer offloaded to host memory (where
// the system gives its host side), then the weights too (ZeRO-3 plans).
// Updates the fit's record `r` (see fit()).
async function tryOffload(search, free, sec, r) {
  const ladder = ['optimizer', 'parameters'];
  for (const offload of ladder.slice(ladder.indexOf(sec.offload) + 1)) {
    if (r.s.best?.length) break;
    // Fetching the weights unit by unit is ZeRO-3's: the search keeps zero fixed at 3.
    const parallelism = offload === 'parameters' ? { zero: 3 } : free.parallelism;
    const found = await search({ ...free, parallelism, training: { ...sec, offload } }).catch(() => null);
    if (!found) break;  // the system has no host figures
    r.offloadTried = offload;
    r.evaluated += found.evaluated;
    // The leanest of the searches' closest plans: an offloaded one holds less.
    if (found.closest && (!r.closest || found.closest.memory_bytes_total < r.closest.memory_bytes_total)) r.closest = found.closest;
    r.hostShort += found.host_short || 0;  // plans that fit the GPUs but offload more than the host holds
    if (found.best?.length) {
      r.s = found;
      r.offloaded = offload;
    }
  }
}

// Serving, while nothing fits: narrower weights, the model's released
// format first (`released`), then fp8 and int4 (the precisions checkpoints
// are commonly published and served in), the scenario's `batch` first. fp8
// weights compute in fp8 (W8A8) where the device can, else they are
// weight-only at the scenario's math, as int4 and mxfp4 always are. The
// closest plan stays the one at the scenario's own precision.
async function tryNarrower(search, free, sec, batch, r, released) {
  for (const weights of narrowerWeights(sec.weight_precision, released)) {
    for (const b of batch === undefined ? [undefined] : [batch, undefined]) {
      if (r.s.best?.length) return;
      const w8a8 = weights === 'fp8' && sec.compute_precision !== 'fp8';
      let found = w8a8 ? await search(withWeights(free, sec, weights, 'fp8', b)).catch(() => null) : null;
      if (!found) found = await search(withWeights(free, sec, weights, undefined, b)).catch(() => null);
      if (!found) continue;
      if (!r.narrowTried.includes(weights)) r.narrowTried.push(weights);
      r.evaluated += found.evaluated;
      if (found.best?.length) {
        r.s = found;
        r.narrowed = weights;
      }
    }
  }
}

function divisors(n) {
  const out = [];
  for (let d = 1; d <= n; d++) if (n % d === 0) out.push(d);
  return out;
}

// The scenario without the plan inputs the core's search.vary "plan" frees
// (search.cpp, fixed_fields): each heatmap cell then fixes only its tp and pp.
export function releasePlan(scenario) {
  const out = structuredClone(scenario);
  const par = out.parallelism || {};
  for (const k of ['tp', 'pp', 'dp', 'cp', 'ep', 'etp', 'sp', 'zero', 'pp_schedule', 'virtual_stages']) delete par[k];
  if (out.training) for (const k of ['micro_batch', 'recompute']) delete out.training[k];
  if (out.inference) delete out.inference.prefill_tp;
  return out;
}

// Heatmap axes: a fixed tp or pp stays fixed; else the divisors up to 64.
export function heatmapAxes(gpus, parallelism = {}) {
  const axis = (k) => (Number.isFinite(parallelism[k]) ? [parallelism[k]] : divisors(gpus).filter((d) => d <= MAX_AXIS));
  const tps = axis('tp');
  const pps = axis('pp');
  const cells = [];
  for (const tp of tps) for (const pp of pps) if (tp * pp <= gpus && gpus % (tp * pp) === 0) cells.push({ tp, pp, value: null, state: 'pending' });
  return { tps, pps, cells };
}

// The ranking is the model's: how far it has been from published runs of
// each kind of plan listed (search.accuracy, keyed by the plans' regime and
// also_regime).
function rankingNote(s) {
  const kinds = Object.entries(s.accuracy || {});
  if (!kinds.length) return null;
  const lines = kinds.map(([id, a]) => {
    const summary = accuracySummary(a.metrics);
    const unrun = unvalidatedKinds(a);
    const caveats = [
      summary && a.device_validated === false ? 'none of these runs on this device' : '',
      summary && unrun.length ? `none with ${listText(unrun)}` : '',
    ].filter(Boolean);
    const elsewhere = caveats.length ? ` (${caveats.join('; ')})` : '';
    return el('li', { 'data-regime': id, text: `${a.label}: ${summary || 'no published run of this kind in the validation set'}${elsewhere}.` });
  });
  return el('div', { class: 'accuracy-note search-accuracy' }, [
    el('p', { text: 'The ranking is the model\u2019s. Published runs of the kinds listed were this far from it:' }),
    el('ul', {}, lines),
  ]);
}

// The plan on the left against the best plan found, when both use the
// searched GPU count: "The plan on the left (TP 2 · …) takes 4.08 s, 39%
// longer than the best plan found." (serving: tokens/s per GPU, or per the
// system's own word for a device, `unit`). `own` is the calculator's output
// for the scenario on the left; `defaults` the table's values of the plan
// fields the scenario leaves out (micro_batch, batch ...).
export function ownPlanText(scenario, own, best, mode, defaults = {}, unit = 'GPU') {
  if (!own || own.error || !best) return '';
  const par = { tp: 1, pp: 1, dp: 1, ...scenario.parallelism };
  const entry = { parallelism: par, [mode]: { ...defaults, ...scenario[mode] } };
  const head = `The plan on the left (${planText(entry)})`;
  const sec = own[mode];
  if (!sec || sec.fits === false) return `${head} does not fit.`;
  if (training(mode)) {
    const t = sec.iteration_time_s, b = best.iteration_time_s;
    if (!(t > 0 && b > 0)) return '';
    const more = t / b - 1;
    return `${head} takes ${fmt.seconds(t)}, ${more < 0.0005 ? 'as fast as' : `${fmt.percent(more)} longer than`} the best plan found.`;
  }
  const r = sec.output_tokens_per_s / sec.replica_gpus, b = best.output_tokens_per_s_per_gpu;
  if (!(r > 0 && b > 0)) return '';
  const less = 1 - r / b;
  return `${head} serves ${fmt.num(r)} output tokens/s per ${unit}, ${less < 0.0005 ? 'as many as' : `${fmt.percent(less)} fewer than`} the best plan found.`;
}

function stats(s, wallMs) {
  const rate = s.elapsed_s > 0 ? s.evaluated / s.elapsed_s : NaN;
  const item = (k, name, value) => el('div', { class: 'card', 'data-key': k }, [el('dt', { text: name }), el('dd', {}, [el('span', { class: 'value', text: value })])]);
  return el('dl', { class: 'headline search-stats', id: 'search-stats', 'data-wall-ms': wallMs.toFixed(0), 'data-elapsed-s': String(s.elapsed_s) }, [
    item('evaluated', 'Plans evaluated', fmt.int(s.evaluated)),
    item('feasible', 'Feasible', fmt.int(s.feasible)),
    item('elapsed', 'Search time (core)', fmt.seconds(s.elapsed_s)),
    item('wall', 'Wall time (page)', fmt.seconds(wallMs / 1000)),
    item('rate', 'Rate', fmt.rate(rate, 'plans/s')),
  ]);
}

// The view's introduction, counting the devices in the system's word.
function searchNote(unit) {
  return `Every TP × PP × DP × CP split of the ${unit}s (with schedule, micro-batch, recompute and ZeRO stage for training, ZeRO 2 and 3 only without pipeline stages; batch and prefill colocated or on separate instances for inference, those added per ${unit}) of the scenario on the left. Its model, system, batch sizes and precisions stay fixed; “searches” says whether its plan settings are searched too or, where set (each group counts them as “set”), kept.`;
}

export class SearchView {
  // ctx: {store, jobs, onApply(entry)}
  constructor(ctx) {
    this.ctx = ctx;
    this.controls = el('div', { class: 'explore-controls' });
    Object.assign(this, explorePanel({
      id: 'search',
      label: 'Search',
      title: 'Search the parallelism',
      note: searchNote('GPU'),
      runLabel: 'Run search',
      onRun: () => this.run(),
      jobs: ctx.jobs,
      parts: [this.controls],
    }));
  }

  render(state) {
    const x = state.x || {};
    const { store } = this.ctx;
    // The count is of the system's devices: "Chips" on a TPU.
    const { unit } = systemWords(store.presets, state.system);
    this.root.querySelector('.chart-note').textContent = searchNote(unit);
    this.controls.replaceChildren(
      ...searchFields(store.schema, state.mode).map((f) => {
        const show = SHOW[f.key] || {};
        if (f.type === 'enum') {
          const value = (f.values || []).includes(x[f.key]) ? x[f.key] : show.page ?? f.default;
          const options = (show.options || []).filter(([v]) => (f.values || []).includes(v));
          return selectInput({ id: slug(f.key), label: show.label || f.key, value, options, onChange: (v) => store.setX(f.key, v === show.page ? '' : v) });
        }
        const fallback = f.default ?? show.fallback;
        return numberInput({
          id: slug(f.key),
          label: f.key === 'search.gpus' ? `${fmt.capital(unit)}s` : show.label || f.key.slice('search.'.length),
          unit: f.unit === show.label ? '' : f.unit,
          value: x[f.key],
          placeholder: fallback === null || fallback === undefined ? 'none' : String(fallback),
          onInput: (v) => store.setX(f.key, v),
          help: show.help ? f.help : '',
        });
      }),
    );
  }

  spec(state) {
    return searchSpec(this.ctx.store.schema, state);
  }

  async run() {
    const state = this.ctx.store.state;
    const { scenario, errors: formErrors } = this.ctx.store.scenario();
    const { search, errors } = this.spec(state);
    if (formErrors.length || errors.length) {
      this.bar.finish(`Fix the input first: ${[...formErrors.map((e) => `${e.key}: ${e.message}`), ...errors].join('; ')}`, 'error');
      return;
    }
    const mode = scenario.mode;
    this.bar.start('Searching…');
    try {
      await this.ctx.jobs.run(async (call) => {
        await call('version'); // a fresh worker loads the wasm first: keep that out of the timing
        const t0 = performance.now();
        const out = JSON.parse(await call('search', JSON.stringify({ ...scenario, search })));
        const wallMs = performance.now() - t0;
        if (out.error) throw new Error(`${out.error.path ? `${out.error.path}: ` : ''}${out.error.message}`);
        const s = out.search;
        this.drawResult(s, mode, wallMs);
        await this.compareOwnPlan(call, scenario, s, mode);
        await this.fillHeatmap(call, scenario, search, mode);
        const trunc = s.truncated ? ` (stopped at the ${fmt.int(s.limit)}-plan limit)` : '';
        const walk = s.more_gpus ? ` on ${fmt.many(s.gpus, this.unit)} and ${fmt.int(s.more_gpus.evaluated)} on more` : '';
        this.bar.finish(`Searched ${fmt.many(s.evaluated, 'plan')}${walk} in ${fmt.seconds(wallMs / 1000)}${trunc}.`);
        this.ran(scenario, { file: `llmcalc-search-${scenario.mode}`, request: { ...scenario, search }, output: out });
      });
    } catch (err) {
      if (err && err.cancelled) return;
      this.bar.finish(`Search failed: ${err.message || err}`, 'error');
    }
  }

  // Searches again on `gpus` (the count a walk up found), written in the form.
  searchOn(gpus) {
    this.ctx.store.setX('search.gpus', gpus, true);
    this.render(this.ctx.store.state);
    this.run();
  }

  // The weight format the scenario's model preset is released in, if it
  // names one (gpt-oss: mxfp4).
  released() {
    const { store } = this.ctx;
    return store.presets.models?.[store.state.model]?.release_weight_precision;
  }

  // The best plan that fits the scenario on `gpus` GPUs, its parallelism,
  // micro-batch and recompute left free; inference keeps its batch unless no
  // plan fits with it, training tries the optimizer offloaded to host memory
  // (where the system gives its host side) when nothing fits without, then
  // the weights too (ZeRO-3 plans); serving tries the model's released weight
  // format, then fp8, then int4 weights.
  // Resolves {best (null: none fits), evaluated, closest (when none fits: the
  // plan that misses by the least, or null), offloaded (what the plan
  // offloads: 'optimizer', 'parameters' or false), offloadTried (the last
  // offload searched too, or false), hostShort (plans of those searches that
  // fit the GPUs but offload more than the host memory holds), skipped (the
  // faster plans passed over for their warnings), narrowed (serving: the
  // narrower weight precision the plan stores, or false), narrowTried (the
  // narrower weight precisions searched too), released (the model's released
  // weight format, tried first, or undefined)}.
  async fit(gpus) {
    const { scenario, errors } = this.ctx.store.scenario();
    if (errors.length) throw new Error(errors.map((e) => `${e.key}: ${e.message}`).join('; '));
    const free = freePlan(scenario, this.ctx.store.field('inference.batch')?.default ?? 1);
    const sec = free[free.mode];
    return this.ctx.jobs.run(async (call) => {
      const search = async (doc) => {
        // more_gpus false: the calculator's button steps up the GPUs itself (App.fitPlan)
        const out = JSON.parse(await call('search', JSON.stringify({ ...doc, search: { gpus, top: 10, more_gpus: false } })));
        if (out.error) throw new Error(`${out.error.path ? `${out.error.path}: ` : ''}${out.error.message}`);
        return out.search;
      };
      const batch = sec.batch;
      const r = { s: await search(free), offloaded: false, offloadTried: false, hostShort: 0, narrowed: false, narrowTried: [], released: this.released() };
      r.evaluated = r.s.evaluated;
      if (!r.s.best?.length && free.mode === 'inference') {
        delete sec.batch;
        r.s = await search(free);
        r.evaluated += r.s.evaluated;
      }
      r.closest = r.s.closest || null;
      if (free.mode === 'training') await tryOffload(search, free, sec, r);
      else await tryNarrower(search, free, sec, batch, r, r.released);
      // The search's recommended plan: the fastest of the best without a warning
      // (the fastest plans often fit with under 5% to spare), else the fastest.
      const { s, ...rest } = r;
      const pick = s.recommended || 0;
      return { ...rest, best: s.best?.[pick] || null, skipped: pick, closest: s.best?.length ? null : r.closest };
    });
  }

  drawResult(s, mode, wallMs) {
    this.unit = fmt.unitWord(s.unit_name);
    const warn = (s.warnings || []).map((w) => el('li', { text: w }));
    this.heat = el('div', { class: 'heatmap-slot' });
    this.shared = sharedWarnings(s.best || []);
    const points = [
      ...(s.best || []).map((e, i) => ({ e, key: `best-${i + 1}`, front: false })),
      ...(s.pareto || []).map((e, i) => ({ e, key: `front-${i + 1}`, front: true })),
    ].map(({ e, key, front }) => {
      // flagged as the plan table flags its rows: warnings its listed plans do not all carry
      const flags = (e.warnings || []).filter((w) => !this.shared.has(w));
      return {
        key,
        front,
        flagged: flags.length > 0,
        x: e.memory_bytes_total,
        y: planTime(e),
        label: `${front ? 'Pareto' : 'best'}: ${fmt.seconds(planTime(e))}, ${fmt.bytes(e.memory_bytes_total)}; tp ${e.parallelism?.tp} pp ${e.parallelism?.pp} dp ${e.parallelism?.dp}${flags.length ? `; its plan: ${flags.join(' ')}` : ''}`,
      };
    });
    this.own = el('p', { class: 'own-plan', hidden: true });
    this.points = points;
    this.pareto = el('div', { class: 'pareto-slot' }, [this.paretoChart(mode)]);
    const parts = [
      stats(s, wallMs),
      this.own,
      warn.length ? el('ul', { class: 'warnings' }, warn) : null,
      s.best?.length ? null : noPlan(s.closest, this.ctx.onApply, s.evaluated, this.unit, this.released()),
      s.best?.length ? null : morePlan(s.more_gpus, mode, this.unit, (gpus) => this.searchOn(gpus)),
      this.heat,
      s.best?.length ? planTable(s.best, mode, this.ctx.onApply, s.recommended || 0, this.unit) : null,
      s.best?.length ? planWarnings(s.best) : null,
      s.best?.length ? rankingNote(s) : null,
      points.length ? this.pareto : null,
      servingChart(s, this.shared, this.unit),
    ];
    this.out.replaceChildren(...parts.filter(Boolean));
  }

  paretoChart(mode) {
    const points = this.points;
    return points.length
      ? scatter({ title: `Pareto front: time vs memory per ${this.unit}`, points, xLabel: `memory per ${this.unit}`, yLabel: training(mode) ? 'iteration time' : 'end-to-end latency', xFmt: fmt.bytes, yFmt: fmt.seconds, className: 'pareto' })
      : null;
  }

  // Evaluates the scenario on the left when it runs on the searched GPUs:
  // a line against the best plan, and its point on the Pareto chart.
  async compareOwnPlan(call, scenario, s, mode) {
    const out = JSON.parse(await call('evaluate', JSON.stringify(scenario)));
    if (out.error || out.gpus !== s.gpus) return;
    const sec = out[mode];
    const y = training(mode) ? sec?.iteration_time_s : sec?.e2e_latency_s;
    const x = sec?.memory_bytes?.total;
    if (sec?.fits && this.points.length && x > 0 && y > 0) {
      this.points.push({ key: 'own', own: true, front: false, x, y, label: `the plan on the left: ${fmt.seconds(y)}, ${fmt.bytes(x)}` });
      this.pareto.replaceChildren(this.paretoChart(mode));
    }
    const def = (key) => this.ctx.store.field(`${mode}.${key}`)?.default ?? undefined;
    const defaults = training(mode) ? { micro_batch: def('micro_batch'), recompute: def('recompute') } : { batch: def('batch') };
    const text = ownPlanText(scenario, out, s.best?.[0], mode, defaults, this.unit);
    this.own.textContent = text;
    this.own.hidden = !text;
  }

  async fillHeatmap(call, given, search, mode) {
    const scenario = search.vary === 'plan' ? releasePlan(given) : given;
    const { tps, pps, cells } = heatmapAxes(search.gpus, scenario.parallelism);
    const metric = training(mode) ? (e) => e.iteration_time_s : (e) => e.output_tokens_per_s_per_gpu;
    const draw = () =>
      this.heat.replaceChildren(
        heatmap({
          title: training(mode) ? 'Best iteration time per TP × PP' : `Best output tokens/s per ${this.unit} per TP × PP`,
          valueName: training(mode) ? 'best iteration time' : `best tokens/s per ${this.unit}`,
          unit: this.unit,
          tps,
          pps,
          cells,
          format: training(mode) ? fmt.seconds : fmt.num,
          lowerBetter: training(mode),
        }),
      );
    draw();
    let done = 0;
    for (const cell of cells) {
      this.bar.progress(done, cells.length, `Heatmap: ${done} of ${cells.length} (TP, PP) cells…`);
      const par = { ...scenario.parallelism, tp: cell.tp, pp: cell.pp };
      const out = JSON.parse(await call('search', JSON.stringify({ ...scenario, parallelism: par, search: { ...search, top: 1, vary: 'unset', more_gpus: false } })));
      const best = out.search?.best?.[0];
      cell.value = best ? metric(best) : null;
      // flagged as the plan table flags its rows: warnings its listed plans do not all carry
      cell.flags = (best?.warnings || []).filter((w) => !this.shared.has(w));
      cell.state = best ? 'done' : 'none';
      done += 1;
      draw();
    }
  }
}
