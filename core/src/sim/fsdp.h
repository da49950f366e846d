// Data-parallel communication on the critical path: the gradient reduction
// and parameter gather of Megatron's DDP / distributed optimizer, and the
// per-unit gathers and reduce-scatters of ZeRO-3 / FSDP, with the compute
// slowdown that overlapping them costs.
#pragma once
#include "training.h"

namespace llmcalc {

// Time of one unit of `compute` seconds (at full speed) while a collective
// of `comm` seconds runs beside it. The collective's kernels hold a share
// `sm_share` of the SMs, so the compute under it runs at (1 - sm_share) of
// its speed; the unit ends when both are done.
double overlapped_unit(double compute, double comm, double sm_share);

// What one micro-batch on the slowest stage costs, per transformer layer.
struct DpCompute {
  double fwd = 0;        // forward compute of one layer
  double bwd = 0;        // backward (+ recompute) compute of one layer
  double edge_bwd = 0;   // LM head / embedding backward (runs before the layers' backward)
  double fwd_total = 0;  // F: forward of the whole stage
  double last_bwd = 0;   // backward of the whole stage (hides the DDP reduction)
  double layers = 1, microbatches = 1;
};

// Exposed data-parallel time of one iteration, overlap slowdown included:
// the weight gather before (beside) the first forward and the gradient
// reduction after (beside) the last backward. ZeRO-3's waits, and ZeRO-2's
// reductions under gradient accumulation, come inside every micro-batch:
// `per_microbatch` is set and `inside` is their part of the total (summed
// over the micro-batches).
struct DpExposure {
  double gather = 0, reduce = 0;
  bool per_microbatch = false;
  double inside = 0;
  double total() const { return gather + reduce; }
};
DpExposure exposed_dp_time(const Scenario& s, const DpParts& d, const DpCompute& c);

}  // namespace llmcalc
