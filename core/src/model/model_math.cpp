#include "model_math.h"

namespace llmcalc {

int q_dim(const Model& m) { return m.heads * m.head_dim; }
int kv_dim(const Model& m) { return m.kv_heads * m.head_dim; }
int mlp_matrices(const Model& m) { return is_gated(m.ffn_type) ? 3 : 2; }

bool is_moe_layer(const Model& m, int layer) { return m.is_moe() && layer >= m.moe.dense_layers; }

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

LayerParams layer_params(const Model& m, bool moe_layer) {
  LayerParams lp;
  const double h = m.hidden, qd = q_dim(m), kvd = kv_dim(m);
  lp.attention = h * (qd + 2 * kvd) + qd * h;  // QKV projection and output projection
  if (m.bias) lp.attention += qd + 2 * kvd + h;
  lp.norms = (m.norm == NormType::layernorm ? 2 : 1) * h * 2;  // two norms per block
  if (!moe_layer) {
    lp.mlp = lp.mlp_active = ffn_params(m, m.ffn_hidden);
  } else {
    const double expert = ffn_params(m, m.moe.ffn_hidden);
    const double router = h * m.moe.experts;
    lp.mlp = (m.moe.experts + m.moe.shared_experts) * expert + router;
    lp.mlp_active = (m.moe.top_k + m.moe.shared_experts) * expert + router;
  }
  return lp;
}

ParamCount count_params(const Model& m) {
  ParamCount pc;
  const double h = m.hidden;
  pc.embedding = 1.0 * m.vocab * h + (m.learned_positions ? 1.0 * m.seq_len * h : 0.0);
  pc.lm_head = m.tied_embeddings ? 0 : 1.0 * m.vocab * h;
  pc.final_norm = (m.norm == NormType::layernorm ? 2 : 1) * h;
  const int moe_layers = m.is_moe() ? m.layers - m.moe.dense_layers : 0;
  const LayerParams dense = layer_params(m, false);
  const LayerParams moe = layer_params(m, true);
  const int dense_layers = m.layers - moe_layers;
  pc.layers = dense_layers * dense.total() + moe_layers * moe.total();
  const double layers_active = dense_layers * dense.total() +
                               moe_layers * (moe.attention + moe.norms + moe.mlp_active);
  pc.total = pc.embedding + pc.lm_head + pc.final_norm + pc.layers;
  pc.active = pc.embedding + pc.lm_head + pc.final_norm + layers_active;
  return pc;
}

double attention_core_flops_per_token(const Model& m, double seq_len) {
  // QK^T and softmax(.)V: 2 * s * d_q FLOPs each per token (Narayanan et al. 2021).
  return 4.0 * seq_len * q_dim(m);
}

double forward_flops_per_token(const Model& m, double seq_len) {
  const LayerParams dense = layer_params(m, false);
  const LayerParams moe = layer_params(m, true);
  const int moe_layers = m.is_moe() ? m.layers - m.moe.dense_layers : 0;
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
  return s;
}

}  // namespace llmcalc
