// DeepSeek Sparse Attention (DSA; DeepSeek-AI 2025, "DeepSeek-V3.2-Exp:
// Boosting Long-Context Efficiency with DeepSeek Sparse Attention", §2.1, and
// its inference/model.py Indexer): a lightning indexer scores every earlier
// token for each query with a few fp8 heads; the attention core then attends
// only the top_k tokens it selects. The indexer's work grows with the context,
// the core's stops growing at top_k.
#pragma once
#include <vector>

#include "workload.h"

namespace llmcalc {

// Keys one query of the core attends, averaged over the rows at contexts
// a + 1 .. a + n (n = 0: the row a + 1): the window count of top_k
// (attention_pattern.h window_pairs).
double sparse_mean_keys(double k, double a, double n);

// Indexer weights of one layer: wq_b (the query latent, or the hidden state
// without one, to index_heads x index_head_dim), wk (hidden to
// index_head_dim), the key's LayerNorm and weights_proj (hidden to index_heads).
double indexer_params(const Model& m);
// Bytes per token per layer of the indexer's key cache: fp8 keys with one
// fp32 scale per 128 elements (the Indexer's k_cache and k_scale_cache).
double indexer_key_bytes(const Model& m);
// Indexer FLOPs per query-key pair: q . k for each head, then the
// ReLU-weighted sum over the heads.
double indexer_pair_flops(const Model& m);

// Activation bytes training keeps for the indexer of one layer (on every
// tensor-parallel rank): its fp8 queries and key, the per-head weights
// (fp32), and per query the selected indices (int32) and the fp32 target
// the indexer's loss compares its scores with over them.
double indexer_activation_bytes(const Model& m, double tokens);
// The indexer's operations in one layer under `p` (replicated on every
// tensor-parallel rank): projections, its key-cache write, the scores over
// every earlier token and the top-k selection.
void indexer_ops(std::vector<OpSpec>& ops, const Model& m, const LayerPass& p);

}  // namespace llmcalc
