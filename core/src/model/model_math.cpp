#include "model_math.h"

#include <algorithm>
#include <cmath>

#include "attention_pattern.h"
#include "linear_attention.h"
#include "mla.h"
#include "sparse_attention.h"

namespace llmcalc {

double q_dim(const Model& m) { return 1.0 * m.heads * m.head_dim; }
double kv_dim(const Model& m) { return 1.0 * m.kv_heads * m.head_dim; }
int mlp_matrices(const Model& m) { return is_gated(m.ffn_type) ? 3 : 2; }

// After the leading dense layers, every `every`-th layer is MoE (Llama 4:
// (layer_id + 1) % interleave_moe_layer_step == 0, meta-llama/llama-models llama4 model.py).
bool is_moe_layer(const Model& m, int layer) {
  if (!m.is_moe() || layer < m.moe.dense_layers) return false;
  return m.moe.every <= 1 || (layer - m.moe.dense_layers + 1) % m.moe.every == 0;
}

int moe_layer_count(const Model& m) {
  if (!m.is_moe()) return 0;
  const int after = m.layers - m.moe.dense_layers;
  return m.moe.every <= 1 ? after : after / m.moe.every;
}

namespace {
// One feed-forward block of inner width f: 2 or 3 matrices h x f, biases on
// each output (gated: the fused gate+up projection has 2f outputs).
double ffn_params(const Model& m, double f) {
  const double h = m.hidden;
  double p = mlp_matrices(m) * h * f;
  if (m.bias) p += (mlp_matrices(m) - 1) * f + h;
  return p;
}
}  // namespace

int mlp_kind_layers(const Model& m) { return m.is_moe() ? moe_layer_count(m) : m.layers; }

double mlp_share(const Model& m, bool moe_layer) {
  if (m.mixer_only_layers <= 0 || moe_layer != m.is_moe()) return 1.0;
  const int kind = mlp_kind_layers(m);
  return kind > 0 ? 1 - std::clamp(m.mixer_only_layers, 0, kind) / static_cast<double>(kind) : 1.0;
}

LayerParams layer_params(const Model& m, bool moe_layer) {
  LayerParams lp;
  const double h = m.hidden, qd = q_dim(m), kvd = kv_dim(m);
  lp.attention = h * (qd + 2 * kvd) + qd * h;  // QKV projection and output projection
  if (m.bias) lp.attention += qd + 2 * kvd + h;
  if (m.mla.on()) lp.attention = mla_attention_params(m);
  if (m.attention.sinks) lp.attention += m.heads;  // one sink logit per head (gpt-oss model.py)
  if (m.attention.output_gate) lp.attention += h * qd;  // the gate's half of q_proj (Qwen3-Next)
  if (m.sparse.on()) lp.attention += indexer_params(m);  // DeepSeek Sparse Attention's indexer
  // A hybrid's layers averaged over the model: softmax and linear mixers by their shares.
  const double linear = linear_share(m);
  lp.attention = (1 - linear) * lp.attention + linear * linear_attention_params(m);
  // A norm before the mixer and one before the MLP, where there is one.
  const double mlps = mlp_share(m, moe_layer);
  lp.norms = (m.norm == NormType::layernorm ? 2 : 1) * h * (1 + mlps);
  // QK-Norm: one RMSNorm weight of head_dim for the queries, one for the keys,
  // shared by the heads (Qwen3 modeling_qwen3.py q_norm / k_norm), in the softmax layers.
  if (m.qk_norm) lp.norms += (1 - linear) * 2.0 * m.head_dim;
  if (!moe_layer) {
    lp.mlp = lp.mlp_active = mlps * ffn_params(m, m.ffn_hidden);
  } else {
    const double expert = ffn_params(m, m.moe.ffn_hidden);
    const double shared = m.moe.shared_experts * ffn_params(m, m.moe.shared_width());
    const double router = h * m.moe.experts;
    lp.mlp = mlps * (m.moe.experts * expert + shared + router);
    lp.mlp_active = mlps * (m.moe.top_k * expert + shared + router);
    lp.shared = mlps * shared;
    lp.router = mlps * router;
  }
  return lp;
}

ParamCount count_params(const Model& m) {
  ParamCount pc;
  const double h = m.hidden;
  pc.embedding = 1.0 * m.vocab * h + (m.learned_positions ? 1.0 * m.seq_len * h : 0.0);
  pc.lm_head = m.tied_embeddings ? 0 : 1.0 * m.vocab * h;
  pc.final_norm = (m.norm == NormType::layernorm ? 2 : 1) * h;
  const int moe_layers = moe_layer_count(m);
  const LayerParams dense = layer_params(m, false);
  const LayerParams moe = layer_params(m, true);
  const int dense_layers = m.layers - moe_layers;
  pc.mtp = mtp_params(m);
  pc.layers = dense_layers * dense.total() + moe_layers * moe.total();
  const double layers_active = dense_layers * dense.total() +
                               moe_layers * (moe.attention + moe.norms + moe.mlp_active);
  pc.total = pc.embedding + pc.lm_head + pc.final_norm + pc.layers;
  pc.active = pc.embedding + pc.lm_head + pc.final_norm + layers_active;
  // Weights come in whole numbers: the layer averages (a hybrid's layer
  // types, mixer-only layers) leave a rounding residue of a fraction of one.
  for (double* n : {&pc.layers, &pc.total, &pc.active}) *n = std::round(*n);
  return pc;
}

double attention_core_flops_per_token(const Model& m, double seq_len) {
  // QK^T and softmax(.)V: 2 * s * d_q FLOPs each per token (Narayanan et al. 2021);
  // MLA's decompressed form: 2 n_h (d_n + d_r) + 2 n_h d_v per key (DeepSeek-V2 §2.1).
  const double full = m.mla.on() ? seq_len * mla_pair_flops(m, false) : 4.0 * seq_len * q_dim(m);
  // DeepSeek Sparse Attention: the core attends the top_k keys' share of the
  // causal pairs; the indexer scores every pair (sparse_attention.h).
  if (m.sparse.on())
    return full * window_pairs(m.sparse.top_k, seq_len) / causal_pairs(m, false, seq_len) +
           seq_len * indexer_pair_flops(m);
  // Linear layers do a fixed amount per token, whatever the context (linear_attention.h).
  const double linear = linear_share(m);
  if (linear > 0) return (1 - linear) * full + linear * linear_core_flops_per_token(m);
  if (!has_local_layers(m)) return full;
  // Local layers do the window's (or chunks') share of the causal pairs; the
  // layer average weighs each type by its layers.
  const double local = full * causal_pairs(m, true, seq_len) / causal_pairs(m, false, seq_len);
  const double g = global_share(m);
  return g * full + (1 - g) * local;
}

// DeepSeek-V3 §2.2 (and inference/model.py): each MTP module is one
// transformer block of the last layer's kind, the projection M (2h x h) and
// two RMSNorms; it shares the embedding and the output head.
Model mtp_block_model(const Model& m) {
  Model b = m;
  b.mixer_only_layers = 0;
  return b;
}

double mtp_params(const Model& m) {
  if (m.mtp_layers <= 0) return 0;
  const LayerParams block = layer_params(mtp_block_model(m), is_moe_layer(m, m.layers - 1));
  const double h = m.hidden;
  return m.mtp_layers * (block.total() + 2 * h * h + 2 * h);
}

double forward_flops_per_token(const Model& m, double seq_len) {
  const LayerParams dense = layer_params(m, false);
  const LayerParams moe = layer_params(m, true);
  const int moe_layers = moe_layer_count(m);
  const int dense_layers = m.layers - moe_layers;
  // 2 FLOPs per weight per token for every matmul weight a token touches.
  const double dense_mm = dense.attention + dense.mlp_active;
  const double moe_mm = moe.attention + moe.mlp_active;
  const double layers = dense_layers * (2 * dense_mm) + moe_layers * (2 * moe_mm) +
                        m.layers * attention_core_flops_per_token(m, seq_len);
  return layers + 2.0 * m.vocab * m.hidden;  // LM head
}

StageLayout stage_layout(const Model& m, const Parallelism& p) {
  StageLayout s;
  s.stages = p.pp;
  s.max_layers = (m.layers + p.pp - 1) / p.pp;
  s.short_stages = m.layers % p.pp == 0 ? 0 : s.max_layers * p.pp - m.layers;
  return s;
}

// When pp does not divide the layers, frameworks give the end stages the
// shorter layer counts (Megatron-Core decoder_first/last_pipeline_num_layers;
// NeMo / Megatron-Bridge account_for_embedding/loss_in_pipeline_split,
// which count the embedding and the loss as a layer each), so an end's work
// takes the place of a layer; with one short stage only the larger end gets
// it. When pp divides them, the end stages hold as many layers as the rest.
double end_stage_excess(const StageLayout& l, double first, double last, double per_layer, bool both_ends) {
  // DualPipe: an end rank holds the first and the last stage (the shorter
  // ones) and runs each for half the micro-batches.
  if (both_ends) return std::max(0.0, (first + last - std::min(l.short_stages, 2) * per_layer) / 2);
  const double big = std::max(first, last), small = std::min(first, last);
  if (l.stages <= 1 || l.short_stages == 0) return big;
  const double on_short = std::max(0.0, big - per_layer);
  return l.short_stages >= 2 ? on_short : std::max(on_short, small);
}

namespace {
// MoE layers among `window` consecutive layers: the fewest or the most over
// every place the window can sit (leading dense layers, MoE every N-th).
int moe_layers_in_window(const Model& m, int window, bool most) {
  window = std::clamp(window, 0, m.layers);
  int count = 0;
  for (int i = 0; i < window; ++i) count += is_moe_layer(m, i);
  int best = count;
  for (int i = window; i < m.layers; ++i) {  // slide by one layer
    count += is_moe_layer(m, i) - is_moe_layer(m, i - window);
    best = most ? std::max(best, count) : std::min(best, count);
  }
  return best;
}
}  // namespace

double slowest_stage_moe_share(const Model& m, const StageLayout& l, bool moe_slower) {
  if (!m.is_moe()) return 0.0;
  if (l.stages <= 1 || l.max_layers <= 0) return moe_layer_count(m) / static_cast<double>(m.layers);
  return moe_layers_in_window(m, l.max_layers, moe_slower) / static_cast<double>(l.max_layers);
}

}  // namespace llmcalc
