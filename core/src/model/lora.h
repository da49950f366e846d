// Parameter-efficient fine-tuning: LoRA (Hu et al. 2021, arXiv 2106.09685)
// and QLoRA (Dettmers et al. 2023, arXiv 2305.14314). The base weights are
// frozen: their GEMMs still run forward and pass the data gradient back, but
// compute no weight gradient and hold no gradient or optimizer state; each
// adapted linear layer W (k x n) gains a trained low-rank path x A B with
// A (k x r) and B (r x n).
#pragma once
#include <vector>

#include "workload.h"

namespace llmcalc {

// Bytes per frozen linear weight: NF4 with double quantisation stores 4 bits
// plus 0.127 bits of scales per weight (QLoRA section 3: an fp8 scale per 64
// weights and an fp32 scale per 256 of those, 8/64 + 32/(64 x 256)); 16-bit
// otherwise (the training precision's weight copy).
double frozen_weight_bytes(const Training& t);

// A GEMM against a weight matrix (the unfused attention's score and context
// products multiply activations by activations).
bool is_weight_gemm(const OpSpec& op);
// Whether training.lora_targets puts an adapter beside this weight GEMM:
// attention projections, with "all" the dense and shared-expert MLP
// projections, with "all_experts" the routed experts' too; the router stays
// frozen without one.
bool lora_adapts(const OpSpec& op, LoraTargets targets);

// Rewrites one layer's forward ops for LoRA: weight GEMMs frozen, NF4
// weights dequantised before each, and after every adapted GEMM its adapter
// (x A, then (x A) B, scaled and added to the output).
void apply_lora(std::vector<OpSpec>& fwd, const Model& m, const Training& t, const LayerPass& p);

// Trained adapter parameters of one layer on one GPU: r (k + n) per adapted
// module, k and n as the GPU's shard of the weight has them; `expert` of
// them beside routed experts (held, like those, by the expert-parallel ranks).
struct LoraParams {
  double all = 0, expert = 0;
};
LoraParams lora_layer_params(const Model& m, const Parallelism& p, const Training& t, bool moe_layer);

// Weights that train: every one, or with LoRA the adapters of all layers
// (counted unsharded). `active`: of those, what one token runs through.
double trainable_params(const Model& m, const Training& t, double* active);

}  // namespace llmcalc
