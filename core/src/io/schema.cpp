// Rows give the leading members; the trailing ones (at, clear, request) keep
// their defaults unless a row helper sets them.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

#include "schema.h"

#include <algorithm>
#include <stdexcept>

#include "enum_names.h"
#include "outputs.h"
#include "presets.h"

namespace llmcalc {

namespace {
using json = nlohmann::json;
const std::vector<std::string> kBoth = {"training", "inference"};
const std::vector<std::string> kTrain = {"training"};
const std::vector<std::string> kInfer = {"inference"};

// Bounds are documented limits: wide enough for absurd-but-valid plans
// (a 100T-parameter model, a million GPUs, a 4M-token context) and tight
// enough that every evaluation stays finite and bounded in time.
constexpr double kMaxDim = 1048576;    // 2^20
constexpr double kMaxSeq = 4194304;    // 2^22 tokens
constexpr double kMaxBatch = 1e8;

using Fields = std::vector<FieldSpec>;

void scenario_fields(Fields& f) {
  auto add = [&](FieldSpec s) { f.push_back(std::move(s)); };
  add({"mode", "mode", "enum", "", "training", 0, 0, names_of(mode_names()), "What to estimate: a training iteration or serving. May be left out when exactly one of the training / inference sections is given.", "scenario", kBoth});
  add({"model", "m", "preset", "", "llama3.1-8b", 0, 0, {"models"}, "Model preset id, or a custom model object.", "model", kBoth});
  add({"system", "s", "preset", "", "dgx-h100", 0, 0, {"systems"}, "System preset id, or a custom system object.", "system", kBoth});
}

// Multi-head latent attention, local attention patterns, linear-attention
// layers, MTP (a "mla", "attention" or "linear_attention" object is optional;
// inside it the fields without a default are required).
void architecture_fields(Fields& f) {
  auto add = [&](FieldSpec s) { f.push_back(std::move(s)); };
  add({"model.mla.q_lora_rank", "mlq", "int", "", 0, 0, kMaxDim, {}, "MLA query latent rank (0: no query compression).", "model", kBoth});
  add({"model.mla.kv_lora_rank", "mlk", "int", "", nullptr, 1, kMaxDim, {}, "MLA key/value latent rank d_c: cached per token per layer (a model without a mla object uses GQA).", "model", kBoth});
  add({"model.mla.qk_nope_head_dim", "mln", "int", "", nullptr, 1, 65536, {}, "MLA per-head query/key width without RoPE.", "model", kBoth});
  add({"model.mla.qk_rope_head_dim", "mlr", "int", "", nullptr, 0, 65536, {}, "MLA decoupled RoPE key width, shared by the heads and cached.", "model", kBoth});
  add({"model.mla.v_head_dim", "mlv", "int", "", nullptr, 1, 65536, {}, "MLA per-head value width.", "model", kBoth});
  add({"model.sparse_attention.top_k", "sak", "int", "tokens", nullptr, 1, kMaxSeq, {}, "DeepSeek Sparse Attention: tokens the attention core attends per query, chosen by the indexer (DeepSeek-V3.2: 2048; a model without a sparse_attention object attends every token).", "model", kBoth});
  add({"model.sparse_attention.index_heads", "sah", "int", "", nullptr, 1, 65536, {}, "Heads of the sparse-attention indexer (DeepSeek-V3.2: 64).", "model", kBoth});
  add({"model.sparse_attention.index_head_dim", "sad", "int", "", nullptr, 1, 65536, {}, "Per-head width of the indexer's queries and of the key it caches per token (DeepSeek-V3.2: 128).", "model", kBoth});
  add({"model.attention.window", "aw", "int", "tokens", nullptr, 1, kMaxSeq, {}, "Sliding window of the local layers (give window or chunk).", "model", kBoth});
  add({"model.attention.chunk", "ac", "int", "tokens", nullptr, 1, kMaxSeq, {}, "Chunk of the local layers' chunked attention (Llama 4).", "model", kBoth});
  add({"model.attention.global_every", "ag", "int", "layers", 0, 0, 100000, {}, "Every N-th layer attends the full context (0: none).", "model", kBoth});
  add({"model.attention.sinks", "as", "bool", "", false, 0, 0, {}, "Learned per-head attention sink logits (GPT-OSS).", "model", kBoth});
  add({"model.attention.output_gate", "aog", "bool", "", false, 0, 0, {}, "A sigmoid gate on the attention output, from a second half of the query projection (Qwen3-Next gated attention).", "model", kBoth});
  add({"model.linear_attention.kind", "lakn", "enum", "", "gated_deltanet", 0, 0, names_of(linear_kind_names()), "Mixer of the linear layers: Gated DeltaNet (Qwen3-Next) or Mamba-2's SSD (Bamba, Granite 4.0-H; its B/C groups are the key heads, d_state the key width, its heads the value heads).", "model", kBoth});
  add({"model.linear_attention.key_heads", "lak", "int", "", nullptr, 1, 65536, {}, "Query/key heads of the linear-attention layers (Mamba-2: n_groups of B and C). A model without a linear_attention object has softmax attention in every layer.", "model", kBoth});
  add({"model.linear_attention.value_heads", "lav", "int", "", nullptr, 1, 65536, {}, "Value heads (Mamba-2: heads): each keeps a key_head_dim x value_head_dim state per sequence.", "model", kBoth});
  add({"model.linear_attention.key_head_dim", "lakd", "int", "", nullptr, 1, 65536, {}, "Per-head query/key width of the linear-attention layers (Mamba-2: d_state).", "model", kBoth});
  add({"model.linear_attention.value_head_dim", "lavd", "int", "", nullptr, 1, 65536, {}, "Per-head value width of the linear-attention layers (Mamba-2: head_dim).", "model", kBoth});
  add({"model.linear_attention.conv_kernel", "lack", "int", "", 4, 1, 64, {}, "Width of the causal depthwise convolution over q, k and v (Mamba-2: x, B and C).", "model", kBoth});
  add({"model.linear_attention.chunk", "lach", "int", "tokens", 0, 0, 4096, {}, "Chunk length of the chunked (parallel) form that training and prefill run; 0: the kernel's own (flash-linear-attention's Gated DeltaNet 64, mamba_ssm's Mamba-2 256).", "model", kBoth});
  add({"model.linear_attention.full_every", "laf", "int", "layers", 4, 0, 100000, {}, "Every N-th layer keeps softmax attention, the others are linear (Qwen3-Next: 4; 0: every layer is linear).", "model", kBoth});
  add({"model.linear_attention.full_layers", "lafn", "int", "layers", 0, 0, 100000, {}, "Softmax-attention layers spread evenly over the model, for patterns no full_every gives; in place of full_every when above 0 (0: every full_every-th layer).", "model", kBoth});
  add({"model.linear_attention.state_precision", "lasp", "enum", "", "fp32", 0, 0, names_of(state_precision_names()), "Element type of the linear layers' recurrent state (fp32 as flash-linear-attention keeps it; a serving engine may store it in 16 bits).", "model", kBoth});
  add({"model.mixer_only_layers", "mxo", "int", "layers", 0, 0, 1048576, {}, "Layers with a token mixer and no MLP after it (Nemotron-H: a Mamba-2 block followed directly by another mixer). With moe they are MoE layers without their MoE block (Nemotron 3).", "model", kBoth});
  add({"model.mtp_layers", "mtp", "int", "", 0, 0, 16, {}, "Multi-token prediction modules trained with the model (DeepSeek-V3: 1).", "model", kBoth});
}

void model_fields(Fields& f) {
  auto add = [&](FieldSpec s) { f.push_back(std::move(s)); };
  add({"model.name", "mnm", "string", "", nullptr, 0, 100, {}, "Label shown with the results.", "model", kBoth});
  add({"model.layers", "ml", "int", "", nullptr, 1, 100000, {}, "Transformer blocks.", "model", kBoth});
  add({"model.hidden", "mh", "int", "", nullptr, 1, kMaxDim, {}, "Model width h.", "model", kBoth});
  add({"model.heads", "ma", "int", "", nullptr, 1, 65536, {}, "Attention (query) heads.", "model", kBoth});
  add({"model.kv_heads", "mk", "int", "", nullptr, 1, 65536, {}, "Key/value heads (GQA; 1 = MQA). Default: heads.", "model", kBoth});
  add({"model.head_dim", "md", "int", "", nullptr, 1, 65536, {}, "Per-head width. Default: hidden / heads.", "model", kBoth});
  add({"model.ffn_hidden", "mf", "int", "", nullptr, 1, 4 * kMaxDim, {}, "Feed-forward inner width. Default: 4 x hidden.", "model", kBoth});
  add({"model.ffn_type", "mt", "enum", "", "gelu", 0, 0, names_of(ffn_type_names()), "gelu/relu2: 2 matrices; swiglu/geglu: 3.", "model", kBoth});
  add({"model.norm", "mn", "enum", "", "layernorm", 0, 0, names_of(norm_names()), "Normalisation layer.", "model", kBoth});
  add({"model.vocab", "mv", "int", "", nullptr, 1, 1e8, {}, "Vocabulary size.", "model", kBoth});
  add({"model.seq_len", "ms", "int", "tokens", 2048, 1, kMaxSeq, {}, "Default sequence length.", "model", kBoth});
  // Up to 2^24: Llama 4 Scout publishes a 10M-token context.
  add({"model.context", "mcx", "int", "tokens", nullptr, 1, 16777216, {}, "Context window: the most tokens (prompt and output) a sequence may hold, as the model card publishes it (config.json max_position_embeddings); serving beyond it is flagged. Default: seq_len.", "model", kBoth});
  add({"model.tied_embeddings", "me", "bool", "", false, 0, 0, {}, "Input and output embeddings share weights.", "model", kBoth});
  add({"model.bias", "mbi", "bool", "", false, 0, 0, {}, "Linear layers carry biases (GPT-2/3 style).", "model", kBoth});
  add({"model.dropout", "mdo", "bool", "", true, 0, 0, {}, "Hidden and attention dropout (Megatron's default; stores masks).", "model", kBoth});
  add({"model.learned_positions", "mlp", "bool", "", false, 0, 0, {}, "Learned absolute position embeddings (GPT-2/3 style); off: rotary embeddings (RoPE), a kernel over q and k in training.", "model", kBoth});
  add({"model.qk_norm", "mqk", "bool", "", false, 0, 0, {}, "QK-Norm: each head's queries and keys are normalised before attention (Qwen3, Gemma 3, OLMo 2).", "model", kBoth});
  // A "moe" object makes the model a mixture of experts: experts is required.
  add({"model.moe.experts", "xe", "int", "", nullptr, 2, 65536, {}, "Routed experts per MoE layer (a model without a moe object is dense).", "model", kBoth});
  add({"model.moe.top_k", "xk", "int", "", 1, 1, 65536, {}, "Experts per token.", "model", kBoth});
  add({"model.moe.ffn_hidden", "xf", "int", "", nullptr, 1, 4 * kMaxDim, {}, "Inner width of one expert. Default: the model's ffn_hidden.", "model", kBoth});
  add({"model.moe.shared_experts", "xs", "int", "", 0, 0, 1024, {}, "Always-active shared experts.", "model", kBoth});
  add({"model.moe.dense_layers", "xd", "int", "", 0, 0, 100000, {}, "Leading dense layers.", "model", kBoth});
  add({"model.moe.shared_ffn_hidden", "xsf", "int", "", nullptr, 1, 4 * kMaxDim, {}, "Inner width of one shared expert. Default: the expert ffn_hidden.", "model", kBoth});
  add({"model.moe.groups", "xgr", "int", "", 1, 1, 65536, {}, "Expert groups for group-limited routing (DeepSeek n_group): contiguous blocks of experts; 1 = no groups.", "model", kBoth});
  add({"model.moe.top_groups", "xtg", "int", "", 0, 0, 65536, {}, "Groups a token's experts may come from (DeepSeek topk_group; V3: 4 of 8, one group per node: node-limited routing). 0 = all.", "model", kBoth});
  add({"model.moe.every", "xev", "int", "", 1, 1, 1024, {}, "After the dense layers, every N-th layer is MoE, the others dense (Llama 4 Maverick: 2).", "model", kBoth});
  architecture_fields(f);
}

// The system figures a person edits most. A system is a preset (or a whole
// object) whose device and network lists are data; these fields address
// one number inside it by `at`, so the page and the sweep change it in place.
void system_fields(Fields& f) {
  auto add = [&](const char* key, const char* url, const char* type, const char* unit, double lo, double hi,
                 const char* help, const char* at, std::vector<std::string> clear = {}, const char* label = "") {
    FieldSpec s{key, url, type, unit, nullptr, lo, hi, {}, help, "system", kBoth};
    s.at = at;
    s.clear = std::move(clear);
    s.label = label;
    f.push_back(std::move(s));
  };
  add("system.peak_bf16_tflops", "sbf", "number", "TFLOP/s", 0.001, 1e6, "Device dense bf16 matmul peak.", "device.matmul_tflops.bf16");
  add("system.peak_fp8_tflops", "sf8", "number", "TFLOP/s", 0, 1e6, "Device dense fp8 matmul peak (0: none).", "device.matmul_tflops.fp8");
  add("system.matmul_eff", "sme", "number", "", 0.01, 1, "Sustained 16-bit GEMM throughput / peak (library ceiling).", "device.efficiency.matmul.bf16");
  add("system.hbm_GiB", "shc", "number", "GiB", 1e-9, 1e6, "Device memory (HBM) capacity.", "device.memory.hbm.capacity_GiB", {"capacity_MiB"}, "HBM");
  add("system.hbm_GBps", "shb", "number", "GB/s", 0.001, 1e7, "Device memory (HBM) bandwidth.", "device.memory.hbm.bandwidth_GBps", {}, "HBM");
  add("system.l2_MiB", "sl2", "number", "MiB", 1e-6, 1e5, "L2 cache capacity.", "device.memory.l2.capacity_MiB", {"capacity_GiB"});
  add("system.l2_GBps", "slb", "number", "GB/s", 0.001, 1e7, "L2 cache bandwidth.", "device.memory.l2.bandwidth_GBps");
  add("system.nvlink_GBps", "snv", "number", "GB/s", 0.001, 1e6, "Scale-up bandwidth per GPU, one direction: the innermost network tier (NVLink, Infinity Fabric, TPU ICI).", "network.0.bandwidth_GBps", {}, "scale-up link");
  add("system.nvlink_span", "sns", "int", "GPUs", 1, 1 << 30, "GPUs in one scale-up domain (NVLink, Infinity Fabric, ICI slice).", "network.0.span_gpus", {}, "scale-up domain");
  add("system.ib_GBps", "sib", "number", "GB/s", 0.001, 1e6, "Scale-out bandwidth per GPU, one direction: the second network tier (InfiniBand, Ethernet, TPU DCN).", "network.1.bandwidth_GBps", {}, "scale-out link");
  add("system.gpus_per_node", "sgn", "int", "GPUs", 1, 1 << 20, "GPUs per node.", "gpus_per_node", {}, "GPUs per node");
  // The host side per GPU, for offload (a system without one needs all three).
  add("system.host_link_GBps", "shl", "number", "GB/s", 0.1, 1e5, "Host-device copy rate per GPU, one direction (PCIe, NVLink-C2C): what offload copies (gradients, weights, activations).", "host.link_GBps", {}, "host link");
  add("system.host_memory_GBps", "shm", "number", "GB/s", 1, 1e6, "CPU memory bandwidth per GPU (the node's over its GPUs): optimizer offload's step streams through it.", "host.memory_GBps", {}, "host memory bandwidth");
  add("system.host_memory_GiB", "shg", "number", "GiB", 1, 1e7, "CPU memory per GPU (the node's over its GPUs): holds what is offloaded.", "host.memory_GiB", {}, "host memory");
}

void parallelism_fields(Fields& f) {
  auto add = [&](FieldSpec s) { f.push_back(std::move(s)); };
  add({"parallelism.tp", "tp", "int", "", 1, 1, kMaxDim, {}, "Tensor parallel degree (Megatron).", "parallelism", kBoth});
  add({"parallelism.pp", "pp", "int", "", 1, 1, kMaxDim, {}, "Pipeline stages.", "parallelism", kBoth});
  add({"parallelism.dp", "dp", "int", "", 1, 1, kMaxDim, {}, "Data-parallel replicas.", "parallelism", kBoth});
  add({"parallelism.cp", "cp", "int", "", 1, 1, kMaxDim, {}, "Context parallel degree.", "parallelism", kTrain});
  add({"parallelism.ep", "ep", "int", "", 1, 1, kMaxDim, {}, "Expert parallel degree: each rank holds experts / ep of every MoE layer; etp x ep divides tp x cp x dp. Serving: inside a tp group (tp 8, ep 8, etp 1) or across data-parallel replicas (tp 1, dp 8, ep 8: all-to-all dispatch).", "parallelism", kBoth});
  add({"parallelism.etp", "etp", "int", "", nullptr, 1, kMaxDim, {}, "Expert tensor parallel degree (MoE parallel folding: etp x ep divides tp x cp x dp). Default: tp when ep divides dp x cp, else 1; serving with ep dividing tp: tp / ep (TensorRT-LLM moe_tp x moe_ep = tp).", "parallelism", kBoth});
  add({"parallelism.sp", "sp", "bool", "", false, 0, 0, {}, "Megatron sequence parallelism.", "parallelism", kTrain});
  add({"parallelism.pp_schedule", "ps", "enum", "", "1f1b", 0, 0, names_of(schedule_names()), "Pipeline schedule.", "parallelism", kTrain});
  add({"parallelism.virtual_stages", "vs", "int", "", 1, 1, 1024, {}, "Model chunks per stage (interleaved schedule).", "parallelism", kTrain});
  add({"parallelism.zero", "z", "int", "", 0, 0, 3, {}, "ZeRO stage: 1 optimizer states, 2 +gradients (reduced every micro-batch), 3 +weights sharded over dp.", "parallelism", kTrain});
  add({"parallelism.zero_shard", "zs", "int", "", nullptr, 1, kMaxDim, {}, "Hybrid sharding (HSDP): ZeRO states shard over this many of the dp x cp ranks (the innermost, e.g. one node) and the groups replicate, all-reducing their gradient shards. Default: all dp x cp ranks.", "parallelism", kTrain});
  add({"parallelism.gather_precision", "zgp", "enum", "", "auto", 0, 0, names_of(gather_precision_names()), "Weights in ZeRO/FSDP all-gathers: auto = the 16-bit copy (Megatron, PyTorch FSDP), fp32 = master weights (JAX FSDP), fp8 = fp8 parameter gather.", "parallelism", kTrain});
  add({"parallelism.reduce_precision", "zrp", "enum", "", "fp32", 0, 0, names_of(reduce_precision_names()), "Gradient reduction precision across data parallelism (fp32: Megatron bf16 default, FSDP reduce_dtype fp32).", "parallelism", kTrain});
}

void training_fields(Fields& f) {
  auto add = [&](FieldSpec s) { f.push_back(std::move(s)); };
  add({"training.global_batch", "gb", "int", "sequences", 512, 1, kMaxBatch, {}, "Sequences per iteration.", "training", kTrain});
  add({"training.micro_batch", "mb", "int", "sequences", 1, 1, 1e6, {}, "Sequences per micro-batch.", "training", kTrain});
  add({"training.seq_len", "sl", "int", "tokens", nullptr, 1, kMaxSeq, {}, "Sequence length. Default: the model's.", "training", kTrain});
  add({"training.precision", "pr", "enum", "", "bf16", 0, 0, names_of(training_precision_names()), "Math precision (mixed precision with fp32 master weights).", "training", kTrain});
  add({"training.recompute", "rc", "enum", "", "selective", 0, 0, names_of(recompute_names()), "Activation recomputation: selective = Megatron's (attention core), full = whole layers, selective_op = PyTorch op-level (torchtitan: keeps every other matmul's output and the attention output, recomputes the rest).", "training", kTrain});
  add({"training.recompute_layers", "rcl", "int", "layers", 0, 0, 100000, {}, "With full recompute: layers per checkpointed chunk (uniform) or recomputed per stage (block); 0 = every layer.", "training", kTrain});
  add({"training.recompute_method", "rcm", "enum", "", "uniform", 0, 0, names_of(recompute_method_names()), "Megatron --recompute-method: uniform chunks of recompute_layers, or only recompute_layers layers per stage.", "training", kTrain});
  add({"training.recompute_to_fit", "rcf", "bool", "", true, 0, 0, {}, "With recompute none or selective on a plan whose activations exceed the device memory, recompute the fewest whole layers per stage (Megatron block method) that make it fit, as the framework must have; every layer under ZeRO-3 without tp or pp (FSDP and JAX checkpoint every block); false keeps none and reports the overflow.", "training", kTrain});
  add({"training.optimizer", "op", "enum", "", "adam", 0, 0, names_of(optimizer_names()), "Optimizer.", "training", kTrain});
  add({"training.flash_attention", "fa", "bool", "", true, 0, 0, {}, "Fused FlashAttention (no s^2 score tensor).", "training", kTrain});
  add({"training.attention_kernel", "atk", "enum", "", "best", 0, 0, {"best", "fa1", "fa2", "fa3"}, "Fused attention kernel: best on the GPU, fa1 (FlashAttention 1 / Triton), fa2, fa3 (FlashAttention-3 / cuDNN, Hopper+).", "training", kTrain});
  add({"training.fusion", "fus", "enum", "", "fused", 0, 0, names_of(fusion_names()), "Element-wise kernels: fused = one kernel per norm, activation, rotary embedding and loss (Megatron-Core / Transformer Engine; torch.compile fuses them alike); eager = PyTorch eager modules as Hugging Face transformers writes them (and torchtitan of 2024), without torch.compile: RMSNorm, the gated activation, the rotary embedding and the cross-entropy run as one kernel per tensor operation, the norms and the loss in fp32, with more memory traffic, launches and saved activations. LayerNorm and GELU are single kernels either way.", "training", kTrain});
  f.back().label = "element-wise kernels";
  add({"training.host_overhead_us", "hov", "number", "us", nullptr, 0, 10000, {}, "Host (CPU) time per launched kernel; shorter kernels make the step CPU-bound. Default: the system's (GPUs 20 us, eager PyTorch per the Nsight Systems guide; TPUs 0, XLA). 0 = CUDA graphs.", "training", kTrain});
  add({"training.overlap.dp", "od", "bool", "", true, 0, 0, {}, "Hide data-parallel gradient reduction behind backward.", "training", kTrain});
  add({"training.overlap.tp", "ot", "bool", "", false, 0, 0, {}, "Hide tensor-parallel communication behind compute.", "training", kTrain});
  add({"training.overlap.pp", "oq", "bool", "", true, 0, 0, {}, "Hide pipeline transfers behind compute.", "training", kTrain});
  add({"training.overlap.ep", "oe", "bool", "", false, 0, 0, {}, "Hide the MoE all-to-all behind another micro-batch's compute (Megatron-Core EP overlap).", "training", kTrain});
  add({"training.moe_balance", "mbl", "enum", "", "random", 0, 0, names_of(moe_balance_names()), "MoE routing load: expected maximum of top-k routing, or forced balance (benchmarks).", "training", kTrain});
  add({"training.moe_dispatch_precision", "mdq", "enum", "", "bf16", 0, 0, names_of(dispatch_precision_names()), "Precision of the token copies the expert-parallel dispatch sends: bf16 (Megatron-Core casts after the all-to-all) or fp8 (DeepSeek-V3: quantised before the dispatch, and the gradients before the backward's; combines stay bf16). fp8 needs fp8 or fp4 training.", "training", kTrain});
  add({"training.moe_dispatcher", "mdp", "enum", "", "alltoall", 0, 0, names_of(moe_dispatcher_names()), "Expert-parallel token dispatch: alltoall = every token copy to its expert's rank (NCCL); deepep = once per remote node, then NVLink forwarding (DeepEP).", "training", kTrain});
  add({"training.moe_capacity_factor", "mcf", "number", "", 0, 0, 1000, {}, "Expert capacity as a multiple of the mean load (0: dropless).", "training", kTrain});
  add({"training.fp8_recipe", "f8", "enum", "", "delayed", 0, 0, names_of(fp8_recipe_names()), "FP8 scaling: per-tensor delayed or current scaling, or MXFP8 32-element blocks.", "training", kTrain});
  add({"training.lora_rank", "lr", "int", "", 0, 0, 65536, {}, "LoRA fine-tuning (Hu et al. 2021): rank of the adapters trained beside frozen weights; frozen weights take no weight gradient, gradient buffer or optimizer state. 0 = every weight trains.", "training", kTrain});
  add({"training.lora_targets", "lt", "enum", "", "all", 0, 0, names_of(lora_target_names()), "Linear layers with LoRA adapters: all = attention, MLP and shared-expert projections (QLoRA; routed experts stay frozen without adapters), all_experts = those and every routed expert's (PEFT all-linear on per-expert modules), attention = the attention projections.", "training", kTrain});
  add({"training.offload", "ofl", "enum", "", "none", 0, 0, names_of(offload_names()), "optimizer = ZeRO-Offload: the fp32 gradients, master weights and optimizer states live in host memory and the CPUs run the optimizer step; the GPUs keep the 16-bit weights and gradients. With ZeRO 1 or more each rank offloads its shard (ZeRO-Offload), else the whole optimizer. parameters = ZeRO-Infinity / FSDP CPUOffload (ZeRO 3): the 16-bit weights too, fetched from the host unit by unit; the GPU holds only the units in flight. Needs a system with host figures (system.host).", "training", kTrain});
  add({"training.offload_activations", "ofa", "int", "layers", 0, 0, 100000, {}, "Activation offload (Megatron-Core / NeMo CPU offloading, cpu_offloading_num_layers): layers whose saved activations wait in host memory between their forward and backward, copied over the host link beside the next layer's compute. 0 = none; needs pp 1 and system.host.", "training", kTrain});
  add({"training.frozen_weights", "fw", "enum", "", "16bit", 0, 0, names_of(frozen_weight_names()), "Storage of the frozen linear weights with LoRA: 16bit, or nf4 = QLoRA's 4-bit NormalFloat with double quantisation (4.127 bits per weight), dequantised to 16-bit before each GEMM; embeddings, norms and the LM head stay 16-bit.", "training", kTrain});
  add({"training.tokens", "tk", "number", "tokens", nullptr, 0, 1e16, {}, "Total training tokens (gives time to train).", "training", kTrain});
}

void inference_fields(Fields& f) {
  auto add = [&](FieldSpec s) { f.push_back(std::move(s)); };
  add({"inference.batch", "b", "int", "sequences", 8, 1, kMaxBatch, {}, "Concurrent sequences.", "inference", kInfer});
  add({"inference.input_tokens", "in", "int", "tokens", 2048, 1, kMaxSeq, {}, "Prompt length.", "inference", kInfer});
  add({"inference.output_tokens", "out", "int", "tokens", 256, 1, kMaxSeq, {}, "Generated tokens per sequence.", "inference", kInfer});
  add({"inference.batching", "bt", "enum", "", "static", 0, 0, names_of(batching_names()), "static: the batch is prefilled, then decoded together. inflight: a serving scheduler (TensorRT-LLM in-flight, vLLM continuous batching) keeps up to batch sequences in flight, capped by what the KV cache holds.", "inference", kInfer});
  add({"inference.weight_precision", "wp", "enum", "", "bf16", 0, 0, names_of(weight_precision_names()), "Stored weight precision.", "inference", kInfer});
  add({"inference.weight_group_size", "wg", "int", "weights", 128, 1, 65536, {}, "int4 weights per group sharing a 16-bit scale and zero point (GPTQ/AWQ 128, gpt-fast 32).", "inference", kInfer});
  add({"inference.kv_precision", "kp", "enum", "", "bf16", 0, 0, names_of(kv_precision_names()), "KV-cache precision.", "inference", kInfer});
  add({"inference.compute_precision", "ic", "enum", "", "bf16", 0, 0, names_of(math_precision_names()), "Math precision of the GEMMs.", "inference", kInfer});
  add({"inference.flash_attention", "ifa", "bool", "", true, 0, 0, {}, "Fused attention kernels.", "inference", kInfer});
  add({"inference.decode_attention", "dat", "enum", "", "auto", 0, 0, names_of(decode_attention_names()), "Decode attention kernel: grouped (each KV head loaded once for its query group: TensorRT-LLM XQA, FlashInfer), per_head (one thread block per query head: masked MHA, vLLM PagedAttention; over an fp8 or int8 cache it converts every element once per query head, bound by the device's conversion rate), auto (grouped when the query group is a multiple of 8, else per_head).", "inference", kInfer});
  add({"inference.shared_prefix_tokens", "spx", "int", "tokens", 0, 0, kMaxSeq, {}, "Prefix caching: leading prompt tokens shared by every request (system prompt, few-shot examples) whose KV is already cached, held once per replica; prefill computes only the rest of the prompt. Less than input tokens.", "inference", kInfer});
  add({"inference.token_budget", "tbg", "int", "tokens", 0, 0, kMaxSeq, {}, "Chunked prefill (Sarathi-Serve; vLLM max_num_batched_tokens, TensorRT-LLM max_num_tokens): with in-flight batching, tokens per engine step; prompts are prefilled in chunks beside the running decodes, which share the weight reads. 0 = whole prompts between decode steps.", "inference", kInfer});
  add({"inference.prefill_tp", "ptp", "int", "GPUs", 0, 0, kMaxDim, {}, "Disaggregated serving (DistServe, NVIDIA Dynamo): prefill runs on separate instances of this many tensor-parallel GPUs and sends each prompt's KV cache to the decode instance (the parallelism above); as many prefill instances as keep the decode instance fed. 0 = prefill and decode on the same GPUs.", "inference", kInfer});
  add({"inference.prefill_batch", "pfb", "int", "prompts", 1, 1, kMaxBatch, {}, "Disaggregated serving: prompts a prefill instance prefills together (larger: fewer prefill GPUs, longer time to first token).", "inference", kInfer});
  add({"inference.target_requests_per_s", "rps", "number", "requests/s", 0, 0, 1e9, {}, "Capacity planning: requests per second to serve; the result gives the replicas (with disaggregation, decode and prefill instances) and GPUs it takes at this plan's steady rate. 0 = not asked.", "inference", kInfer});
  add({"inference.draft_tokens", "dt", "int", "tokens", 0, 0, 16, {}, "Speculative decoding: tokens a draft head proposes per decode step (0: off); the target verifies them and one more in one pass.", "inference", kInfer});
  add({"inference.draft_acceptance", "da", "number", "", 0.7, 0, 1, {}, "Probability that the target accepts each drafted token (alpha, Leviathan et al. 2023): tokens per step (1 - alpha^(n+1)) / (1 - alpha). DeepSeek-V3 reports 85-90% for its one MTP token.", "inference", kInfer});
  add({"inference.draft_layers", "dl", "int", "layers", 1, 1, 16, {}, "Layers of the draft head, each shaped as the target's (an MTP module or EAGLE head: 1), run once per drafted token with the target's LM head.", "inference", kInfer});
  add({"inference.moe_gemm", "mgk", "enum", "", "auto", 0, 0, names_of(moe_gemm_names()), "MoE expert GEMMs: legacy16 (Ampere-generation grouped GEMM in 16-bit math, TensorRT-LLM <= 0.9 / FasterTransformer) or native (the device's own kernels at the compute precision). auto: legacy16 for 16-bit and fp8 experts on Hopper (efficiency.legacy_mma below 1) when its 16-bit experts fit; native for fp4-family experts, on Blackwell, which only the newer kernels serve, and on other devices.", "inference", kInfer});
}

// The technology data (core/presets/technology) names the architectures,
// nodes and HBM generations a budget may ask for.
std::vector<std::string> technology_keys(const char* table) {
  std::vector<std::string> out;
  const json& t = all_presets().at("technology").at("technology");
  if (t.at(table).is_array()) {
    for (const json& n : t.at(table)) out.push_back(n.at("node").get<std::string>());
  } else {
    for (auto it = t.at(table).begin(); it != t.at(table).end(); ++it) out.push_back(it.key());
  }
  return out;
}

// Cost and energy (docs/sources.md [CE4.1], [CE4.2], [CE6]): the price of a
// GPU-hour is the user's; the power and grid defaults are cited typical values.
void cost_fields(Fields& f) {
  auto add = [&](FieldSpec s) { f.push_back(std::move(s)); };
  FieldSpec price{"cost.gpu_hour_usd", "cgh", "number", "USD", 0, 0, 1e6, {}, "Price of one GPU-hour (cloud on-demand or reserved, or ownership); 0: no dollar figures. H100 on-demand was $2-4 in 2025-26, A100 $1-4 (Epoch AI price archive).", "cost", kBoth};
  price.label = "price per GPU-hour";
  add(price);
  add({"cost.power_fraction", "cpf", "number", "", 0.75, 0.01, 1.5, {}, "Average node power over its maximum (devices, host, NICs) while running: 0.75 (Epoch AI default; 0.76 measured on an 8x H100 node in training).", "cost", kBoth});
  add({"cost.pue", "cpu", "number", "", 1.25, 1, 3, {}, "Facility power / IT power: 1.25 (Epoch AI default outside hyperscalers; those run ~1.1, the industry average is 1.58).", "cost", kBoth});
  add({"cost.usd_per_kwh", "cek", "number", "USD", 0.0806, 0, 10, {}, "Electricity price per kWh: 0.0806 (US industrial, 2023, EIA).", "cost", kBoth});
  FieldSpec carbon{"cost.g_co2_per_kwh", "cco", "number", "g/kWh", 481, 0, 2000, {}, "Grid carbon intensity, gCO2 per kWh: 481 (world average 2023, Ember); US 390, France 56.", "cost", kBoth};
  carbon.label = "grid carbon intensity";
  add(carbon);
}

// Interruptions and checkpoints of a training run (docs/sources.md [RL1]):
// Llama 3 405B pre-training on 16,384 H100 (Dubey et al. 2024, §3.3.1 and
// §3.3.4) gives the interruption rate, the storage and the restart bound.
void reliability_fields(Fields& f) {
  auto add = [&](FieldSpec s, const char* label = "") {
    s.label = label;
    f.push_back(std::move(s));
  };
  add({"reliability.gpu_hours_per_interruption", "rgi", "number", "GPU-hours", 45566, 1, 1e9, {}, "GPU-hours between interruptions (failures and maintenance): a job of N GPUs stops every this / N hours. 45,566: Llama 3 405B pre-training, 466 interruptions in 54 days on 16,384 H100 (Dubey et al. 2024, §3.3.4).", "reliability", kTrain}, "between interruptions");
  add({"reliability.storage_GBps_per_gpu", "rsb", "number", "GB/s", 0.122, 1e-4, 1e4, {}, "Checkpoint write rate per GPU (the storage's over the job's GPUs); a checkpoint pauses training while each GPU writes its share of the weights and optimizer states. 0.122: Meta's Tectonic, 2 TB/s sustained, over 16,384 GPUs (Dubey et al. 2024, §3.3.1).", "reliability", kTrain}, "checkpoint write per GPU");
  add({"reliability.restart_s", "rrs", "number", "s", 815, 0, 1e7, {}, "Time from an interruption to training again (detect, reschedule, start, load the checkpoint). 815: the value at which this model gives Llama 3 405B on 16,384 H100 the 90% effective training time Meta reports as its floor (Dubey et al. 2024, §3.3.4), so an upper bound.", "reliability", kTrain});
  add({"reliability.checkpoint_interval_s", "rci", "number", "s", 0, 0, 1e9, {}, "Training time between checkpoints; 0: the interval that maximises goodput (Young 1974; Daly 2006).", "reliability", kTrain});
}

// Fields of the requests that run on a scenario (search, sweep) or stand
// alone (study, derive). They are not scenario inputs: the form skips them.
void request_fields(Fields& f) {
  auto add = [&](const char* request, FieldSpec s) {
    s.request = request;
    s.group = request;
    s.modes = kBoth;
    f.push_back(std::move(s));
  };
  add("search", {"search.gpus", "qg", "int", "GPUs", nullptr, 1, 1 << 24, {}, "GPUs to plan for. Default: the scenario's."});
  add("search", {"search.top", "qt", "int", "", 10, 1, 1000, {}, "Plans to return, best first."});
  add("search", {"search.max_ttft_s", "qf", "number", "s", nullptr, 0, 1e6, {}, "Inference: the longest acceptable time to first token."});
  add("search", {"search.max_tpot_s", "qo", "number", "s", nullptr, 0, 1e6, {}, "Inference: the longest acceptable time per output token."});
  add("search", {"search.memory_share", "qm", "number", "", 1.0, 0.5, 1, {}, "A plan fits when its memory per device is at most this share of the device's. 1 = all of it; below 1 leaves room for what the model does not count (the runtime's context, communication buffers, allocator fragmentation)."});
  add("search", {"search.vary", "qv", "enum", "", "unset", 0, 0, {"unset", "plan"}, "What the search may change: \"unset\", the plan inputs the scenario leaves out (those it gives stay fixed); \"plan\", the whole plan (parallelism, schedule, ZeRO stage, micro-batch, recompute, prefill split), whatever the scenario gives. Model, system, batch sizes and precisions stay as given."});
  add("search", {"search.more_gpus", "qx", "bool", "", true, 0, 0, {}, "When no plan fits on the GPUs: search doubling GPU counts, from the fewest whose memory could hold the weights (and for training the gradients and optimizer states), for the fewest on which a plan fits (up to 6 more searches)."});
  add("sweep", {"sweep.input", "wi", "string", "", nullptr, 0, 200, {}, "The input to vary: a key of this table or a dotted scenario path."});
  add("sweep", {"sweep.from", "wf", "number", "", nullptr, -1e15, 1e15, {}, "First value."});
  add("sweep", {"sweep.to", "wt", "number", "", nullptr, -1e15, 1e15, {}, "Last value."});
  add("sweep", {"sweep.steps", "wn", "int", "", 10, 1, 1000, {}, "Points, ends included."});
  add("sweep", {"sweep.scale", "wl", "enum", "", "lin", 0, 0, {"lin", "log"}, "Spacing of the points."});
  add("sweep", {"sweep.outputs", "wo", "list", "", nullptr, 1, 32, {}, "Output paths to record, e.g. training.mfu."});
  add("sweep", {"sweep.series", "wr", "list", "", nullptr, 1, 16, {}, "System presets: one line per system (the page's series)."});
  add("study", {"study.name", "study", "enum", "", "gpu-generations", 0, 0,
                {"gpu-generations", "technology-nodes", "dram-scaling", "inference-boundedness", "systems", "scaling", "models",
                 "published-runs"},
                "The study to run (systems: the scenario on every system preset; scaling: on an eighth of its GPUs to "
                "eight times as many; models: every model preset in its place; the parallelism searched in each case; "
                "published-runs: every published measurement the model is validated against, rerun)."});
  add("derive", {"budget.architecture", "tr", "enum", "", "hopper", 0, 0, technology_keys("architectures"), "Micro-architecture of the derived device."});
  add("derive", {"budget.node", "", "enum", "", "5nm", 0, 0, technology_keys("nodes"), "Technology node (derive only; the study runs every node)."});
  add("derive", {"budget.die_area_mm2", "ta", "number", "mm2", 814, 50, 10000, {}, "Compute die area."});
  add("derive", {"budget.package_area_mm2", "tx", "number", "mm2", 1330, 50, 100000, {}, "Package area (die + HBM); at least the die area."});
  add("derive", {"budget.tdp_W", "tw", "number", "W", 700, 50, 10000, {}, "Power budget."});
  add("derive", {"budget.hbm", "th", "enum", "", nullptr, 0, 0, technology_keys("hbm"), "HBM generation. Default: the node's."});
}

// Sets `flag` on each field `keys` names (a key the table lacks is a
// programming error).
template <size_t N>
void mark(Fields& fields, const char* const (&keys)[N], bool FieldSpec::*flag, const char* what) {
  for (const char* key : keys) {
    auto it = std::find_if(fields.begin(), fields.end(), [&](const FieldSpec& f) { return f.key == key; });
    if (it == fields.end()) throw std::logic_error(std::string(what) + " field not in the schema: " + key);
    (*it).*flag = true;
  }
}

// The settings most runs leave at their defaults; the page shows them on
// request (a set one always shows), so the form opens with what describes
// the run: its parallelism, batch, sequence, precision and recompute.
void mark_advanced(Fields& fields) {
  static const char* const kAdvanced[] = {
      "parallelism.etp", "parallelism.zero_shard", "parallelism.gather_precision", "parallelism.reduce_precision",
      "training.recompute_layers", "training.recompute_method", "training.recompute_to_fit", "training.offload_activations",
      "training.attention_kernel", "training.fusion", "training.host_overhead_us", "training.overlap.dp", "training.overlap.tp",
      "training.overlap.pp", "training.overlap.ep", "training.moe_balance", "training.moe_dispatch_precision",
      "training.moe_dispatcher", "training.moe_capacity_factor", "training.fp8_recipe", "training.lora_targets",
      "training.frozen_weights", "inference.weight_group_size", "inference.flash_attention",
      "inference.decode_attention", "inference.shared_prefix_tokens", "inference.token_budget",
      "inference.prefill_tp", "inference.prefill_batch", "inference.draft_layers", "inference.draft_acceptance",
      "inference.moe_gemm", "cost.power_fraction", "cost.pue", "cost.usd_per_kwh", "cost.g_co2_per_kwh",
      "reliability.storage_GBps_per_gpu", "reliability.restart_s", "reliability.checkpoint_interval_s"};
  mark(fields, kAdvanced, &FieldSpec::advanced, "advanced");
}

// Fields whose texts say "GPU" for the system's device, or "HBM" for its
// device memory (FieldSpec::device_words).
void mark_device_words(Fields& fields) {
  static const char* const kDeviceWords[] = {
      "system.hbm_GiB", "system.hbm_GBps", "system.nvlink_GBps", "system.nvlink_span", "system.ib_GBps",
      "system.gpus_per_node", "system.host_link_GBps", "system.host_memory_GBps", "system.host_memory_GiB",
      "training.offload", "inference.prefill_tp", "inference.prefill_batch", "inference.target_requests_per_s",
      "cost.gpu_hour_usd", "reliability.gpu_hours_per_interruption", "reliability.storage_GBps_per_gpu",
      "search.gpus", "search.more_gpus", "study.name"};
  mark(fields, kDeviceWords, &FieldSpec::device_words, "device-word");
}

Fields build() {
  Fields f;
  scenario_fields(f);
  model_fields(f);
  system_fields(f);
  parallelism_fields(f);
  training_fields(f);
  inference_fields(f);
  cost_fields(f);
  reliability_fields(f);
  request_fields(f);
  mark_advanced(f);
  mark_device_words(f);
  return f;
}

json field_json(const FieldSpec& f) {
  json j = {{"key", f.key}, {"url", f.url}, {"type", f.type}, {"unit", f.unit}, {"default", f.def},
            {"help", f.help}, {"group", f.group}, {"modes", f.modes}};
  if (f.type == "int" || f.type == "number" || f.type == "list" || f.type == "string") {
    j["min"] = f.lo;
    j["max"] = f.hi;
  }
  if (f.type == "enum") j["values"] = f.values;
  if (f.type == "preset") j["kind"] = f.values.at(0);
  if (!f.at.empty()) j["at"] = f.at;
  if (!f.clear.empty()) j["clear"] = f.clear;
  if (!f.label.empty()) j["label"] = f.label;
  if (!f.request.empty()) j["request"] = f.request;
  if (f.advanced) j["advanced"] = true;
  if (f.device_words) j["device_words"] = true;
  return j;
}

// Starting points for a first visit: realistic runs that fit.
json examples() {
  return {{"training",
           {{"mode", "training"}, {"model", "llama3.1-8b"}, {"system", "dgx-h100"},
            {"parallelism", {{"tp", 2}, {"pp", 1}, {"dp", 4}, {"sp", true}, {"zero", 1}}},
            {"training", {{"global_batch", 256}, {"micro_batch", 1}, {"seq_len", 8192}, {"precision", "bf16"},
                          {"recompute", "selective"}, {"flash_attention", true}}}}},
          {"inference",
           {{"mode", "inference"}, {"model", "llama3.1-70b"}, {"system", "dgx-h100"},
            {"parallelism", {{"tp", 4}, {"pp", 1}, {"dp", 1}}},
            {"inference", {{"batch", 32}, {"input_tokens", 2048}, {"output_tokens", 256}, {"weight_precision", "fp8"},
                           {"kv_precision", "fp8"}, {"compute_precision", "fp8"}}}}}};
}

}  // namespace

const std::vector<FieldSpec>& schema_fields() {
  static const std::vector<FieldSpec> kFields = build();
  return kFields;
}

const FieldSpec* find_field(const std::string& key) {
  for (const auto& f : schema_fields())
    if (f.key == key) return &f;
  return nullptr;
}

const FieldSpec& field_spec(const std::string& key) {
  if (const FieldSpec* f = find_field(key)) return *f;
  throw std::logic_error("no schema field " + key);
}

const std::vector<std::string>& study_names() { return field_spec("study.name").values; }

json schema_to_json() {
  json fields = json::array();
  for (const auto& f : schema_fields()) fields.push_back(field_json(f));
  return {{"version", 1}, {"fields", fields}, {"outputs", outputs_to_json()}, {"examples", examples()}};
}

}  // namespace llmcalc
