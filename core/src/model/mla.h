// Multi-head latent attention (DeepSeek-V2, arXiv 2405.04434 §2.1; DeepSeek-V3,
// arXiv 2412.19437 §2.1.1): parameters, the operations of the decompressed
// form (training, prefill) and of the weight-absorbed form (decode), and the
// activations training keeps.
#pragma once
#include <vector>

#include "workload.h"

namespace llmcalc {

// W^DQ, q norm, W^UQ (with W^QR), W^DKV (with W^KR), kv norm, W^UK and W^UV, W^O.
double mla_attention_params(const Model& m);
// Attention-core FLOPs per query-key pair, all heads: decompressed
// 2 n_h (d_n + d_r) [QK^T] + 2 n_h d_v [PV]; absorbed 2 n_h (d_c + d_r) + 2 n_h d_c.
double mla_pair_flops(const Model& m, bool absorbed);
// FLOPs per token (all heads) of the absorption GEMMs of decode: q_nope W^UK
// (2 n_h d_n d_c) and the latent context through W^UV (2 n_h d_c d_v).
double mla_absorb_flops(const Model& m);

// Projections, cache write, attention core and output projection of one MLA
// layer under `p` (p.kv_cached: decode, absorbed form).
void mla_ops(std::vector<OpSpec>& ops, const Model& m, const LayerPass& p);
// The attention core alone (used for each layer type of a local pattern).
void mla_core_ops(std::vector<OpSpec>& ops, const Model& m, const LayerPass& p);

// Activation bytes training keeps for the attention block of one layer
// (16-bit): the q and kv latents (replicated over tp), Q, K, V and the context.
double mla_activation_bytes(const Model& m, int tp, double tokens);

}  // namespace llmcalc
