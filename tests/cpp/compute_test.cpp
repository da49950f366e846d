// Per-op roofline (Williams et al. 2009; hierarchical as in Kundu et al. 2024,
// arXiv 2407.14645 §III-B): an op takes at least its FLOPs over the peak and
// its bytes at each memory level over that level's bandwidth, and is bound by
// the largest of these terms.
#include <gtest/gtest.h>

#include <cmath>

#include "compute.h"
#include "parse.h"

namespace llmcalc {
namespace {

Device h100() { return parse_system(std::string("dgx-h100"), "system").device; }
constexpr int bf16 = static_cast<int>(Precision::bf16);

int level(const Device& d, const std::string& name) {
  for (size_t i = 0; i < d.memory.size(); ++i)
    if (d.memory[i].name == name) return static_cast<int>(i);
  return -100;
}

TEST(Compute, LargeSquareGemmIsComputeBound) {
  const Device d = h100();
  const double n = 8192;
  const OpCost c = gemm_cost(d, {n, n, n, 1, 2, 2, 2, Precision::bf16});
  const double flops = 2 * n * n * n;  // one multiply-add per (i, j, k)
  const double peak = d.matmul_flops[bf16], eff = d.efficiency.matmul[bf16];
  EXPECT_DOUBLE_EQ(c.flops, flops);
  EXPECT_EQ(c.bound, kBoundCompute);
  EXPECT_GE(c.time_s, flops / peak);
  EXPECT_LE(c.time_s, 1.5 * flops / (peak * eff));
}

TEST(Compute, GemvIsBoundByDeviceMemory) {
  const Device d = h100();
  const double k = 8192, n = 8192;
  const OpCost c = gemm_cost(d, {1, n, k, 1, 2, 2, 2, Precision::bf16});
  EXPECT_EQ(c.bound, level(d, "hbm"));
  // Compulsory traffic: the k x n weight matrix, the input row and the output row.
  const double bytes = 2 * (k * n + k + n);
  const double expected = bytes / (d.dram().bandwidth_Bps * d.efficiency.memory);
  EXPECT_NEAR(c.time_s / expected, 1.0, 0.2);
  EXPECT_GE(c.bytes.back(), bytes * 0.999);
}

// A matrix-engine device with a few large units (TPU v6e: 2 MXUs) reuses a
// GEMM's operands only across one wave of tiles unless the compiler blocks
// the product in its on-chip scratchpad (XLA in VMEM): then a training-size
// GEMM is compute-bound, as on a GPU, and reads each operand a few times.
TEST(Compute, ScratchpadBlockingKeepsFewUnitDevicesComputeBound) {
  const Device tpu = parse_system(std::string("tpu-v6e"), "system").device;
  ASSERT_GT(tpu.scratchpad_bytes, 0);
  Device no_pad = tpu;
  no_pad.scratchpad_bytes = 0;
  const GemmShape g{8192, 7168, 8192, 1, 2, 2, 2, Precision::bf16};  // Llama 70B tp 8 up-projection
  const OpCost blocked = gemm_cost(tpu, g), wave = gemm_cost(no_pad, g);
  EXPECT_EQ(blocked.bound, kBoundCompute);
  EXPECT_EQ(wave.bound, level(tpu, "hbm"));
  EXPECT_LT(blocked.time_s, 0.7 * wave.time_s);
  const double compulsory = 2 * (g.m * g.k + g.k * g.n + g.m * g.n);
  EXPECT_GE(blocked.bytes.back(), compulsory * 0.999);
  EXPECT_LE(blocked.bytes.back(), 3 * compulsory);
  // A GPU's L2 is not a scratchpad (its kernels reuse operands across the
  // wave of tiles only): the GPU presets leave the field out.
  EXPECT_EQ(h100().scratchpad_bytes, 0.0);
  // The field is parsed in MiB and checked at its path.
  json s = json::parse(R"({"preset": "tpu-v6e", "device": {"scratchpad_MiB": -1}})");
  try {
    parse_system(s, "system");
    ADD_FAILURE() << "negative scratchpad accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.path, "system.device.scratchpad_MiB");
  }
}

// The Gaudi presets' GEMM ceilings are measured (MAMF, docs/sources.md
// [HF11.1]) and scaled to a sustained figure by the ratio measured on H200
// (0.912 in bf16, the presets' sources); with the MMEs as tile units and the
// SRAM as the scratchpad, a Llama-size GEMM runs near that ceiling,
// compute-bound, and never above the burst MAMF. (The MAMF shape of Gaudi 3
// itself, K = 768, comes out lower: the per-tile fixed cost in K was fitted
// on cuBLAS and is stated as an assumption in the preset.)
TEST(Compute, GaudiRunsLargeGemmsAtItsMeasuredCeiling) {
  for (const auto& [preset, mamf] : {std::pair<const char*, double>{"intel-gaudi3", 1243.0}, {"intel-gaudi2", 418.7}}) {
    const Device d = parse_system(std::string(preset), "system").device;
    const OpCost cost = gemm_cost(d, {8192, 8192, 8192, 1, 2, 2, 2, Precision::bf16});
    EXPECT_EQ(cost.bound, kBoundCompute) << preset;
    const double achieved = cost.flops / cost.time_s / 1e12, sustained = 0.912 * mamf;
    EXPECT_GT(achieved, 0.9 * sustained) << preset;
    EXPECT_LE(achieved, sustained * 1.001) << preset;
  }
}

// A device whose `slow` level has a tiny bandwidth: that level binds, and the
// time is its bytes over its bandwidth plus the launch overhead.
void expect_bound_by(const std::string& slow) {
  Device d = h100();
  d.memory[static_cast<size_t>(level(d, slow))].bandwidth_Bps = 1e9;
  const OpCost c = gemm_cost(d, {4096, 4096, 4096, 1, 2, 2, 2, Precision::bf16});
  const int idx = level(d, slow);
  ASSERT_EQ(c.bound, idx) << slow;
  const double t = c.bytes[static_cast<size_t>(idx)] / (1e9 * d.efficiency.memory) + d.efficiency.launch_overhead_s;
  EXPECT_NEAR(c.time_s, t, 1e-9 * t);
  // Every operand element passes through the level at least once.
  EXPECT_GE(c.bytes[static_cast<size_t>(idx)], 3 * 4096.0 * 4096 * 2);
}
TEST(Compute, SlowL2Binds) { expect_bound_by("l2"); }
TEST(Compute, SlowSharedMemoryBinds) { expect_bound_by("smem"); }

TEST(Compute, ElementwiseIsMemoryBound) {
  const Device d = h100();
  // A bf16 add of two 256 MiB tensors: 3 x 256 MiB moved, 128M FLOPs.
  const double elems = 128.0 * 1048576, bytes = 3 * 2 * elems;
  const OpCost c = elementwise_cost(d, bytes, elems, Precision::bf16);
  EXPECT_EQ(c.bound, level(d, "hbm"));
  const double t = bytes / (d.dram().bandwidth_Bps * d.efficiency.memory) + d.efficiency.launch_overhead_s;
  EXPECT_NEAR(c.time_s, t, 1e-9 * t);
}

TEST(Compute, NormsAndActivationsStreamBelowTheCopyRate) {
  // Timed on an H200 (tests/validation/device): PyTorch's layer_norm and
  // rms_norm reach 0.55-0.79 of a copy's device-memory rate, gelu 0.83-0.88.
  const Device d = parse_system(std::string("dgx-h200"), "system").device;
  EXPECT_DOUBLE_EQ(d.efficiency.norm_stream, 0.63);
  EXPECT_DOUBLE_EQ(d.efficiency.activation_stream, 0.85);
  const double bytes = 8192.0 * 14336 * 2 * 2;  // read and write a bf16 [8192 x 14336]
  const double hbm = bytes / (d.dram().bandwidth_Bps * d.efficiency.memory), launch = d.efficiency.launch_overhead_s;
  const OpCost copy = elementwise_cost(d, bytes, 0, Precision::bf16);
  const OpCost norm = elementwise_cost(d, bytes, 0, Precision::bf16, StreamKind::norm);
  const OpCost act = elementwise_cost(d, bytes, 0, Precision::bf16, StreamKind::activation);
  EXPECT_NEAR(copy.time_s, hbm + launch, 1e-12);
  EXPECT_NEAR(norm.time_s, hbm / 0.63 + launch, 1e-12);
  EXPECT_NEAR(act.time_s, hbm / 0.85 + launch, 1e-12);
  EXPECT_EQ(norm.bound, level(d, "hbm"));
  EXPECT_DOUBLE_EQ(norm.bytes[level(d, "hbm")], bytes);  // the same bytes, at a lower rate
  // A TPU preset leaves them at the copy rate (XLA fuses them into neighbours).
  const Device tpu = parse_system(std::string("tpu-v5p"), "system").device;
  EXPECT_DOUBLE_EQ(tpu.efficiency.norm_stream, 1.0);
}

// Near the ridge the math and the DRAM stream overlap only in part: the time
// is the p-norm of the two (p = efficiency.gemm_ridge_exponent, 3 on the
// presets, fitted on H100 kernels); p = 0 is the roofline's max. At the ridge
// itself the p-norm is 2^(1/3) = 1.26x the max; far from it, the max.
TEST(Compute, GemmsNearTheRidgeOverlapMathAndStreamInPart) {
  Device roofline = h100();
  roofline.efficiency.gemm_ridge_exponent = 0;
  const Device blended = h100();
  ASSERT_DOUBLE_EQ(blended.efficiency.gemm_ridge_exponent, 3);
  const double launch = blended.efficiency.launch_overhead_s;
  double worst = 1, previous = 0;
  for (double m = 16; m <= 16384; m *= 2) {
    const GemmShape g{m, 8192, 8192, 1, 2, 2, 2, Precision::bf16};
    const double with = gemm_cost(blended, g).time_s - launch, without = gemm_cost(roofline, g).time_s - launch;
    EXPECT_GE(with, without * (1 - 1e-12)) << m;
    EXPECT_LE(with, std::cbrt(2.0) * without * (1 + 1e-12)) << m;
    EXPECT_GE(with, previous) << m;  // more rows never take less time
    previous = with;
    worst = std::max(worst, with / without);
  }
  EXPECT_GT(worst, 1.15);  // some M sits near the ridge
  // Far from it on both sides the blend vanishes: a GEMV, and a large GEMM.
  const GemmShape gemv{1, 8192, 8192, 1, 2, 2, 2, Precision::bf16}, big{16384, 8192, 8192, 1, 2, 2, 2, Precision::bf16};
  EXPECT_NEAR(gemm_cost(blended, gemv).time_s / gemm_cost(roofline, gemv).time_s, 1, 0.02);
  EXPECT_NEAR(gemm_cost(blended, big).time_s / gemm_cost(roofline, big).time_s, 1, 0.02);
}

TEST(Compute, TinyOpIsLatencyBound) {
  const Device d = h100();
  const OpCost c = elementwise_cost(d, 64, 16, Precision::bf16);
  EXPECT_EQ(c.bound, kBoundLatency);
  EXPECT_GE(c.time_s, d.efficiency.launch_overhead_s);
}

TEST(Compute, MoreHbmBandwidthIsNeverSlower) {
  const Device slow = h100();
  Device fast = slow;
  fast.memory.back().bandwidth_Bps *= 2;
  const double shapes[][4] = {{1, 8192, 8192, 1}, {8192, 8192, 8192, 1}, {16, 4096, 14336, 1}, {2048, 128, 2048, 64},
                              {1, 128, 4096, 32}, {4096, 51200, 12288, 1}, {128, 128, 128, 8}, {3, 5, 7, 1}};
  for (const auto& s : shapes)
    for (Precision p : {Precision::bf16, Precision::fp8}) {
      const GemmShape g{s[0], s[1], s[2], s[3], 2, 2, 2, p};
      const OpCost a = gemm_cost(slow, g), b = gemm_cost(fast, g);
      EXPECT_LE(b.time_s, a.time_s) << s[0] << "x" << s[1] << "x" << s[2] << " batch " << s[3];
      // And no op beats its FLOPs at the datasheet peak.
      EXPECT_GE(a.time_s, a.flops / slow.matmul_flops[static_cast<int>(p)]);
    }
  for (double bytes : {1e3, 1e6, 1e9})
    EXPECT_LE(elementwise_cost(fast, bytes, bytes, Precision::bf16).time_s,
              elementwise_cost(slow, bytes, bytes, Precision::bf16).time_s);
  for (double flops : {1e6, 1e12})
    for (bool bwd : {false, true})
      EXPECT_LE(fused_attention_cost(fast, flops, flops / 64, Precision::bf16, bwd, 2048).time_s,
                fused_attention_cost(slow, flops, flops / 64, Precision::bf16, bwd, 2048).time_s);
}

}  // namespace
}  // namespace llmcalc

namespace llmcalc {
namespace {

// Fused attention: short key ranges pay the per-tile overhead (kv / (kv + half)),
// long ones approach the device's long-sequence efficiency, never above it.
TEST(Compute, AttentionEfficiencyGrowsWithKeysPerRow) {
  Device d;
  d.matmul_flops[static_cast<int>(Precision::bf16)] = 1e15;
  d.memory = {{"hbm", 80e9, 3e12}};
  d.efficiency.launch_overhead_s = 0;
  const double flops = 1e13;  // compute-bound: 1e13 FLOP over 1e9 bytes
  for (bool bwd : {false, true}) {
    const double eff = bwd ? d.efficiency.attention_bwd : d.efficiency.attention_fwd;
    const double half = bwd ? d.efficiency.attention_bwd_half_kv : d.efficiency.attention_fwd_half_kv;
    double last = 1e30;
    for (double kv : {64.0, 512.0, 4096.0, 65536.0}) {
      const double t = fused_attention_cost(d, flops, 1e9, Precision::bf16, bwd, kv).time_s;
      EXPECT_LT(t, last);
      EXPECT_NEAR(t, flops / (1e15 * eff * kv / (kv + half)), 1e-12);
      last = t;
    }
    EXPECT_GT(last, flops / (1e15 * eff));
  }
}

TEST(Compute, QuantisedGemvIsStillMemoryBound) {
  // BUG: an int4-weight GEMV (m=1; 2 FLOPs per 0.5-byte weight = 4 FLOP/B,
  // against an A100 ridge of 312e12 x 0.82 / (2039e9 x 0.83) ~ 150 FLOP/B) is
  // reported compute-bound: evaluate_tile() pads M=1 to the smallest 32-row
  // tile (quant_eff = 1/32) and adds tile_overhead_s per wave, so the
  // "compute" time of Llama-2-7B's decode GEMVs exceeds their weight traffic.
  const Device d = parse_system(std::string("dgx-a100-80gb"), "system").device;
  for (const auto& [n, k] : {std::pair{12288.0, 4096.0}, {22016.0, 4096.0}, {4096.0, 11008.0}}) {
    const OpCost c = gemm_cost(d, {1, n, k, 1, 2, 0.5, 2, Precision::bf16});
    EXPECT_EQ(c.bound, level(d, "hbm")) << n << "x" << k;
  }
}

// Fused attention at head dim d: 4d (forward) or 10d (backward) matmul
// FLOPs per score plus one exponential on the special-function units
// (FlashAttention-3, Shah et al. 2024 §3). The published efficiencies are at
// d = 128; narrower heads lose efficiency, wider ones gain, and without an
// SFU rate the law is off.
TEST(Compute, AttentionHeadDimLaw) {
  Device d = h100();
  const double e = d.efficiency.attention_fwd;
  EXPECT_DOUBLE_EQ(attention_head_dim_efficiency(d, e, Precision::bf16, false, 128), e);
  const double e64 = attention_head_dim_efficiency(d, e, Precision::bf16, false, 64);
  const double e256 = attention_head_dim_efficiency(d, e, Precision::bf16, false, 256);
  EXPECT_LT(e64, 0.9 * e);
  EXPECT_GT(e256, e);
  // Closed form: time per score = (t128 - t_exp) d / 128 + t_exp.
  const double peak = d.matmul_flops[bf16], t128 = 512 / (peak * e), texp = 1 / d.sfu_ops;
  EXPECT_NEAR(e64, 256 / (peak * ((t128 - texp) / 2 + texp)), 1e-12);
  // Backward has 2.5x the matmul work per exponential: a smaller loss.
  const double b = d.efficiency.attention_bwd;
  EXPECT_GT(attention_head_dim_efficiency(d, b, Precision::bf16, true, 64) / b, e64 / e);
  d.sfu_ops = 0;
  EXPECT_DOUBLE_EQ(attention_head_dim_efficiency(d, e, Precision::bf16, false, 64), e);
}

// Kernel generations: FlashAttention-2 on an H100 reaches about 35% of the
// peak (FlashAttention-3 abstract) against FlashAttention-3's 65%.
TEST(Compute, AttentionKernelGenerations) {
  const Device d = h100();
  const double flops = 1e12, kv = 4096;
  const double best = fused_attention_cost(d, flops, 0, Precision::bf16, false, kv).time_s;
  const double fa2 = fused_attention_cost(d, flops, 0, Precision::bf16, false, kv, 128, AttentionKernel::fa2).time_s;
  const double fa1 = fused_attention_cost(d, flops, 0, Precision::bf16, false, kv, 128, AttentionKernel::fa1).time_s;
  EXPECT_NEAR(fa2 / best, 0.65 / 0.35, 0.01);
  EXPECT_NEAR(fa1 / fa2, 2.0, 0.01);
}

// FlashAttention's kernels are 16-bit (and fp8) only: an fp32 run's fused
// attention computes at the fp32 peak, a tf32 run's at the tf32 peak, and an
// fp16 run's at the 16-bit rate like bf16. Same FLOPs, efficiency and keys,
// so the times scale with the peaks.
TEST(Compute, FusedAttentionRunsAtTheRunsOwnFormatWhenWiderThan16Bit) {
  Device d = h100();
  d.efficiency.launch_overhead_s = 0;  // the launch does not scale with the peak
  const double flops = 1e12, kv = 4096;
  auto at = [&](Precision p) { return fused_attention_cost(d, flops, 0, p, false, kv).time_s; };
  const double peak16 = d.matmul_flops[bf16];
  for (Precision wide : {Precision::fp32, Precision::tf32}) {
    ASSERT_GT(d.matmul_flops[static_cast<int>(wide)], 0);
    EXPECT_NEAR(at(wide) / at(Precision::bf16), peak16 / d.matmul_flops[static_cast<int>(wide)], 1e-9);
  }
  EXPECT_DOUBLE_EQ(at(Precision::fp16), at(Precision::bf16));
}

// The search's memo of GEMM costs (GemmMemoScope) answers what gemm_cost()
// computes, shape for shape: every field of the shape is in its key, and a
// device other than the scope's is priced afresh, not from the memo.
TEST(Compute, GemmMemoAnswersWhatItWouldCompute) {
  const Device d = h100();
  Device faster = d;
  faster.matmul_flops[bf16] *= 2;
  std::vector<GemmShape> shapes;
  for (double m : {1.0, 300.0, 8192.0})
    for (double k : {128.0, 4096.0}) {
      GemmShape g{m, 4096, k, 1, 2, 2, 2, Precision::bf16};
      shapes.push_back(g);
      g.batch = 8;  // each field a shape differs in gives another cost
      shapes.push_back(g);
      g.math = Precision::fp8;
      g.a_bytes = g.b_bytes = 1;
      shapes.push_back(g);
      g.mma_eff = 0.6;
      shapes.push_back(g);
    }
  std::vector<double> plain, other;
  for (const GemmShape& g : shapes) plain.push_back(gemm_cost(d, g).time_s);
  for (const GemmShape& g : shapes) other.push_back(gemm_cost(faster, g).time_s);
  GemmMemo memo;
  {
    const GemmMemoScope scope(memo, d);
    for (int pass = 0; pass < 2; ++pass)  // the second pass is answered from the memo
      for (size_t i = 0; i < shapes.size(); ++i) {
        EXPECT_EQ(gemm_cost(d, shapes[i]).time_s, plain[i]) << i;
        EXPECT_EQ(gemm_cost(faster, shapes[i]).time_s, other[i]) << i;  // not the scope's device
      }
    EXPECT_EQ(memo.size(), shapes.size());
  }
  EXPECT_EQ(gemm_cost(d, shapes[0]).time_s, plain[0]);  // the scope has ended
}

}  // namespace
}  // namespace llmcalc
