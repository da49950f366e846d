#pragma once
#include "result.h"

namespace llmcalc {
TrainingResult evaluate_training(const Scenario& s);
}
