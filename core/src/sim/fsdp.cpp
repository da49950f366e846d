#include "fsdp.h"

#include <algorithm>

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
  if (par.zero >= 3 && 1LL * par.dp * par.cp > 1) {
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

}  // namespace llmcalc
