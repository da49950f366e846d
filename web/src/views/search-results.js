// Parts of the Search view's result: what it says when no plan fits (the
// closest plan, the walk to more GPUs) and, for serving, the
// throughput-interactivity front.
import { el } from '../dom.js';
import * as fmt from '../format.js';
import { scatter } from '../charts/explore-charts.js';
import { chunkedBudget, closestText, frontBatchingWords, moreGpusText, narrowerWeights } from './plan-words.js';

// "No plan fits." and, when the search names one, the closest plan with
// what it misses and an Apply button (to see it in the calculator). When the
// fixed inputs left nothing to evaluate, the warning above says why.
export function noPlan(closest, onApply, evaluated, unit, released) {
  if (!closest) return el('p', { class: 'view-missing', text: evaluated === 0 ? 'No plan to show.' : 'No plan fits.' });
  // A serving plan short of memory with weights wider than 4 bits: name the
  // way out the calculator's button takes (App.fitPlan), which this search does not.
  const narrower = closest.inference && closest.misses?.includes('memory') ? narrowerWeights(closest.inference.weight_precision, released) : [];
  const names = narrower.map((w) => (w === released ? `${w} (the format the model is released in)` : w));
  const hint = narrower.length ? ` Narrower weights hold less: the calculator's "Find a plan that fits" also tries ${names.join(', then ')} weights.` : '';
  return el('p', { class: 'view-missing closest-plan' }, [
    `No plan fits. ${closestText(closest, unit)} `,
    el('button', { type: 'button', class: 'apply-plan', text: 'Apply', 'aria-label': 'Apply the closest plan to the calculator', onclick: () => onApply(closest) }),
    hint,
  ]);
}

// The walk up doubling GPU counts (search output "more_gpus") and a button
// that searches the count it found.
export function morePlan(more, mode, unit, onSearch) {
  if (!more) return null;
  const found = Number.isFinite(more.gpus);
  return el('p', { class: 'view-missing more-gpus' }, [
    `${moreGpusText(more, mode, unit)} `,
    found ? el('button', { type: 'button', class: 'search-more', text: `Search ${fmt.many(more.gpus, unit)}`, onclick: () => onSearch(more.gpus) }) : null,
  ]);
}

// Serving: the throughput-interactivity front (search output serving_front),
// output tokens/s per GPU against those each sequence sees, with the listed
// plans under it: the trade a serving fleet makes between cost and speed.
// Where the front's plans run prefill on instances of their own, the
// colocated plans' front (serving_front_colocated) is drawn beside it.
export function servingChart(s, shared, unit) {
  const front = s.serving_front || [];
  if (!front.length) return null;
  const colocated = s.serving_front_colocated || [];
  const points = [
    ...(s.best || []).map((e, i) => ({ e, key: `best-${i + 1}`, kind: 'best' })),
    ...front.map((e, i) => ({ e, key: `serving-${i + 1}`, kind: 'front' })),
    ...colocated.map((e, i) => ({ e, key: `colocated-${i + 1}`, kind: 'colocated' })),
  ].map(({ e, key, kind }) => {
    const flags = (e.warnings || []).filter((w) => !shared.has(w));
    const p = e.parallelism || {};
    const budget = chunkedBudget(e.inference);
    const where = e.prefill_instances ? `, prefill on ${fmt.num(e.prefill_instances)} instances of tp ${e.inference?.prefill_tp}`
      : budget ? `, prefill colocated, chunked: ${fmt.int(budget)} tokens per step` : ', prefill colocated';
    return {
      key,
      front: kind === 'front',
      alt: kind === 'colocated',
      flagged: flags.length > 0,
      x: e.output_tokens_per_s_per_user,
      y: e.output_tokens_per_s_per_gpu,
      label: `${kind}: ${fmt.num(e.output_tokens_per_s_per_user)} tokens/s per user, ${fmt.num(e.output_tokens_per_s_per_gpu)} per ${unit}; tp ${p.tp} pp ${p.pp} dp ${p.dp}, batch ${e.inference?.batch}${where}${flags.length ? `; its plan: ${flags.join(' ')}` : ''}`,
    };
  });
  const perUnit = `output tokens/s per ${unit}`;
  const gap = colocated.length ? ` The dotted front keeps prefill on the decode ${unit}s (colocated, ${frontBatchingWords(colocated)}); the gap between the two is what separate prefill instances buy.` : '';
  return el('div', { class: 'serving-slot' }, [
    scatter({ title: `Throughput vs interactivity: ${perUnit} against tokens/s each user sees`, points, xLabel: 'output tokens/s per user (1 / TPOT)', yLabel: perUnit, xFmt: (v) => fmt.num(v), yFmt: (v) => fmt.num(v), className: 'serving-front', altLabel: 'Pareto front, prefill colocated' }),
    el('p', { class: 'chart-note', text: `Each point of the front serves the most per ${unit} at its speed per user: up it, larger batches and narrower tensor parallelism serve more for less speed each.${gap} The listed plans are ranked by the ${perUnit} alone.` }),
  ]);
}
