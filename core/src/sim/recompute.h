// Which forward ops run again in backward under each recompute policy.
#pragma once
#include <string>
#include <vector>

#include "op_checkpoint.h"
#include "workload.h"

namespace llmcalc {

// The unfused attention core (scores, softmax, dropout, context) or the fused kernel.
bool is_attention_core(const std::string& name);
// Share (0..1) of forward op `f` that recomputation runs again; `mms` are
// the layer's matmuls (layer_matmuls) for op-level checkpointing.
double recompute_share(const OpSpec& f, Recompute rc, bool flash, const std::vector<MatmulPart>& mms);
// The recomputed part of a fused GEMM: its recomputed matmuls' columns.
OpSpec narrowed(const OpSpec& f, double share);

}  // namespace llmcalc
