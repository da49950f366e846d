// Inference: prefill and decode on the same per-op roofline as training
// (Kundu et al. 2024 §V: prefill GEMMs compute-bound, decode GEMVs bound by
// device memory). Decode is evaluated at the mean context length, which is
// exact: every op's time is constant or linear in the context length.
#include "inference.h"

#include <algorithm>
#include <cmath>

#include "attention_pattern.h"
#include "cost.h"
#include "disaggregated.h"
#include "memory.h"
#include "recompute.h"
#include "training.h"

namespace llmcalc {

namespace {

LayerPass inference_pass(const Scenario& s, bool moe_layer) {
  const Inference& in = s.infer;
  LayerPass p;
  p.batch = in.batch;
  p.tp = s.par.tp;
  p.flash = in.flash_attention;
  p.dropout = false;
  p.moe_layer = moe_layer;
  p.math = in.compute_precision;
  p.attn_math = in.kv_precision == Precision::fp8 && in.compute_precision == Precision::fp8 ? Precision::fp8
                                                                                              : Precision::bf16;
  p.act_bytes = 2;
  // The GEMMs read the block scales with the weights.
  p.weight_bytes = stored_weight_bytes(in.weight_precision, in.weight_group_size, in.weight_mx);
  p.gemm_act_bytes = bytes_per_element(in.compute_precision);
  // Weight-only formats narrower than the math are dequantised in the GEMM.
  p.dequant_ops = dequant_ops_per_weight(p.weight_bytes, p.gemm_act_bytes);
  p.kv_bytes = kv_element_bytes(in.kv_precision);
  p.kv_write = true;
  // Experts over etp x ep ranks of the tp x dp ranks of a stage, as in
  // training's MoE parallel folding (ep = 1: every tp rank holds a tp slice
  // of every expert); the groups are training's.
  const Groups g = make_groups(s.par);
  p.tp_group = g.tp;
  p.ep_group = g.ep;
  p.ep = s.par.ep;
  p.etp = s.par.expert_tp();
  p.moe_token_sets = 1.0 * p.etp * p.ep / s.par.tp;
  p.moe_legacy16 = in.moe_gemm == MoeGemm::legacy16;
  if (p.moe_legacy16) {
    p.moe_weight_bytes = stored_weight_bytes(expert_weight_precision(in), in.weight_group_size, expert_weight_precision(in) == in.weight_precision && in.weight_mx);
    p.moe_mma_eff = s.system.device.efficiency.legacy_mma;
  }
  return p;
}

// Which decode attention kernel runs. auto: TensorRT-LLM's grouped-query
// (XQA) generation kernels put a KV head's query group on the 8-wide side of
// the m16n8 tensor-core MMA and were built for groups of 8 (Llama-2 70B);
// other groups, like multi-head attention, run the masked MHA kernel, one
// thread block per query head (TensorRT-LLM docs, gpt_attention "XQA
// optimization": XQA uses tensor cores and reduces "data loading and conversion").
bool decode_per_head(const Scenario& s) {
  switch (s.infer.decode_attention) {
    case DecodeAttention::grouped: return false;
    case DecodeAttention::per_head: return true;
    case DecodeAttention::auto_pick: break;
  }
  const int group = s.model.heads / std::max(1, s.model.kv_heads);
  return group % 8 != 0;
}

struct PhaseCost {
  double time = 0, flops = 0;  // the slowest stage's (see through_pipeline)
  double pass_time = 0;        // one batch through every stage's work: the layers and the head once
  double cycle = 0;            // through_pipeline: pp batches in flight complete once per cycle
  std::vector<Op> ops;
  std::string bound;
};

// One layer's ops as a serving engine runs them.
std::vector<OpSpec> serving_layer_ops(const Scenario& s, const LayerPass& p) {
  // Dequantising weight-only kernels stream below a 16-bit GEMV's rate: the
  // unpack-convert-scale work stalls the loads (gpt-fast README, A100).
  const double stream = s.system.device.efficiency.weight_only_stream[static_cast<int>(s.infer.weight_precision)];
  std::vector<OpSpec> ops = layer_forward(s.model, p);
  add_input_casts(ops, 3);
  for (OpSpec& op : ops) {
    if (op.kind == OpKind::gemm && op.gemm.dequant_ops > 0) {
      op.gemm.dram_eff = stream;
      op.gemm.setup_s = s.system.device.efficiency.weight_only_setup_s;
    }
    // Serving engines run their own fused norm and activation kernels
    // (TensorRT-LLM's residual-add + RMSNorm and gated-activation plugins,
    // vLLM's fused_add_rms_norm): taken at the copy rate. The slower
    // efficiency.elementwise rates are PyTorch's eager kernels, which the
    // training frameworks launch.
    if (op.kind == OpKind::elementwise) op.stream = StreamKind::copy;
  }
  return ops;
}

// One pass through the layers of the slowest stage plus the stage's ends:
// `dense_ops` and `moe_ops` are one layer of each kind.
PhaseCost run_phase_ops(const Scenario& s, const std::string& phase, const std::vector<OpSpec>& dense_ops,
                        const std::vector<OpSpec>& moe_ops, const LayerPass& dense_pass, double head_rows) {
  PhaseCost pc;
  const Model& m = s.model;
  const double layers = (m.layers + s.par.pp - 1) / s.par.pp;
  const double model_moe_frac = m.is_moe() ? moe_layer_count(m) / static_cast<double>(m.layers) : 0.0;
  // One layer of each kind, priced once (count 1: each op's layer share).
  auto priced = [&](const std::vector<OpSpec>& specs) {
    std::vector<Op> ops;
    for (const OpSpec& f : specs) ops.push_back(cost_op(s.system, f, phase, 1));
    return ops;
  };
  auto layer_time = [](const std::vector<Op>& ops) {
    double t = 0;
    for (const Op& op : ops) t += op.cost.time_s * op.count;
    return t;
  };
  const std::vector<Op> dense = priced(dense_ops), moe = m.is_moe() ? priced(moe_ops) : std::vector<Op>{};
  const double dense_layer = layer_time(dense), moe_layer = layer_time(moe);
  // The slowest stage holds the most layers of the slower kind (as in training).
  const double moe_frac = slowest_stage_moe_share(m, stage_layout(m, s.par), moe_layer >= dense_layer);
  std::vector<double> by_bound(s.system.device.memory.size() + 3, 0.0);
  auto add = [&](Op op, double count) {
    op.count *= count;
    if (op.count <= 0) return;  // a layer kind this model lacks (dense layers of an all-MoE model)
    pc.time += op.cost.time_s * op.count;
    pc.flops += op.cost.flops * op.count;
    by_bound[static_cast<size_t>(op.cost.bound + 3)] += op.cost.time_s * op.count;
    pc.ops.push_back(std::move(op));
  };
  for (const Op& op : dense) add(op, layers * (1 - moe_frac));
  for (const Op& op : moe) add(op, layers * moe_frac);
  const double stage_layers = pc.time;
  // LM head over the rows that need logits (the last token of each sequence).
  OpSpec head;
  head.name = "lm_head";
  head.kind = OpKind::gemm;
  head.gemm = {head_rows, m.vocab / static_cast<double>(s.par.tp), static_cast<double>(m.hidden), 1,
               dense_pass.gemm_act_bytes, dense_pass.weight_bytes, 4, dense_pass.math};
  add(cost_op(s.system, head, phase, 1), 1);
  if (s.par.tp > 1) {
    OpSpec gather;
    gather.name = "lm_head.tp_all_gather";
    gather.kind = OpKind::comm;
    gather.coll = Collective::all_gather;
    gather.group = {s.par.tp, 1, 1LL * s.par.tp * s.par.pp * s.par.dp};
    gather.bytes = head_rows * m.vocab * 4.0;
    gather.comm_axis = "tp";
    add(cost_op(s.system, gather, phase, 1), 1);
  }
  // Every stage once: all the model's layers, in the model's proportion.
  const double all_layers = m.layers * ((1 - model_moe_frac) * dense_layer + model_moe_frac * moe_layer);
  pc.pass_time = all_layers + (pc.time - stage_layers);
  const size_t worst = static_cast<size_t>(std::max_element(by_bound.begin(), by_bound.end()) - by_bound.begin());
  const int code = static_cast<int>(worst) - 3;
  pc.bound = code == kBoundCompute ? "compute" : code == kBoundNetwork ? "network" : code == kBoundLatency ? "latency"
                                               : s.system.device.memory[static_cast<size_t>(code)].name;
  return pc;
}

PhaseCost run_phase(const Scenario& s, const std::string& phase, const LayerPass& dense_pass, const LayerPass& moe_pass,
                    double head_rows) {
  const std::vector<OpSpec> moe_ops = s.model.is_moe() ? serving_layer_ops(s, moe_pass) : std::vector<OpSpec>{};
  return run_phase_ops(s, phase, serving_layer_ops(s, dense_pass), moe_ops, dense_pass, head_rows);
}

// Pipeline stages run one after another for one batch, activations hopping
// between them point to point (stride tp in the rank order): pc.time becomes
// every stage's work once. With pp batches in flight the slowest stage sets
// the pace, pp batches per pp of its times (pc.cycle; Narayanan et al. 2021 §2.2).
void through_pipeline(const Scenario& s, PhaseCost& pc, double rows) {
  pc.cycle = pc.time;
  if (s.par.pp <= 1) return;
  const double hop = collective_time(s.system, Collective::p2p, {2, s.par.tp, 1LL * s.par.tp * s.par.pp * s.par.dp},
                                     rows * s.model.hidden * 2.0);
  pc.cycle = s.par.pp * pc.time + (s.par.pp - 1) * hop;
  pc.time = pc.pass_time + (s.par.pp - 1) * hop;
}

// Expected tokens a speculative step emits: the accepted prefix of n drafts,
// each accepted with probability a, plus the target's own next token
// (Leviathan et al. 2023, eq. 1): (1 - a^(n+1)) / (1 - a).
double tokens_per_step(int n, double a) {
  if (n <= 0) return 1;
  if (a >= 1 - 1e-12) return n + 1.0;
  return (1 - std::pow(a, n + 1)) / (1 - a);
}

// Distinct experts of this rank's E/ep that `tokens` tokens of each of the
// `sets` batches reaching it touch (uniform routing, each token picking a
// given expert with probability k/E): E/ep (1 - (1 - k/E)^(sets tokens)).
void touch_experts(const Scenario& s, LayerPass& p, double tokens) {
  const Model& m = s.model;
  if (!m.is_moe()) return;
  const double E = m.moe.experts, k = m.moe.top_k, sets = p.moe_token_sets;
  const double touched = E / s.par.ep * (1 - std::pow(1 - k / E, sets * tokens));
  p.moe_experts_touched = touched;
  p.moe_tokens_per_expert = sets * tokens * k / s.par.ep / touched;
}

// One pass of the draft head for the batch's next token: draft_layers layers
// shaped as the target's (MoE ones for an MoE model) and the LM head, on the
// last pipeline stage; its ops are named draft.*.
PhaseCost draft_pass(const Scenario& s, const LayerPass& dec, const LayerPass& dec_moe, double b) {
  Scenario d = s;
  d.model.layers = std::min(s.infer.draft_layers, s.model.layers);  // as memory.cpp counts them
  d.model.moe.dense_layers = 0;
  d.model.moe.every = 1;
  // The target's share of mixer-only layers, to the nearest whole layer of the draft.
  const int kind = mlp_kind_layers(s.model);
  d.model.mixer_only_layers = kind > 0 ? static_cast<int>(std::lround(1.0 * s.model.mixer_only_layers * d.model.layers / kind)) : 0;
  d.par.pp = 1;
  PhaseCost pc = run_phase(d, "decode", dec, dec_moe, b);
  for (Op& op : pc.ops) op.name = "draft." + op.name;
  return pc;
}

// A decode step of s.infer.batch sequences, one token each, at the mean
// context over the output.
LayerPass decode_pass(const Scenario& s) {
  const Inference& in = s.infer;
  LayerPass dec = inference_pass(s, false);
  dec.q_len = 1;
  dec.kv_len = in.input_tokens + in.output_tokens / 2.0;
  dec.causal = false;
  dec.kv_cached = true;
  dec.kv_per_head = decode_per_head(s);
  dec.convert_rate = s.system.device.sfu_ops;
  dec.context_start = in.input_tokens;
  dec.decode_steps = in.output_tokens;
  return dec;
}

// Prefill of s.infer.batch prompts on the scenario's GPUs: the prompt of
// every sequence, causal attention; after a cached shared prefix only the
// rest, its rows attending the prefix too. K and V go to the cache.
PhaseCost prefill_phase(const Scenario& s) {
  const Inference& in = s.infer;
  const double prefix = in.shared_prefix_tokens, fresh = in.input_tokens - prefix;
  LayerPass pre = inference_pass(s, false);
  pre.q_len = fresh;
  pre.kv_len = in.input_tokens;
  pre.causal = true;
  if (prefix > 0) {
    pre.context_start = prefix;
    pre.keys_per_row = mean_decode_keys(s.model, false, prefix, fresh);
  }
  LayerPass pre_moe = pre;
  pre_moe.moe_layer = true;
  PhaseCost prefill = run_phase(s, "prefill", pre, pre_moe, in.batch);
  through_pipeline(s, prefill, in.batch * fresh);
  return prefill;
}

// Prefill of the whole batch, then its decode steps, at s.infer.batch.
InferenceResult evaluate_batch(const Scenario& s) {
  InferenceResult r;
  const Inference& in = s.infer;
  const double b = in.batch;
  const double step_overhead = s.system.device.efficiency.decode_step_overhead_s;

  // Disaggregated: prefill runs on a prefill instance, prefill_batch prompts.
  const Scenario instance = in.disaggregated() ? prefill_instance(s) : Scenario{};
  PhaseCost prefill = prefill_phase(in.disaggregated() ? instance : s);
  const double prefill_time = prefill.time;
  r.ttft_s = prefill.time + step_overhead;
  r.prefill_flops = prefill.flops;
  r.prefill_bound = prefill.bound;

  // Decode: one token per sequence per step; mean context over the steps.
  const LayerPass dec = decode_pass(s);
  LayerPass dec_moe = dec;
  dec_moe.moe_layer = true;
  touch_experts(s, dec_moe, b);
  // With speculative decoding the target verifies n drafted tokens and one
  // more per sequence in one pass (n + 1 query rows against the cache), after
  // n passes of the draft head; a step emits tokens_per_step tokens.
  const int n = in.draft_tokens;
  LayerPass ver = dec, ver_moe = dec_moe;
  ver.q_len = ver_moe.q_len = n + 1;
  if (n > 0) touch_experts(s, ver_moe, b * (n + 1));
  PhaseCost decode = run_phase(s, "decode", ver, ver_moe, b * (n + 1));
  through_pipeline(s, decode, b * (n + 1));
  double step = decode.time + step_overhead, cycle = decode.cycle + step_overhead;
  r.tokens_per_step = tokens_per_step(n, in.draft_acceptance);
  if (n > 0) {
    PhaseCost draft = draft_pass(s, dec, dec_moe, b);
    step += n * draft.time;
    cycle += n * draft.time;
    decode.flops += n * draft.flops;
    for (Op& op : draft.ops) {
      op.count *= n;
      decode.ops.push_back(op);
    }
  }
  r.tpot_s = step / r.tokens_per_step;
  r.decode_flops_per_step = decode.flops;
  r.decode_bound = decode.bound;

  r.e2e_latency_s = r.ttft_s + (in.output_tokens - 1) * r.tpot_s;
  r.output_tokens_per_s = b * in.output_tokens / r.e2e_latency_s;
  // With the pipeline full, pp batches complete per cycle (through_pipeline).
  const double tpot_cycle = cycle / r.tokens_per_step;
  const double e2e_cycle = prefill.cycle + step_overhead + (in.output_tokens - 1) * tpot_cycle;
  r.pipelined_output_tokens_per_s = s.par.pp * b * in.output_tokens / e2e_cycle;
  r.memory = inference_memory(s);
  r.fits = r.memory.total <= r.memory.capacity;
  r.ops = std::move(prefill.ops);
  r.ops.insert(r.ops.end(), decode.ops.begin(), decode.ops.end());
  r.concurrency = b;
  r.replica_gpus = 1.0 * s.par.tp * s.par.pp;
  if (in.disaggregated()) add_prefill_pool(s, instance, prefill_time, tpot_cycle, r);
  return r;
}

// Attention ops read the context: under chunked prefill they are costed per
// kind of row (decode rows, prompt chunks); every other op runs once over all
// the step's rows.
bool reads_context(const OpSpec& op) { return op.kind == OpKind::attention || is_attention_core(op.name); }

// One layer of a mixed step: the shared ops over all rows, the decode rows'
// attention and the chunks' attention (named chunk.*).
std::vector<OpSpec> mixed_layer_ops(const Scenario& s, const LayerPass& rows, const LayerPass& dec, const LayerPass& chunk) {
  std::vector<OpSpec> ops;
  for (const OpSpec& op : serving_layer_ops(s, rows))
    if (!reads_context(op)) ops.push_back(op);
  for (const OpSpec& op : serving_layer_ops(s, dec))
    if (reads_context(op)) ops.push_back(op);
  for (OpSpec op : serving_layer_ops(s, chunk))
    if (reads_context(op)) {
      op.name = "chunk." + op.name;
      ops.push_back(op);
    }
  return ops;
}

// Chunked prefill under in-flight batching (Agrawal et al. 2024,
// Sarathi-Serve, OSDI, §4.2-4.3: stall-free batching under a token budget).
// Steady state of uniform requests (P fresh prompt tokens, O output tokens)
// at concurrency B: each step runs the d sequences in decode, one row each,
// and c prompt tokens. As many prompts must finish prefill per step as
// sequences finish decode, c / P = d / (O - 1), and the budget d + c <= T
// caps d at T (O - 1) / (P + O - 1). A prompt takes max(1, P / c) steps and
// prompts start at c / P per step, so max(1, c / P) sequences are in prefill
// (Little's law) and d <= B - that. The decode rows and the prompt rows share
// every GEMM's weight read; attention is costed per kind of row, a chunk's
// rows attending the prompt before them (on average the first half). The
// first token comes with a prompt's last chunk.
InferenceResult evaluate_chunked(const Scenario& s) {
  const Inference& in = s.infer;
  const double B = in.batch, P = in.input_tokens - in.shared_prefix_tokens, O = in.output_tokens;
  const double budget = in.token_budget;
  double d = 0;
  if (O > 1) {
    const double by_budget = budget * (O - 1) / (P + O - 1);
    const double by_concurrency = B - 1 <= O - 1 ? B - 1 : B * (O - 1) / O;  // d + max(1, d / (O - 1)) = B
    d = std::min(by_budget, by_concurrency);
  }
  const double c = O > 1 ? d * P / (O - 1) : std::min(budget, B * P);
  if (!(c > 0)) return evaluate_batch(s);  // one sequence: nothing runs beside its prefill
  const double chunks = std::max(1.0, c / P), q = c / chunks;  // prompts per step, rows of each

  LayerPass rows = inference_pass(s, false);
  rows.batch = 1;
  rows.q_len = d + c;
  rows.kv_len = in.input_tokens;
  LayerPass dec = decode_pass(s);
  dec.batch = d;
  LayerPass chunk = inference_pass(s, false);
  chunk.batch = chunks;
  chunk.q_len = q;
  chunk.causal = true;
  chunk.context_start = in.shared_prefix_tokens + (P - q) / 2;  // the mean chunk's first row
  chunk.kv_len = chunk.context_start + q;
  chunk.keys_per_row = mean_decode_keys(s.model, false, chunk.context_start, q);
  LayerPass rows_moe = rows, dec_moe = dec, chunk_moe = chunk;
  rows_moe.moe_layer = dec_moe.moe_layer = chunk_moe.moe_layer = true;
  touch_experts(s, rows_moe, d + c);
  const std::vector<OpSpec> moe_ops =
      s.model.is_moe() ? mixed_layer_ops(s, rows_moe, dec_moe, chunk_moe) : std::vector<OpSpec>{};
  PhaseCost step = run_phase_ops(s, "decode", mixed_layer_ops(s, rows, dec, chunk), moe_ops, rows, d + c / P);

  InferenceResult r;
  through_pipeline(s, step, d + c);
  const double overhead = s.system.device.efficiency.decode_step_overhead_s, T = step.time + overhead;
  r.chunked = true;
  r.chunked_step = {d, c, std::max(1.0, P / c)};
  r.tpot_s = T;
  r.ttft_s = r.chunked_step.steps_per_prompt * T;
  r.e2e_latency_s = r.ttft_s + (O - 1) * T;
  r.output_tokens_per_s = c / P * O / T;  // c / P requests finish per step
  r.pipelined_output_tokens_per_s = s.par.pp * c / P * O / (step.cycle + overhead);
  r.decode_flops_per_step = step.flops;
  r.prefill_flops = step.flops * P / (d + c);  // a prompt's P rows' share of the step work
  r.prefill_bound = r.decode_bound = step.bound;
  r.memory = inference_memory(s);
  r.fits = r.memory.total <= r.memory.capacity;
  r.ops = std::move(step.ops);
  r.concurrency = d + chunks;
  r.replica_gpus = 1.0 * s.par.tp * s.par.pp;
  return r;
}

}  // namespace

// In-flight (continuous) batching (Yu et al. 2022, Orca, OSDI; TensorRT-LLM's
// in-flight batching; vLLM, Kwon et al. 2023): the scheduler admits a request
// when one finishes and only if its KV cache fits (TensorRT-LLM's
// GUARANTEED_NO_EVICT policy reserves the full context), so at most `batch`
// and at most max_batch sequences are in flight. With uniform prompt and
// output lengths, requests admitted together finish together: the steady state
// is cohorts that each take one prefill step and output - 1 decode steps at the
// mean context, so throughput counts every prefill and is the static
// accounting at the in-flight concurrency.
InferenceResult evaluate_inference(const Scenario& s) {
  InferenceResult r;
  if (!s.infer.inflight) {
    r = evaluate_batch(s);
  } else {
    const long long fit = inference_memory(s).max_batch;
    Scenario c = s;
    c.infer.batch = static_cast<int>(std::max(1LL, std::min<long long>(s.infer.batch, fit)));
    r = s.infer.token_budget > 0 ? evaluate_chunked(c) : evaluate_batch(c);
  }
  // Each batch in flight keeps its K/V on every stage: the memory bounds how many fill the pipeline.
  const double held = std::floor(static_cast<double>(r.memory.max_batch) / std::max(1.0, r.concurrency));
  const double in_flight = std::clamp(held, 1.0, 1.0 * s.par.pp);
  r.pipelined_output_tokens_per_s = std::min(r.pipelined_output_tokens_per_s, in_flight * r.output_tokens_per_s);
  if (s.infer.target_requests_per_s > 0) r.capacity = serving_capacity(s, r);
  return r;
}

// Whole replicas for the target rate, each serving requests at its steady
// rate: pp batches in flight (pipelined_output_tokens_per_s) over the output
// tokens of a request. Disaggregated, the decode instances set that rate and
// the prefill instances are counted apart, each prefill_batch prompts per
// prefill time.
ServingCapacity serving_capacity(const Scenario& s, const InferenceResult& r) {
  const Inference& in = s.infer;
  ServingCapacity c;
  const double target = in.target_requests_per_s;
  c.requests_per_s_per_replica = r.pipelined_output_tokens_per_s / in.output_tokens;
  if (!(c.requests_per_s_per_replica > 0)) return c;
  c.replicas = static_cast<long long>(std::ceil(std::min(1e15, target / c.requests_per_s_per_replica)));
  c.gpus = static_cast<double>(c.replicas) * s.par.tp * s.par.pp;
  if (r.disaggregated && r.prefill_pool.prefill_time_s > 0) {
    const double per_instance = in.prefill_batch / r.prefill_pool.prefill_time_s;
    c.prefill_instances = static_cast<long long>(std::ceil(std::min(1e15, target / per_instance)));
    c.gpus += static_cast<double>(c.prefill_instances) * in.prefill_tp;
  }
  return c;
}

}  // namespace llmcalc
