// Compare: a pinned result next to the current one, headline numbers with
// their change. The pinned state lives in the URL (pin=...), so a comparison
// is a link too.
import { el } from '../dom.js';
import * as fmt from '../format.js';

// [key, label, getter, format, better: 'lower' | 'higher' | null]
const METRICS = {
  training: [
    ['iteration_time_s', 'Iteration time', (r) => r.training?.iteration_time_s, fmt.seconds, 'lower'],
    ['tokens_per_s', 'Throughput (tokens/s)', (r) => r.training?.tokens_per_s, (x) => fmt.rate(x, 'tokens/s'), 'higher'],
    ['tflops_per_gpu', 'TFLOP/s per GPU', (r) => r.training?.tflops_per_gpu, fmt.tflops, 'higher'],
    ['mfu', 'MFU', (r) => r.training?.mfu, fmt.percent, 'higher'],
    ['time_to_train_s', 'Time to train', (r) => r.training?.time_to_train_s, fmt.seconds, 'lower'],
    ['goodput', 'Goodput (with interruptions)', (r) => r.training?.reliability?.goodput, fmt.percent, 'higher'],
    ['memory', 'Memory per GPU', (r) => r.training?.memory_bytes?.total, fmt.bytes, 'lower'],
  ],
  inference: [
    ['ttft_s', 'Time to first token', (r) => r.inference?.ttft_s, fmt.seconds, 'lower'],
    ['tpot_s', 'Time per output token', (r) => r.inference?.tpot_s, fmt.seconds, 'lower'],
    ['e2e_latency_s', 'End-to-end latency', (r) => r.inference?.e2e_latency_s, fmt.seconds, 'lower'],
    ['output_tokens_per_s', 'Output throughput', (r) => r.inference?.output_tokens_per_s, (x) => fmt.rate(x, 'tokens/s'), 'higher'],
    ['max_batch', 'Max batch', (r) => r.inference?.max_batch, fmt.int, 'higher'],
    ['memory', 'Memory per GPU', (r) => r.inference?.memory_bytes?.total, fmt.bytes, 'lower'],
  ],
  common: [
    ['gpus', 'GPUs', (r) => r.gpus, fmt.int, null],
    ['parameters', 'Parameters', (r) => r.model?.parameters, fmt.count, null],
  ],
};

// The word for the devices both results run on ("GPU", a TPU's "chip"),
// "device" when they differ.
function sharedUnit(pinned, current) {
  const a = fmt.unitWord(pinned?.device?.unit_name);
  return a === fmt.unitWord(current?.device?.unit_name) ? a : 'device';
}

// Rows {key, label, a, b, delta (relative, b vs a), verdict: 'better'|'worse'|'same'|''}.
export function compareRows(pinned, current, modeA, modeB) {
  const list = modeA === modeB ? [...(METRICS[modeA] || []), ...METRICS.common] : [...METRICS.common];
  const unit = sharedUnit(pinned, current);
  const rows = [];
  for (const [key, metric, get, format, better] of list) {
    const label = metric.replace('per GPU', `per ${unit}`).replace(/^GPUs$/, `${fmt.capital(unit)}s`);
    const a = get(pinned || {});
    const b = get(current || {});
    if (!Number.isFinite(a) && !Number.isFinite(b)) continue;
    const delta = Number.isFinite(a) && Number.isFinite(b) && a !== 0 ? (b - a) / Math.abs(a) : NaN;
    let verdict = '';
    if (Number.isFinite(delta)) {
      if (Math.abs(delta) < 1e-9) verdict = 'same';
      else if (better) verdict = (delta < 0) === (better === 'lower') ? 'better' : 'worse';
    }
    rows.push({ key, label, a, b, delta, verdict, format });
  }
  return rows;
}

// Settings that differ between two states: [{key, from, to}].
export function stateDiff(schema, a, b) {
  const out = [];
  if (a.mode !== b.mode) out.push({ key: 'mode', from: a.mode, to: b.mode });
  for (const k of ['model', 'system']) if (a[k] !== b[k]) out.push({ key: k, from: a[k] || 'custom', to: b[k] || 'custom' });
  for (const f of schema.fields) {
    if (f.type === 'preset' || f.key === 'mode') continue;
    const va = a.values[f.key];
    const vb = b.values[f.key];
    if (String(va ?? '') !== String(vb ?? '')) out.push({ key: f.key, from: va ?? 'default', to: vb ?? 'default' });
  }
  return out;
}

function signed(delta) {
  if (!Number.isFinite(delta)) return '–';
  if (Math.abs(delta) < 1e-9) return '±0%';
  return `${delta > 0 ? '+' : '−'}${fmt.percent(Math.abs(delta))}`;
}

// pinned/current: {result, scenario, state}. Returns the compare section.
export function compareView(schema, pinned, current, { onUnpin, onRestore } = {}) {
  const rows = compareRows(pinned.result, current.result, pinned.scenario?.mode, current.scenario?.mode);
  const table = el('table', { class: 'compare' }, [
    el('caption', { text: 'Pinned vs current' }),
    el('thead', {}, [el('tr', {}, ['metric', 'pinned', 'current', 'change'].map((t) => el('th', { scope: 'col', text: t })))]),
  ]);
  const body = el('tbody');
  for (const r of rows) {
    body.append(
      el('tr', { 'data-key': r.key, class: r.verdict }, [
        el('th', { scope: 'row', text: r.label }),
        el('td', { class: 'num', text: r.format(r.a) }),
        el('td', { class: 'num', text: r.format(r.b) }),
        el('td', { class: `num delta ${r.verdict}`, text: signed(r.delta) + (r.verdict === 'better' ? ' better' : r.verdict === 'worse' ? ' worse' : '') }),
      ]),
    );
  }
  table.append(body);
  const diffs = stateDiff(schema, pinned.state, current.state);
  const changed = el('p', { class: 'chart-note compare-diff' });
  changed.textContent = diffs.length
    ? `Changed since pinned: ${diffs.slice(0, 8).map((d) => `${d.key} ${d.from} → ${d.to}`).join('; ')}${diffs.length > 8 ? ` and ${diffs.length - 8} more` : ''}.`
    : 'No setting changed since pinned.';
  const tools = el('div', { class: 'compare-tools' }, [
    onRestore ? el('button', { type: 'button', class: 'restore-pin', text: 'Go back to pinned', onclick: onRestore }) : null,
    onUnpin ? el('button', { type: 'button', class: 'unpin', text: 'Unpin', onclick: onUnpin }) : null,
  ]);
  return el('section', { class: 'compare-box', 'data-view': 'compare', 'aria-label': 'Comparison with the pinned result' }, [table, changed, tools]);
}
