// Training pieces beyond the transformer layer: FP8 and block-scaled FP4 GEMM
// recipes (NVFP4, MXFP4) and multi-token prediction modules on the last stage.
#pragma once
#include <vector>

#include "training.h"

namespace llmcalc {

// Transformer Engine FP8 (delayed or current per-tensor scaling, MXFP8): the
// casts of each GEMM input and, with sequence parallelism, the FP8 all-gather
// of the column-parallel inputs.
void apply_fp8_recipe(std::vector<OpSpec>& fwd, Fp8Recipe r, const LayerPass& pass);
// Bytes per element the FP4 GEMMs read (values and their block scales).
double fp4_gemm_bytes(bool mx);
// NVFP4 pretraining recipe (NVIDIA 2025, arXiv 2509.25147 §4): the linear
// layers' fprop, dgrad and wgrad GEMMs in FP4 with block scales, except a
// share of the layers kept in BF16; attention, router, norms, embedding and
// output head stay 16-bit. Quantising each GEMM input writes row- and
// column-wise FP4 copies with their scales, the column-wise one (wgrad)
// after a 16-point random Hadamard transform.
void apply_fp4_recipe(std::vector<OpSpec>& fwd, bool mx);

// DeepSeek-V3 §2.2: each MTP module runs one more block of the last layer's
// kind, the projection M on [h; h] and a second output head with its
// cross-entropy, forward and backward; added to the last stage's edge.
void add_mtp(const Scenario& s, PassTime& t, std::vector<Op>* ops);
// Forward FLOPs per token of the MTP modules.
double mtp_forward_flops_per_token(const Model& m, double seq_len);

}  // namespace llmcalc
