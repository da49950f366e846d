// What the GPU waits on besides its own work (data-parallel collectives,
// activation copies) and what it waits on the host for, over one iteration.
#pragma once
#include "fsdp.h"

namespace llmcalc {

// One micro-batch on the slowest stage: the GPU's work (compute and the
// exposed tp/cp/ep communication) and the host's time to launch the
// kernels of its forward and of its backward (recompute included).
struct MicrobatchWork {
  double gpu = 0, host_fwd = 0, host_bwd = 0;
};

struct StepWaits {
  double dp_comm = 0;  // exposed data-parallel collectives
  double offload = 0;  // exposed activation copies
  double host = 0;     // the GPU idle, waiting for the host's launches
  double per_mb = 0;   // one micro-batch's time, for the pipeline bubble
  double waits_per_mb = 0;  // of it, the GPU's waits (ZeRO-3 gathers, activation copies)
};

// `c` carries the GPU's times: c.fwd_total its first forward, c.last_bwd its
// last backward (with the tp communication).
StepWaits step_waits(const Scenario& s, const DpParts& d, const DpCompute& c, const MicrobatchWork& w);

}  // namespace llmcalc
