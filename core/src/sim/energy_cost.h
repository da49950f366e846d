// Cost, energy and emissions of a training run or a served model, from the
// modelled time (docs/sources.md [CE6], the formulas of the project's cost
// and energy data, after Epoch AI's training-cost model).
#pragma once
#include "llmcalc/scenario.h"

namespace llmcalc {

// Figures for one amount of work (an iteration, a million tokens, a run).
struct CostFigures {
  double gpu_hours = 0;
  double usd = 0;              // gpu_hours x the GPU-hour price (when given)
  double kwh = 0;              // at the wall: node power share x PUE
  double electricity_usd = 0;  // kwh x the electricity price
  double co2_kg = 0;
};

struct CostResult {
  bool priced = false;       // a GPU-hour price was given
  bool metered = false;      // the device has a TDP or node power, so energy is known
  double power_W_per_gpu = 0;  // average wall power per GPU
  CostFigures per_iteration, per_million_tokens, to_train;
  bool has_to_train = false;
  double joules_per_token = 0;  // serving: wall energy per output token
};

// Average wall power per GPU (W): power_fraction x node power per GPU x PUE
// ([CE6] formula 7); 0 when the device gives neither node power nor TDP.
double wall_power_per_gpu(const Scenario& s);

// Work of `gpus` GPUs for `seconds`.
CostFigures cost_of(const Scenario& s, double gpus, double seconds);

// Training: per iteration, per million tokens, and to train when tokens are given.
CostResult training_costs(const Scenario& s, double iteration_time_s);

// Serving one replica (tp x pp GPUs) at `output_tokens_per_s`: per million output tokens.
CostResult inference_costs(const Scenario& s, double output_tokens_per_s, double replica_gpus);

}  // namespace llmcalc
