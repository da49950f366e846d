#pragma once
#include "result.h"

namespace llmcalc {
InferenceResult evaluate_inference(const Scenario& s);
// The replicas and GPUs that serve inference.target_requests_per_s at r's rates.
ServingCapacity serving_capacity(const Scenario& s, const InferenceResult& r);
}
