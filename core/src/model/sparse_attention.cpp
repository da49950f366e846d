#include "sparse_attention.h"

#include <algorithm>
#include <cmath>

#include "attention_pattern.h"

namespace llmcalc {

double sparse_mean_keys(double k, double a, double n) {
  if (n <= 0) return std::min(a + 1, k);
  return (window_pairs(k, a + n) - window_pairs(k, a)) / n;
}

namespace {
// The query the indexer projects: MLA's query latent where there is one.
double indexer_query_source(const Model& m) { return m.mla.q_lora_rank > 0 ? m.mla.q_lora_rank : m.hidden; }
}  // namespace

double indexer_params(const Model& m) {
  const SparseAttention& a = m.sparse;
  const double heads = a.index_heads, dim = a.index_head_dim, h = m.hidden;
  return indexer_query_source(m) * heads * dim + h * dim + 2 * dim + h * heads;
}

double indexer_key_bytes(const Model& m) {
  const double dim = m.sparse.index_head_dim;
  return dim + 4 * std::ceil(dim / 128);
}

double indexer_pair_flops(const Model& m) {
  const double heads = m.sparse.index_heads;
  return 2 * heads * m.sparse.index_head_dim + 2 * heads;
}

double indexer_activation_bytes(const Model& m, double tokens) {
  const SparseAttention& a = m.sparse;
  return tokens * (1.0 * a.index_heads * a.index_head_dim + indexer_key_bytes(m) + 4.0 * a.index_heads + 8.0 * a.top_k);
}

void indexer_ops(std::vector<OpSpec>& ops, const Model& m, const LayerPass& p) {
  const SparseAttention& a = m.sparse;
  const double heads = a.index_heads, dim = a.index_head_dim, b = p.batch, tokens = b * p.q_len;
  ops.push_back(make_gemm("attn.index_q", tokens, heads * dim, indexer_query_source(m), p));
  ops.push_back(make_gemm("attn.index_k", tokens, dim, m.hidden, p));
  ops.push_back(make_gemm("attn.index_w", tokens, heads, m.hidden, p));
  // The key's LayerNorm, RoPE on the queries and the key, their Hadamard
  // rotation and fp8 quantisation (Indexer.forward: k_norm, apply_rotary_emb,
  // rotate_activation, act_quant): read the 16-bit rows, write fp8 ones. Per
  // element about 10 FLOPs: log2(128) = 7 butterfly adds of the rotation
  // plus the norm, rotary and scaling arithmetic; memory-bound either way.
  // Three launches: the key's norm and rotary, each tensor's rotation and cast.
  const double rows = tokens * (heads + 1) * dim;
  OpSpec prep = make_elementwise("attn.index_prep", rows * (2 * p.act_bytes + 1), 10 * rows);
  prep.kernels = 3;
  ops.push_back(prep);
  if (p.kv_write) ops.push_back(make_elementwise("attn.index_k_write", tokens * indexer_key_bytes(m), 0));
  // Every earlier token is scored: decode rows over the mean context; rows
  // after a cached prefix (or earlier chunks) over it and half their own;
  // otherwise half the sequence on average (context parallelism's ranks too).
  const double keys = p.kv_cached ? p.kv_len
                      : p.context_start > 0 ? p.context_start + (p.q_len + 1) / 2
                                            : (p.kv_len + 1) / 2;
  const double pairs = b * p.q_len * keys;
  const double cached = b * (p.kv_cached ? keys : p.kv_len);  // the keys read
  // Costed as a fused attention forward at the fp8 rate (the logits kernel
  // is a q . k product per head in a tile loop over the keys, as
  // FlashAttention's first matmul; an assumption, no measurement of it).
  OpSpec s;
  s.name = "attn.index_scores";
  s.kind = OpKind::attention;
  s.math = Precision::fp8;  // fp8 queries and keys (the Indexer's act_quant)
  s.flops = pairs * indexer_pair_flops(m);
  s.kv_per_row = keys;
  s.head_dim = dim;
  // Read the fp8 queries and the cached keys, write one fp32 score per pair.
  s.bytes = tokens * heads * dim + cached * indexer_key_bytes(m) + 4 * pairs;
  ops.push_back(s);
  // Top-k over each query's scores: read them, write the indices (int32).
  const double chosen = b * p.q_len * std::min(keys, static_cast<double>(a.top_k));
  ops.push_back(make_elementwise("attn.index_topk", 4 * pairs + 4 * chosen, pairs));
}

}  // namespace llmcalc
