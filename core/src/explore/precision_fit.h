// A study row runs its scenario on systems other than the one it names; where
// a system lacks the scenario's math precision (fp8 on A100, bf16 on V100)
// the row runs the nearest one the system has, as the job would be run there.
#pragma once
#include <nlohmann/json.hpp>

#include "llmcalc/scenario.h"

namespace llmcalc {

// Rewrites `run`'s training.precision (or inference.compute_precision) to the
// nearest precision its system runs, and records {"scenario", "run"} under
// row["precision"] when it changed; leaves both alone when the system runs
// the scenario's own precision, none of the steps, or does not parse.
void fit_math_to_system(nlohmann::json& run, nlohmann::json& row, Mode mode);

}  // namespace llmcalc
