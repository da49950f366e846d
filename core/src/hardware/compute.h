// Time of one operation on one device: a hierarchical roofline in the manner
// of DeepFlow / Kundu et al. 2024 (arXiv 2407.14645, §III-B): the op is bound
// by compute or by the traffic at one level of the memory hierarchy.
#pragma once
#include <memory>
#include <vector>

#include "llmcalc/scenario.h"

namespace llmcalc {

// Bound codes: >= 0 is the index of a memory level in Device::memory.
constexpr int kBoundCompute = -1;
constexpr int kBoundNetwork = -2;
constexpr int kBoundLatency = -3;
constexpr int kBoundHost = -4;  // the host CPUs and their memory (optimizer offload)

struct OpCost {
  double flops = 0;
  std::vector<double> bytes;  // per memory level, aligned with Device::memory
  double time_s = 0;
  int bound = kBoundCompute;
};

// C[m x n] = A[m x k] * B[k x n], `batch` independent instances.
struct GemmShape {
  double m = 1, n = 1, k = 1, batch = 1;
  double a_bytes = 2, b_bytes = 2, c_bytes = 2;  // per element
  Precision math = Precision::bf16;
  // Weight-only quantisation: vector ops to dequantise each weight element,
  // paid once per row of output tiles (0 when weights are in the math format).
  double dequant_ops = 0;
  // Fraction of the device's streaming bandwidth the kernel reaches from
  // device memory (dequantising weight-only kernels stream below a plain GEMV).
  double dram_eff = 1;
  // Fraction of the device's matmul rate the kernel's MMA instructions reach
  // (Ampere-generation mma.sync kernels on Hopper: efficiency.legacy_mma).
  double mma_eff = 1;
  // Fixed time beyond the launch (a dequantising kernel's setup:
  // efficiency.weight_only_setup_s).
  double setup_s = 0;
};

OpCost gemm_cost(const Device& d, const GemmShape& g);

// GEMM costs on one device, remembered for a scope: the parallelism search
// prices the same shapes under many plans (each recompute policy and expert
// split of a tensor-parallel degree and micro-batch). While a GemmMemoScope
// is alive, gemm_cost() on its device answers a shape it has priced from the
// memo, the same cost it would compute again. One thread, one scope at a time.
class GemmMemo {
 public:
  GemmMemo();
  ~GemmMemo();
  GemmMemo(const GemmMemo&) = delete;
  GemmMemo& operator=(const GemmMemo&) = delete;
  size_t size() const;  // shapes priced
  struct Table;
  std::unique_ptr<Table> table;
};
class GemmMemoScope {
 public:
  GemmMemoScope(GemmMemo& memo, const Device& d);
  ~GemmMemoScope();
  GemmMemoScope(const GemmMemoScope&) = delete;
  GemmMemoScope& operator=(const GemmMemoScope&) = delete;

 private:
  GemmMemo* outer_memo_;
  const Device* outer_device_;
};

// A fused attention kernel (FlashAttention): `flops` of math at the 16-bit
// peak times the device's attention efficiency; `dram_bytes` of compulsory
// traffic; `kv_per_row` keys attended per query row on average (s/2 causal).
// `head_dim` and `kernel` pick the efficiency: the kernel generation's
// (device efficiency.attention_kernels; best = efficiency.attention), quoted
// at head dim 128 and rescaled for the softmax exponentials at other widths.
// The format fused attention computes in for `math`: 16-bit, or the math's
// own where it is narrower (fp8) or fp32 / tf32; 16-bit where the device has
// not that format.
Precision attention_precision(const Device& d, Precision math);
// `convert_elems`: cached K/V elements converted to the math format, at the
// device's special-function rate (workload.cpp attention_ops).
OpCost fused_attention_cost(const Device& d, double flops, double dram_bytes, Precision math, bool backward,
                            double kv_per_row, double head_dim = 128, AttentionKernel kernel = AttentionKernel::best,
                            double convert_elems = 0);
// Efficiency of a fused attention kernel at head dim `head_dim`, given `eff128` at 128.
double attention_head_dim_efficiency(const Device& d, double eff128, Precision p, bool backward, double head_dim);

// Element-wise / reduction kernel: bytes read + written stream through L2
// and device memory, at the rate of its kind; `flops` run on the vector units.
OpCost elementwise_cost(const Device& d, double bytes, double flops, Precision p, StreamKind kind = StreamKind::copy);

// Pick the binding term among compute and the memory levels; adds launch overhead.
// `dram_eff` scales the device-memory bandwidth (weight-only GEMMs).
void finish_cost(const Device& d, OpCost& c, double compute_time, double dram_eff = 1.0);

}  // namespace llmcalc
