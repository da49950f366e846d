// The mixture-of-experts block of a layer: router, token dispatch, grouped
// expert GEMMs and the load of the busiest expert-parallel rank.
#pragma once
#include <vector>

#include "workload.h"

namespace llmcalc {

// Who routes where: `tokens` routed together (one micro-batch over the
// etp x ep ranks that feed one set of experts), each to `top_k` of `experts`,
// held `ranks` ways (ep).
struct MoeRouting {
  double tokens = 0;
  int experts = 1, top_k = 1, ranks = 1;
  MoeBalance balance = MoeBalance::random;
  double capacity_factor = 0;  // 0: dropless
};

// Routed tokens on the busiest rank over the mean. Random top-k routing puts
// a hypergeometric count of each token's k choices on a rank's E/ranks
// experts; the rank total is near normal, and the expected maximum of `ranks`
// such totals is mean + z sigma with z from Blom's (1958) order-statistic
// approximation. A capacity factor caps it (tokens beyond are dropped,
// Fedus et al. 2021 §2.1); forced balance (Megatron-Core
// --moe-router-force-load-balancing) makes it 1.
double moe_load_factor(const MoeRouting& r);

// Inference: every tp rank routes its tokens to the experts it holds (all of
// them, tp-sliced, without expert parallelism; E/ep of them, etp-sliced, with
// it), or reads the experts a decode batch touches.
void moe_replicated_ops(std::vector<OpSpec>& ops, const Model& m, const LayerPass& p, double tokens);

// Training as Megatron-Core runs it (MoEAlltoAllTokenDispatcher): the router
// on this rank's sequence-parallel shard, permute, all-to-all over ep,
// all-gather over etp, sort by local expert, grouped GEMMs, and back.
void moe_dispatch_ops(std::vector<OpSpec>& ops, const Model& m, const LayerPass& p, double tokens);

}  // namespace llmcalc
