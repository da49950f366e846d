// evaluate(): the whole model for one resolved scenario.
#pragma once
#include "result.h"

namespace llmcalc {
Result evaluate(const Scenario& s);
}  // namespace llmcalc
