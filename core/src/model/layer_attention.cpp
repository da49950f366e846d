// The attention block of one layer: GQA/MHA or MLA projections around the
// attention core, the core split by layer type for local-attention patterns,
// and the linear-attention mixer of a hybrid model's linear layers.
#include <algorithm>

#include "attention_pattern.h"
#include "linear_attention.h"
#include "mla.h"
#include "sparse_attention.h"
#include "workload.h"

namespace llmcalc {

namespace {

// The pass an attention core sees when each query attends fewer keys than
// the context (a local window or chunk, sparse attention's top_k):
// mean_keys(a, n) is the keys of rows a + 1 .. a + n on average, pairs(s)
// the query-key pairs over s tokens. Decode reads only those cache rows.
template <class MeanKeys, class Pairs>
LayerPass capped_core_pass(const LayerPass& p, MeanKeys mean_keys, Pairs pairs) {
  LayerPass lp = p;
  if (p.kv_cached) {
    lp.keys_per_row = std::max(1.0, mean_keys(p.context_start, p.decode_steps));
    lp.kv_len = lp.keys_per_row;
  } else if (p.context_start > 0) {  // a prefill after a cached prefix (or chunks): rows at context_start + 1 .. + q_len
    lp.keys_per_row = std::max(1.0, mean_keys(p.context_start, p.q_len));
  } else {
    lp.keys_per_row = std::max(1.0, pairs(p.kv_len) / std::max(1.0, p.kv_len));
  }
  return lp;
}

// Local layers run the same block as global ones but their core attends at
// most the window (or the query's chunk): the core op is emitted once per
// layer type, each standing for its share of the layers.
void split_local_core(std::vector<OpSpec>& ops, size_t first, const Model& m, const LayerPass& p, double q_heads,
                      double kv_heads) {
  const double g = global_share(m);
  const LayerPass lp = capped_core_pass(
      p, [&](double a, double n) { return mean_decode_keys(m, true, a, n); },
      [&](double s) { return causal_pairs(m, true, s); });
  std::vector<OpSpec> local;
  if (m.mla.on()) mla_core_ops(local, m, lp);
  else attention_ops(local, m, lp, q_heads, kv_heads);
  for (OpSpec& op : local) {
    op.name += ".local";
    op.layer_share = 1 - g;
  }
  std::vector<OpSpec> out(ops.begin(), ops.begin() + static_cast<long>(first));
  for (size_t i = first; i < ops.size(); ++i) {
    if (ops[i].kind != OpKind::attention) {
      out.push_back(ops[i]);
      continue;
    }
    if (g > 0) {
      out.push_back(ops[i]);
      out.back().layer_share = g;
    }
    out.insert(out.end(), local.begin(), local.end());
  }
  ops.swap(out);
}

// A hybrid model's linear layers run their own token mixer in place of the
// attention block: the block's ops stand for the softmax layers' share and
// the linear mixer's for the rest (the layer types averaged over the model).
void add_linear_layers(std::vector<OpSpec>& ops, size_t first, const Model& m, const LayerPass& p) {
  const double linear = linear_share(m);
  for (size_t i = first; i < ops.size(); ++i) ops[i].layer_share *= 1 - linear;
  std::vector<OpSpec> mixer;
  linear_attention_ops(mixer, m, p);
  for (OpSpec& op : mixer) op.layer_share = linear;
  ops.insert(ops.end(), mixer.begin(), mixer.end());
}

// Rotary position embedding (Su et al. 2021, RoFormer, arXiv 2104.09864
// eq. 34: x cos + rotate(x) sin) on each query and key head, in training a
// kernel of its own for each: Megatron-Core's apply_rotary_pos_emb (Transformer
// Engine's fused RoPE) reads and writes Q and K. Its backward rotates the
// gradients back without the saved input: one read and one write again.
// Serving is costed as TensorRT-LLM runs it, inside the kernel that writes the
// cache (its QKV preprocessing), so an inference pass adds no op (vLLM runs a
// rotary kernel of its own: small beside a decode step's weight reads). A
// model with learned absolute positions (GPT-2/3) has no rotary step.
OpSpec rotary_op(double tokens, double q_heads, double kv_heads, double head_dim, double act_bytes) {
  const double elements = tokens * (q_heads + kv_heads) * head_dim;
  OpSpec rope = make_elementwise("attn.rope", 2 * elements * act_bytes, 3 * elements);
  rope.grad_bytes = rope.bytes / 1.5;  // backward_of streams 1.5 x grad_bytes: the read and the write
  rope.kernels = 2;
  return rope;
}

}  // namespace

void attention_block(std::vector<OpSpec>& ops, const Model& m, const LayerPass& p) {
  const double h = m.hidden, tokens = p.batch * p.q_len;
  const double q_heads = m.heads / static_cast<double>(p.tp);
  const double kv_heads = std::max(1.0, m.kv_heads / static_cast<double>(p.tp));  // replicated when tp > kv_heads
  const size_t first = ops.size();
  // DeepSeek Sparse Attention: the indexer reads every earlier token, the
  // core only the top_k it selects (sparse_attention.h).
  const double top_k = m.sparse.top_k;
  const LayerPass core = !m.sparse.on() ? p
                         : capped_core_pass(p, [&](double a, double n) { return sparse_mean_keys(top_k, a, n); },
                                            [&](double s) { return window_pairs(top_k, s); });
  if (m.sparse.on()) indexer_ops(ops, m, p);
  if (m.mla.on()) {
    mla_ops(ops, m, core);
  } else {
    // A gated attention's query projection also emits the gate (Qwen3-Next).
    const double gate = m.attention.output_gate ? q_heads * m.head_dim : 0;
    ops.push_back(make_gemm("attn.qkv", tokens, (q_heads + 2 * kv_heads) * m.head_dim + gate, h, p));
    if (m.qk_norm) {
      // QK-Norm (Qwen3 report arXiv 2505.09388 §2; Gemma 3): RMSNorm over each
      // head's query and key, before RoPE and the cache: read and write them,
      // one kernel each (Megatron-Core q_layernorm / k_layernorm).
      const double elements = tokens * (q_heads + kv_heads) * m.head_dim;
      OpSpec qk = make_elementwise("attn.qk_norm", 2 * elements * p.act_bytes, 5 * elements, StreamKind::norm);
      qk.kernels = 2;
      ops.push_back(qk);
    }
    if (!m.learned_positions && !p.kv_write) ops.push_back(rotary_op(tokens, q_heads, kv_heads, m.head_dim, p.act_bytes));
    if (p.kv_write)  // append this pass's K and V to the cache
      ops.push_back(make_elementwise("attn.kv_write", 2 * tokens * kv_heads * m.head_dim * p.kv_bytes, 0));
    attention_ops(ops, m, core, q_heads, kv_heads);
    if (gate > 0)  // output x sigmoid(gate): read both, write the product
      ops.push_back(make_elementwise("attn.gate", 3 * tokens * gate * p.act_bytes, 5 * tokens * gate, StreamKind::activation));
    ops.push_back(make_gemm("attn.proj", tokens, h, q_heads * m.head_dim, p));
  }
  // The fused kernels skip masked tiles; the unfused path computes the
  // whole score block either way (eager attention masks it).
  if (has_local_layers(m) && (p.flash || m.mla.on())) split_local_core(ops, first, m, p, q_heads, kv_heads);
  if (m.linear.on()) add_linear_layers(ops, first, m, p);
}

}  // namespace llmcalc
