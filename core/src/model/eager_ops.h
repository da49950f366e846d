// Element-wise steps as PyTorch eager modules run them (training.fusion
// "eager"): one kernel per tensor operation, the reductions in fp32, each
// operation's inputs saved by autograd. Megatron-Core / Transformer Engine
// (and torch.compile) run each step as one fused kernel, which is what the
// layer's ops describe before this rewrite.
#pragma once
#include <vector>

#include "workload.h"

namespace llmcalc {

// Rewrites one layer's forward ops for eager execution: RMSNorms, the gated
// activation and the rotary embedding stream more bytes in more kernels, and
// their backward (backward_of) with them. LayerNorm (torch.nn.LayerNorm is
// one native kernel), GELU, residual adds and GEMMs are unchanged.
void apply_eager_kernels(std::vector<OpSpec>& fwd, const Model& m, double act_bytes);

// Activation bytes eager autograd saves beyond the fused kernels', per
// token of one layer on this GPU: each RMSNorm's fp32 copy of its input, the
// gated activation's output, the rotary embedding's fp32 complex Q and K.
// norm_width: elements the layer's RMSNorms normalise per token, summed;
// rope_width: Q plus K elements the rotary embedding turns per token;
// gated_width: the gated activation's output elements per token (0: none).
double eager_extra_activation_bytes(double norm_width, double rope_width, double gated_width, double act_bytes);

}  // namespace llmcalc
