// Draws a result: headline numbers, a verdict line, charts and the op table.
// Tolerates missing keys: each piece draws only what the result carries.
import { el } from '../dom.js';
import * as fmt from '../format.js';
import { stackedBar, roofline } from '../charts/charts.js';
import { pipelineChart } from '../charts/pipeline-chart.js';
import { phaseChart } from '../charts/phase-chart.js';
import { limitSentence, whatIfChart } from '../charts/what-if-chart.js';
import { gpus, headline, unitName } from './headline.js';
import { OpTable } from './op-table.js';

const label = fmt.partLabel;

// Canonical order of stacked parts; keys not listed follow in their own order.
const MEMORY_ORDER = ['weights', 'gradients', 'optimizer', 'kv_cache', 'activations'];
// Sums and limits, and what optimizer offload keeps in host memory: not bars of the GPU's memory.
const MEMORY_NOT_ON_GPU = ['total', 'capacity', 'offloaded', 'host_capacity'];
// The parts of the GPU's chain, which a host-bound step runs under its launches (core sim/training.cpp bounding_part).
const UNDER_HOST = ['compute', 'recompute', 'tp_comm', 'cp_comm', 'ep_comm', 'dp_comm', 'offload'];
const TIME_ORDER = ['compute', 'recompute', 'host', 'tp_comm', 'cp_comm', 'ep_comm', 'pp_comm', 'pp_bubble', 'dp_comm', 'offload', 'optimizer'];

function parts(obj, skip = [], order = []) {
  const rank = (k) => {
    const i = order.indexOf(k);
    return i < 0 ? order.length : i;
  };
  return Object.entries(obj || {})
    .filter(([k, v]) => !skip.includes(k) && typeof v === 'number')
    .sort((a, b) => rank(a[0]) - rank(b[0]))
    .map(([key, value]) => ({ key, label: label(key), value }));
}

function boundShares(ops, phase) {
  const totals = new Map();
  let all = 0;
  for (const op of ops || []) {
    if (phase && op.phase !== phase) continue;
    const t = (op.time_s || 0) * (Number.isFinite(op.count) ? op.count : 1);
    if (!(t > 0)) continue;
    totals.set(op.bound || 'unknown', (totals.get(op.bound || 'unknown') || 0) + t);
    all += t;
  }
  return [...totals.entries()].map(([bound, t]) => ({ bound, share: t / all })).sort((a, b) => b.share - a.share);
}

function memoryVerdict(mem, fits, u) {
  if (!mem || !Number.isFinite(mem.total)) return null;
  const cap = mem.capacity;
  const use = Number.isFinite(cap) && cap > 0 ? ` (${fmt.percent(mem.total / cap)})` : '';
  const ok = fits ?? (Number.isFinite(cap) ? mem.total <= cap : undefined);
  if (ok === false && mem.offloaded > mem.host_capacity && mem.total <= cap)
    return { ok, text: `Does not fit in host memory: ${fmt.bytes(mem.offloaded)} offloaded per ${u}, ${fmt.bytes(mem.host_capacity)} available.` };
  if (ok === false) return { ok, text: `Does not fit: needs ${fmt.bytes(mem.total)} per ${u}, ${fmt.bytes(cap)} available${use}.` };
  return { ok: true, text: `Fits: ${fmt.bytes(mem.total)} of ${fmt.bytes(cap)} per ${u}${use}.` };
}

// The weights per GPU when they alone exceed the GPU's memory, else null.
function weightsAlone(mem) {
  const w = mem?.weights, cap = mem?.capacity;
  return Number.isFinite(w) && Number.isFinite(cap) && w > cap ? w : null;
}

// Serving where not one sequence fits: say whether the weights alone overflow.
function notOneFits(mem, u) {
  const w = weightsAlone(mem);
  return w ? `Not one sequence fits: the weights alone need ${fmt.bytes(w)} per ${u}.` : 'Not one sequence fits.';
}

// A prefill instance that does not fit: what shrinks its memory per GPU.
function prefillRemedy(mem, u) {
  const w = weightsAlone(mem);
  return w ? `Its weights alone need ${fmt.bytes(w)} per ${u}: a wider prefill tp spreads them.` : 'A wider prefill tp or a smaller prefill batch makes it smaller.';
}

// The core's warnings that the verdict above already says in its own words
// (core/src/sim/evaluate.cpp warnings_for and the recompute-to-fit note): the
// page does not list them twice. The JSON and the CLI keep every one.
const VERDICT_SAYS = [/^does not fit: /, /^recompute \S+ does not fit: /, /^the prefill instance does not fit: /];
function unstatedWarnings(warnings) {
  if (!Array.isArray(warnings)) return [];
  return warnings.map((w) => (typeof w === 'string' ? w : JSON.stringify(w))).filter((w) => !VERDICT_SAYS.some((re) => re.test(w)));
}

function verdict(result, scenario, onFit) {
  const sec = scenario.mode === 'training' ? result.training : result.inference;
  if (!sec) return null;
  const bits = [];
  const u = unitName(result);
  // Disaggregated serving: the decode GPUs' memory, then a prefill instance's.
  const pool = scenario.mode === 'training' ? null : sec.disaggregation;
  const mv = memoryVerdict(sec.memory_bytes, pool ? sec.memory_bytes?.total <= sec.memory_bytes?.capacity : sec.fits, u);
  if (mv) bits.push(pool ? mv.text.replace(` per ${u}`, ` per decode ${u}`) : mv.text);
  // training.recompute_to_fit: the time is for the plan that recomputes to fit.
  const fit = scenario.mode === 'training' ? sec.recompute_to_fit : null;
  if (fit && fit.layers > 0) {
    const which = fit.layers >= (sec.pipeline?.layers_per_stage || Infinity) ? 'every layer' : `${fmt.many(fit.layers, 'layer')} per stage`;
    bits.push(`The time shown recomputes ${which} whole, as a framework would to fit: that needs ${fmt.bytes(fit.memory_bytes_total)} per ${u}${fit.fits ? '.' : ', which does not fit either.'}`);
  }
  // Serving that does not fit: how far the batch must come down (0: not one sequence).
  if (mv && !mv.ok && !pool && scenario.mode !== 'training' && Number.isFinite(sec.max_batch))
    bits.push(sec.max_batch > 0 ? `The largest batch that fits: ${fmt.int(sec.max_batch)}.` : notOneFits(sec.memory_bytes, u));
  const pv = pool ? memoryVerdict(pool.memory_bytes, pool.fits, u) : null;
  if (pv) bits.push(pv.text.replace(/^Fits/, 'Prefill fits').replace(/^Does not fit/, 'Prefill does not fit').replace(` per ${u}`, ` per prefill ${u}`));
  if (pv && !pv.ok) bits.push(prefillRemedy(pool.memory_bytes, u));
  if (scenario.mode === 'training') {
    const tb = parts(sec.time_breakdown_s, [], TIME_ORDER).filter((p) => p.value > 0).sort((a, b) => b.value - a.value);
    const sum = tb.reduce((a, p) => a + p.value, 0);
    const share = (p) => `${p.label} (${fmt.percent(p.value / sum)})`;
    if (tb.length && sum > 0 && sec.bound === 'host') {
      // The host's launch chain paces the step; the GPU's work runs under it.
      const host = tb.find((p) => p.key === 'host');
      const under = tb.filter((p) => UNDER_HOST.includes(p.key)).slice(0, 2).map(share);
      let s = `Iteration time is bound by the host's kernel launches: the ${u}`;
      if (under.length) s += ` runs its ${under.join(' and ')} as they are launched and`;
      s += ` waits on them the rest (${fmt.percent((host?.value || 0) / sum)})`;
      bits.push(s + '.');
    } else if (tb.length && sum > 0) {
      let s = `Iteration time is bound by ${share(tb[0])}`;
      if (tb[1]) s += `, then ${share(tb[1])}`;
      bits.push(s + '.');
    }
  } else {
    const given = sec.bound && typeof sec.bound === 'object' ? sec.bound : {};
    for (const phase of ['prefill', 'decode']) {
      const b = boundShares(result.ops, phase);
      const name = phase[0].toUpperCase() + phase.slice(1);
      if (typeof given[phase] === 'string') {
        const share = b.find((x) => x.bound === given[phase]);
        bits.push(`${name} is ${fmt.levelLabel(result, given[phase])}-bound${share ? ` (${fmt.percent(share.share)} of its op time)` : ''}.`);
      } else if (b.length) bits.push(`${name} is ${fmt.levelLabel(result, b[0].bound)}-bound (${fmt.percent(b[0].share)} of its op time).`);
    }
    // MoE serving: which expert GEMM kernel ran (inference.moe_gemm, "auto" picked per plan).
    if (sec.moe_gemm === 'legacy16') bits.push('Experts run on the legacy 16-bit grouped GEMM (TensorRT-LLM ≤ 0.9).');
    else if (sec.moe_gemm === 'native')
      bits.push(sec.moe_gemm_fallback ? "Experts run on the device's own GEMM kernels: the legacy kernel's 16-bit experts would not fit." : "Experts run on the device's own GEMM kernels.");
  }
  const limit = limitSentence(result);
  if (limit) bits.push(limit);
  const ok = (mv ? mv.ok : true) && (pv ? pv.ok : true);
  const line = el('p', { class: `verdict ${ok ? 'ok' : 'bad'}`, role: 'status', text: bits.join(' ') });
  const n = gpus(result, scenario);
  if (ok || !onFit || !Number.isFinite(n) || n < 1) return line;
  const button = el('button', { type: 'button', id: 'fit-plan', class: 'fit-plan', text: `Find a plan that fits on ${n === 1 ? `this ${u}` : `these ${fmt.many(n, u)}`}` });
  const status = el('p', { class: 'fit-status', id: 'fit-status', role: 'status', 'aria-live': 'polite' });
  const box = { gpus: n, unit: u, button, status };
  button.addEventListener('click', () => onFit(box));
  return el('div', { class: 'verdict-box' }, [line, el('div', { class: 'fit-row' }, [button, status])]);
}

// Training where fused attention is a large share of the step: the
// iteration time under each kernel generation the GPU runs
// (training.attention_kernel_sensitivity), shown when they differ by 5% or
// more; published runs differ most by the kernel they ran.
const KERNEL_NAMES = { fa1: 'FlashAttention 1 / Triton', fa2: 'FlashAttention-2', fa3: 'FlashAttention-3 / cuDNN' };
function kernelNote(result, scenario) {
  const k = result.training?.attention_kernel_sensitivity;
  const now = result.training?.iteration_time_s;
  if (!k || !Number.isFinite(now) || now <= 0) return null;
  const times = Object.entries(k.iteration_time_s || {}).filter(([, t]) => Number.isFinite(t));
  if (!times.some(([, t]) => Math.abs(t / now - 1) >= 0.05)) return null;
  const sign = (x) => (Math.abs(x) < 0.0005 ? '' : ` (${x > 0 ? '+' : '−'}${(100 * Math.abs(x)).toFixed(1)}%)`);
  const list = times.map(([name, t]) => `${KERNEL_NAMES[name] || name} ${fmt.seconds(t)}${sign(t / now - 1)}`).join(', ');
  const named = scenario.training?.attention_kernel;
  const runs = named && named !== 'best' ? `This result runs ${KERNEL_NAMES[named] || named}` : 'This result runs the best kernel on this GPU';
  const text = `Fused attention is ${fmt.percent(k.attention_share)} of the op time, so the kernel generation sets much of the step: ${list}. ${runs}; the training setting “attention kernel” (under More settings) names the one a framework runs.`;
  return el('p', { class: 'kernel-note', text });
}

// Training: the step with the other element-wise kernels
// (training.fusion_sensitivity), when they differ by 2% or more: what fused
// kernels or torch.compile buy a PyTorch run written as eager modules.
function fusionNote(result, scenario) {
  const f = result.training?.fusion_sensitivity;
  const now = result.training?.iteration_time_s;
  if (!f || !Number.isFinite(now) || now <= 0) return null;
  const eager = scenario.training?.fusion === 'eager';
  const other = eager ? 'fused' : 'eager';
  const t = f.iteration_time_s?.[other], memory = f.memory_bytes_total?.[other];
  if (!Number.isFinite(t) || !Number.isFinite(memory)) return null;
  const change = `${t > now ? '+' : '−'}${(100 * Math.abs(t / now - 1)).toFixed(1)}%`;
  const text = eager
    ? `With fused element-wise kernels (Megatron-Core, Transformer Engine, torch.compile) the step would take ${fmt.seconds(t)} (${change}) and ${fmt.bytes(memory)} per GPU. This result runs RMSNorm, the gated activation, RoPE and the loss as PyTorch eager modules, one kernel per tensor operation.`
    : `As PyTorch eager modules (Hugging Face transformers without torch.compile: RMSNorm, the gated activation, RoPE and the loss one kernel per tensor operation) the step would take ${fmt.seconds(t)} (${change}) and ${fmt.bytes(memory)} per GPU; the training setting “element-wise kernels” (under More settings) names the kind a framework runs.`;
  return el('p', { class: 'fusion-note', text });
}

// How far the model has been from published runs of this kind
// (result.accuracy, from the validation set): one line under the verdict,
// on the headline figures (training: the iteration time; serving: each
// measured latency and throughput).
// The measured outputs results quote, in words (the published-runs study names them so too).
export const ACCURACY_METRICS = {
  'training.iteration_time_s': 'iteration time',
  'inference.output_tokens_per_s': 'output tokens/s',
  'inference.ttft_s': 'time to first token',
  'inference.tpot_s': 'time per output token',
};
const pct1 = (x) => `${(100 * x).toFixed(1)}%`;

// "iteration time off by 4.3% on average (predicted 2.1% low on balance,
// worst 24.7%, 14 runs)" for the headline metrics of one regime; null when
// no published run of that kind was measured on them.
export function accuracySummary(metrics) {
  const order = Object.keys(ACCURACY_METRICS);
  const shown = (Array.isArray(metrics) ? metrics : []).filter((m) => order.includes(m.metric))
    .sort((x, y) => order.indexOf(x.metric) - order.indexOf(y.metric));
  if (!shown.length) return null;
  return shown.map((m) => {
    const lean = `predicted ${pct1(Math.abs(m.mean_error))} ${m.mean_error >= 0 ? 'high' : 'low'} on balance`;
    const runs = `${m.cases} run${m.cases === 1 ? '' : 's'}`;
    return `${ACCURACY_METRICS[m.metric]} off by ${pct1(m.mean_abs_error)} on average (${lean}, worst ${pct1(m.max_abs_error)}, ${runs})`;
  }).join('; ');
}

// The published runs behind the figures: case id, signed error, source.
function accuracyRuns(metrics) {
  const items = [];
  for (const m of metrics) {
    if (!(m.metric in ACCURACY_METRICS) || !Array.isArray(m.runs)) continue;
    for (const r of m.runs) {
      const sign = r.signed_error >= 0 ? '+' : '\u2212';
      items.push(el('li', { text: `${ACCURACY_METRICS[m.metric]}, ${r.id}: ${sign}${pct1(Math.abs(r.signed_error))} (${r.source})` }));
    }
  }
  if (!items.length) return null;
  return el('details', { class: 'accuracy-runs' }, [el('summary', { text: `The published runs (${items.length})` }), el('ul', {}, items)]);
}

// "a", "a and b", "a, b and c"
export const listText = (xs) => (xs.length < 2 ? xs.join('') : `${xs.slice(0, -1).join(', ')} and ${xs[xs.length - 1]}`);

// The model's layer kinds none of a regime's runs had (accuracy.architecture_unvalidated).
export function unvalidatedKinds(a) {
  return Array.isArray(a?.architecture_unvalidated) ? a.architecture_unvalidated.filter((k) => typeof k === 'string') : [];
}

export function accuracyNote(result) {
  const a = result?.accuracy;
  if (!a || typeof a.label !== 'string' || !Array.isArray(a.metrics)) return null;
  const summary = accuracySummary(a.metrics);
  // Beyond 15% mean error (the accuracy the project targets per family) the
  // line says so in words and in colour.
  const wide = a.metrics.some((m) => m.metric in ACCURACY_METRICS && m.mean_abs_error >= 0.15);
  // Runs on other hardware say little about a device whose efficiencies are
  // partly assumptions: the line names it when none of the runs used it.
  const elsewhere = summary && a.device_validated === false && typeof a.device === 'string'
    ? ` None of these runs was on the ${a.device}: its figures rest on the efficiencies in its preset's sources, partly assumptions.`
    : '';
  // Layer kinds none of the runs had (Mamba-2 layers, MLA, ...): their cost
  // rests on the work and traffic the model counts, not on a measured run.
  const kinds = unvalidatedKinds(a);
  const unrun = summary && kinds.length
    ? ` None of these runs had ${listText(kinds)}: the model costs them from the work and traffic it counts, unchecked against a measurement.`
    : '';
  // Kinds whose runs measure a mechanism this run has too (a ZeRO-3 MoE
  // run's per-layer gathers): quoted after its own (accuracy.also).
  const also = (Array.isArray(a.also) ? a.also : []).filter((b) => typeof b?.label === 'string' && accuracySummary(b.metrics));
  const alsoWide = also.some((b) => b.metrics.some((m) => m.metric in ACCURACY_METRICS && m.mean_abs_error >= 0.15));
  const alsoText = also.map((b) => ` It is also a run of this kind (${b.label}): ${accuracySummary(b.metrics)}.`).join('');
  const text = summary
    ? `${wide || alsoWide ? 'Caution: ' : ''}Validation against published runs of this kind (${a.label}): ${summary}.${elsewhere}${unrun}${alsoText}`
    : `${alsoWide ? 'Caution: ' : ''}Not yet validated: no published run of this kind (${a.label}) is in the validation set.${alsoText}`;
  const runs = accuracyRuns(a.metrics);
  // Every published run, of every kind, in the Studies view (toolbar.js opens it).
  const all = el('button', { type: 'button', class: 'all-runs', 'data-open-study': 'published-runs', text: 'Every published run against the model' });
  return el('div', { class: `accuracy-note${wide || alsoWide ? ' wide' : ''}`, 'data-regime': String(a.regime || '') }, [el('p', { text }), runs, all].filter(Boolean));
}

// KV cache per layer type (inference.kv_cache_by_layer_type): one GPU of the
// most loaded stage, per sequence; the types sum, times the sequences in flight, to
// the memory chart's KV cache.
const KV_TYPES = {
  mla: ['MLA latent', 'latent + RoPE key, shared by the heads'],
  full: ['full attention', 'keys and values of every token'],
  sliding_window: ['sliding window', 'the last window of tokens'],
  chunked: ['chunked', 'the tokens of the current chunk'],
  indexer_keys: ['sparse-attention indexer', 'the indexer\'s fp8 key of every token (DeepSeek Sparse Attention), beside the cache the core attends'],
  linear_state: ['linear-attention state', 'a fixed recurrent state per sequence (fp32 unless state_precision says otherwise) and the convolution\'s last inputs, whatever the context'],
};

export function kvTable(result) {
  const rows = result?.inference?.kv_cache_by_layer_type;
  if (!Array.isArray(rows) || !rows.length) return null;
  const num = (x, f) => (Number.isFinite(x) ? f(x) : '–');
  const cell = (text, cls) => el('td', { class: cls, text });
  const head = ['Layer type', 'Layers', 'Bytes / token / layer', 'Bytes / token', 'Tokens cached', 'Per sequence'];
  const body = rows.map((r) => {
    const [name, note] = KV_TYPES[r.type] || [String(r.type || '?').replace(/_/g, ' '), ''];
    // A recurrent state is per sequence, not per token: no per-token figures.
    const state = r.type === 'linear_state';
    return el('tr', { 'data-type': String(r.type || '') }, [
      el('th', { scope: 'row', title: note }, [name]),
      cell(num(r.layers, fmt.int), 'num'),
      cell(state ? '–' : num(r.bytes_per_token_per_layer, (x) => `${fmt.int(x)} B`), 'num'),
      cell(state ? '–' : num(r.bytes_per_token, (x) => `${fmt.int(x)} B`), 'num'),
      cell(state ? 'fixed state' : num(r.tokens_cached, fmt.int), 'num'),
      cell(num(r.bytes_per_sequence, fmt.bytes), 'num'),
    ]);
  });
  const sum = (k, of = rows) => of.reduce((a, r) => a + (Number.isFinite(r[k]) ? r[k] : 0), 0);
  // The indexer's keys sit beside the attention cache of the same layers.
  const layers = sum('layers', rows.filter((r) => r.type !== 'indexer_keys'));
  const foot = rows.length > 1
    ? el('tfoot', {}, [el('tr', {}, [
      el('th', { scope: 'row', text: 'all' }),
      cell(fmt.int(layers), 'num'),
      cell('', 'num'),
      cell(`${fmt.int(sum('bytes_per_token'))} B`, 'num'),
      cell('', 'num'),
      cell(fmt.bytes(sum('bytes_per_sequence')), 'num'),
    ])])
    : null;
  const table = el('table', { class: 'kv-types' }, [
    el('thead', {}, [el('tr', {}, head.map((t, i) => el('th', { scope: 'col', class: i ? 'num' : '', text: t })))]),
    el('tbody', {}, body),
    foot,
  ]);
  return el('figure', { class: 'chart-box kv-box', 'data-view': 'kv' }, [
    el('figcaption', { text: 'KV cache per layer type' }),
    table,
    el('p', { class: 'chart-note', text: `One ${unitName(result)} of the most loaded stage, one sequence at its full length; local layers keep at most their window or chunk, linear-attention layers a fixed state, sparse-attention layers every token and its indexer key.` }),
  ]);
}

export const VIEWS = ['summary', 'compare', 'memory', 'time', 'pipeline', 'phases', 'kv', 'roofline', 'ops'];

// The summary: the title, the headline cards, the verdict, and the notes on
// accuracy, the attention kernel and the plan applied.
function summarySection(result, scenario, onFit, note) {
  const who = [result.model?.name, result.device?.system || result.device?.name].filter((x) => typeof x === 'string' && x);
  return el('section', { class: 'summary', 'data-view': 'summary', 'aria-label': 'Summary' }, [
    el('p', { class: 'result-title', text: `${scenario.mode === 'training' ? 'Training' : 'Inference'}: ${who.join(' on ')}` }),
    headline(result, scenario),
    verdict(result, scenario, onFit),
    accuracyNote(result),
    kernelNote(result, scenario),
    fusionNote(result, scenario),
    note ? el('p', { class: 'plan-note', role: 'status', text: note }) : null,
  ]);
}

function modeSection(scenario, result) {
  return scenario.mode === 'training' ? result.training : result.inference;
}

// Memory per GPU as one stacked bar against the capacity.
function memoryBar(scenario, result) {
  const mem = modeSection(scenario, result)?.memory_bytes;
  if (!mem) return null;
  return stackedBar({
    title: `Memory per ${unitName(result)} (most loaded)`,
    parts: parts(mem, MEMORY_NOT_ON_GPU, MEMORY_ORDER),
    limit: Number.isFinite(mem.capacity) ? { label: 'capacity', value: mem.capacity } : null,
    format: fmt.bytes,
    unit: 'bytes',
    className: 'chart-memory',
  });
}

// Training: the iteration time's breakdown; serving: a request's prefill and decode.
function timeBar(scenario, result) {
  const sec = modeSection(scenario, result);
  const note = `Communication, offload copies and the host are counted where the ${unitName(result)} waits on them: the part compute does not hide. The operations table gives each collective its whole time.`;
  if (scenario.mode === 'training' && sec?.time_breakdown_s) {
    return stackedBar({
      title: `Iteration time breakdown (${fmt.seconds(sec.iteration_time_s)})`,
      parts: parts(sec.time_breakdown_s, [], TIME_ORDER),
      format: fmt.seconds,
      unit: 'seconds',
      className: 'chart-time',
      note,
    });
  }
  if (scenario.mode === 'inference' && sec && Number.isFinite(sec.ttft_s) && Number.isFinite(sec.e2e_latency_s)) {
    return stackedBar({
      title: `Request latency (${fmt.seconds(sec.e2e_latency_s)})`,
      parts: [
        { key: 'prefill', label: 'prefill (TTFT)', value: sec.ttft_s },
        { key: 'decode', label: 'decode', value: sec.e2e_latency_s - sec.ttft_s },
      ],
      format: fmt.seconds,
      unit: 'seconds',
      className: 'chart-time',
      note,
    });
  }
  return null;
}

function chartTools(fig, name, onExport) {
  const cap = fig.querySelector('figcaption');
  const title = cap ? cap.textContent : name;
  const svgNode = fig.querySelector('svg');
  if (!svgNode || !onExport) return fig;
  const tools = el('div', { class: 'chart-tools' }, ['svg', 'png'].map((fmtName) =>
    el('button', { type: 'button', class: `export-${fmtName}`, 'data-format': fmtName, 'aria-label': `Download “${title}” as ${fmtName.toUpperCase()}`, text: fmtName.toUpperCase(), onclick: () => onExport(svgNode, name, fmtName) }),
  ));
  fig.insertBefore(tools, fig.firstChild.nextSibling);
  return fig;
}

export class ResultsView {
  constructor(root, { onExport, onFit } = {}) {
    this.root = root;
    this.table = new OpTable();
    this.onExport = onExport;
    this.onFit = onFit;
  }

  // Builds every view the result has: Map view -> element.
  views(result, scenario, compare, note) {
    const v = new Map();
    v.set('summary', summarySection(result, scenario, this.onFit, note));
    if (compare) v.set('compare', compare);
    const tool = (fig, name) => {
      fig.dataset.view = fig.dataset.view || name;
      return chartTools(fig, name, this.onExport);
    };
    const training = scenario.mode === 'training';
    const pipe = result.training?.pipeline;
    // In the order the page shows them; a chart the result has no data for is left out.
    const charts = [
      ['memory', memoryBar(scenario, result)],
      ['time', timeBar(scenario, result)],
      ['whatif', whatIfChart(result)],
      ['pipeline', training && pipe && typeof pipe === 'object' ? pipelineChart(pipe) : null],
      ['phases', training ? null : phaseChart(result)],
    ];
    for (const [name, fig] of charts) if (fig) v.set(name, tool(fig, name));
    const kv = training ? null : kvTable(result);
    if (kv) v.set('kv', kv);
    const roof = roofline(result);
    if (roof) v.set('roofline', tool(roof, 'roofline'));
    if (Array.isArray(result.ops) && result.ops.length) {
      const box = this.table.update(result);
      box.dataset.view = 'ops';
      v.set('ops', box);
    }
    return v;
  }

  // study: the embedded study (systems, scaling, models, published-runs), when that is the view shown;
  // missing(name): with `only`, the text shown when it names no view drawn here (embed.js).
  render(result, scenario, { only = null, missing = null, compare = null, note = null, study = null } = {}) {
    const v = this.views(result, scenario, compare, note);
    if (study) v.set(study.dataset.view, study);
    const nodes = [];
    if (only) {
      nodes.push(v.get(only) || el('p', { class: 'view-missing', text: missing(only) }));
    } else {
      nodes.push(v.get('summary'));
      // The warnings qualify the figures above: they follow them, before the charts.
      const listed = unstatedWarnings(result.warnings);
      if (listed.length) {
        const ul = el('ul', { class: 'warnings', 'aria-label': 'Warnings' });
        for (const w of listed) ul.append(el('li', { text: w }));
        nodes.push(ul);
      }
      if (v.has('compare')) nodes.push(v.get('compare'));
      const charts = el('div', { class: 'charts' });
      for (const name of ['memory', 'time', 'whatif', 'pipeline', 'phases', 'kv', 'roofline']) if (v.has(name)) charts.append(v.get(name));
      nodes.push(charts);
      if (v.has('ops')) nodes.push(v.get('ops'));
    }
    this.root.replaceChildren(...nodes);
  }
}
