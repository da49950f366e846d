// Plans in words, shared by the Search view, the studies and the
// calculator's "Find a plan that fits": a plan, the closest plan and what it
// misses, the GPU count to try next, the narrower weights to try, and the
// listed plans' warnings.
import { el } from '../dom.js';
import * as fmt from '../format.js';

// A plan in words: "TP 2 · PP 1 · DP 4 · SP · ZeRO 1 · micro-batch 1 · recompute selective".
export function planText(entry) {
  const p = entry.parallelism || {};
  const parts = [];
  for (const [k, name] of [['tp', 'TP'], ['pp', 'PP'], ['dp', 'DP'], ['cp', 'CP'], ['ep', 'EP']]) if (Number.isFinite(p[k]) && (p[k] > 1 || ['tp', 'pp', 'dp'].includes(k))) parts.push(`${name} ${p[k]}`);
  if (Number.isFinite(p.etp)) parts.push(`ETP ${p.etp}`);
  if (p.sp) parts.push('SP');
  if (p.zero) parts.push(`ZeRO ${p.zero}`);
  if (entry.training && p.pp > 1 && p.pp_schedule) parts.push(`${p.pp_schedule}${p.virtual_stages > 1 ? ` ×${p.virtual_stages}` : ''}`);
  if (entry.training?.micro_batch) parts.push(`micro-batch ${entry.training.micro_batch}`);
  if (entry.training?.recompute) parts.push(`recompute ${entry.training.recompute}`);
  if (entry.training?.offload === 'optimizer') parts.push('optimizer offloaded');
  if (entry.training?.offload === 'parameters') parts.push('weights and optimizer offloaded');
  if (entry.inference?.batch) parts.push(`batch ${entry.inference.batch}`);
  if (entry.inference?.prefill_tp > 0) parts.push(`prefill on TP ${entry.inference.prefill_tp} instances`);
  const budget = chunkedBudget(entry.inference);
  if (budget) parts.push(`chunked prefill, ${fmt.int(budget)} tokens per step`);
  return parts.join(' · ');
}

// What the search's closest plan (output "closest", when none is feasible)
// misses by: "The closest plan (TP 8 · …) needs 150 GiB per GPU of 80 GiB."
// `unit`: the system's word for a device (search.unit_name: "GPU", "chip").
export function closestText(c, unit = 'GPU') {
  const misses = [];
  const share = c.memory_share ?? 1;
  const allowed = share < 1 ? `${fmt.bytes(share * c.capacity_bytes)} allowed (${fmt.percent(share)} of ${fmt.bytes(c.capacity_bytes)})` : fmt.bytes(c.capacity_bytes);
  if (c.misses?.includes('memory')) misses.push(`needs ${fmt.bytes(c.memory_bytes_total)} per ${unit} of ${allowed}`);
  if (c.misses?.includes('ttft')) misses.push(`takes ${fmt.seconds(c.ttft_s)} to the first token (bound ${fmt.seconds(c.max_ttft_s)})`);
  if (c.misses?.includes('tpot')) misses.push(`takes ${fmt.seconds(c.tpot_s)} per output token (bound ${fmt.seconds(c.max_tpot_s)})`);
  return `The closest plan (${planText(c)}) ${misses.join(' and ') || 'misses'}.`;
}

// Where no plan fits, the core's walk up doubling GPU counts (search output
// "more_gpus"): "Doubling the GPUs, a plan fits on 64 (fewer than 62 cannot
// hold the weights, gradients and optimizer states; searched 64): TP 4 · …."
// or how far it went without one. `mode`: "training" or "inference".
export function moreGpusText(m, mode, unit = 'GPU') {
  const searched = (m.searched_gpus || []).map((g) => fmt.int(g)).join(', ');
  const held = mode === 'training' ? 'the weights, gradients and optimizer states' : 'the weights';
  const floor = `fewer than ${fmt.int(m.memory_floor_gpus)} cannot hold ${held}; searched ${searched}`;
  if (!Number.isFinite(m.gpus)) return `Doubling the ${unit}s, no plan fits on up to ${fmt.int(m.searched_gpus?.at(-1))} (${floor}).`;
  return `Doubling the ${unit}s, a plan fits on ${fmt.int(m.gpus)} (${floor}): ${planText(m.plan)}.`;
}

// A serving plan's chunked-prefill budget (tokens per step under in-flight
// batching; its inference section as the search output gives it), else 0.
export function chunkedBudget(inf = {}) {
  return inf?.batching === 'inflight' && inf.token_budget > 0 ? inf.token_budget : 0;
}

// How a colocated serving plan interleaves prefill with decode (its
// inference section: batching and token_budget as the search output gives them).
export function batchingWords(inf = {}) {
  if (inf?.batching !== 'inflight') return 'static batching: each batch is prefilled, then decoded';
  if (chunkedBudget(inf)) return 'in-flight batching with chunked prefill inside the decode steps';
  return 'in-flight batching: prompts are prefilled whole between decode steps';
}

// How the plans of a colocated front batch: one way, or each way they take
// (the search tries chunked prefill beside the scenario's own batching;
// the budget, which differs from plan to plan, is in each point's words).
export function frontBatchingWords(entries = []) {
  const ways = [...new Set(entries.map((e) => batchingWords(e.inference)))];
  return ways.length ? ways.join('; or ') : batchingWords();
}

// The GPU count to try next when no plan fits on `gpus`: a whole node, then
// twice the GPUs, skipping the counts that cannot hold the leanest plan. That
// plan needs `need` bytes per GPU where `allowed` may be used; no split
// shrinks a GPU's share faster than the GPUs grow (weights, gradients and
// optimizer states divide by tp x pp x dp at best, activations by tp x cp),
// so fewer than gpus x need / allowed GPUs cannot hold it (need 0: no bound).
// `node` NaN: no whole node to offer (a TPU's torus, rented as slices).
// Returns {gpus, atLeast}: the count to offer and that bound.
export function nextGpuCount(gpus, node, need, allowed) {
  const whole = Number.isFinite(node) && node > gpus ? Math.round(node) : 0;
  const atLeast = need > 0 && allowed > 0 ? Math.max(gpus + 1, Math.ceil((gpus * need) / allowed - 1e-9)) : gpus + 1;
  let n = whole || gpus * 2;
  while (n < atLeast) n *= 2;
  return { gpus: n, atLeast };
}

// Stored weight precisions narrower than `current`, in the order "Find a plan
// that fits" tries them: the format the model is released in (`released`, its
// preset's release_weight_precision: gpt-oss's mxfp4, DeepSeek-V3's fp8)
// first, as it is served as published; then fp8 and int4, those narrower than
// both (a format no narrower than one that did not fit holds no less).
const WEIGHT_BITS = { fp32: 32, bf16: 16, fp16: 16, fp8: 8, int8: 8, int4: 4, fp4: 4, nvfp4: 4, mxfp4: 4 };
export function narrowerWeights(current = 'bf16', released = undefined) {
  const bits = WEIGHT_BITS[current] ?? 0;  // a format not listed here: none tried
  const first = WEIGHT_BITS[released] < bits ? [released] : [];
  const below = Math.min(bits, WEIGHT_BITS[first[0]] ?? bits);
  return [...first, ...['fp8', 'int4'].filter((w) => WEIGHT_BITS[w] < below)];
}

// How a plan found with narrower weights computes, for the note that
// applies it: "fp8 weights and fp8 math (W8A8)"; where `weights` is the
// model's released format, it says so: "mxfp4 weights (weight-only kernels,
// bf16 math), the format the model is released in".
export function narrowedText(weights, entry, released = undefined) {
  const math = entry?.inference?.compute_precision || 'bf16';
  const how = weights === 'fp8' && math === 'fp8' ? 'fp8 weights and fp8 math (W8A8)' : `${weights} weights (weight-only kernels, ${math} math)`;
  return weights === released ? `${how}, the format the model is released in` : how;
}

// Warnings every listed plan carries (goodput at a huge GPU count, the
// caution on a kind of run when every plan is of it): they tell no plan from
// another, so no row is flagged for them (the core's recommendation ignores
// them too) and the list states them once for all.
export function sharedWarnings(best) {
  if (best.length < 2) return new Set();
  return new Set((best[0].warnings || []).filter((w) => best.every((e) => (e.warnings || []).includes(w))));
}

// The calculator's warnings for the listed plans (each entry's "warnings"),
// one line per distinct text with the plans it concerns: "Plans 1, 2: fits
// with under 5% to spare ...", then "All listed plans: ..." for those they
// all carry. Null when no plan has any.
export function planWarnings(best) {
  const byText = new Map();
  best.forEach((e, i) => (e.warnings || []).forEach((w) => byText.set(w, [...(byText.get(w) || []), i + 1])));
  if (!byText.size) return null;
  const shared = sharedWarnings(best);
  const who = (w, ranks) => (shared.has(w) ? 'All listed plans' : `${ranks.length > 1 ? 'Plans' : 'Plan'} ${ranks.join(', ')}`);
  const lines = [...byText].sort(([a], [b]) => shared.has(a) - shared.has(b)).map(([w, ranks]) => el('li', { text: `${who(w, ranks)}: ${w}` }));
  return el('ul', { class: 'warnings plan-warnings', 'aria-label': 'Warnings for the listed plans' }, lines);
}
