// Interruptions of a long training run: how much of the wall-clock time
// trains once checkpoints, lost work and restarts are counted (goodput).
#pragma once
#include "llmcalc/scenario.h"

namespace llmcalc {

struct ReliabilityResult {
  double mtbf_s = 0;                    // mean time between interruptions of the whole job
  double checkpoint_bytes_per_gpu = 0;  // each GPU's share of the weights and optimizer states
  double checkpoint_s = 0;              // the pause of one checkpoint
  double checkpoint_interval_s = 0;     // training time between checkpoints (given, or the best)
  double restart_s = 0;
  double goodput = 1;                   // training time / wall-clock time
  double time_to_train_s = 0;           // with interruptions; 0 without a token budget or progress
  double interruptions = 0;             // expected over that time
};

// The scenario's GPUs, what trains and its reliability section set the
// figures; `time_to_train_s` (0: no token budget) the run.
ReliabilityResult training_reliability(const Scenario& s, double time_to_train_s);

}  // namespace llmcalc
