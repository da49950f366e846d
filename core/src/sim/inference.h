#pragma once
#include "result.h"

namespace llmcalc {
InferenceResult evaluate_inference(const Scenario& s);
}
