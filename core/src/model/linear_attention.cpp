#include "linear_attention.h"

#include <algorithm>

namespace llmcalc {

namespace {

// Widths of one layer on one tp rank (heads split over tp like attention heads).
struct LinearWidths {
  double key_heads, value_heads, qk, v;  // qk = key_heads x key_head_dim, v = value_heads x value_head_dim
  double conv() const { return 2 * qk + v; }  // the convolution runs over q, k and v
};

LinearWidths widths(const Model& m, int tp) {
  const LinearAttention& a = m.linear;
  const double t = std::max(1, tp), kh = a.key_heads_per_rank(std::max(1, tp));
  // (products in double: 65536 heads of 65536 are valid inputs)
  return {kh, a.value_heads / t, kh * a.key_head_dim, 1.0 * a.value_heads * a.value_head_dim / t};
}

// g (decay) and beta (write strength) are fp32 per token and value head.
constexpr double kGateBytes = 4;
// Chunk states and score blocks the kernels keep in fp32.
constexpr double kFp32 = 4;

// The recurrent state's element size (linear_attention.state_precision; fp32
// by default: flash-linear-attention's kernels accumulate and return it in float32).
double state_element_bytes(const Model& m) { return bytes_per_element(m.linear.state_precision); }

bool mamba2(const LinearAttention& a) { return a.kind == LinearKind::mamba2; }

// Per token and value head, the chunked form of the delta rule (Yang et al.
// 2024, arXiv 2406.06484 §3.2, with the gate of arXiv 2412.06464 §3) over
// chunks of C: K K^T and Q K^T (2 x 2 C d_k), the triangular solve of the WY
// form (2/3 C^2), W = T K and U = T V (2 C d_k + 2 C d_v), U - W S and Q S
// (2 x 2 d_k d_v), the masked (Q K^T) U (2 C d_v) and the state update
// S + K^T U (2 d_k d_v).
// Mamba-2's SSD (Dao and Gu 2024, arXiv 2405.21060 §6-7, chunks of Q, state
// N = d_k, head width P = d_v): the diagonal blocks (L o C B^T) X (2 Q P), the
// chunk states B^T X and their outputs C h (2 x 2 N P), and per B/C group
// (shared by value_heads / key_heads heads) the C B^T block (2 Q N).
// `w`: the heads and groups of one rank (a replicated group computes its block on each).
double chunked_flops_per_head(const LinearAttention& a, const LinearWidths& w) {
  const double c = a.chunk, dk = a.key_head_dim, dv = a.value_head_dim;
  if (mamba2(a)) return 2 * c * dv + 4 * dk * dv + 2 * c * dk * w.key_heads / w.value_heads;
  return 6 * c * dk + 4 * c * dv + 2.0 / 3.0 * c * c + 6 * dk * dv;
}

// Device-memory bytes per token and value head of the chunked forward, by
// the kernels flash-linear-attention runs (fla/ops/gated_delta_rule/chunk.py:
// scaled K K^T and its solve, recompute_w_u, the per-chunk states with the
// corrected values, the output): q, k, v read by three of them, w and u
// written and read, the states at each chunk start (d_k x d_v, 16-bit) and
// the corrected values written and read, the fp32 C x C block, the output.
//
// Mamba-2, by mamba_ssm's kernels (ssd_combined.py: chunk_cumsum, chunk_state,
// state_passing, bmm_chunk, chunk_scan): x read twice and the output
// written; dt read and dt, dA_cumsum written in fp32 and read by two kernels;
// the fp32 chunk states written, passed on (read and written) and read; per
// group B and C read twice each and the fp32 C B^T block written and read.
double chunked_bytes_per_head(const LinearAttention& a, const LinearWidths& w, double act) {
  const double c = a.chunk, dk = a.key_head_dim, dv = a.value_head_dim;
  if (mamba2(a)) {
    const double heads_per_group = w.value_heads / w.key_heads;
    return 3 * dv * act + act + 6 * kGateBytes + 4 * kFp32 * dk * dv / c + (4 * dk * act + 2 * c * kFp32) / heads_per_group;
  }
  return 3 * (2 * dk + dv) * act + 3 * 2 * kGateBytes + 2 * (dk + dv) * act + 2 * dk * dv * act / c +
         2 * dv * act + 2 * c * kGateBytes + dv * act;
}

// Decode: per token and value head, S k, the rank-one update and S^T q
// (about 6 d_k d_v, arXiv 2412.06464 eq. 10), reading and writing the state.
// Mamba-2's recurrence h = exp(dt A) h + dt B x^T, y = h^T C (arXiv
// 2405.21060 eq. 2): a scale, a rank-one update and a product, about 5 d_k d_v.
double recurrent_flops_per_head(const LinearAttention& a) {
  return (mamba2(a) ? 5.0 : 6.0) * a.key_head_dim * a.value_head_dim;
}

// Columns of the small projection beside in_proj: Gated DeltaNet's in_proj_ba
// (beta and the decay, one each per value head). Mamba-2's dt (one per head)
// comes out of its single in_proj (arXiv 2405.21060 §7.1: z, x, B, C and dt
// in parallel).
double small_proj_width(const LinearAttention& a, double value_heads) { return mamba2(a) ? 0 : 2 * value_heads; }

}  // namespace

namespace {
// full_layers N of L spread evenly: the softmax layers before layer x number
// floor(x N / L), so layer l is one where that count steps (the last layer of
// each of N equal spans; N = L / f places them as every f-th does).
long long softmax_layers_before(const Model& m, long long x) {
  return m.layers > 0 ? x * m.linear.full_layers / m.layers : 0;
}
}  // namespace

bool is_linear_layer(const Model& m, int layer) {
  if (!m.linear.on()) return false;
  if (m.linear.full_layers > 0) return softmax_layers_before(m, layer + 1) == softmax_layers_before(m, layer);
  const int f = m.linear.full_every;
  return f <= 0 || (layer + 1) % f != 0;
}

int linear_layers(const Model& m, int first, int count) {
  if (!m.linear.on() || count <= 0) return 0;
  if (m.linear.full_layers > 0)
    return count - static_cast<int>(softmax_layers_before(m, first + count) - softmax_layers_before(m, first));
  const int f = m.linear.full_every;
  if (f <= 0) return count;
  // Layers l with (l + 1) % f == 0 among first .. first + count - 1.
  return count - ((first + count) / f - first / f);
}

double linear_share(const Model& m) {
  return m.linear.on() && m.layers > 0 ? linear_layers(m, 0, m.layers) / static_cast<double>(m.layers) : 0.0;
}

// Qwen3-Next (transformers Qwen3NextGatedDeltaNet): in_proj_qkvz (h x (2 qk + 2 v)),
// in_proj_ba (h x 2 H_v), a bias-free depthwise conv1d over q, k, v, A_log and
// dt_bias per value head, the gated RMSNorm's d_v weights, out_proj (v x h).
// Mamba-2 (mamba_ssm Mamba2): in_proj (h x (2 v + 2 qk + H)), the conv1d over
// x, B, C with its bias, dt_bias, A_log and D per head, the gated RMSNorm's
// weights over all v channels, out_proj (v x h).
double linear_attention_params(const Model& m) {
  if (!m.linear.on()) return 0;
  const LinearAttention& a = m.linear;
  const LinearWidths w = widths(m, 1);
  const double h = m.hidden;
  const double projections = h * (linear_in_proj_width(m, 1) + small_proj_width(a, w.value_heads)) + w.v * h;
  if (mamba2(a)) return projections + w.conv() * (a.conv_kernel + 1) + 3 * w.value_heads + w.v;
  return projections + w.conv() * a.conv_kernel + 2 * w.value_heads + a.value_head_dim;
}

double linear_in_proj_width(const Model& m, int tp) {
  if (!m.linear.on()) return 0;
  const LinearWidths w = widths(m, tp);
  return 2 * w.qk + 2 * w.v + (mamba2(m.linear) ? w.value_heads : 0);
}

double linear_small_proj_width(const Model& m, int tp) {
  return m.linear.on() ? small_proj_width(m.linear, widths(m, tp).value_heads) : 0.0;
}

double linear_core_flops_per_token(const Model& m) {
  return m.linear.on() ? m.linear.value_heads * chunked_flops_per_head(m.linear, widths(m, 1)) : 0.0;
}

double linear_state_bytes(const Model& m, int tp) {
  if (!m.linear.on()) return 0;
  const LinearWidths w = widths(m, tp);
  const double state = w.value_heads * m.linear.key_head_dim * m.linear.value_head_dim * state_element_bytes(m);
  const double conv = (m.linear.conv_kernel - 1) * w.conv() * 2;  // the last inputs, 16-bit
  return state + conv;
}

void linear_attention_ops(std::vector<OpSpec>& ops, const Model& m, const LayerPass& p) {
  const LinearAttention& a = m.linear;
  const LinearWidths w = widths(m, p.tp);
  const double h = m.hidden, tokens = p.batch * p.q_len, act = p.act_bytes;
  ops.push_back(make_gemm("linear.in_proj", tokens, linear_in_proj_width(m, p.tp), h, p));
  if (const double ba = small_proj_width(a, w.value_heads); ba > 0) ops.push_back(make_gemm("linear.in_proj_ba", tokens, ba, h, p));
  // Causal depthwise convolution and SiLU over q, k, v (plus the decay's
  // softplus and beta's sigmoid); decode also reads and writes its last inputs.
  const double conv_state = p.kv_cached ? 2 * p.batch * (a.conv_kernel - 1) * w.conv() * act : 0;
  ops.push_back(make_elementwise("linear.conv", 2 * tokens * w.conv() * act + conv_state,
                                 (2.0 * a.conv_kernel + 4) * tokens * w.conv(), StreamKind::activation));
  const double state = p.batch * w.value_heads * a.key_head_dim * a.value_head_dim * state_element_bytes(m);
  if (p.kv_cached) {
    // fused_recurrent: read and write each sequence's state per step.
    const double io = tokens * (2 * w.qk * (w.value_heads / w.key_heads) + 2 * w.v) * act;
    ops.push_back(make_elementwise("linear.core", 2 * state + io, tokens * w.value_heads * recurrent_flops_per_head(a)));
  } else {
    OpSpec core;
    core.name = "linear.core";
    core.kind = OpKind::attention;
    core.math = p.attn_math;
    const double per_head = chunked_flops_per_head(a, w);
    core.flops = tokens * w.value_heads * per_head;
    // Serving writes the final state (and reads a cached prefix's).
    const double state_io = p.kv_write ? state * (p.context_start > 0 ? 2 : 1) : 0;
    core.bytes = tokens * w.value_heads * chunked_bytes_per_head(a, w, act) + state_io;
    // Costed as a fused tile kernel whose rows do the matmul work of
    // attending flops / (4 d_k) keys of a d_k-wide head: the per-tile fixed
    // cost fitted on attention kernels (compute.cpp) then applies to it.
    core.kv_per_row = per_head / (4.0 * a.key_head_dim);
    core.head_dim = a.key_head_dim;
    ops.push_back(core);
  }
  // Gated RMSNorm: normalise the output per head and multiply by SiLU(z).
  ops.push_back(make_elementwise("linear.norm_gate", 3 * tokens * w.v * act, 8 * tokens * w.v, StreamKind::norm));
  ops.push_back(make_gemm("linear.out_proj", tokens, h, w.v, p));
}

// Saved for backward: the convolution's input and output, z, g and beta
// (Mamba-2: dt and dA_cumsum), the fp32 C x C block (flash-linear-attention
// keeps it and recomputes the states; mamba_ssm's chunk scan saves no block
// and recomputes C B^T), the recurrence's output and the out_proj input.
double linear_activation_bytes(const Model& m, int tp, double tokens, double gemm_in) {
  if (!m.linear.on()) return 0;
  const LinearWidths w = widths(m, tp);
  const double block = mamba2(m.linear) ? 0 : kGateBytes * m.linear.chunk * w.value_heads;
  return tokens * (2 * 2 * w.conv() + 2 * w.v + 2 * kGateBytes * w.value_heads + block + 2 * w.v + gemm_in * w.v);
}

}  // namespace llmcalc
