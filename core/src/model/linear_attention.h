// Linear-attention layers of hybrid models: Gated DeltaNet (Yang, Kautz and
// Hatamizadeh 2024, arXiv 2412.06464; docs/sources.md [GatedDeltaNet] and
// [Qwen3Next]) as Qwen3-Next runs it between its softmax-attention layers,
// and Mamba-2's SSD (Dao and Gu 2024, arXiv 2405.21060; [Mamba2], [Bamba]),
// which has the same projections, convolution, gated norm and state shape
// (its B and C are the keys and queries, dt the decay) and differs in the
// chunked algorithm's work and traffic, its single in_proj and its parameters.
// A layer projects q, k, v, an output gate z and the per-head decay and
// write strength, runs a causal depthwise convolution over q, k, v, the
// delta-rule recurrence over one key_head_dim x value_head_dim state per
// value head, a gated RMSNorm and the output projection. Training and
// prefill run the chunked (parallel) form, decode the recurrent one.
#pragma once
#include <vector>

#include "workload.h"

namespace llmcalc {

// Layer `layer` (0-based) is a linear-attention layer: all but every
// full_every-th (1-based, Qwen3Next config: (i + 1) % full_attention_interval).
bool is_linear_layer(const Model& m, int layer);
int linear_layers(const Model& m, int first, int count);
// Fraction of the model's layers that are linear (0 without linear attention).
double linear_share(const Model& m);

// Weights of one layer's token mixer (projections, convolution, decay and norm).
double linear_attention_params(const Model& m);
// Output columns of in_proj_qkvz on one tp rank (q, k, v and the output gate z;
// Mamba-2's in_proj: z, x, B, C and dt).
double linear_in_proj_width(const Model& m, int tp);
// Output columns of Gated DeltaNet's in_proj_ba on one tp rank (0 for Mamba-2).
double linear_small_proj_width(const Model& m, int tp);
// Forward FLOPs per token of one layer's chunked recurrence, all value heads.
double linear_core_flops_per_token(const Model& m);
// Recurrent state (state_precision) and convolution state of one sequence in one layer on one tp rank.
double linear_state_bytes(const Model& m, int tp);

// The token mixer of a linear layer for one pass (layer_share left at 1).
void linear_attention_ops(std::vector<OpSpec>& ops, const Model& m, const LayerPass& p);
// Bytes a linear layer's token mixer saves for backward on one tp rank, for
// `tokens` tokens, with `gemm_in` bytes per saved GEMM input.
double linear_activation_bytes(const Model& m, int tp, double tokens, double gemm_in);

}  // namespace llmcalc
