// Rules that need the whole scenario (divisibility, device support, what a
// deployment can run) - kept apart from the key-by-key parsing.
#include <optional>
#include <string>

#include "memory.h"
#include "parse.h"

namespace llmcalc {

namespace {

// The expert layout (MoE parallel folding, Megatron-Core; the same for
// serving): etp x ep ranks of the tp x cp x dp ranks of a stage hold the
// experts, E/ep each, every expert split etp ways.
std::optional<Inconsistency> expert_layout_inconsistency(const Model& m, const Parallelism& p) {
  using I = Inconsistency;
  const long long fold = 1LL * p.tp * p.cp * p.dp, etp = p.expert_tp();
  if (fold % (etp * p.ep) != 0)
    return I{p.etp > 0 ? "parallelism.etp" : "parallelism.ep",
             "etp x ep = " + std::to_string(etp * p.ep) + " must divide tp x cp x dp = " + std::to_string(fold)};
  if (m.is_moe() && m.moe.ffn_hidden % etp != 0) return I{"parallelism.etp", "etp must divide the expert ffn_hidden"};
  if (!m.is_moe() && p.etp > 1) return I{"parallelism.etp", "etp > 1 needs a mixture-of-experts model"};
  if (m.is_moe() && m.moe.experts % p.ep != 0) return I{"parallelism.ep", "ep must divide the number of experts"};
  if (!m.is_moe() && p.ep != 1) return I{"parallelism.ep", "ep > 1 needs a mixture-of-experts model"};
  return std::nullopt;
}

std::optional<Inconsistency> training_inconsistency(const Scenario& s) {
  const Model& m = s.model;
  const Parallelism& p = s.par;
  const Training& t = s.train;
  using I = Inconsistency;
  if (t.global_batch % (1LL * t.micro_batch * p.dp) != 0)
    return I{"training.global_batch", "global_batch=" + std::to_string(t.global_batch) +
                                          " is not divisible by micro_batch x dp = " + std::to_string(1LL * t.micro_batch * p.dp)};
  // DualPipe feeds half the micro-batches from each end of the pipeline and
  // pairs rank i with stage pp-1-i: both need halves (DeepSeek-V3 §3.2.1).
  if (p.schedule == PipeSchedule::dualpipe && (p.pp < 2 || p.pp % 2 != 0))
    return I{"parallelism.pp", "dualpipe needs an even number of pipeline stages (rank i also holds stage pp-1-i)"};
  if (p.schedule == PipeSchedule::dualpipe && microbatches_per_replica(t, p) % 2 != 0)
    return I{"training.global_batch", "dualpipe sends half the micro-batches each way: global_batch / (micro_batch x dp) must be even"};
  if (p.schedule == PipeSchedule::dualpipe && p.zero >= 3)
    return I{"parallelism.zero", "dualpipe is modelled with zero 0-2 (a rank's two stages are not FSDP units here)"};
  if (t.seq_len % p.cp != 0) return I{"parallelism.cp", "cp must divide seq_len"};
  if (p.cp > 1 && m.linear.on())
    return I{"parallelism.cp", "context parallelism of linear-attention layers (their state passed along the ring) is not modelled"};
  if (auto e = expert_layout_inconsistency(m, p)) return e;
  if (p.zero_shard > 0 && p.zero < 1) return I{"parallelism.zero_shard", "zero_shard needs zero >= 1 (ZeRO 0 shards nothing)"};
  if (p.zero_shard > 0 && (1LL * p.dp * p.cp) % p.zero_shard != 0)
    return I{"parallelism.zero_shard", "zero_shard = " + std::to_string(p.zero_shard) + " must divide dp x cp = " +
                                           std::to_string(1LL * p.dp * p.cp)};
  if (s.system.device.matmul_flops[static_cast<int>(t.precision)] <= 0)
    return I{"training.precision", std::string("the device has no ") + to_string(t.precision) + " matmul peak"};
  if (1.0 * t.micro_batch * t.seq_len > 1e9) return I{"training.micro_batch", "micro_batch x seq_len exceeds 1e9 tokens"};
  const auto kernel = static_cast<size_t>(t.attention_kernel);
  if (kernel != 0 && t.flash_attention && s.system.device.efficiency.attention_kernel[kernel][0] <= 0)
    return I{"training.attention_kernel", "the device has no efficiency for this attention kernel (it does not run there)"};
  if (t.moe_dispatch_precision == DispatchPrecision::fp8 && t.precision != Precision::fp8 && t.precision != Precision::fp4)
    return I{"training.moe_dispatch_precision", "fp8 needs training.precision fp8, mxfp8 or an fp4 format: the copies feed fp8 expert GEMMs"};
  if (t.frozen_weights == FrozenWeights::nf4 && !t.lora())
    return I{"training.frozen_weights", "nf4 needs training.lora_rank > 0: without adapters every weight trains"};
  if (t.frozen_weights == FrozenWeights::nf4 && t.precision != Precision::bf16 && t.precision != Precision::fp16)
    return I{"training.frozen_weights", "nf4 weights are dequantised to 16-bit math: precision must be bf16 or fp16"};
  const char* const no_host = "the system has no host figures (system.host: link_GBps, memory_GBps, memory_GiB)";
  if (t.offload != Offload::none && !s.system.host.present()) return I{"training.offload", no_host};
  if (t.offload_activations > 0) {
    if (!s.system.host.present()) return I{"training.offload_activations", no_host};
    if (s.par.pp > 1)
      return I{"training.offload_activations", "needs pp 1: Megatron-Core offloads activations without pipeline parallelism"};
    if (t.offload_activations >= s.model.layers)
      return I{"training.offload_activations", "must be less than the model's " + std::to_string(s.model.layers) +
                                                   " layers: the last layer's backward needs its activations at once"};
  }
  if (t.offload == Offload::parameters && s.par.zero < 3)
    return I{"training.offload", "parameters needs parallelism.zero 3: the weights are fetched from the host unit by unit, as "
                                 "ZeRO-3 gathers them"};
  return std::nullopt;
}

std::optional<Inconsistency> inference_inconsistency(const Scenario& s) {
  const Inference& i = s.infer;
  using I = Inconsistency;
  if (s.system.device.matmul_flops[static_cast<int>(i.compute_precision)] <= 0)
    return I{"inference.compute_precision", std::string("the device has no ") + to_string(i.compute_precision) + " matmul peak"};
  // Integer GEMMs multiply integer weights by the activations quantised per
  // token (SmoothQuant W8A8, Xiao et al. 2023; 4-bit weights unpacked to int8).
  if (i.compute_precision == Precision::int8 && i.weight_precision != Precision::int8 && i.weight_precision != Precision::int4)
    return I{"inference.compute_precision", std::string("int8 math (W8A8) needs inference.weight_precision int8 or int4, not ") +
                                                to_string(i.weight_precision)};
  if (1.0 * i.batch * (1.0 * i.input_tokens + i.output_tokens) > 1e12)
    return I{"inference.batch", "batch x (input + output tokens) exceeds 1e12"};
  if (i.shared_prefix_tokens >= i.input_tokens)
    return I{"inference.shared_prefix_tokens", "must be less than input_tokens = " + std::to_string(i.input_tokens) +
                                                   ": at least the prompt's last token is computed for its logits"};
  if (i.token_budget > 0) {
    const char* path = "inference.token_budget";
    if (!i.inflight) return I{path, "chunked prefill runs under in-flight batching: set inference.batching to \"inflight\""};
    if (i.disaggregated()) return I{path, "chunked prefill is for prefill and decode on the same GPUs (prefill_tp = 0)"};
    if (i.draft_tokens > 0) return I{path, "chunked prefill with speculative decoding is not modelled (draft_tokens = 0)"};
    if (s.model.mla.on()) return I{path, "chunked prefill is modelled for multi-head and grouped-query attention, not MLA"};
  }
  if (i.disaggregated()) {
    const Model& m = s.model;
    const int ptp = i.prefill_tp;
    if (m.heads % ptp != 0 || (m.kv_heads % ptp != 0 && ptp % m.kv_heads != 0) || m.ffn_hidden % ptp != 0 ||
        (m.linear.on() && !m.linear.splits_over(ptp)) ||
        (m.is_moe() && m.moe.ffn_hidden % ptp != 0))
      return I{"inference.prefill_tp", "prefill_tp=" + std::to_string(ptp) +
                                           " must divide the attention heads and the MLP width (and kv_heads or be divided by it)"};
  }
  return expert_layout_inconsistency(s.model, s.par);
}

}  // namespace

std::optional<Inconsistency> find_inconsistency(const Scenario& s) {
  // Each rule returns its message only when broken: the search calls this
  // for every candidate plan, so nothing is built or thrown for the rest.
  const Model& m = s.model;
  const Parallelism& p = s.par;
  using I = Inconsistency;
  if (m.heads % p.tp != 0)
    return I{"parallelism.tp", "tp=" + std::to_string(p.tp) + " must divide the " + std::to_string(m.heads) + " attention heads"};
  if (m.kv_heads % p.tp != 0 && p.tp % m.kv_heads != 0)
    return I{"parallelism.tp", "tp and kv_heads=" + std::to_string(m.kv_heads) + " must divide one another"};
  if (m.ffn_hidden % p.tp != 0) return I{"parallelism.tp", "tp must divide ffn_hidden=" + std::to_string(m.ffn_hidden)};
  if (m.linear.on() && !m.linear.splits_over(p.tp))
    return I{"parallelism.tp", "tp=" + std::to_string(p.tp) + " must divide the linear-attention key_heads=" +
                                   std::to_string(m.linear.key_heads) + " (mamba2: or be a multiple of them) and value_heads=" +
                                   std::to_string(m.linear.value_heads)};
  if (m.layers < p.pp) return I{"parallelism.pp", "more pipeline stages than layers"};
  if (p.virtual_stages != 1 && p.schedule != PipeSchedule::interleaved)
    return I{"parallelism.virtual_stages", "virtual_stages > 1 needs pp_schedule \"interleaved\""};
  // Megatron-Core may count the embedding and the loss as units of the
  // pipeline split (account_for_embedding_in_pipeline_split and
  // account_for_loss_in_pipeline_split, or a pipeline_model_parallel_layout):
  // Llama 3.1 405B's 126 layers run as 16 stages x 8 chunks of one unit.
  if (1LL * p.pp * p.virtual_stages > m.layers + 2LL)
    return I{"parallelism.virtual_stages", "pp x virtual_stages exceeds the layers plus the embedding and the loss (" +
                                               std::to_string(m.layers + 2) + " chunks at most)"};
  return s.mode == Mode::training ? training_inconsistency(s) : inference_inconsistency(s);
}

void check_consistency(const Scenario& s) {
  if (const auto e = find_inconsistency(s)) throw InputError(e->path, e->message);
}

// The 16-bit precisions a scenario leaves out are bf16, unless the device
// has no bf16 matmul peak but an fp16 one (V100: fp16 tensor cores only,
// NVIDIA Volta whitepaper 2017); there the default is fp16, the format of
// mixed-precision training with loss scaling (Micikevicius et al. 2018,
// arXiv 1710.03740). A precision the scenario names is kept and checked.
void default_16bit_to_device(const nlohmann::json& root, Scenario& s) {
  const auto& peak = s.system.device.matmul_flops;
  if (peak[static_cast<int>(Precision::bf16)] > 0 || peak[static_cast<int>(Precision::fp16)] <= 0) return;
  auto left_out = [&](const char* section, const char* key) {
    return !root.contains(section) || !root.at(section).is_object() || !root.at(section).contains(key);
  };
  if (left_out("training", "precision")) s.train.precision = Precision::fp16;
  if (left_out("inference", "compute_precision")) s.infer.compute_precision = Precision::fp16;
  if (left_out("inference", "weight_precision")) s.infer.weight_precision = Precision::fp16;
  if (left_out("inference", "kv_precision")) s.infer.kv_precision = Precision::fp16;
}

// inference.moe_gemm "auto": the legacy 16-bit grouped GEMM (TensorRT-LLM's
// MoE plugin up to 0.9) served 16-bit and fp8 checkpoints on Ampere and
// Hopper (a distinct, slower path on Hopper only); fp4-family experts (MXFP4,
// NVFP4) and Blackwell GPUs (fp4 tensor cores) came with the newer kernels,
// which run at the device's own rate.
// A deployment that runs must fit: where the legacy kernel's 16-bit experts
// would not fit but the checkpoint's own format does, the newer kernels are
// what serves it. In-flight batching runs whatever batch fits (at least one
// sequence); a static batch must fit whole. The pick depends on the plan
// (tp, ep, batch), so the search makes it again for each plan it tries.
void pick_moe_gemm(Scenario& s) {
  Inference& in = s.infer;
  if (!in.moe_gemm_auto) return;
  in.moe_gemm_fallback = false;
  const Device& d = s.system.device;
  const bool fp4_experts = in.weight_precision == Precision::fp4;  // nvfp4, mxfp4
  const bool blackwell = d.matmul_flops[static_cast<int>(Precision::fp4)] > 0;
  // The legacy kernel is TensorRT-LLM's and a distinct path only where the
  // device's own MMA outruns Ampere's mma.sync (efficiency.legacy_mma < 1:
  // Hopper). Elsewhere (AMD, TPU, Gaudi: other engines' kernels; Ampere,
  // where 16-bit experts run the same either way) the experts run natively.
  const bool hopper = d.efficiency.legacy_mma < 1;
  in.moe_gemm = fp4_experts || blackwell || !hopper ? MoeGemm::native : MoeGemm::legacy16;
  if (in.moe_gemm != MoeGemm::legacy16 || s.mode != Mode::inference || !s.model.is_moe()) return;
  auto runs_with = [&](MoeGemm kernel) {
    Scenario k = s;
    k.infer.moe_gemm = kernel;
    const InferenceMemory m = inference_memory(k);
    return in.inflight ? m.max_batch >= 1 : m.total <= m.capacity;
  };
  if (!runs_with(MoeGemm::legacy16) && runs_with(MoeGemm::native)) {
    in.moe_gemm = MoeGemm::native;
    in.moe_gemm_fallback = true;
  }
}

long long largest_batch(const Scenario& s) {
  Scenario widest = s;
  if (s.infer.moe_gemm_auto) widest.infer.moe_gemm = MoeGemm::native;
  return inference_memory_at(widest, 1).max_batch;
}

}  // namespace llmcalc
