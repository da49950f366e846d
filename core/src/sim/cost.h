// An operation priced on a system: the roofline of compute.h for kernels,
// the collective model of network.h for communication.
#pragma once
#include <string>

#include "workload.h"

namespace llmcalc {

struct Op {
  std::string name;
  std::string phase;  // "fwd", "bwd", "recompute", "optimizer", "prefill", "decode"
  OpKind kind = OpKind::elementwise;
  double count = 1;   // occurrences per iteration (training) or per request (inference)
  double kernels = 1; // kernel launches per occurrence (the host issues each one)
  OpCost cost;        // per occurrence
  std::string comm_axis;
};

// Cost of one op on the device / network of `sys`.
Op cost_op(const System& sys, const OpSpec& s, const std::string& phase, double count);

}  // namespace llmcalc
