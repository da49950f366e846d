// The headline cards above the verdict: the mode's numbers (training step
// or serving latencies), cost and energy, memory, GPUs and parameters.
import { el } from '../dom.js';
import * as fmt from '../format.js';

// GPUs the result runs on: the core's count, else the plan's.
export function gpus(result, scenario) {
  if (Number.isFinite(result.gpus)) return result.gpus;
  const p = scenario.parallelism || {};
  const n = (k) => (Number.isFinite(p[k]) ? p[k] : 1);
  return n('tp') * n('pp') * n('dp') * (scenario.mode === 'training' ? n('cp') : 1);
}

// The word for one of the result's devices: "GPU", or the vendor's word
// where the part is no GPU (system.device.unit_name: a TPU's "chip").
export function unitName(result) {
  return fmt.unitWord(result?.device?.unit_name);
}
const capital = fmt.capital;

function card(name, value, note, key) {
  return el('div', { class: 'card', 'data-key': key }, [
    el('dt', {}, [name]),
    el('dd', {}, [el('span', { class: 'value', text: value }), note ? el('span', { class: 'note', text: ` ${note}` }) : null]),
  ]);
}

// Time-weighted share of each `bound` among ops of one phase.
// The training cards: the step, its rate, time to train and goodput.
function trainingCards(t, result, scenario) {
  const cards = [
    card('Iteration', fmt.seconds(t.iteration_time_s), null, 'iteration_time_s'),
    card('Throughput', fmt.rate(t.tokens_per_s, 'tokens/s'), null, 'tokens_per_s'),
    card(`Per ${unitName(result)}`, fmt.tflops(t.tflops_per_gpu), null, 'tflops_per_gpu'),
    card(
      el('abbr', { title: 'model FLOPs utilisation: the model’s FLOPs per second over the GPUs’ peak (HFU, hardware FLOPs utilisation, counts recomputed FLOPs too). Both count attention over the whole sequence, as Megatron’s and most published figures do, though causal kernels skip about half of it: at long sequences they can read high.', text: 'MFU' }),
      fmt.percent(t.mfu),
      Number.isFinite(t.hfu) ? `HFU ${fmt.percent(t.hfu)}` : null,
      'mfu',
    ),
  ];
  const rel = t.reliability;
  const interrupted = Number.isFinite(rel?.time_to_train_s) ? `${fmt.seconds(rel.time_to_train_s)} with interruptions` : null;
  if (Number.isFinite(t.time_to_train_s)) cards.push(card('Time to train', fmt.seconds(t.time_to_train_s), interrupted, 'time_to_train_s'));
  // Goodput once interruptions cost a percent of the run (large jobs).
  if (Number.isFinite(rel?.goodput) && rel.goodput < 0.99)
    cards.push(card('Goodput', fmt.percent(rel.goodput),
      `an interruption every ${fmt.seconds(rel.mtbf_s)}; a ${fmt.bytes(rel.checkpoint_bytes_per_gpu * gpus(result, scenario))} checkpoint every ${fmt.seconds(rel.checkpoint_interval_s)}`, 'goodput'));
  const f = t.flops;
  const perIter = Number.isFinite(f) ? f : f?.model_per_iteration;
  if (Number.isFinite(perIter)) cards.push(card('FLOP / iteration', fmt.flops(perIter), null, 'flops'));
  return cards;
}

// The serving cards: latencies, throughput, and what disaggregation, chunked
// prefill and a target request rate add.
function inferenceCards(i, totalGpus, unit) {
  // Speculative decoding: a step emits more than one token per sequence.
  const perStep = Number.isFinite(i.tokens_per_step) && i.tokens_per_step > 1 ? `${i.tokens_per_step.toFixed(2)} tokens / step` : null;
  const pool = i.disaggregation;
  const cards = [
    card('Time to first token', fmt.seconds(i.ttft_s), null, 'ttft_s'),
    card('Time per output token', fmt.seconds(i.tpot_s), perStep, 'tpot_s'),
    card('End-to-end latency', fmt.seconds(i.e2e_latency_s), null, 'e2e_latency_s'),
    card('Output throughput', fmt.rate(i.output_tokens_per_s, 'tokens/s'), replicaNote(i, pool, totalGpus, unit), 'output_tokens_per_s'),
  ];
  // Disaggregated serving: the prefill instances one decode instance needs.
  if (pool) {
    cards.push(card('Prefill instances', `${pool.prefill_instances.toFixed(2)} × ${fmt.many(pool.prefill_tp, unit)}`,
      `KV transfer ${fmt.seconds(pool.kv_transfer_s)}`, 'prefill_instances'));
  }
  // Chunked prefill: what one engine step runs under the token budget.
  const chunked = i.chunked_prefill;
  if (chunked) {
    cards.push(card('Step (token budget)', `${fmt.num(chunked.decode_rows_per_step)} + ${fmt.num(chunked.prompt_tokens_per_step)}`,
      `decode rows + prompt tokens; ${fmt.num(chunked.steps_per_prompt)} steps per prompt`, 'chunked_prefill'));
  }
  if (Number.isFinite(i.max_batch)) cards.push(card('Max batch', fmt.int(i.max_batch), 'fits in memory', 'max_batch'));
  // Capacity planning: what serving the target request rate takes.
  const cap = i.capacity;
  if (cap && Number.isFinite(cap.gpus)) {
    const how = Number.isFinite(cap.prefill_instances)
      ? `${fmt.many(cap.replicas, 'decode instance')} + ${fmt.many(cap.prefill_instances, 'prefill instance')}`
      : fmt.many(cap.replicas, 'replica');
    const rate = Number.isInteger(cap.target_requests_per_s) ? fmt.int(cap.target_requests_per_s) : fmt.num(cap.target_requests_per_s);
    cards.push(card(`${capital(unit)}s for ${rate} req/s`, fmt.int(cap.gpus), how, 'capacity'));
  }
  return cards;
}

// The cards of both modes: memory, GPUs and parameters.
function commonCards(result, scenario) {
  const cards = [];
  const params = result.model?.parameters;
  const mem = (result.training || result.inference || {}).memory_bytes;
  if (mem) {
    const of = Number.isFinite(mem.capacity) ? `of ${fmt.bytes(mem.capacity)}` : '';
    const host = Number.isFinite(mem.offloaded) ? `; ${fmt.bytes(mem.offloaded)} in host memory (of ${fmt.bytes(mem.host_capacity)})` : '';
    cards.push(card(`Memory / ${unitName(result)}`, fmt.bytes(mem.total), of + host || null, 'memory'));
  }
  // Disaggregated serving: the count is the decode instances'; the prefill
  // instances they keep busy (a fractional pool) come on top.
  const n = gpus(result, scenario);
  const pool = result.inference?.disaggregation;
  const perReplica = pool ? pool.prefill_instances * pool.prefill_tp : 0;  // prefill GPUs of one replica
  const decodePerReplica = (result.inference?.replica_gpus ?? 0) - perReplica;
  const prefill = perReplica > 0 && decodePerReplica > 0 ? (n / decodePerReplica) * perReplica : 0;
  const beside = prefill > 0 ? `decode, with ${fmt.num(prefill)} more on prefill; ` : '';
  cards.push(card(`${capital(unitName(result))}s`, fmt.int(n), `${beside}${result.device?.name || ''}` || null, 'gpus'));
  const active = result.model?.parameters_active;
  const activeNote = Number.isFinite(active) && Number.isFinite(params) && active < params ? `${fmt.count(active)} active` : null;
  // LoRA: only the adapters train.
  const trainable = scenario.mode === 'training' ? result.training?.trainable_params : undefined;
  const trainableNote = Number.isFinite(trainable) && Number.isFinite(params) && trainable < params
    ? `${fmt.count(trainable)} trained (${fmt.percent(trainable / params)})` : null;
  if (Number.isFinite(params)) cards.push(card('Parameters', fmt.count(params), trainableNote || activeNote, 'parameters'));
  return cards;
}

// What the throughput counts: one replica (tp x pp GPUs, each data-parallel
// rank its own `batch`), and with several replicas what all of them serve, so
// "8 GPUs" beside a one-GPU replica's rate does not read as the whole's.
function replicaNote(i, pool, totalGpus, unit) {
  const n = i.replica_gpus;
  if (!Number.isFinite(n) || n <= 0) return 'per replica';
  if (pool) return `per replica of ${n.toFixed(1)} ${unit}s`;
  const own = `per replica (${fmt.many(n, unit)})`;
  const replicas = totalGpus / n;
  if (!Number.isFinite(replicas) || replicas < 2) return own;
  return `${own}, ${fmt.rate(i.output_tokens_per_s * replicas, 'tokens/s')} on all ${fmt.int(totalGpus)}`;
}

export function headline(result, scenario) {
  const modeCards = scenario.mode === 'training' && result.training ? trainingCards(result.training, result, scenario)
    : result.inference ? inferenceCards(result.inference, gpus(result, scenario), unitName(result)) : [];
  return el('dl', { class: 'headline' }, [...modeCards, ...costCards(result, scenario), ...commonCards(result, scenario)]);
}

// Cost and energy cards: dollars only when the scenario gives a GPU-hour
// price, energy when the device has a power figure (core: training.cost,
// inference.cost).
function costCards(result, scenario) {
  const cards = [];
  if (scenario.mode === 'training' && result.training?.cost) {
    const c = result.training.cost;
    const run = c.to_train;
    const m = c.per_million_tokens || {};
    const rel = result.training.reliability || {};
    const held = Number.isFinite(rel.usd) ? `; ${fmt.usd(rel.usd)} with interruptions` : '';
    if (Number.isFinite(run?.usd)) cards.push(card('Cost to train', fmt.usd(run.usd), `${fmt.num(run.gpu_hours)} ${unitName(result)}-hours${held}`, 'cost_to_train'));
    else if (Number.isFinite(m.usd)) cards.push(card('Cost / M tokens', fmt.usd(m.usd), null, 'cost_per_million_tokens'));
    if (Number.isFinite(run?.kwh)) cards.push(card('Energy to train', fmt.energy(run.kwh), `${fmt.mass(run.co2_kg)} CO₂`, 'energy_to_train'));
    else if (Number.isFinite(m.kwh)) cards.push(card('Energy / M tokens', fmt.energy(m.kwh), `${fmt.mass(m.co2_kg)} CO₂`, 'energy_per_million_tokens'));
  } else if (result.inference?.cost) {
    const c = result.inference.cost;
    const m = c.per_million_output_tokens || {};
    if (Number.isFinite(m.usd)) cards.push(card('Cost / M output tokens', fmt.usd(m.usd), 'per replica', 'cost_per_million_output_tokens'));
    if (Number.isFinite(c.joules_per_output_token)) cards.push(card('Energy / output token', `${fmt.num(c.joules_per_output_token)}\u00a0J`, `${fmt.energy(m.kwh)} per M`, 'joules_per_output_token'));
  }
  return cards;
}

// onFit(box): offered when the scenario does not fit; box: {gpus, button, status}.
