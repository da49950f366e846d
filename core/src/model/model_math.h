// Exact arithmetic of a transformer: parameter counts and FLOPs.
#pragma once
#include "llmcalc/scenario.h"

namespace llmcalc {

struct LayerParams {
  double attention = 0;  // Wq, Wk, Wv, Wo (+ biases); a hybrid's mean over its softmax and linear layers
  double mlp = 0;        // dense MLP, or all experts + shared + router of a MoE layer
  double mlp_active = 0; // MLP weights one token touches (top_k experts + shared + router)
  double shared = 0;     // of mlp: the shared experts (dense weights, replicated over ep)
  double router = 0;     // of mlp: the router (a dense weight)
  double norms = 0;
  double total() const { return attention + mlp + norms; }
  double routed() const { return mlp - shared - router; }  // the routed experts, split over etp x ep
};

struct ParamCount {
  double embedding = 0;  // token (+ learned position) table
  double lm_head = 0;    // 0 when tied
  double final_norm = 0;
  double layers = 0;     // all transformer blocks
  double total = 0;
  double active = 0;     // per token (MoE: only the experts a token uses)
  double mtp = 0;        // multi-token prediction modules (not in total: published counts leave them out)
};

// In double: 65536 heads of 65536 are valid inputs and overflow an int.
double q_dim(const Model& m);   // heads * head_dim
double kv_dim(const Model& m);  // kv_heads * head_dim
int mlp_matrices(const Model& m);  // 3 for gated FFNs, 2 otherwise
bool is_moe_layer(const Model& m, int layer);
// Share of the layers of a kind (MoE or dense) with an MLP block after their
// mixer: 1 but for model.mixer_only_layers, which are dense layers in a dense
// model and MoE layers in an MoE model (Nemotron-H's MoE patterns: every MLP
// block there is an MoE block).
double mlp_share(const Model& m, bool moe_layer);
// The layers of the kind the mixer-only layers are taken from (all, or the MoE layers).
int mlp_kind_layers(const Model& m);
int moe_layer_count(const Model& m);
// Parameters of the model.mtp_layers multi-token prediction modules.
double mtp_params(const Model& m);
// The model an MTP module's block is shaped by: the last layer's kind with
// its MLP (or MoE) block, whatever mixer-only layers the model has.
Model mtp_block_model(const Model& m);

LayerParams layer_params(const Model& m, bool moe_layer);
ParamCount count_params(const Model& m);

// Model FLOPs of one forward pass per token at sequence length s (matmuls,
// attention over the full s^2 as in Narayanan et al. 2021 eq. 3, LM head).
double forward_flops_per_token(const Model& m, double seq_len);
// Forward FLOPs per token of one layer's attention core (QK^T and AV) over s.
double attention_core_flops_per_token(const Model& m, double seq_len);

// How layers fall on pipeline stages (Megatron splits evenly; with a
// remainder the first stages take one more layer).
struct StageLayout {
  int stages = 1;
  int max_layers = 0;       // layers on the most loaded stage
  int short_stages = 0;     // stages with one layer fewer (pp does not divide the layers)
};
StageLayout stage_layout(const Model& m, const Parallelism& p);
// What the slowest pipeline stage runs beyond max_layers layers of
// `per_layer` each, given the extra work of the first stage (embedding) and
// of the last (LM head, loss, MTP); with one stage, `first` holds both ends.
// both_ends: DualPipe (DeepSeek-V3 §3.2.1), whose end ranks hold both end stages.
double end_stage_excess(const StageLayout& l, double first, double last, double per_layer, bool both_ends = false);
// Share of MoE layers on the slowest pipeline stage. A stage holds
// consecutive layers (Megatron-Core builds each stage, or virtual chunk, from
// the next layers in order), so DeepSeek-V3's three leading dense layers sit
// on the first stage and the others run MoE layers only; the pipeline runs at
// the rate of its slowest stage (Narayanan et al. 2021 §2.2), the one with
// the most layers of the slower kind. With one stage, the model's share.
double slowest_stage_moe_share(const Model& m, const StageLayout& l, bool moe_slower);

}  // namespace llmcalc
