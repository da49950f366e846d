#include "fsdp.h"

#include <algorithm>

#include "compute.h"
#include "model_math.h"
#include "network.h"

namespace llmcalc {

double overlapped_unit(double compute, double comm, double sm_share) {
  const double rest = 1 - std::clamp(sm_share, 0.0, 0.9);
  if (comm * rest >= compute) return comm;  // all the compute fits under the collective
  // The collective slows the compute while it runs: comm x share of work is lost.
  return std::max(comm, compute + comm * (1 - rest));
}

namespace {

// ZeRO-3 / FSDP, one micro-batch (Rajbhandari et al. 2020, ZeRO §5.3;
// Zhao et al. 2023, PyTorch FSDP §3.3-3.4). Units are transformer layers
// plus the root (embedding, final norm, LM head), gathered first and
// reduce-scattered last. Forward: unit i+1's all-gather is prefetched while
// unit i computes, so only the first gathers are exposed and each overlap is
// bounded by one unit's compute. Backward: unit i-1's gather and unit i+1's
// reduce-scatter run beside unit i's backward; the last reduce-scatters
// (the first layer's and the root's) have nothing left to hide behind.
double zero3_microbatch(const DpParts& d, const DpCompute& c, double share) {
  const double L = std::max(1.0, c.layers);
  const double fwd = d.root_gather + d.unit_gather +
                     (L - 1) * (overlapped_unit(c.fwd, d.unit_gather, share) - c.fwd);
  const double first_bwd = overlapped_unit(c.edge_bwd, d.unit_gather, share) - c.edge_bwd;
  const double bwd = first_bwd + (L - 1) * (overlapped_unit(c.bwd, d.unit_gather + d.unit_reduce, share) - c.bwd) +
                     d.unit_reduce + d.root_reduce;
  return fwd + bwd;
}

}  // namespace

double exposed_dp_time(const Scenario& s, const DpParts& d, const DpCompute& c) {
  const Parallelism& par = s.par;
  const bool overlap = s.train.overlap.dp;
  const double share = s.system.device.efficiency.comm_sm_share;
  if (par.zero >= 3 && d.unit_gather + d.root_gather > 0) {
    const double serial = 2 * (d.root_gather + c.layers * d.unit_gather) + d.root_reduce + c.layers * d.unit_reduce;
    return c.microbatches * (overlap ? zero3_microbatch(d, c, share) : serial);
  }
  if (!overlap) return d.reduce + d.gather;
  // Megatron DDP / distributed optimizer: the reduction hides behind the
  // last micro-batch's backward and the gather behind the next forward,
  // except the last bucket; the compute under them slows down.
  const double reduce = overlapped_unit(c.last_bwd, std::max(0.0, d.reduce - d.bucket_reduce), share) - c.last_bwd;
  const double gather = overlapped_unit(c.fwd_total, std::max(0.0, d.gather - d.bucket_gather), share) - c.fwd_total;
  return d.bucket_reduce + reduce + d.bucket_gather + gather;
}

namespace {

// The weights travel as the 16-bit copy (fp32 when training in fp32) unless
// the scenario names the gather precision.
double gather_bytes_of(const Scenario& s) {
  const bool fp32 = s.train.precision == Precision::fp32 || s.train.precision == Precision::tf32;
  return s.par.gather_bytes > 0 ? s.par.gather_bytes : (fp32 ? 4.0 : 2.0);
}

// ZeRO-3 / FSDP wraps each transformer layer as one unit; the rest of the
// stage's parameters (embedding, final norm, LM head) form the root unit.
// A unit's expert weights travel over the expert-dp group, the rest over dp x cp.
void fsdp_units(const Scenario& s, const Groups& g, double params, double expert, double gather_bytes, DpParts& d) {
  const Model& m = s.model;
  const double layers = stage_layout(m, s.par).max_layers;
  const ParamCount pc = count_params(m);
  const double per_layer = std::min(params / layers, pc.layers / m.layers / s.par.tp);
  const double root = std::max(0.0, params - layers * per_layer);
  const double expert_layer = std::min(per_layer, expert / layers);
  const double dense_layer = per_layer - expert_layer;
  const double rb = s.par.reduce_bytes;
  auto coll = [&](Collective c, const Group& grp, double bytes) {
    return grp.size > 1 && bytes > 0 ? collective_time(s.system, c, grp, bytes) : 0.0;
  };
  d.unit_gather = coll(Collective::all_gather, g.dp_cp, dense_layer * gather_bytes) +
                  coll(Collective::all_gather, g.edp, expert_layer * gather_bytes);
  d.unit_reduce = coll(Collective::reduce_scatter, g.dp_cp, dense_layer * rb) +
                  coll(Collective::reduce_scatter, g.edp, expert_layer * rb);
  d.root_gather = coll(Collective::all_gather, g.dp_cp, root * gather_bytes);
  d.root_reduce = coll(Collective::reduce_scatter, g.dp_cp, root * rb);
}

// Gradient reduction and (ZeRO >= 1) weight gather of `params` weights
// replicated over `grp`, added to d. Megatron keeps expert gradients in their
// own buffers and reduces them over the expert-data-parallel group
// (Megatron-Core DistributedDataParallel: expert_data_parallel_group).
void add_replica_collectives(const Scenario& s, const Group& grp, double params, DpParts& d) {
  const Parallelism& par = s.par;
  if (grp.size <= 1 || params <= 0) return;
  // Megatron DDP buckets of max(40M, 1M x dp) parameters; gradients in
  // parallelism.reduce_precision (fp32 by default).
  const double bucket = std::min(params, std::max(4e7, 1e6 * static_cast<double>(grp.size)));
  const Collective rc = par.zero >= 1 ? Collective::reduce_scatter : Collective::all_reduce;
  d.reduce += collective_time(s.system, rc, grp, params * par.reduce_bytes);
  d.bucket_reduce = std::max(d.bucket_reduce, collective_time(s.system, rc, grp, bucket * par.reduce_bytes));
  if (par.zero >= 1) {  // the distributed optimizer gathers the weights back
    const double gb = gather_bytes_of(s);
    d.gather += collective_time(s.system, Collective::all_gather, grp, params * gb);
    d.bucket_gather = std::max(d.bucket_gather, collective_time(s.system, Collective::all_gather, grp, bucket * gb));
  }
}

}  // namespace

DpParts dp_parts(const Scenario& s, double params, double expert_params) {
  const Parallelism& par = s.par;
  const Groups g = make_groups(par);
  const double expert = std::clamp(expert_params, 0.0, params);
  DpParts d;
  add_replica_collectives(s, g.dp_cp, params - expert, d);
  add_replica_collectives(s, g.edp, expert, d);
  if (par.zero >= 3) fsdp_units(s, g, params, expert, gather_bytes_of(s), d);
  // Optimizer step of Megatron's mixed-precision optimizer, bytes per
  // parameter: unscale + inf check of the fp32 grads (4), grad norm (4),
  // Adam reads master, m, v, grad and writes master, m, v (28), copy to the
  // 16-bit weights (6), zero the grad buffer (4) = 46; SGD with momentum 38.
  const double local = par.zero >= 1 ? (params - expert) / static_cast<double>(g.dp_cp.size) +
                                           expert / static_cast<double>(g.edp.size)
                                     : params;
  const double bytes = local * (s.train.optimizer == Optimizer::adam ? 46 : 38);
  d.optimizer = elementwise_cost(s.system.device, bytes, local * 12, Precision::fp32);
  return d;
}

}  // namespace llmcalc
