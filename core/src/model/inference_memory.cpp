// Serving memory per GPU: weights as stored, the KV cache, the prefill's
// working set (declared in memory.h).
#include <algorithm>
#include <cmath>

#include "attention_pattern.h"
#include "linear_attention.h"
#include "memory.h"
#include "model_math.h"

namespace llmcalc {

// Weight-only formats carry block scales: int4 (asymmetric group
// quantisation: GPTQ, Frantar et al. 2022; AWQ, Lin et al. 2023; gpt-fast's
// scales_and_zeros) a 16-bit scale and a 16-bit zero point per group of
// `group` weights; fp4 (NVFP4) one fp8 scale per 16 (NVIDIA Blackwell docs).
// MXFP4 (OCP Microscaling Formats spec v1.0) shares one E8M0 byte per 32.
double stored_weight_bytes(Precision p, int group, bool mx) {
  double b = bytes_per_element(p);
  if (p == Precision::int4) b += 4.0 / std::max(1, group);
  if (p == Precision::fp4) b += mx ? 1.0 / 32 : 1.0 / 16;
  return b;
}

double dequant_ops_per_weight(double stored, double math) { return stored < math ? (stored < 1 ? 3 : 2) : 0; }

Precision expert_weight_precision(const Inference& in) {
  const bool tensor_core_format = in.weight_precision == Precision::fp8 || in.weight_precision == Precision::fp4;
  return in.moe_gemm == MoeGemm::legacy16 && tensor_core_format ? Precision::bf16 : in.weight_precision;
}

namespace {

// K/V bytes of a shared prefix in a stage's full-context layers (the
// ones that keep it whole; "full" and "mla" in kv_cache_by_layer_type).
double shared_prefix_kv_bytes(const Model& m, int tp, Precision kv, double prefix, int first_layer, int layers) {
  double bytes = 0;
  for (const KvLayerType& t : kv_cache_by_layer_type(m, tp, kv, prefix, first_layer, layers))
    if (t.type == "full" || t.type == "mla" || t.type == "indexer_keys") bytes += t.bytes_per_sequence;
  return bytes;
}

}  // namespace

namespace {

// Serving memory of one GPU of the stage that holds layers [first_layer,
// first_layer + layers): the embedding on the first stage, the LM head (and
// a speculative draft head) on the last.
InferenceMemory stage_inference_memory(const Scenario& s, double batch, int first_layer, int layers, bool first,
                                       bool last) {
  const Model& m = s.model;
  const Parallelism& p = s.par;
  const Inference& in = s.infer;
  InferenceMemory r;
  r.first_layer = first_layer;
  r.layers = layers;
  const StageParams sp = params_of_stage(m, p, first_layer, layers, first, last);
  const double embed = first ? 1.0 * m.vocab * m.hidden / p.tp : 0.0;  // stays 16-bit: a lookup table
  const double wb = stored_weight_bytes(in.weight_precision, in.weight_group_size, in.weight_mx);
  // Experts as laid out for serving: sp.expert is this rank's etp x ep share.
  const double eb = stored_weight_bytes(expert_weight_precision(in), in.weight_group_size, expert_weight_precision(in) == in.weight_precision && in.weight_mx);
  r.weights = (sp.dense - embed) * wb + sp.expert * eb + embed * 2;
  const double context = 1.0 * in.input_tokens + in.output_tokens;
  // A speculative draft head: draft_layers more layers shaped as the target's
  // last ones (its LM head is the target's), with their own KV cache.
  const int draft = last && in.draft_tokens > 0 ? std::min(in.draft_layers, m.layers) : 0;
  r.draft_layers = draft;
  if (draft > 0) {
    const StageParams dp = params_of_stage(m, p, m.layers - draft, draft, false, false);
    r.weights += dp.dense * wb + dp.expert * eb;
  }
  // Per layer type: local layers keep at most their span (attention_pattern.h).
  const bool plain = !m.mla.on() && !has_local_layers(m) && !m.linear.on() && in.kv_precision != Precision::fp4;
  r.kv_per_sequence = plain ? 2.0 * (layers + draft) * std::max(1.0, m.kv_heads / static_cast<double>(p.tp)) * m.head_dim * bytes_per_element(in.kv_precision) * context
                            : kv_bytes_per_sequence(m, p.tp, in.kv_precision, context, first_layer, layers) +
                                  kv_bytes_per_sequence(m, p.tp, in.kv_precision, context, m.layers - draft, draft);
  // Working set of the prefill: the widest intermediate of one layer for the
  // prompt, plus (on the last stage) the fp32 logits of the last token.
  const double f_local = (m.is_moe() ? m.moe.ffn_hidden : m.ffn_hidden) / static_cast<double>(p.tp);
  const double widest = std::max({4.0 * m.hidden, f_local * (is_gated(m.ffn_type) ? 3.0 : 2.0),
                                  (m.heads * (m.attention.output_gate ? 2.0 : 1.0) + 2.0 * m.kv_heads) * m.head_dim / p.tp,
                                  linear_in_proj_width(m, p.tp)});
  // (only the prompt's uncached part is prefilled; a disaggregated decode
  // instance runs one row per sequence)
  const double prefill_rows = in.disaggregated() ? 1.0 : in.input_tokens - in.shared_prefix_tokens;
  r.act_per_sequence = prefill_rows * widest * 2.0 + (last ? 4.0 * m.vocab / p.tp : 0.0);
  // A shared prefix's K/V sits once in the cache for the whole batch (vLLM,
  // SGLang: sequences reference the same blocks); in the full-context layers
  // only, as a local layer's window slides off the prefix.
  const double shared = in.shared_prefix_tokens > 0 ? shared_prefix_kv_bytes(m, p.tp, in.kv_precision, in.shared_prefix_tokens, first_layer, layers) : 0.0;
  r.kv_cache = r.kv_per_sequence * batch - shared * std::max(0.0, batch - 1);
  r.activations = r.act_per_sequence * batch;
  r.total = r.weights + r.kv_cache + r.activations;
  r.capacity = s.system.device.dram().capacity_bytes;
  // batch B needs B (per_seq - shared) + shared.
  const double free_bytes = r.capacity - r.weights - shared;
  const double per_seq = r.kv_per_sequence + r.act_per_sequence - shared;
  r.max_batch = free_bytes > 0 ? static_cast<long long>(std::min(1e15, std::floor(free_bytes / per_seq))) : 0;
  return r;
}

}  // namespace

// The first stage holds the embedding, the last the LM head and any draft
// head; with leading dense layers (DeepSeek-V3, GLM-4.5) or a large
// vocabulary the last is the heavier. Both hold the most layers a stage
// holds (as training_memory). Every stage serves the same sequences, so the
// plan's largest batch is the smaller of the two.
InferenceMemory inference_memory_at(const Scenario& s, double batch) {
  const Model& m = s.model;
  const int layers = stage_layout(m, s.par).max_layers;
  if (s.par.pp <= 1) return stage_inference_memory(s, batch, 0, m.layers, true, true);
  const InferenceMemory head = stage_inference_memory(s, batch, 0, layers, true, false);
  const InferenceMemory tail = stage_inference_memory(s, batch, m.layers - layers, layers, false, true);
  InferenceMemory r = tail.total > head.total ? tail : head;
  r.max_batch = std::min(head.max_batch, tail.max_batch);
  return r;
}

InferenceMemory inference_memory(const Scenario& s) { return inference_memory_at(s, s.infer.batch); }

}  // namespace llmcalc
