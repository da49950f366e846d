#include "cost.h"

#include <algorithm>

namespace llmcalc {

Op cost_op(const System& sys, const OpSpec& s, const std::string& phase, double count) {
  Op op;
  op.name = s.name;
  op.phase = phase;
  op.kind = s.kind;
  op.count = count * s.layer_share;
  op.comm_axis = s.comm_axis;
  op.kernels = std::max(1.0, s.kernels);
  const Device& d = sys.device;
  switch (s.kind) {
    case OpKind::gemm:
      op.cost = gemm_cost(d, s.gemm);
      // A GEMM issued as one library call per group member (Transformer
      // Engine's GroupedLinear: one cuBLAS GEMM per expert) pays each launch.
      op.cost.time_s += std::max(0.0, s.kernels - 1) * d.efficiency.launch_overhead_s;
      break;
    case OpKind::attention:
      op.cost = fused_attention_cost(d, s.flops, s.bytes, s.math, s.backward, s.kv_per_row, s.head_dim, s.kernel, s.convert_elems);
      break;
    case OpKind::elementwise:
      op.cost = elementwise_cost(d, s.bytes, s.flops, Precision::bf16, s.stream);
      // An op that stands for several small kernels pays each launch.
      op.cost.time_s += std::max(0.0, s.kernels - 1) * d.efficiency.launch_overhead_s;
      break;
    case OpKind::comm:
      op.cost.bytes.assign(d.memory.size(), 0.0);
      // An all-to-all without routing (route_copies 0) is the plain one.
      op.cost.time_s = s.coll == Collective::all_to_all
                           ? routed_all_to_all_time(sys, s.group, s.bytes,
                                                    {s.route_copies, s.route_experts, s.route_groups, s.route_top_groups})
                           : collective_time(sys, s.coll, s.group, s.bytes);
      op.cost.bound = kBoundNetwork;
      break;
  }
  return op;
}

}  // namespace llmcalc
