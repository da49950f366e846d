// Pipeline schedules: the time a stage idles in one iteration.
#pragma once
#include "llmcalc/scenario.h"

namespace llmcalc {

// Idle time of the slowest stage over one iteration of `microbatches`
// micro-batches. per_mb: one
// micro-batch's forward and backward there (its exposed communication
// included); fwd: the forward part of it; wgrad: the weight-gradient GEMMs
// inside the backward (each as the time the slot saves without it).
double pipeline_bubble(const Parallelism& par, double microbatches, double per_mb, double fwd, double wgrad);

// Time of one point-to-point hop between stages (0 without pipeline parallelism).
double pipeline_hop_time(const Scenario& s);

}  // namespace llmcalc
