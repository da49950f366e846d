// The operations of a transformer layer, with their shapes under tensor,
// sequence and context parallelism, for a forward pass; and the backward
// operations derived from them. Shared by training and inference.
#pragma once
#include <string>
#include <vector>

#include "compute.h"
#include "network.h"

namespace llmcalc {

enum class OpKind { gemm, attention, elementwise, comm };
const char* to_string(OpKind k);

struct OpSpec {
  std::string name;
  OpKind kind = OpKind::elementwise;
  GemmShape gemm;               // gemm
  double flops = 0;             // attention, elementwise
  double bytes = 0;             // attention, elementwise: device-memory traffic
  Precision math = Precision::bf16;
  Collective coll = Collective::all_reduce;  // comm
  Group group;                  // comm
  std::string comm_axis;        // "tp", "cp", "ep", "dp", "pp"
  bool backward = false;        // attention: the backward kernel
  double kv_per_row = 1;        // attention: keys each query row attends, on average
  double head_dim = 128;        // attention: per-head width (the kernel's efficiency depends on it)
  double convert_elems = 0;     // attention: cached K/V elements converted to the math format (8-bit cache, per-head decode)
  AttentionKernel kernel = AttentionKernel::best;  // attention: fused kernel generation
  double kernels = 1;           // kernel launches the op stands for (each pays the launch overhead)
  StreamKind stream = StreamKind::copy;  // elementwise: what the kernel does to the bytes it streams
  double layer_share = 1;       // share of the layers of its kind that run it (local vs global attention)
  // comm, elementwise: the bytes the backward op is derived from when they
  // differ from the forward's (an FP8 all-gather's gradient reduce-scatters
  // in 16 bits; a cast of the local shard still casts the full gradient)
  double grad_bytes = 0;
  // comm all_to_all of token copies, deduplicated per node (DeepEP): the copies
  // of one token and the experts they are routed over (0: each copy sent);
  // group-limited routing: the expert groups and how many a token uses.
  double route_copies = 0, route_experts = 0, route_groups = 1, route_top_groups = 1;
  // LoRA: a gemm against a frozen weight (its backward has no weight
  // gradient); an elementwise op that dequantises one (its backward runs
  // it again for the data gradient's GEMM).
  bool frozen = false;
};

// What one forward pass of one layer on one GPU sees.
struct LayerPass {
  double batch = 1;      // sequences
  double q_len = 1;      // query tokens per sequence on this GPU
  double kv_len = 1;     // keys attended per query (full context)
  double kv_chunks = 1;  // context parallelism: the ring runs one attention kernel per KV chunk (cp of them)
  bool causal = true;    // causal mask over a square q x kv block
  int tp = 1;
  bool sp = false;
  bool flash = true;
  AttentionKernel attn_kernel = AttentionKernel::best;
  bool dropout = false;
  bool moe_layer = false;
  int ep = 1;
  // Training: Megatron-Core token dispatch (router on the sequence-parallel
  // shard, permute, all-to-all over ep, all-gather over etp; moe.h).
  // Inference: every tp rank routes all tokens to its tp shard of each expert.
  bool moe_dispatch = false;
  int etp = 1;
  MoeBalance moe_balance = MoeBalance::forced;
  bool moe_node_dedup = false;  // dispatch once per remote node (DeepEP)
  // Bytes per element of the dispatched token copies and of the backward's
  // (output-gradient) dispatch; 0: act_bytes (16-bit).
  double moe_dispatch_bytes = 0;
  double moe_capacity_factor = 0;
  double moe_tokens_per_expert = 0;  // inference decode: tokens per touched expert
  double moe_experts_touched = 0;    // inference decode: distinct experts read
  // Inference with expert parallelism: the token sets (replicas' batches)
  // whose copies reach this rank's experts, etp x ep / tp (1 without ep).
  double moe_token_sets = 1;
  Precision math = Precision::bf16;
  Precision attn_math = Precision::bf16;
  double act_bytes = 2;     // activation element size
  double weight_bytes = 2;  // weight element size as read by the GEMMs
  double dequant_ops = 0;     // per weight element, for weight-only quantised GEMMs
  double gemm_act_bytes = 2;  // activation element size as fed to the GEMMs (fp8 recipes cast it)
  double kv_bytes = 2;      // KV-cache element size
  bool kv_cached = false;   // decode: K/V come from the cache
  // Decode with a per-query-head kernel: each query head streams its KV
  // head's cache itself (no sharing within the GQA group).
  bool kv_per_head = false;
  // The device's conversion rate (its special-function rate, sfu_ops;
  // 0: unknown): over an 8-bit cache a per-head kernel is bound by it.
  double convert_rate = 0;
  // Inference MoE: expert GEMMs in an Ampere-generation 16-bit grouped GEMM
  // (math 16-bit, weights `moe_weight_bytes`, MMA rate x legacy_mma).
  bool moe_legacy16 = false;
  double moe_weight_bytes = 2;
  double moe_mma_eff = 1;
  bool kv_write = false;    // inference: this pass's K and V are stored in the cache
  double keys_per_row = 0;  // attention: keys each query row attends on average (0: from kv_len and the mask)
  double context_start = 0, decode_steps = 0;  // decode: prompt length and steps (local layers' mean keys)
  Group tp_group, ep_group, etp_group;
};

// Builders shared by the layer and the MoE block.
OpSpec make_gemm(const std::string& name, double m, double n, double k, const LayerPass& p, double batch = 1);
OpSpec make_elementwise(const std::string& name, double bytes, double flops, StreamKind kind = StreamKind::copy);
OpSpec make_comm(const std::string& name, Collective c, const Group& g, double bytes, const std::string& axis);
// Megatron tensor parallelism around a block: all-gather in (sequence
// parallel), reduce-scatter or all-reduce out.
void tp_enter(std::vector<OpSpec>& ops, const std::string& block, const LayerPass& p, double hidden_bytes);
void tp_exit(std::vector<OpSpec>& ops, const std::string& block, const LayerPass& p, double hidden_bytes);

std::vector<OpSpec> layer_forward(const Model& m, const LayerPass& p);
// The attention core (fused or unfused) of q_heads query and kv_heads key/value heads.
void attention_ops(std::vector<OpSpec>& ops, const Model& m, const LayerPass& p, double q_heads, double kv_heads);
// Context parallelism's per-step merges of one attention (p.kv_chunks > 1):
// `out` and `kv` are this rank's output and K/V elements.
OpSpec cp_correction(const LayerPass& p, double out, double kv);
// The attention block of a layer, GQA or MLA, with its core split by layer
// type when the model mixes global and local layers (layer_attention.cpp).
void attention_block(std::vector<OpSpec>& ops, const Model& m, const LayerPass& p);
// Narrow-precision GEMMs (fp8/fp4/int8 math) take quantized inputs: insert
// a cast before each, reading 16-bit activations and writing
// `bytes_per_element` bytes of narrow copies per element (Transformer Engine
// writes a transposed copy too in training: 1 + 1 + 2 = 4; inference 2 + 1 = 3).
void add_input_casts(std::vector<OpSpec>& ops, double bytes_per_element, double kernels = 1);
// The backward operations of one forward op (data and weight gradients).
std::vector<OpSpec> backward_of(const OpSpec& fwd);


}  // namespace llmcalc
