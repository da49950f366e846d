// Kernel-level validation: single GEMM, attention and element-wise kernels
// timed on a real device (tests/validation/device/), against the op costs of
// compute.h on that device's preset.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "llmcalc/validate.h"

namespace llmcalc {

// A case with "system" (a preset id) and "kernels" (see tests/validation/device/README.md).
std::vector<ValidationRow> validate_kernel_case(const nlohmann::json& c, const std::string& origin);

}  // namespace llmcalc
