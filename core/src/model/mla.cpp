#include "mla.h"

#include <algorithm>

namespace llmcalc {

double mla_attention_params(const Model& m) {
  const Mla& a = m.mla;
  const double h = m.hidden, n = m.heads, dq = a.q_lora_rank, dc = a.kv_lora_rank;
  const double qk = a.qk_nope_head_dim + a.qk_rope_head_dim;
  // DeepSeek-V3 inference/model.py MLA: wq_a, q_norm, wq_b (or wq when
  // q_lora_rank is 0), wkv_a, kv_norm, wkv_b, wo.
  const double q = dq > 0 ? h * dq + dq + dq * n * qk : h * n * qk;
  return q + h * (dc + a.qk_rope_head_dim) + dc + dc * n * (a.qk_nope_head_dim + a.v_head_dim) + n * a.v_head_dim * h;
}

double mla_pair_flops(const Model& m, bool absorbed) {
  const Mla& a = m.mla;
  const double n = m.heads;
  // DeepSeek-V2 §2.1.2-2.1.3, App. C; the absorbed form scores against the
  // 576-wide cached row and sums values in the 512-wide latent space.
  if (absorbed) return 2 * n * (a.kv_lora_rank + a.qk_rope_head_dim) + 2 * n * a.kv_lora_rank;
  return 2 * n * (a.qk_nope_head_dim + a.qk_rope_head_dim) + 2 * n * a.v_head_dim;
}

double mla_absorb_flops(const Model& m) {
  const Mla& a = m.mla;
  return 2.0 * m.heads * a.kv_lora_rank * (a.qk_nope_head_dim + a.v_head_dim);
}

void mla_core_ops(std::vector<OpSpec>& ops, const Model& m, const LayerPass& p) {
  const Mla& a = m.mla;
  const double heads = m.heads / static_cast<double>(p.tp), b = p.batch;
  const bool absorbed = p.kv_cached;
  const double causal_frac = p.causal && p.q_len > 1 ? 0.5 * (1 + 1.0 / std::max(1.0, p.q_len)) : 1.0;
  const double keys = p.keys_per_row > 0 ? p.keys_per_row : p.kv_len * causal_frac;
  OpSpec s;
  s.name = "attn.flash";
  s.kind = OpKind::attention;
  s.math = p.attn_math;
  s.flops = b * p.q_len * keys * mla_pair_flops(m, absorbed) / p.tp;
  s.kv_per_row = keys / p.kv_chunks;
  const double qk = absorbed ? a.kv_lora_rank + a.qk_rope_head_dim : a.qk_nope_head_dim + a.qk_rope_head_dim;
  const double v = absorbed ? a.kv_lora_rank : a.v_head_dim;
  // Per-pair work is 2 (qk + v) per head: the head width whose matmul to
  // exponential ratio it matches (FlashMLA runs 576/512 in decode).
  s.head_dim = (qk + v) / 2;
  const double q_bytes = b * p.q_len * heads * (qk + v) * p.act_bytes;  // read Q, write O
  // Decode reads each cached row once for all heads; prefill reads the
  // decompressed K and V of this rank's heads.
  const double kv = absorbed ? b * p.kv_len * (a.kv_lora_rank + a.qk_rope_head_dim) * p.kv_bytes
                             : b * p.kv_len * heads * (qk + a.v_head_dim) * p.act_bytes;
  s.bytes = q_bytes + kv;
  s.kernel = p.attn_kernel;
  s.kernels = p.kv_chunks;
  ops.push_back(s);
  if (p.kv_chunks > 1 && !absorbed)
    ops.push_back(cp_correction(p, b * p.q_len * heads * v, b * p.q_len * heads * (qk + a.v_head_dim)));
}

// Megatron-Core MultiLatentAttention: the down projections are duplicated on
// every tp rank, the up projections and W^O split by heads.
void mla_ops(std::vector<OpSpec>& ops, const Model& m, const LayerPass& p) {
  const Mla& a = m.mla;
  const double h = m.hidden, tokens = p.batch * p.q_len, heads = m.heads / static_cast<double>(p.tp);
  const double qk = a.qk_nope_head_dim + a.qk_rope_head_dim, dc = a.kv_lora_rank, dr = a.qk_rope_head_dim;
  if (a.q_lora_rank > 0) {
    ops.push_back(make_gemm("attn.q_down", tokens, a.q_lora_rank, h, p));
    ops.push_back(make_elementwise("attn.q_norm", 2 * tokens * a.q_lora_rank * p.act_bytes, 5 * tokens * a.q_lora_rank, StreamKind::norm));
  }
  ops.push_back(make_gemm("attn.q_up", tokens, heads * qk, a.q_lora_rank > 0 ? a.q_lora_rank : h, p));
  ops.push_back(make_gemm("attn.kv_down", tokens, dc + dr, h, p));
  ops.push_back(make_elementwise("attn.kv_norm", 2 * tokens * dc * p.act_bytes, 5 * tokens * dc, StreamKind::norm));
  if (p.kv_write) ops.push_back(make_elementwise("attn.kv_write", tokens * (dc + dr) * p.kv_bytes, 0));
  if (p.kv_cached) {
    // Weight absorption (DeepSeek-V3 inference/model.py attn_impl "absorb"):
    // q_nope W^UK per head, attention over the latent cache, then W^UV.
    ops.push_back(make_gemm("attn.q_absorb", tokens, dc, a.qk_nope_head_dim, p, heads));
    mla_core_ops(ops, m, p);
    ops.push_back(make_gemm("attn.v_up", tokens, a.v_head_dim, dc, p, heads));
  } else {
    // Decompressed (MHA) form: K and V of every token from the latent.
    ops.push_back(make_gemm("attn.kv_up", tokens, heads * (a.qk_nope_head_dim + a.v_head_dim), dc, p));
    mla_core_ops(ops, m, p);
  }
  ops.push_back(make_gemm("attn.proj", tokens, h, heads * a.v_head_dim, p));
}

double mla_activation_bytes(const Model& m, int tp, double tokens) {
  const Mla& a = m.mla;
  const double heads = m.heads / static_cast<double>(tp);
  const double qk = a.qk_nope_head_dim + a.qk_rope_head_dim;
  const double latents = a.q_lora_rank + a.kv_lora_rank + a.qk_rope_head_dim;  // inputs of the up projections
  const double per_token = latents + heads * (2 * qk + 2 * a.v_head_dim);     // Q, K; V; context
  return 2 * tokens * per_token;
}

}  // namespace llmcalc
