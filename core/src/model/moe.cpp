#include "moe.h"

#include <algorithm>
#include <cmath>

#include "memory.h"
#include "model_math.h"

namespace llmcalc {

namespace {

// Standard normal quantile by bisection on erfc (monotone, 60 halvings
// reach double precision over [-10, 10]).
double normal_quantile(double q) {
  double lo = -10, hi = 10;
  for (int i = 0; i < 60; ++i) {
    const double mid = 0.5 * (lo + hi);
    if (0.5 * std::erfc(-mid / std::sqrt(2.0)) < q) lo = mid; else hi = mid;
  }
  return 0.5 * (lo + hi);
}

// Expected maximum of n standard normal draws, Blom (1958):
// Phi^-1((n - 0.375) / (n + 0.25)); 0 for a single draw.
double expected_max_normal(double n) {
  if (n <= 1) return 0;
  return normal_quantile((n - 0.375) / (n + 0.25));
}

}  // namespace

double moe_load_factor(const MoeRouting& r) {
  double load = 1;
  const double E = std::max(1, r.experts), k = std::min<double>(std::max(1, r.top_k), E);
  const double ranks = std::max(1, r.ranks);
  if (r.balance == MoeBalance::random && r.tokens > 0 && E > 1) {
    // A token's k distinct experts fall on a rank holding L = E/ranks of them
    // as a hypergeometric draw: mean kL/E, variance kL/E (1 - L/E)(E - k)/(E - 1).
    const double share = 1.0 / ranks;
    const double mean = r.tokens * k * share;
    const double var = r.tokens * k * share * (1 - share) * (E - k) / (E - 1);
    // One expert per rank and ranks == E: the same formula, per expert.
    load = 1 + expected_max_normal(ranks) * std::sqrt(var) / mean;
  }
  if (r.capacity_factor > 0) load = std::min(load, r.capacity_factor);
  return load;
}

namespace {

// One expert GEMM of the inference MoE block. The legacy16 kernel has no
// narrow-precision path: 16-bit activations and math, weights as held
// (dequantised in the kernel when int8/int4), MMA issue at legacy_mma.
OpSpec expert_gemm(const std::string& name, double m, double n, double k, const LayerPass& p, double batch) {
  OpSpec g = make_gemm(name, m, n, k, p, batch);
  if (!p.moe_legacy16) return g;
  g.gemm.math = Precision::bf16;
  g.gemm.a_bytes = 2;
  g.gemm.b_bytes = p.moe_weight_bytes;
  g.gemm.dequant_ops = dequant_ops_per_weight(p.moe_weight_bytes, g.gemm.a_bytes);
  g.gemm.mma_eff = p.moe_mma_eff;
  return g;
}

}  // namespace

// TensorRT-LLM / FasterTransformer MoE plugin (moe_kernels.cu): top-k softmax
// of the router logits, a sort of the (token, expert) pairs, expand the rows
// into expert order, fc1 and fc2 as grouped GEMMs over the local experts,
// then finalize: weight each copy by its router probability and sum the k
// copies back into token order.
//
// Expert parallelism (ep > 1): each rank holds E/ep experts, split etp ways,
// and computes them for the token copies routed there from the
// p.moe_token_sets token sets its expert group spans (etp ep / tp of them).
// Inside one tensor-parallel group (TensorRT-LLM's moe_ep x moe_tp = tp)
// the tokens are already on every rank and the tp all-reduce combines the
// partial outputs; across replicas (data-parallel attention with expert
// parallelism, SGLang / vLLM "wide EP") the copies travel by all-to-all.
void moe_replicated_ops(std::vector<OpSpec>& ops, const Model& m, const LayerPass& p, double tokens) {
  const double h = m.hidden, ab = p.act_bytes;
  const int up_mats = is_gated(m.ffn_type) ? 2 : 1;
  const double experts = m.moe.experts, k = m.moe.top_k;
  const double f = m.moe.ffn_hidden / static_cast<double>(p.etp);
  const double sets = p.moe_token_sets;
  OpSpec router = make_gemm("moe.router", tokens, experts, h, p);
  router.gemm.b_bytes = p.act_bytes;  // routers stay in 16-bit
  router.gemm.math = Precision::bf16;
  router.gemm.a_bytes = ab;
  router.gemm.dequant_ops = 0;
  ops.push_back(router);
  // Softmax + top-k, the radix sort of the pairs and the per-expert offsets.
  OpSpec topk = make_elementwise("moe.router.topk", tokens * experts * 4 + tokens * k * 4 * 4, 8 * tokens * experts);
  topk.kernels = 3;
  ops.push_back(topk);
  // Grouped GEMM over the experts this GPU holds or touches.
  double local_experts = experts / p.ep;
  double per_expert = sets * tokens * k / experts;  // balanced routing
  if (p.moe_experts_touched > 0) {
    local_experts = p.moe_experts_touched;
    per_expert = p.moe_tokens_per_expert;
  }
  const double routed_tokens = local_experts * per_expert;
  // This rank's share of its replica's copies, sent to and returned from the
  // expert group when it spans several replicas.
  const double sent = tokens * k * p.etp / p.tp;
  if (sets > 1) ops.push_back(make_comm("moe.dispatch", Collective::all_to_all, p.ep_group, sent * h * ab, "ep"));
  ops.push_back(make_elementwise("moe.permute", (tokens + routed_tokens) * h * ab, 0));
  ops.push_back(expert_gemm("moe.up", per_expert, up_mats * f, h, p, local_experts));
  ops.push_back(make_elementwise("moe.act", routed_tokens * f * (up_mats + 1) * p.act_bytes, 4 * routed_tokens * f, StreamKind::activation));
  ops.push_back(expert_gemm("moe.down", per_expert, h, f, p, local_experts));
  if (sets > 1) ops.push_back(make_comm("moe.combine", Collective::all_to_all, p.ep_group, sent * h * ab, "ep"));
  ops.push_back(make_elementwise("moe.unpermute", (routed_tokens + tokens) * h * ab + routed_tokens * 4, 2 * routed_tokens * h));
  if (m.moe.shared_experts > 0) {
    const double fs = m.moe.shared_width() / static_cast<double>(p.tp) * m.moe.shared_experts;
    ops.push_back(make_gemm("moe.shared_up", tokens, up_mats * fs, h, p));
    ops.push_back(make_elementwise("moe.shared_act", tokens * fs * (up_mats + 1) * p.act_bytes, 4 * tokens * fs, StreamKind::activation));
    ops.push_back(make_gemm("moe.shared_down", tokens, h, fs, p));
  }
}

namespace {

// Router: gating GEMM in 16-bit, then softmax, top-k, the routing map and
// the auxiliary-loss statistics over [tokens x experts] in fp32 (Megatron-Core
// router.py: read the logits, write and re-read fp32 scores, write probs and
// map; about four kernels unless --moe-router-fusion).
void router_ops(std::vector<OpSpec>& ops, const Model& m, const LayerPass& p, double local) {
  const double E = m.moe.experts;
  OpSpec router = make_gemm("moe.router", local, E, m.hidden, p);
  router.gemm.b_bytes = p.act_bytes;
  router.gemm.a_bytes = p.act_bytes;
  router.gemm.math = p.act_bytes > 2 ? p.math : Precision::bf16;
  router.gemm.dequant_ops = 0;
  ops.push_back(router);
  OpSpec topk = make_elementwise("moe.router.topk", local * E * (p.act_bytes + 3 * 4 + 1), 8 * local * E);
  // Unfused routing (softmax, top-k, the map and the probabilities scattered
  // into [tokens x experts]) is about six kernels; the load-balancing loss
  // (router.py switch_load_balancing_loss_func: two column sums, product,
  // sum, scale, the loss auto-scaler) about six more.
  topk.kernels = 12;
  ops.push_back(topk);
}

// The grouped expert GEMMs: `per_expert` rows for each of `local` experts
// (tile and wave quantization per expert come from the GEMM model's tiling
// of `batch` instances). Megatron-Core's TEGroupedMLP runs Transformer
// Engine's GroupedLinear, which issues one cuBLAS GEMM per expert
// (general_grouped_gemm) and, in fp8, quantizes each expert's input split
// on its own: the host launches `local` kernels for each.
void expert_ops(std::vector<OpSpec>& ops, const Model& m, const LayerPass& p, double per_expert, double local) {
  const int up_mats = is_gated(m.ffn_type) ? 2 : 1;
  const double f = m.moe.ffn_hidden / static_cast<double>(p.etp);
  const double routed = per_expert * local;
  OpSpec up = make_gemm("moe.up", per_expert, up_mats * f, m.hidden, p, local);
  OpSpec down = make_gemm("moe.down", per_expert, m.hidden, f, p, local);
  up.kernels = down.kernels = local;
  ops.push_back(up);
  ops.push_back(make_elementwise("moe.act", routed * f * (up_mats + 1) * p.act_bytes, 4 * routed * f, StreamKind::activation));
  ops.push_back(down);
}

// Shared experts: a dense tensor-parallel MLP over all tokens of the tp group.
void shared_expert_ops(std::vector<OpSpec>& ops, const Model& m, const LayerPass& p, double tokens) {
  if (m.moe.shared_experts <= 0) return;
  const int up_mats = is_gated(m.ffn_type) ? 2 : 1;
  const double fs = m.moe.shared_width() / static_cast<double>(p.tp) * m.moe.shared_experts;
  const double hidden_bytes = tokens * m.hidden * p.act_bytes;
  tp_enter(ops, "moe.shared", p, hidden_bytes);
  ops.push_back(make_gemm("moe.shared_up", tokens, up_mats * fs, m.hidden, p));
  ops.push_back(make_elementwise("moe.shared_act", tokens * fs * (up_mats + 1) * p.act_bytes, 4 * tokens * fs, StreamKind::activation));
  ops.push_back(make_gemm("moe.shared_down", tokens, m.hidden, fs, p));
  tp_exit(ops, "moe.shared", p, hidden_bytes);
}

// Dispatch or combine over the expert-parallel group. DeepEP sends a token
// once to each remote node that holds any of its k experts (the combine
// reduces there first) and forwards it over NVLink (DeepSeek-V3 §3.2.2).
OpSpec routed_all_to_all(const std::string& name, const Model& m, const LayerPass& p, double bytes) {
  OpSpec op = make_comm(name, Collective::all_to_all, p.ep_group, bytes, "ep");
  if (p.moe_node_dedup) {
    op.route_copies = m.moe.top_k;
    op.route_experts = m.moe.experts;
    op.route_groups = m.moe.groups;
    op.route_top_groups = m.moe.routed_groups();
  }
  return op;
}

}  // namespace

void moe_dispatch_ops(std::vector<OpSpec>& ops, const Model& m, const LayerPass& p, double tokens) {
  const double h = m.hidden, ab = p.act_bytes, E = m.moe.experts, k = m.moe.top_k;
  // With tp > 1 the block runs on the sequence-parallel shard (Megatron-Core
  // requires sequence parallelism for MoE with tensor parallelism).
  const double local = p.tp > 1 ? tokens / p.tp : tokens;
  const double experts_here = E / p.ep;
  MoeRouting r;
  r.tokens = local * p.ep * p.etp;
  r.experts = m.moe.experts;
  r.top_k = m.moe.top_k;
  r.ranks = p.ep;
  r.balance = p.moe_balance;
  r.capacity_factor = p.moe_capacity_factor;
  const double load = moe_load_factor(r);
  const double sent = local * k;                  // token copies this rank sends
  const double routed = sent * p.etp * load;      // token copies its experts process (busiest rank)
  router_ops(ops, m, p, local);
  // Permute: gather each token's k copies into expert order (memory-bound).
  // Before it the all-to-all dispatcher counts the tokens per expert, gathers
  // the counts over the expert-parallel group and copies the split sizes to
  // the host (token_dispatcher.py preprocess: about eight small kernels).
  OpSpec permute = make_elementwise("moe.permute", (local + sent) * h * ab, 0);
  permute.kernels = p.ep > 1 ? 2 + 8 : 2;
  ops.push_back(permute);
  // FP8 dispatch (moe_dispatch_bytes): the dispatch and the backward of the
  // combine (which dispatches the output gradients) send 8-bit copies.
  const double db = p.moe_dispatch_bytes > 0 ? p.moe_dispatch_bytes : ab;
  if (p.ep > 1) {
    OpSpec dispatch = routed_all_to_all("moe.dispatch", m, p, sent * load * h * db);
    dispatch.grad_bytes = sent * load * h * ab;
    ops.push_back(dispatch);
  }
  if (p.etp > 1) ops.push_back(make_comm("moe.etp_all_gather", Collective::all_gather, p.etp_group, routed * h * ab, "ep"));
  // Copies arrive grouped by source rank; regroup them by local expert.
  const bool sort = p.ep > 1 && experts_here > 1;
  if (sort) ops.push_back(make_elementwise("moe.sort_chunks", 2 * routed * h * ab, 0));
  expert_ops(ops, m, p, routed / experts_here, experts_here);
  if (sort) ops.push_back(make_elementwise("moe.unsort_chunks", 2 * routed * h * ab, 0));
  if (p.etp > 1) ops.push_back(make_comm("moe.etp_reduce_scatter", Collective::reduce_scatter, p.etp_group, routed * h * ab, "ep"));
  if (p.ep > 1) {
    OpSpec combine = routed_all_to_all("moe.combine", m, p, sent * load * h * ab);
    combine.grad_bytes = sent * load * h * db;
    ops.push_back(combine);
  }
  // Un-permute: weight each copy by its router probability and sum the k copies back.
  OpSpec unpermute = make_elementwise("moe.unpermute", (sent + local) * h * ab + sent * 4, 2 * sent * h);
  unpermute.kernels = 2;
  ops.push_back(unpermute);
  shared_expert_ops(ops, m, p, tokens);
  // Without sequence parallelism the layer expects every token on every tp rank.
  if (p.tp > 1 && !p.sp)
    ops.push_back(make_comm("moe.tp_all_gather", Collective::all_gather, p.tp_group, tokens * h * ab, "tp"));
}

}  // namespace llmcalc
