// Disaggregated serving (Zhong et al. 2024, DistServe): prefill on instances
// of its own, whose KV caches travel to the decode instance.
#pragma once
#include "result.h"

namespace llmcalc {

// A prefill instance of a disaggregated deployment: prefill_tp GPUs
// (tensor parallel only) prefilling prefill_batch prompts, holding their
// K/V until it is sent.
Scenario prefill_instance(const Scenario& s);

// Completes r (its decode costed on s, its prefill on `instance`) with the
// prefill pool: the transfer, the time to first token, the request rate and
// the prefill instances that keep the decode instance fed.
void add_prefill_pool(const Scenario& s, const Scenario& instance, double prefill_time, double tpot_cycle,
                      InferenceResult& r);

}  // namespace llmcalc
