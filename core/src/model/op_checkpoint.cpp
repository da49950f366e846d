#include "op_checkpoint.h"

#include <algorithm>

#include "linear_attention.h"
#include "model_math.h"

namespace llmcalc {

namespace {

void add(std::vector<MatmulPart>& parts, const char* op, double share, double width) {
  parts.push_back({op, share, width, false});
}

void attention_matmuls(std::vector<MatmulPart>& parts, const Model& m, double tp) {
  const double h = m.hidden, heads = m.heads / tp;
  if (m.mla.on()) {
    // DeepSeek-V2 §2.1: the down-projections are replicated, the up-projections split by head.
    const Mla& a = m.mla;
    if (a.q_lora_rank > 0) add(parts, "attn.q_down", 1, a.q_lora_rank);
    add(parts, "attn.q_up", 1, heads * (a.qk_nope_head_dim + a.qk_rope_head_dim));
    add(parts, "attn.kv_down", 1, a.kv_lora_rank + a.qk_rope_head_dim);
    add(parts, "attn.kv_up", 1, heads * (a.qk_nope_head_dim + a.v_head_dim));
  } else {
    // torchtitan's attention runs wq, wk, wv as three mms; here one GEMM.
    // (a gated attention's wq also emits the gate)
    const double q = heads * m.head_dim * (m.attention.output_gate ? 2 : 1), kv = std::max(1.0, m.kv_heads / tp) * m.head_dim;
    const double all = q + 2 * kv;
    add(parts, "attn.qkv", q / all, q);
    add(parts, "attn.qkv", kv / all, kv);
    add(parts, "attn.qkv", kv / all, kv);
  }
  add(parts, "attn.proj", 1, h);  // row-parallel: full-width partial sums before the reduction
}

// Gated MLPs run w1 and w3 as two mms (one GEMM here), then w2.
void mlp_matmuls(std::vector<MatmulPart>& parts, const Model& m, const char* up, const char* down, double width) {
  if (is_gated(m.ffn_type)) {
    add(parts, up, 0.5, width);
    add(parts, up, 0.5, width);
  } else {
    add(parts, up, 1, width);
  }
  add(parts, down, 1, m.hidden);
}

// A linear-attention layer's mms (transformers Qwen3NextGatedDeltaNet:
// in_proj_qkvz, in_proj_ba, out_proj; Mamba-2: in_proj, out_proj).
void linear_matmuls(std::vector<MatmulPart>& parts, const Model& m, double tp) {
  add(parts, "linear.in_proj", 1, linear_in_proj_width(m, static_cast<int>(tp)));
  if (const double ba = linear_small_proj_width(m, static_cast<int>(tp)); ba > 0) add(parts, "linear.in_proj_ba", 1, ba);
  add(parts, "linear.out_proj", 1, m.hidden);
}

// The mms of one layer type, every second one saved.
std::vector<MatmulPart> type_matmuls(const Model& m, int tp, bool moe_layer, bool linear) {
  std::vector<MatmulPart> parts;
  const double t = tp;
  if (linear) linear_matmuls(parts, m, t);
  else attention_matmuls(parts, m, t);
  if (!moe_layer) {
    mlp_matmuls(parts, m, "mlp.up", "mlp.down", m.ffn_hidden / t);
  } else {
    // The router is an mm; the routed experts run as grouped GEMMs, which
    // are not on the save list (recomputed, nothing kept).
    add(parts, "moe.router", 1, m.moe.experts);
    if (m.moe.shared_experts > 0)
      mlp_matmuls(parts, m, "moe.shared_up", "moe.shared_down", m.moe.shared_width() * m.moe.shared_experts / t);
  }
  // "Saves output of all compute ops, except every second mm": the 1st,
  // 3rd, 5th ... mm of the layer are kept.
  for (size_t i = 0; i < parts.size(); ++i) parts[i].saved = i % 2 == 0;
  return parts;
}

}  // namespace

// A hybrid model lists both layer types' mms, each weighted by its share of the layers.
// The MLP's mms stand for the layers that have an MLP (model.mixer_only_layers).
std::vector<MatmulPart> layer_matmuls(const Model& m, int tp, bool moe_layer) {
  std::vector<MatmulPart> parts = type_matmuls(m, tp, moe_layer, false);
  const double linear = linear_share(m);
  if (linear > 0) {
    for (MatmulPart& p : parts) p.layers = 1 - linear;
    for (MatmulPart p : type_matmuls(m, tp, moe_layer, true)) {
      p.layers = linear;
      parts.push_back(p);
    }
  }
  const double mlps = mlp_share(m, moe_layer);
  for (MatmulPart& p : parts)
    if (p.op.rfind(moe_layer ? "moe." : "mlp.", 0) == 0) p.layers *= mlps;
  return parts;
}

double op_checkpoint_gemm_share(const std::vector<MatmulPart>& parts, const std::string& op) {
  // FP4 recipes split a GEMM into its low-precision and 16-bit layers.
  const std::string base = op.size() > 5 && op.compare(op.size() - 5, 5, ".bf16") == 0 ? op.substr(0, op.size() - 5) : op;
  // Each layer type's parts of a GEMM add up to it: weighted by the layers,
  // the recomputed parts over all of them is the share of the op (which
  // itself stands for the layers that run it).
  double recomputed = 0, all = 0;
  for (const MatmulPart& p : parts)
    if (p.op == base) {
      all += p.share * p.layers;
      if (!p.saved) recomputed += p.share * p.layers;
    }
  return all > 0 ? recomputed / all : 1.0;
}

double op_checkpoint_activation_bytes(const Model& m, const Parallelism& p, const Training& t, bool moe_layer) {
  const double tokens = t.seq_len / static_cast<double>(p.cp) * t.micro_batch, tp = p.tp, h = m.hidden;
  const bool sp = p.sp && p.tp > 1;
  double bytes = 2 * tokens * h / (sp ? tp : 1.0);  // the checkpointed layer's input
  for (const MatmulPart& part : layer_matmuls(m, p.tp, moe_layer))
    if (part.saved) bytes += 2 * tokens * part.out_width * part.layers;  // mm outputs are 16-bit
  // The fused attention's output and its float log-sum-exp per row (in the
  // softmax layers); the unfused path's batched matmuls and softmax, and the
  // linear layers' recurrence, are not on the list.
  const double v_dim = m.mla.on() ? m.mla.v_head_dim : m.head_dim;
  if (t.flash_attention)
    bytes += (2 * tokens * (m.heads / tp) * v_dim + 4 * tokens * (m.heads / tp)) * (1 - linear_share(m));
  if (sp) bytes += 2 * (1 + mlp_share(m, moe_layer)) * tokens * h / tp;  // the reduce-scatter outputs of the mixer and the MLP
  return bytes;
}

}  // namespace llmcalc
