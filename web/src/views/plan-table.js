// The Search view's table of the best plans: one row each, its figures,
// its plan, its own warnings flagged and an Apply button; the recommended
// plan marked.
import { el } from '../dom.js';
import * as fmt from '../format.js';
import { chunkedBudget, sharedWarnings } from './plan-words.js';

export const training = (mode) => mode === 'training';
export const planTime = (e) => e.iteration_time_s ?? e.e2e_latency_s;

// Where a serving plan prefills: on the decode GPUs, whole or in chunks of
// its token budget inside the decode steps ("chunked 2,048"), or on separate
// instances ("2.5 × TP4": prefill instances per decode instance and their tp).
function prefillCell(e) {
  const tp = e.inference?.prefill_tp;
  const budget = chunkedBudget(e.inference);
  if (!(tp > 0)) return budget ? `chunked ${fmt.int(budget)}` : 'colocated';
  return Number.isFinite(e.prefill_instances) ? `${e.prefill_instances.toFixed(1)} × TP${tp}` : `TP${tp}`;
}

function planCells(e, mode) {
  const p = e.parallelism || {};
  const common = [fmt.seconds(planTime(e))];  // the header names the unit: the cells keep the table inside the panel
  const perf = training(mode)
    ? [fmt.num(e.tokens_per_s), fmt.percent(e.mfu)]
    : [fmt.num(e.output_tokens_per_s_per_gpu), fmt.seconds(e.ttft_s), fmt.seconds(e.tpot_s)];
  const par = training(mode)
    ? [p.tp, p.pp, p.dp, p.cp, Number.isFinite(p.etp) ? `${p.ep}/${p.etp}` : p.ep, p.sp ? 'yes' : 'no', p.zero, `${p.pp_schedule}${p.virtual_stages > 1 ? ` ×${p.virtual_stages}` : ''}`, e.training?.micro_batch, e.training?.recompute]
    : [p.tp, p.pp, p.dp, e.inference?.batch, prefillCell(e)];
  return [...common, ...perf, fmt.bytes(e.memory_bytes_total), ...par.map((v) => (v === undefined ? '–' : String(v)))];
}

// A figure, with its unit ("13.7 s", "614k", "8/1", "–"; format.js puts a
// no-break space before a unit), aligns right; "1f1b" is a name.
const NUMBER_CELL = /^(–|[\d.,]+(\/\d+)?([ \u00a0]?[a-zA-Z%]+)?)$/;

// A plan naming its expert tp shows it after its EP ("8/1", header "EP / ETP").
// `unit`: the system's word for a device ("GPU", a TPU's "chip").
function planHeaders(mode, etp = false, unit = 'GPU') {
  return training(mode)
    ? ['iteration', 'tokens/s', 'MFU', `memory per ${unit}`, 'TP', 'PP', 'DP', 'CP', etp ? 'EP / ETP' : 'EP', 'SP', 'ZeRO', 'schedule', 'micro-batch', 'recompute']
    : ['end-to-end', `tokens/s per ${unit}`, 'TTFT', 'TPOT', `memory per ${unit}`, 'TP', 'PP', 'DP', 'batch', 'prefill'];
}

// "Best 10 plans; plan 8 is the fastest without a warning". A plan the core
// appended beyond them (beyond_top) is named as such: beyond_top_why "kind",
// every listed plan was of a kind the model has been more optimistic about
// than the appended one's; "warnings", every listed plan carried a warning.
function planCaption(best, recommended) {
  const listed = best.filter((e) => !e.beyond_top).length;
  const extra = best[best.length - 1];
  const warned = extra?.beyond_top_why === 'warnings';
  const why = warned ? 'the fastest without a warning, found beyond them' : 'the fastest of a kind the model has been less optimistic about';
  const beyond = listed < best.length ? `, then plan ${best.length}, ${why}` : '';
  const said = beyond && warned && recommended === best.length - 1;
  return `Best ${listed} plan${listed === 1 ? '' : 's'}${beyond}${recommended > 0 && !said ? `; plan ${recommended + 1} is the fastest without a warning` : ''}`;
}

// The best plans, one row each; the recommended one (search.recommended: the
// fastest without a warning) is marked, and named in the caption when a
// faster plan carries a warning. `unit`: the system's word for a device.
export function planTable(best, mode, onApply, recommended = 0, unit = 'GPU') {
  const etp = best.some((e) => Number.isFinite(e.parallelism?.etp));
  const head = el('tr', {}, ['#', ...planHeaders(mode, etp, unit)].map((t) => el('th', { scope: 'col', text: t })));
  head.append(el('th', { scope: 'col' }, [el('span', { class: 'visually-hidden', text: 'Apply' })]));
  const body = el('tbody');
  const shared = sharedWarnings(best);
  best.forEach((e, i) => {
    const own = (e.warnings || []).filter((w) => !shared.has(w));
    body.append(
      el('tr', { 'data-rank': i + 1, 'data-time': planTime(e), class: i === recommended ? 'recommended' : null }, [
        el('th', { scope: 'row' }, [String(i + 1), own.length ? el('span', { class: 'plan-flag', title: own.join('\n'), 'aria-hidden': 'true', text: ' \u26a0' }) : '']),
        ...planCells(e, mode).map((t) => el('td', { class: NUMBER_CELL.test(t) ? 'num' : null, text: t })),
        el('td', {}, [el('button', { type: 'button', class: 'apply-plan', text: 'Apply', 'aria-label': `Apply plan ${i + 1} to the calculator`, onclick: () => onApply(e) })]),
      ]),
    );
  });
  return el('div', { class: 'table-scroll search-table' }, [
    el('table', { class: 'plans' }, [el('caption', { text: planCaption(best, recommended) }), el('thead', {}, [head]), body]),
  ]);
}
