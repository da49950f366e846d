// Op-level selective activation checkpointing as PyTorch applies it in
// torchtitan (recompute: "selective_op"): inside each checkpointed layer the
// outputs of the ops on a save list are kept and every other op runs again
// in backward. The list (torchtitan, torchtitan/models/llama3/infra/
// parallelize.py, _save_list and _custom_policy): aten.mm, the fused
// scaled-dot-product attention kernels, reduce_scatter and max, except that
// every second mm of the layer is recomputed.
#pragma once
#include <string>
#include <vector>

#include "llmcalc/scenario.h"

namespace llmcalc {

// One matmul of a layer's forward, in execution order. Fused GEMMs of this
// model (QKV, gate+up) stand for several: `share` is this matmul's part of
// the GEMM named `op`.
struct MatmulPart {
  std::string op;
  double share = 1;
  double out_width = 0;  // output columns per token on one GPU
  bool saved = false;    // an odd-numbered mm of the layer: kept
  double layers = 1;     // share of the layers that run it (a hybrid's softmax or linear layers)
};
std::vector<MatmulPart> layer_matmuls(const Model& m, int tp, bool moe_layer);

// Share of a forward GEMM that op-level checkpointing recomputes: its
// recomputed matmuls, or all of it when it is not an mm (the grouped expert
// GEMMs, the unfused attention's batched matmuls).
double op_checkpoint_gemm_share(const std::vector<MatmulPart>& parts, const std::string& op);

// Activation bytes one layer keeps for one micro-batch: the layer input,
// the saved matmul outputs, the attention output with its log-sum-exp and
// the reduce-scatter outputs.
double op_checkpoint_activation_bytes(const Model& m, const Parallelism& p, const Training& t, bool moe_layer);

}  // namespace llmcalc
