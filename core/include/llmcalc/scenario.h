// The resolved scenario: what model, on what system, run how.
// Every quantity is in base SI units (bytes, B/s, FLOP/s, s); the parser
// converts the spec's datasheet units (_GiB, _GBps, _tflops, _us) exactly once.
#pragma once
#include <array>
#include <string>
#include <vector>

namespace llmcalc {

enum class Precision { fp32, tf32, fp16, bf16, fp8, int8, int4, fp4 };
constexpr int kPrecisionCount = 8;
const char* to_string(Precision p);
// Bytes per element as stored in memory (int4/fp4 are packed two per byte).
double bytes_per_element(Precision p);
// fp32 storage, with fp32 or tf32 math.
inline bool is_fp32(Precision p) { return p == Precision::fp32 || p == Precision::tf32; }

enum class FfnType { gelu, relu2, swiglu, geglu };
enum class NormType { layernorm, rmsnorm };
enum class Recompute { none, selective, full, selective_op };
// Fused attention kernel generations: best = the device's best (its
// efficiency.attention); fa1 = FlashAttention 1 or the Triton kernel; fa2 =
// FlashAttention-2; fa3 = FlashAttention-3 / cuDNN (Hopper and later).
enum class AttentionKernel { best, fa1, fa2, fa3 };
constexpr int kAttentionKernels = 4;
// What an element-wise kernel does between its read and its write: copy
// (residual add, cast, permute), norm (a row reduction, then the scale:
// LayerNorm, RMSNorm) or activation (GELU, SiLU x gate); the last two
// stream below the copy rate (efficiency.elementwise).
enum class StreamKind { copy, norm, activation };
// zb_h1: 1F1B with the backward split into its input-gradient (B) and
// weight-gradient (W) halves, W deferred into the bubbles (Qi et al. 2024,
// Zero Bubble Pipeline Parallelism, ICLR, arXiv 2401.10241, ZB-H1).
enum class PipeSchedule { one_f_one_b, interleaved, gpipe, zb_h1, dualpipe };
enum class Optimizer { adam, sgd };
enum class Mode { training, inference };
// How tokens spread over experts: "random" takes the expected maximum load of
// top-k routing (the slowest expert-parallel rank gates the layer); "forced"
// is Megatron-Core's --moe-router-force-load-balancing (benchmarks).
enum class MoeBalance { random, forced };
// How the expert-parallel all-to-all moves token copies: "alltoall" sends each
// copy to its expert's rank (NCCL, Megatron-Core's alltoall dispatcher);
// "deepep" sends a token once to each remote node that holds any of its
// experts and forwards it there over NVLink (DeepEP, Megatron-Core's flex
// dispatcher; DeepSeek-V3, arXiv 2412.19437, section 3.2.2).
enum class MoeDispatcher { alltoall, deepep };
// Precision of the token copies the expert-parallel dispatch sends in FP8
// training: "bf16" (Megatron-Core's dispatchers cast after the all-to-all) or
// "fp8" (DeepSeek-V3, arXiv 2412.19437, section 3.3.3: the activations are
// quantised before the dispatch, and so are the activation gradients before
// the down-projections, the backward's dispatch; the combines stay BF16).
enum class DispatchPrecision { bf16, fp8 };
// FP8 scaling recipe (Transformer Engine): per-tensor delayed scaling (amax
// history), per-tensor current scaling (an amax pass before each cast), or
// MXFP8 (Blackwell: one E8M0 scale per 32 elements, row- and column-wise copies).
enum class Fp8Recipe { delayed, current, mxfp8 };
// How the framework runs the element-wise steps of a layer: fused kernels
// (Megatron-Core / Transformer Engine, torch.compile), or PyTorch eager modules
// (one kernel per tensor operation; core/src/model/eager_ops.cpp).
enum class Fusion { fused, eager };
// Decode attention over the KV cache: "grouped" kernels load each KV head once
// for its whole query group (TensorRT-LLM XQA, FlashInfer, FlashDecoding);
// "per_head" kernels run one thread block per query head (FasterTransformer /
// TensorRT-LLM masked MHA, vLLM PagedAttention v1/v2), so every query head
// loads and converts its group's K/V itself; "auto" picks by group size.
enum class DecodeAttention { auto_pick, grouped, per_head };
// MoE expert GEMMs in inference: "legacy16" = an Ampere-generation grouped
// GEMM (mma.sync, 16-bit math, weights dequantised in the kernel), as in
// FasterTransformer's and TensorRT-LLM <= 0.9's MoE plugin; "native" = the
// device's own GEMM at the compute precision (CUTLASS 3 / TE grouped GEMM).
// "auto" is resolved for each plan (io/parse.h pick_moe_gemm): at parse
// time and again for every plan the search tries.
enum class MoeGemm { auto_pick, legacy16, native };
// Parameter-efficient fine-tuning (LoRA, Hu et al. 2021, arXiv 2106.09685):
// which linear layers get rank-r adapters beside their frozen weights, "all"
// (attention and MLP projections; QLoRA, Dettmers et al. 2023, arXiv
// 2305.14314, section 4), "all_experts" (those and every routed expert's
// projections, as PEFT's all-linear wraps per-expert Linear modules) or the
// attention projections only.
enum class LoraTargets { all, attention, all_experts };
// How the frozen weights of a LoRA run are stored: 16-bit, or NF4 with
// double quantisation (QLoRA), dequantised to 16-bit for every GEMM.
enum class FrozenWeights { bf16, nf4 };
// Where the optimizer runs: on the GPUs, or (ZeRO-Offload, Ren et al. 2021)
// on the host CPUs, which hold the fp32 gradients, master weights and
// optimizer states; the GPUs keep the 16-bit weights and gradients; with
// `parameters` (ZeRO-Infinity, Rajbhandari et al. 2021) the host holds the
// 16-bit weights too and the GPUs fetch them unit by unit.
enum class Offload { none, optimizer, parameters };

// A number format as an input names it: a precision, and for the narrow
// formats whether it is OCP MX block-scaled (mxfp8, mxfp4) rather than
// per-tensor fp8 or NVFP4.
struct NumberFormat {
  Precision precision = Precision::bf16;
  bool mx = false;
};

inline bool is_gated(FfnType t) { return t == FfnType::swiglu || t == FfnType::geglu; }

struct MoE {
  int experts = 0;         // 0: dense model
  int top_k = 0;
  int ffn_hidden = 0;      // per expert
  int shared_experts = 0;
  int dense_layers = 0;    // leading dense layers
  int shared_ffn_hidden = 0;  // inner width of one shared expert (0: ffn_hidden)
  int every = 1;           // after the dense layers, every `every`-th layer is MoE (Llama 4 Maverick: 2)
  // Group-limited routing (DeepSeek-V2/V3 n_group / topk_group): the experts
  // form `groups` contiguous groups and a token's top_k come from its best
  // `top_groups` of them (0: all groups, no limit).
  int groups = 1;
  int top_groups = 0;
  int routed_groups() const { return top_groups > 0 ? top_groups : groups; }
  int shared_width() const { return shared_ffn_hidden > 0 ? shared_ffn_hidden : ffn_hidden; }
};

// Multi-head latent attention (DeepSeek-V2 §2.1, arXiv 2405.04434): queries
// and keys/values go through low-rank latents; the KV cache holds the
// kv_lora_rank latent and one shared qk_rope_head_dim RoPE key per token.
struct Mla {
  int q_lora_rank = 0;       // 0: no query compression (DeepSeek-V2-Lite)
  int kv_lora_rank = 0;      // 0: no MLA
  int qk_nope_head_dim = 0;
  int qk_rope_head_dim = 0;
  int v_head_dim = 0;
  bool on() const { return kv_lora_rank > 0; }
};

// DeepSeek Sparse Attention (DeepSeek-V3.2-Exp, 2025): a lightning indexer of
// index_heads heads of index_head_dim scores every earlier token for each
// query, and the attention core attends only the top_k tokens it selects.
// Every layer keeps all tokens in its cache (plus the indexer's keys).
struct SparseAttention {
  int top_k = 0;  // 0: dense attention
  int index_heads = 0;
  int index_head_dim = 0;
  bool on() const { return top_k > 0; }
};

// Local attention in some layers: a sliding window of `span` keys (Mistral,
// GPT-OSS, Gemma 3) or chunks of `span` tokens (Llama 4); every
// `global_every`-th layer (1-based) attends the full context (0: none does).
enum class LocalAttention { none, window, chunk };
struct AttentionPattern {
  LocalAttention kind = LocalAttention::none;
  int span = 0;
  int global_every = 0;
  bool sinks = false;  // learned per-head sink logits (GPT-OSS): one parameter per head per layer
  // A sigmoid gate on the attention output, computed by the query projection
  // (Qwen3-Next's gated attention: q_proj emits query and gate).
  bool output_gate = false;
};

// Linear-attention layers: a recurrent state of value_heads x key_head_dim x
// value_head_dim per sequence instead of a KV cache. Every `full_every`-th
// layer (1-based) keeps softmax attention (0: none does). Two mixers:
// Gated DeltaNet (Yang et al. 2024, arXiv 2412.06464; Qwen3-Next) and
// Mamba-2's SSD (Dao and Gu 2024, arXiv 2405.21060; Bamba, Granite 4.0-H),
// whose B and C groups play the keys and queries (key_heads = n_groups,
// key_head_dim = d_state) and whose heads the values (head_dim wide).
enum class LinearKind { gated_deltanet, mamba2 };
struct LinearAttention {
  LinearKind kind = LinearKind::gated_deltanet;
  int key_heads = 0;  // 0: no linear-attention layers
  int value_heads = 0;
  int key_head_dim = 0;
  int value_head_dim = 0;
  int conv_kernel = 4;  // causal depthwise convolution over q, k, v
  int chunk = 64;       // chunk length of the chunked (parallel) form (parsed: 0 = the kind's kernel default)
  int full_every = 4;
  // > 0: this many softmax layers, spread evenly over the model, in place of
  // every full_every-th, which it overrides (irregular patterns: Nemotron 3
  // Nano's 6 of 29 mixers).
  int full_layers = 0;
  // The recurrent state's element type: fp32 as flash-linear-attention's
  // kernels keep it; a serving engine may store it in 16 bits.
  Precision state_precision = Precision::fp32;
  bool on() const { return key_heads > 0; }
  // Heads split over tp ranks like attention heads. Mamba-2's B/C groups may
  // also be fewer than the ranks and divide them: each rank then keeps a copy
  // of its heads' group (vLLM MambaMixer2, extra_groups_for_head_shards).
  bool splits_over(int tp) const {
    return value_heads % tp == 0 && (key_heads % tp == 0 || (kind == LinearKind::mamba2 && tp % key_heads == 0));
  }
  // B/C groups (query/key heads) held by one of tp ranks.
  double key_heads_per_rank(int tp) const {
    return kind == LinearKind::mamba2 && tp > key_heads ? 1.0 : static_cast<double>(key_heads) / tp;
  }
};

struct Model {
  std::string name = "custom";
  int layers = 0;
  int hidden = 0;
  int heads = 0;
  int kv_heads = 0;
  int head_dim = 0;
  int ffn_hidden = 0;
  FfnType ffn_type = FfnType::gelu;
  NormType norm = NormType::layernorm;
  int vocab = 0;
  int seq_len = 2048;
  // The context window: the most tokens (prompt and output) one sequence may
  // hold, as the model card publishes it (config.json max_position_embeddings
  // after long-context extension); seq_len is the pre-training length.
  long long context = 2048;
  bool tied_embeddings = false;
  bool bias = false;              // linear-layer biases (GPT-2/3 style)
  bool learned_positions = false; // learned absolute position embedding table
  bool dropout = true;            // dropout layers (Megatron default 0.1) keep masks for backward
  bool qk_norm = false;           // a norm over each head's queries and keys (QK-Norm: Qwen3, Gemma 3)
  MoE moe;
  Mla mla;
  AttentionPattern attention;
  SparseAttention sparse;
  LinearAttention linear;
  int mtp_layers = 0;  // multi-token prediction modules (DeepSeek-V3 §2.2), trained with the model
  // The weight format the publisher released the checkpoint in, from a
  // preset's release_weight_precision ("mxfp4" for gpt-oss, "fp8" for
  // DeepSeek-V3), with its bytes per weight; "" and 0 when none is named.
  // A hint for serving only: a run stores the weights as
  // inference.weight_precision says.
  std::string released_weights;
  double released_weight_bytes = 0;
  // Layers whose token mixer has no MLP after it (Nemotron-H's hybrid
  // pattern, arXiv 2504.03624: a Mamba-2 block followed directly by another
  // mixer); the MLP blocks are averaged over the layers as the mixers are.
  int mixer_only_layers = 0;
  bool is_moe() const { return moe.experts > 0; }
};

struct MemoryLevel {
  std::string name;
  double capacity_bytes = 0;
  double bandwidth_Bps = 0;
  // What a reader calls this level ("GDDR6" on cards whose device memory the
  // model addresses as "hbm"); the name stays the key of bytes and bounds.
  std::string label;
};

// Per-device calibration data: achievable fractions of the datasheet peaks
// and fixed costs. They live in presets with a cited source, shared by every
// scenario on that device.
struct DeviceEfficiency {
  std::array<double, kPrecisionCount> matmul{0.8, 0.8, 0.8, 0.8, 0.8, 0.8, 0.8, 0.8};  // best large-GEMM throughput / peak (MAMF), per precision
  double attention_fwd = 0.6;  // fused (Flash) attention forward throughput / matmul peak, long sequences
  double attention_bwd = 0.5;  // its backward pass
  // Keys attended per query row at which a fused attention kernel reaches half
  // its long-sequence throughput (per-tile prologue/epilogue); fitted on the
  // cuDNN kernels timed on an H200 (tests/validation/device/README.md).
  double attention_fwd_half_kv = 212, attention_bwd_half_kv = 405;
  double tile_overhead_s = 1e-6;  // fixed cost per GEMM output tile per wave (prologue + epilogue)
  // SMs that share each operand tile read from L2 (Blackwell 2-SM UMMA pairs
  // and TMA multicast within a cluster): L2 -> SMEM traffic is divided by it.
  double gemm_multicast = 1;
  // p of the p-norm that joins a GEMM's on-chip time and its DRAM time (0:
  // the roofline's max; compute.cpp ridge_time).
  double gemm_ridge_exponent = 3;
  double vector = 0.7;        // element-wise throughput / vector peak
  double memory = 0.9;        // achievable streaming bandwidth / peak, every level
  double launch_overhead_s = 4e-6;
  // Host (CPU) time per kernel the training framework launches from the host:
  // eager PyTorch on GPUs; 0 where a compiled program runs the step (XLA on TPU).
  double host_overhead_s = 20e-6;
  double decode_step_overhead_s = 0;  // runtime cost per inference step (scheduling, sampling)
  // Weight-only GEMMs (int8/int4 weights, 16-bit math): the dequantising
  // kernels stream their weights at this fraction of the bandwidth a 16-bit
  // GEMV reaches (indexed by weight precision; 1 for formats never dequantised).
  std::array<double, kPrecisionCount> weight_only_stream{1, 1, 1, 1, 1, 1, 1, 1};
  // Fixed time a dequantising kernel takes beyond the launch before it
  // streams (its unpack-convert-scale pipeline filling): the intercept of its
  // time against the bytes it reads.
  double weight_only_setup_s = 0;
  // Per kernel generation {fwd, bwd} efficiency at head dim 128 (0: the
  // kernel does not run on this device); index AttentionKernel.
  std::array<std::array<double, 2>, kAttentionKernels> attention_kernel{};
  // Fraction of the SMs a running collective's kernels hold (NCCL runs one
  // CTA per channel): compute overlapped with communication runs on the rest.
  double comm_sm_share = 0;
  // Throughput of Ampere-generation tensor-core kernels (mma.sync, cp.async)
  // on this device relative to its native ones (Hopper wgmma + TMA); 1 where
  // mma.sync is the native path.
  double legacy_mma = 1;
  // Device-memory rate of norm and activation kernels relative to a copy's
  // (efficiency.memory): they reduce rows or evaluate erf/exp per element.
  double norm_stream = 1, activation_stream = 1;
};

struct Device {
  std::string name;
  // The word results use for one device: "GPU", or what the vendor calls its
  // part where that is no GPU (Cloud TPU: "chip", Intel Gaudi: "HPU").
  std::string unit_name = "GPU";
  std::array<double, kPrecisionCount> matmul_flops{};  // 0 = unsupported
  std::array<double, kPrecisionCount> vector_flops{};
  std::vector<MemoryLevel> memory;  // nearest first; last is device memory
  double tdp_W = 0;
  // Maximum power of the node per device: the devices plus host CPUs,
  // memory, NICs and fans (DGX H100: 10.2 kW / 8); 0 = unknown.
  double node_power_W = 0;
  int sm_count = 108;
  // On-chip memory a compiler blocks matrix products in (TPU VMEM, Gaudi
  // SRAM), bytes; 0 on GPUs, whose GEMM kernels reuse operands only across
  // the wave of tiles that runs at once (one per SM).
  double scratchpad_bytes = 0;
  // Special-function (MUFU: exp2, rcp) throughput, ops/s; 0 = unknown. Bounds
  // the softmax of fused attention at small head dims (Shah et al. 2024).
  double sfu_ops = 0;
  DeviceEfficiency efficiency;
  const MemoryLevel& dram() const { return memory.back(); }
};

// How a tier's GPUs are wired: through a switch (NVSwitch, InfiniBand: any
// group gets each member's full link), a full mesh of point-to-point links
// (AMD Infinity Fabric, Gaudi: a group of g uses g-1 of a GPU's links), or a
// torus (TPU ICI: a group uses the links of the torus axes it spans).
enum class Topology { switched, mesh, torus };

struct NetworkTier {
  std::string name;
  int span_gpus = 0;          // 0: the whole cluster
  double bandwidth_Bps = 0;   // per GPU, per direction (mesh, torus: summed over its links)
  double latency_s = 0;
  double efficiency = 0.8;    // achievable collective bus bandwidth / wire rate
  double half_bandwidth_bytes = 0;  // message size at which NCCL's bandwidth protocol reaches half its peak
  Topology topology = Topology::switched;
  int torus_dims = 0;  // torus: axes of the torus its span forms (2 links per chip per axis)
  // NVLink SHARP (NVLS) all-reduce inside a switched domain: the switch
  // reduces, so each GPU sends and receives its buffer once, at
  // bandwidth x nvls_efficiency (algorithm bandwidth); NCCL picks it from
  // nvls_min_gpus ranks up when it is the faster algorithm. 0: no NVLS.
  double nvls_efficiency = 0;
  int nvls_min_gpus = 5;
  double nvls_latency_s = 25e-6;
};

// The host side of a node, for optimizer offload, per GPU: the link it
// reaches host memory over (PCIe, NVLink-C2C) and its share of the node's
// CPU memory (the node's bandwidth and capacity over its GPUs). All 0: not
// given (offload is refused).
struct Host {
  double link_Bps = 0;          // per direction, as measured (host-device copies)
  double memory_Bps = 0;        // CPU memory bandwidth
  double memory_efficiency = 0; // achievable share of it
  double capacity_bytes = 0;    // CPU memory
  int gpus = 0;                 // GPUs sharing the host's CPUs and memory (the figures above are each one's share)
  bool present() const { return link_Bps > 0 && memory_Bps > 0 && memory_efficiency > 0 && capacity_bytes > 0; }
};

struct System {
  std::string name;
  int gpus_per_node = 8;
  Device device;
  Host host;
  std::vector<NetworkTier> network;  // innermost first; last spans the cluster
};

struct Overlap {
  bool dp = true;
  bool tp = false;
  bool pp = true;
  bool ep = false;  // Megatron-Core --overlap-moe-expert-parallel-comm: a micro-batch's all-to-all under another's compute
};

struct Parallelism {
  int tp = 1, pp = 1, dp = 1, cp = 1, ep = 1;
  bool sp = false;
  PipeSchedule schedule = PipeSchedule::one_f_one_b;
  int virtual_stages = 1;
  int zero = 0;
  double gather_bytes = 0;  // per parameter in ZeRO/FSDP weight all-gathers; 0: the 16-bit (or fp32) weight copy
  double reduce_bytes = 4;  // per gradient element in the data-parallel reduction
  // Expert tensor parallelism (Megatron-Core expert_tensor_parallel_size);
  // 0: the default, see expert_tp(). MoE parallel folding lets etp x ep span tp x cp x dp.
  int etp = 0;
  // Hybrid sharding (PyTorch FSDP HYBRID_SHARD / HSDP, Megatron-Core
  // num_distributed_optimizer_instances): ZeRO states shard over the
  // innermost zero_shard of the dp x cp ranks, and the dp x cp / zero_shard
  // groups are replicas whose gradient shards are all-reduced. 0: all of dp x cp.
  int zero_shard = 0;
  long long gpus() const { return 1LL * tp * pp * dp * cp; }
  // ZeRO-3 / FSDP without tensor or pipeline parallelism: what FSDP and JAX
  // frameworks run (context parallelism splits the sequence, not the weights).
  bool fully_sharded() const { return zero >= 3 && tp == 1 && pp == 1; }
  // A serving plan (the default etp differs).
  bool serving = false;
  // Megatron-Core's default is etp = tp; where that cannot fold (etp x ep
  // does not divide tp x cp x dp, as in tp 2, dp 16, ep 32) recipes set 1.
  // Serving engines split the tp group between the two instead (TensorRT-LLM:
  // moe_tp x moe_ep = tp), so that ep < tp inside a tp group splits every
  // expert tp / ep ways rather than repeating expert shards on its ranks.
  int expert_tp() const {
    if (etp > 0) return etp;
    if ((1LL * dp * cp) % ep == 0) return tp;
    return serving && tp % ep == 0 ? tp / ep : 1;
  }
  // Expert data parallelism: the ranks holding the same experts.
  long long expert_dp() const { return 1LL * tp * cp * dp / (1LL * expert_tp() * ep); }
  // Ranks one ZeRO shard group spans, counted in dp x cp ranks.
  long long shard_ranks() const { return zero_shard > 0 ? zero_shard : 1LL * dp * cp; }
  // Expert-dp ranks inside one shard group (experts repeat every etp x ep
  // ranks of tp x cp x dp): the expert states shard over these (a divisor
  // of expert_dp, so the expert-dp group splits into equal replicas).
  long long expert_shard_ranks() const {
    const long long edp = expert_dp();
    if (edp <= 1) return 1;  // also an unfolded (inconsistent) layout, refused before use
    long long inside = shard_ranks() * tp / (1LL * expert_tp() * ep);
    inside = inside < 1 ? 1 : inside > edp ? edp : inside;
    while (edp % inside != 0) --inside;
    return inside;
  }
};

struct Training {
  long long global_batch = 1;
  int micro_batch = 1;
  int seq_len = 0;
  Precision precision = Precision::bf16;
  Recompute recompute = Recompute::none;
  // Full recompute of only some layers (Megatron --recompute-num-layers N):
  // 0 = every layer one by one; "uniform" checkpoints chunks of N layers
  // (every layer recomputed), "block" recomputes N layers per stage.
  int recompute_layers = 0;
  bool recompute_block = false;
  // recompute "none" on a plan that does not fit: recompute the fewest whole
  // layers per stage that make it fit (the run it describes did fit).
  bool recompute_to_fit = true;
  Optimizer optimizer = Optimizer::adam;
  bool flash_attention = false;
  AttentionKernel attention_kernel = AttentionKernel::best;
  Fusion fusion = Fusion::fused;
  double host_overhead_s = -1;  // host time per launched kernel (framework dispatch); 0 = the host keeps ahead; < 0: the system's
  Overlap overlap;
  MoeBalance moe_balance = MoeBalance::random;
  MoeDispatcher moe_dispatcher = MoeDispatcher::alltoall;
  DispatchPrecision moe_dispatch_precision = DispatchPrecision::bf16;
  double moe_capacity_factor = 0;  // 0: dropless; else tokens above capacity x the mean per expert are dropped
  Fp8Recipe fp8_recipe = Fp8Recipe::delayed;
  bool fp4_mx = false;  // precision fp4: MXFP4 (E8M0 scale per 32) instead of NVFP4 (E4M3 scale per 16)
  double tokens = 0;  // 0: not given
  // LoRA fine-tuning: adapters of rank lora_rank train, every other weight is
  // frozen (no weight gradient, gradient buffer or optimizer state). 0: off.
  int lora_rank = 0;
  LoraTargets lora_targets = LoraTargets::all;
  FrozenWeights frozen_weights = FrozenWeights::bf16;
  Offload offload = Offload::none;
  int offload_activations = 0;  // layers whose saved activations wait in host memory (Megatron-Core CPU offloading)
  bool lora() const { return lora_rank > 0; }
};

struct Inference {
  int batch = 1;
  int input_tokens = 128;
  int output_tokens = 128;
  Precision weight_precision = Precision::bf16;
  bool weight_mx = false;  // fp4 weights: MXFP4 (E8M0 scale per 32) instead of NVFP4 (E4M3 per 16)
  Precision kv_precision = Precision::bf16;
  Precision compute_precision = Precision::bf16;
  bool flash_attention = true;
  int weight_group_size = 128;  // int4: weights per 16-bit scale + 16-bit zero point
  bool inflight = false;        // batching "inflight": at most batch sequences, and no more than fit, in flight
  DecodeAttention decode_attention = DecodeAttention::auto_pick;
  MoeGemm moe_gemm = MoeGemm::native;
  bool moe_gemm_auto = false;      // given "auto": moe_gemm is the pick for this plan
  bool moe_gemm_fallback = false;  // auto runs native only because legacy16's 16-bit experts do not fit
  // Speculative decoding (Leviathan et al. 2023): a draft head of
  // draft_layers target-shaped layers (an MTP module, EAGLE) proposes
  // draft_tokens per step, each accepted with probability draft_acceptance;
  // the target verifies them and one more in one pass. 0 tokens: off.
  int draft_tokens = 0;
  double draft_acceptance = 0.7;
  int draft_layers = 1;
  // Prefix caching (vLLM automatic prefix caching, SGLang RadixAttention):
  // the first shared_prefix_tokens of every prompt are the same for all
  // requests (a system prompt, few-shot examples) and their K/V is already in
  // the cache, held once per replica; prefill computes only the rest.
  int shared_prefix_tokens = 0;
  // Chunked prefill (Sarathi-Serve, Agrawal et al. 2024; vLLM
  // max_num_batched_tokens, TensorRT-LLM max_num_tokens with chunked
  // context): with in-flight batching each engine step runs the sequences in
  // decode and prompt chunks beside them, token_budget tokens in all. 0: off
  // (whole prompts between decode steps).
  int token_budget = 0;
  // Disaggregated serving (DistServe, Zhong et al. 2024; NVIDIA Dynamo,
  // Mooncake): prefill_tp > 0 runs prefill on separate instances of
  // prefill_tp GPUs, prefill_batch prompts at a time, and sends each prompt's
  // K/V to the decode instance (the scenario's parallelism). 0: colocated.
  int prefill_tp = 0;
  int prefill_batch = 1;
  // Capacity planning: requests per second to serve (0: not asked); the
  // result says how many replicas (and prefill instances) and GPUs that takes.
  double target_requests_per_s = 0;
  bool disaggregated() const { return prefill_tp > 0; }
};

// What a GPU-hour costs and what the energy behind it is: the price is the
// user's (cloud or ownership, per GPU-hour; 0 = no dollar figures), the power
// and grid figures default to cited typical values (schema `cost.*`).
struct Costs {
  double gpu_hour_usd = 0;
  double power_fraction = 0.75;  // average node power / its maximum
  double pue = 1.25;             // facility power / IT power
  double usd_per_kwh = 0.0806;
  double g_co2_per_kwh = 481;
};

// Interruptions of a long training run and the checkpoints that bound the
// work each one loses (schema `reliability.*`; the defaults are Llama 3's
// pre-training figures, docs/sources.md [RL1]). Units converted once.
struct Reliability {
  double gpu_hours_per_interruption = 0;  // the job sees one every this / GPUs hours
  double storage_Bps_per_gpu = 0;         // checkpoint write rate, per GPU
  double restart_s = 0;                   // from an interruption to training again
  double checkpoint_interval_s = 0;       // training time between checkpoints; 0: the best
};

// Micro-batches each data-parallel replica runs per iteration (the
// gradient-accumulation steps; every pipeline stage sees them all).
inline long long microbatches_per_replica(const Training& t, const Parallelism& p) {
  return t.global_batch / (1LL * t.micro_batch * p.dp);
}

struct Scenario {
  Mode mode = Mode::training;
  Model model;
  System system;
  Parallelism par;
  Training train;
  Inference infer;
  Costs costs;
  Reliability reliability;
};

}  // namespace llmcalc
