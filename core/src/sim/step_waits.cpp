#include "step_waits.h"

#include <algorithm>

#include "offload.h"

namespace llmcalc {

// The step ends when both the GPU and the host are done, so the host's wait
// is what its chain takes beyond the GPU's.
// - The GPU's chain holds its own waits: ZeRO-3 gathers and activation copies
//   inside every micro-batch (the host keeps launching meanwhile, so these
//   hide behind a slow host), Megatron's weight gather before the first
//   forward and gradient reduction after the last backward.
// - The host's chain: every micro-batch's launches, then what the last
//   backward leaves: it lasts max(GPU, host) and the reduction hides behind
//   that, the tail of the reduction after it.
// Both chains grow with the GPU's times, so a faster GPU never lengthens the
// step; adding the host's excess to the GPU's waits would count twice the
// time in which the GPU waits on both.
StepWaits step_waits(const Scenario& s, const DpParts& d, const DpCompute& c, const MicrobatchWork& w) {
  StepWaits r;
  const double mb = c.microbatches;
  const DpExposure dp = exposed_dp_time(s, d, c);
  r.dp_comm = dp.total();
  r.offload = activation_offload_time(s, c.fwd, c.bwd, mb);
  // (ZeRO-3's waits and ZeRO-2's reductions are inside every micro-batch,
  // and so in its slot.)
  const double waits_mb = (r.offload + dp.inside) / mb;
  const double gpu_chain = mb * w.gpu + r.offload + dp.total();
  const double host_mb = w.host_fwd + w.host_bwd;
  double host_chain = mb * host_mb;
  if (!dp.per_microbatch) {
    // A last backward the host paces hides more of the reduction.
    double reduce = dp.reduce;
    if (w.host_bwd > c.last_bwd) {
      DpCompute paced = c;
      paced.last_bwd = w.host_bwd;
      reduce = exposed_dp_time(s, d, paced).reduce;
    }
    host_chain += reduce + std::max(0.0, c.last_bwd - w.host_bwd);
  }
  r.host = std::max(0.0, host_chain - gpu_chain);
  r.per_mb = std::max(host_mb, w.gpu + waits_mb);
  r.waits_per_mb = waits_mb;
  return r;
}

}  // namespace llmcalc
