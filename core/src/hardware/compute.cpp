#include "compute.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <unordered_map>

namespace llmcalc {

namespace {

// CUTLASS/cuBLAS-style thread-block tiles (M x N), largest first.
struct Tile {
  double m, n;
};
// M = 16 is the floor: the smallest tensor-core MMA is m16n8k16 (PTX ISA),
// which small-batch GEMMs (decode) pad to.
constexpr Tile kTiles[] = {{256, 128}, {128, 256}, {128, 128}, {128, 64}, {64, 128}, {64, 64},
                           {64, 32},   {32, 64},   {16, 256}, {16, 128}, {16, 64}};
// K slice staged per pipeline step and the number of stages in flight
// (CUTLASS multistage mainloops use 3-4 stages of 32-64 along K).
constexpr double kTileK = 64;
constexpr double kStages = 3;
// Fixed per-tile cost, in K-iterations' worth of work: pipeline fill plus the
// epilogue that writes the output tile. Small K GEMMs (attention's QK^T with
// K = head_dim) pay it visibly; large-K GEMMs hardly at all.
constexpr double kTileOverheadK = 128;
int level_index(const Device& d, const char* name) {
  for (size_t i = 0; i < d.memory.size(); ++i)
    if (d.memory[i].name == name) return static_cast<int>(i);
  return -1;
}

double ceil_div(double a, double b) { return std::ceil(a / b); }

// The model runs its 16-bit work (attention, the router, the output layer of
// fp8 training) in bf16; a device without bf16 (Volta) runs it in fp16, the
// same width, at the rate it has.
Precision runnable(const std::array<double, kPrecisionCount>& peaks, Precision p) {
  const bool no_bf16 = peaks[static_cast<int>(Precision::bf16)] <= 0 && peaks[static_cast<int>(Precision::fp16)] > 0;
  return p == Precision::bf16 && no_bf16 ? Precision::fp16 : p;
}

constexpr size_t kMaxLevels = 8;  // the parser allows at most 8 memory levels

struct TilingResult {
  double compute_time = 0;
  std::array<double, kMaxLevels> bytes{};
  double time = 0;
};

// DRAM traffic of one GEMM. The tiles running at once (one per SM) stream
// their A rows and B columns through the L2 in step along K, so each
// k-slice fetched from DRAM serves the whole wave: with the wave shaped as
// w_m x w_n tiles, A is read tiles_n / w_n times and B tiles_m / w_m times.
// The shape minimising the traffic is w_m = sqrt(B tiles_m S / (A tiles_n)).
// The L2 must hold the wave's in-flight k-slices; it always can on these
// devices (kStages x kTileK x (w_m tm + w_n tn) elements, a few MB at most).
double dram_traffic(const GemmShape& g, const Tile& t, double sms, double a, double b, double c) {
  const double tiles_m = ceil_div(g.m, t.m), tiles_n = ceil_div(g.n, t.n);
  const double ideal = std::sqrt(b * tiles_m * sms / std::max(1.0, a * tiles_n));
  double best = a * tiles_n + b + c;  // one row of tiles at a time
  for (double wm : {std::floor(ideal), std::ceil(ideal)}) {
    wm = std::max(1.0, std::min({wm, tiles_m, sms}));
    const double wn = std::max(1.0, std::min(tiles_n, std::floor(sms / wm)));
    best = std::min(best, a * ceil_div(tiles_n, wn) + b * ceil_div(tiles_m, wm) + c);
  }
  return best;
}

// Tiles whose operand k-slices one DRAM fetch serves. On a GPU, the wave
// (one tile per SM). A compiler that blocks the product in an on-chip
// scratchpad (XLA in TPU VMEM, the Gaudi graph compiler in its SRAM) keeps
// as many output tiles resident as the scratchpad holds, each with its fp32
// accumulator and staged operand slices, so operands are re-read far less.
double reuse_window(const Device& d, const GemmShape& g, const Tile& t) {
  const double sms = d.sm_count;
  if (d.scratchpad_bytes <= 0) return sms;
  const double per_tile = t.m * t.n * 4 + (t.m * g.a_bytes + t.n * g.b_bytes) * kTileK * kStages;
  return std::max(sms, std::floor(d.scratchpad_bytes / per_tile));
}

// Near the roofline's ridge a GEMM's math and its DRAM stream overlap only in
// part: the roofline's max ([Williams09]) is a bound that kernels reach only
// far from the ridge. The time is the p-norm of the on-chip time (math, L2,
// shared memory) and the DRAM time, p = efficiency.gemm_ridge_exponent (0:
// the max). p = 3 was fitted on cuBLAS, grouped and GEMV kernels timed on an
// H100 (tests/validation/device/README.md).
double ridge_time(const Device& d, double inner, double stream) {
  const double p = d.efficiency.gemm_ridge_exponent;
  const double hi = std::max(inner, stream), lo = std::min(inner, stream);
  if (p <= 0 || lo <= 0) return hi;
  return hi * std::pow(1 + std::pow(lo / hi, p), 1 / p);
}

TilingResult evaluate_tile(const Device& d, const GemmShape& g, const Tile& t, double flops, int smem) {
  TilingResult r;
  const double tiles_m = ceil_div(g.m, t.m), tiles_n = ceil_div(g.n, t.n);
  const double tiles = tiles_m * tiles_n * g.batch;
  const double sms = d.sm_count;
  // Wave quantization: the last wave of tiles leaves SMs idle.
  const double wave_eff = tiles / (std::ceil(tiles / sms) * sms);
  // Tile quantization: padded tiles compute zeros at the edges.
  const double quant_eff = (g.m * g.n) / (tiles_m * t.m * tiles_n * t.n);
  const double k_eff = g.k / (g.k + kTileOverheadK);
  const double peak = d.matmul_flops[static_cast<int>(g.math)] * d.efficiency.matmul[static_cast<int>(g.math)] * g.mma_eff;
  // Each wave also pays a fixed per-tile time (pipeline fill from DRAM,
  // epilogue), fitted once on the cuBLASLt shape sweep of docs/sources.md [HF2.2].
  r.compute_time = flops / (peak * wave_eff * quant_eff * k_eff) + std::ceil(tiles / sms) * d.efficiency.tile_overhead_s;
  const double vec = d.vector_flops[static_cast<int>(runnable(d.vector_flops, Precision::bf16))] * d.efficiency.vector;
  if (g.dequant_ops > 0 && vec > 0) {
    // The dequantising instructions share the SMs' issue slots with the MMAs
    // (a device without a published vector peak, a TPU, is not charged).
    r.compute_time += g.dequant_ops * g.k * g.n * g.batch * tiles_m / vec;
  }

  const double a = g.m * g.k * g.batch * g.a_bytes;
  const double b = g.k * g.n * g.batch * g.b_bytes;
  const double c = g.m * g.n * g.batch * g.c_bytes;
  const size_t levels = std::min(d.memory.size(), kMaxLevels);
  for (size_t i = 0; i < levels; ++i) {
    if (i + 1 == levels) {
      r.bytes[i] = g.batch > 1 ? a + b + c : dram_traffic(g, t, reuse_window(d, g, t), a, b, c);
    } else if (static_cast<int>(i) == smem) {
      // Operand reads from shared memory into the tensor cores: each K step
      // of a tile reads (tm + tn) x tk elements for 2 tm tn tk FLOPs.
      r.bytes[i] = flops * (t.m * g.a_bytes + t.n * g.b_bytes) / (2 * t.m * t.n);
    } else {
      // L2 -> SMEM: A is fetched once per tile column, B once per tile row,
      // shared by the SMs of a pair or cluster that multicast it (Blackwell
      // cta_group::2 MMA, PTX ISA tcgen05; CUTLASS sm100 2-SM kernels).
      const double mc = std::max(1.0, d.efficiency.gemm_multicast);
      r.bytes[i] = a * std::max(1.0, tiles_n / mc) + b * std::max(1.0, tiles_m / mc) + c;
    }
  }
  double inner = r.compute_time, stream = 0;
  for (size_t i = 0; i < levels; ++i) {
    const double eff = d.efficiency.memory * (i + 1 == levels ? g.dram_eff : 1.0);
    const double level = r.bytes[i] / (d.memory[i].bandwidth_Bps * eff);
    if (i + 1 == levels) stream = level;  // DRAM (the last level the tiling counts)
    else inner = std::max(inner, level);
  }
  r.time = ridge_time(d, inner, stream);
  return r;
}

}  // namespace

void finish_cost(const Device& d, OpCost& c, double compute_time, double dram_eff) {
  double best = compute_time;
  c.bound = kBoundCompute;
  for (size_t i = 0; i < d.memory.size() && i < c.bytes.size(); ++i) {
    const double eff = d.efficiency.memory * (i + 1 == d.memory.size() ? dram_eff : 1.0);
    const double t = c.bytes[i] / (d.memory[i].bandwidth_Bps * eff);
    if (t > best) {
      best = t;
      c.bound = static_cast<int>(i);
    }
  }
  const double launch = d.efficiency.launch_overhead_s;
  if (launch > best) c.bound = kBoundLatency;
  c.time_s = best + launch;
}

// The memo: every field of the shape, bit for bit, is the key.
using GemmKey = std::array<unsigned long long, 12>;
struct GemmKeyHash {
  size_t operator()(const GemmKey& k) const {
    unsigned long long h = 1469598103934665603ULL;  // FNV-1a over the words
    for (unsigned long long v : k) h = (h ^ v) * 1099511628211ULL;
    return static_cast<size_t>(h ^ (h >> 29));
  }
};
struct GemmMemo::Table {
  std::unordered_map<GemmKey, OpCost, GemmKeyHash> costs;
};
GemmMemo::GemmMemo() : table(std::make_unique<Table>()) {}
GemmMemo::~GemmMemo() = default;
size_t GemmMemo::size() const { return table->costs.size(); }

namespace {
thread_local GemmMemo* active_memo = nullptr;
thread_local const Device* memo_device = nullptr;

GemmKey key_of(const GemmShape& g) {
  const double fields[] = {g.m,       g.n,       g.k,         g.batch,    g.a_bytes, g.b_bytes,
                           g.c_bytes, static_cast<double>(g.math), g.dequant_ops, g.dram_eff, g.mma_eff, g.setup_s};
  static_assert(sizeof fields == sizeof(GemmKey), "one key word per shape field");
  GemmKey k;
  std::memcpy(k.data(), fields, sizeof fields);
  return k;
}

OpCost price_gemm(const Device& d, const GemmShape& shape);
}  // namespace

GemmMemoScope::GemmMemoScope(GemmMemo& memo, const Device& d) : outer_memo_(active_memo), outer_device_(memo_device) {
  active_memo = &memo;
  memo_device = &d;
}
GemmMemoScope::~GemmMemoScope() {
  active_memo = outer_memo_;
  memo_device = outer_device_;
}

OpCost gemm_cost(const Device& d, const GemmShape& shape) {
  if (active_memo == nullptr || memo_device != &d) return price_gemm(d, shape);
  auto& costs = active_memo->table->costs;
  const GemmKey k = key_of(shape);
  auto it = costs.find(k);
  if (it == costs.end()) it = costs.emplace(k, price_gemm(d, shape)).first;
  return it->second;
}

namespace {
OpCost price_gemm(const Device& d, const GemmShape& shape) {
  GemmShape g = shape;
  g.math = runnable(d.matmul_flops, g.math);
  OpCost c;
  c.flops = 2 * g.m * g.n * g.k * g.batch;
  const double smem_per_sm = d.memory.size() > 1 && d.memory[0].name == "smem"
                                 ? d.memory[0].capacity_bytes / d.sm_count
                                 : 1e12;
  const int smem = level_index(d, "smem");
  TilingResult best;
  bool have = false;
  for (const Tile& t : kTiles) {
    const double staged = (t.m * g.a_bytes + t.n * g.b_bytes) * kTileK * kStages;
    if (staged > smem_per_sm && have) continue;  // the tile does not fit this SM's shared memory
    TilingResult r = evaluate_tile(d, g, t, c.flops, smem);
    if (!have || r.time < best.time) {
      best = r;
      have = true;
    }
  }
  c.bytes.assign(best.bytes.begin(), best.bytes.begin() + static_cast<long>(std::min(d.memory.size(), kMaxLevels)));
  finish_cost(d, c, best.compute_time, g.dram_eff);  // the bound
  c.time_s = best.time + d.efficiency.launch_overhead_s + g.setup_s;  // the tile's ridge-blended time
  return c;
}
}  // namespace

double attention_head_dim_efficiency(const Device& d, double eff128, Precision p, bool backward, double head_dim) {
  if (d.sfu_ops <= 0 || head_dim == 128) return eff128;
  // Per score the kernel runs 4 d matmul FLOPs forward (10 d backward: 2.5x)
  // and one exponential on the special-function units, which 16-bit
  // FlashAttention kernels cannot fully hide behind the MMAs (Shah et al.
  // 2024, FlashAttention-3, §3: H100 989 TFLOP/s matmul, 3.9 TFLOP/s exp).
  // The published efficiency is at d = 128; split its time per score into
  // a matmul part (scales with d) and the exp part (does not).
  const double peak = d.matmul_flops[static_cast<int>(p)];
  const double per_d = backward ? 10.0 : 4.0;
  const double t128 = per_d * 128 / (peak * eff128);
  const double exp_t = std::min(1.0 / d.sfu_ops, 0.5 * t128);  // keep a matmul part
  const double t = (t128 - exp_t) * head_dim / 128 + exp_t;
  return per_d * head_dim / (peak * t);
}

// Attention runs at the 16-bit rate unless the math itself is narrower.
// A narrow kernel on a device without that format (the fp8 sparse-attention
// indexer on an A100) runs at the 16-bit rate. In an fp32 / tf32 run it
// runs at that format's rate: the flash-attn kernels take fp16 and bf16
// only (the flash-attn README: "Datatype fp16 and bf16"), and PyTorch's
// scaled_dot_product_attention sends fp32 inputs to its memory-efficient
// kernel (Rabe & Staats 2021, arXiv 2112.05682), which computes in fp32.
Precision attention_precision(const Device& d, Precision math) {
  const bool narrow = math == Precision::fp8 || math == Precision::fp4;
  const Precision p = runnable(d.matmul_flops, narrow || is_fp32(math) ? math : Precision::bf16);
  return d.matmul_flops[static_cast<int>(p)] > 0 ? p : runnable(d.matmul_flops, Precision::bf16);
}

OpCost fused_attention_cost(const Device& d, double flops, double dram_bytes, Precision math, bool backward,
                            double kv_per_row, double head_dim, AttentionKernel kernel, double convert_elems) {
  OpCost c;
  c.flops = flops;
  c.bytes.assign(d.memory.size(), 0.0);
  if (!c.bytes.empty()) c.bytes.back() = dram_bytes;
  const int l2 = level_index(d, "l2");
  if (l2 >= 0 && static_cast<size_t>(l2) + 1 < d.memory.size()) c.bytes[static_cast<size_t>(l2)] = dram_bytes;
  const Precision p = attention_precision(d, math);
  // Each query tile pays a fixed prologue/epilogue (load Q, rescale and write
  // O; in backward also dQ accumulation), worth `half` keys of work: the
  // kernel runs at kv / (kv + half) of its long-sequence rate. The form and
  // the half-lengths are fitted on cuDNN attention timed on an H200
  // (tests/validation/device/raw): 481/526/551 TFLOP/s forward at 2k/4k/8k causal.
  const double half = backward ? d.efficiency.attention_bwd_half_kv : d.efficiency.attention_fwd_half_kv;
  const double kv = std::max(1.0, kv_per_row);
  const auto& table = d.efficiency.attention_kernel[static_cast<size_t>(kernel)];
  double eff = backward ? d.efficiency.attention_bwd : d.efficiency.attention_fwd;
  if (kernel != AttentionKernel::best && table[0] > 0) eff = table[backward ? 1 : 0];
  eff = attention_head_dim_efficiency(d, eff, p, backward, head_dim);
  const double peak = d.matmul_flops[static_cast<int>(p)] * eff * kv / (kv + half);
  // An 8-bit cache's conversions run on the ALUs beside the loads: the
  // kernel takes the longer of the two (compute-bound when they bind).
  const double convert = convert_elems > 0 && d.sfu_ops > 0 ? convert_elems / d.sfu_ops : 0.0;
  finish_cost(d, c, std::max(flops / peak, convert));
  return c;
}

OpCost elementwise_cost(const Device& d, double bytes, double flops, Precision p, StreamKind kind) {
  OpCost c;
  c.flops = flops;
  c.bytes.assign(d.memory.size(), 0.0);
  for (size_t i = 0; i < d.memory.size(); ++i)
    if (d.memory[i].name != "smem") c.bytes[i] = bytes;
  const double rate = d.vector_flops[static_cast<int>(runnable(d.vector_flops, p))] * d.efficiency.vector;
  const double stream = kind == StreamKind::norm         ? d.efficiency.norm_stream
                        : kind == StreamKind::activation ? d.efficiency.activation_stream
                                                         : 1.0;
  finish_cost(d, c, rate > 0 ? flops / rate : 0, stream);
  return c;
}

}  // namespace llmcalc
