// What-if evaluations beside a single result (evaluate only: not in search,
// sweeps or studies, which evaluate many plans): the step under each
// attention kernel generation, and the headline times with one part of the
// system twice as fast.
#pragma once
#include <nlohmann/json.hpp>

#include "evaluate.h"

namespace llmcalc {

// training.attention_kernel_sensitivity, or null (docs/scenario.md).
nlohmann::json attention_kernel_sensitivity(const Scenario& s, const Result& r);

// training.fusion_sensitivity: the iteration time and memory per GPU with
// fused and with eager element-wise kernels, or null when they differ by
// less than 2% (a LayerNorm and GELU model changes only its loss).
nlohmann::json fusion_sensitivity(const Scenario& s, const Result& r);

// The result's `what_if`: for each part of the system the job uses (compute
// peaks, device-memory bandwidth, each network tier it spans, the host's
// launch time in training), the headline times with that part twice as fast
// and the speed-up that buys.
nlohmann::json doubled_parts(const Scenario& s, const Result& r);

}  // namespace llmcalc
