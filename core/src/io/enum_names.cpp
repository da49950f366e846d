#include "enum_names.h"

namespace llmcalc {

const EnumTable<Mode>& mode_names() {
  static const EnumTable<Mode> t{{Mode::training, "training"}, {Mode::inference, "inference"}};
  return t;
}

const EnumTable<FfnType>& ffn_type_names() {
  static const EnumTable<FfnType> t{
      {FfnType::gelu, "gelu"}, {FfnType::relu2, "relu2"}, {FfnType::swiglu, "swiglu"}, {FfnType::geglu, "geglu"}};
  return t;
}

const EnumTable<NormType>& norm_names() {
  static const EnumTable<NormType> t{{NormType::layernorm, "layernorm"}, {NormType::rmsnorm, "rmsnorm"}};
  return t;
}

const EnumTable<Recompute>& recompute_names() {
  static const EnumTable<Recompute> t{
      {Recompute::none, "none"}, {Recompute::selective, "selective"}, {Recompute::full, "full"},
      {Recompute::selective_op, "selective_op"}};
  return t;
}

const EnumTable<PipeSchedule>& schedule_names() {
  static const EnumTable<PipeSchedule> t{{PipeSchedule::one_f_one_b, "1f1b"},
                                         {PipeSchedule::interleaved, "interleaved"},
                                         {PipeSchedule::gpipe, "gpipe"},
                                         {PipeSchedule::zb_h1, "zb_h1"},
                                         {PipeSchedule::dualpipe, "dualpipe"}};
  return t;
}

const EnumTable<Optimizer>& optimizer_names() {
  static const EnumTable<Optimizer> t{{Optimizer::adam, "adam"}, {Optimizer::sgd, "sgd"}};
  return t;
}

const EnumTable<bool>& batching_names() {
  static const EnumTable<bool> t{{false, "static"}, {true, "inflight"}};
  return t;
}

const EnumTable<DecodeAttention>& decode_attention_names() {
  static const EnumTable<DecodeAttention> t{{DecodeAttention::auto_pick, "auto"},
                                            {DecodeAttention::grouped, "grouped"},
                                            {DecodeAttention::per_head, "per_head"}};
  return t;
}

const EnumTable<MoeGemm>& moe_gemm_names() {
  static const EnumTable<MoeGemm> t{{MoeGemm::auto_pick, "auto"}, {MoeGemm::legacy16, "legacy16"}, {MoeGemm::native, "native"}};
  return t;
}

const EnumTable<bool>& recompute_method_names() {
  static const EnumTable<bool> t{{false, "uniform"}, {true, "block"}};
  return t;
}

const EnumTable<AttentionKernel>& attention_kernel_names() {
  static const EnumTable<AttentionKernel> t{{AttentionKernel::best, "best"},
                                            {AttentionKernel::fa1, "fa1"},
                                            {AttentionKernel::fa2, "fa2"},
                                            {AttentionKernel::fa3, "fa3"}};
  return t;
}

const EnumTable<MoeBalance>& moe_balance_names() {
  static const EnumTable<MoeBalance> t{{MoeBalance::random, "random"}, {MoeBalance::forced, "forced"}};
  return t;
}

const EnumTable<MoeDispatcher>& moe_dispatcher_names() {
  static const EnumTable<MoeDispatcher> t{{MoeDispatcher::alltoall, "alltoall"}, {MoeDispatcher::deepep, "deepep"}};
  return t;
}

const EnumTable<DispatchPrecision>& dispatch_precision_names() {
  static const EnumTable<DispatchPrecision> t{{DispatchPrecision::bf16, "bf16"}, {DispatchPrecision::fp8, "fp8"}};
  return t;
}

const EnumTable<Fusion>& fusion_names() {
  static const EnumTable<Fusion> t{{Fusion::fused, "fused"}, {Fusion::eager, "eager"}};
  return t;
}

const EnumTable<Fp8Recipe>& fp8_recipe_names() {
  static const EnumTable<Fp8Recipe> t{{Fp8Recipe::delayed, "delayed"}, {Fp8Recipe::current, "current"}, {Fp8Recipe::mxfp8, "mxfp8"}};
  return t;
}

const EnumTable<LoraTargets>& lora_target_names() {
  static const EnumTable<LoraTargets> t{
      {LoraTargets::all, "all"}, {LoraTargets::attention, "attention"}, {LoraTargets::all_experts, "all_experts"}};
  return t;
}

const EnumTable<FrozenWeights>& frozen_weight_names() {
  static const EnumTable<FrozenWeights> t{{FrozenWeights::bf16, "16bit"}, {FrozenWeights::nf4, "nf4"}};
  return t;
}

const EnumTable<Offload>& offload_names() {
  static const EnumTable<Offload> t{{Offload::none, "none"}, {Offload::optimizer, "optimizer"}, {Offload::parameters, "parameters"}};
  return t;
}

const EnumTable<double>& gather_precision_names() {
  static const EnumTable<double> t{{0, "auto"}, {4, "fp32"}, {2, "bf16"}, {1, "fp8"}};
  return t;
}

const EnumTable<double>& reduce_precision_names() {
  static const EnumTable<double> t{{4, "fp32"}, {2, "bf16"}};
  return t;
}

namespace {
EnumTable<Precision> precisions(std::initializer_list<Precision> ps) {
  EnumTable<Precision> t;
  for (Precision p : ps) t.emplace_back(p, to_string(p));
  return t;
}
}  // namespace

namespace {
EnumTable<NumberFormat> formats(std::initializer_list<Precision> ps) {
  EnumTable<NumberFormat> t;
  for (Precision p : ps) t.emplace_back(NumberFormat{p, false}, to_string(p));
  return t;
}
}  // namespace

const EnumTable<NumberFormat>& training_precision_names() {
  using P = Precision;
  static const EnumTable<NumberFormat> t = [] {
    EnumTable<NumberFormat> f = formats({P::fp32, P::tf32, P::fp16, P::bf16, P::fp8});
    f.emplace_back(NumberFormat{P::fp8, true}, "mxfp8");
    f.emplace_back(NumberFormat{P::fp4, false}, "nvfp4");
    f.emplace_back(NumberFormat{P::fp4, true}, "mxfp4");
    return f;
  }();
  return t;
}

const EnumTable<NumberFormat>& weight_precision_names() {
  using P = Precision;
  static const EnumTable<NumberFormat> t = [] {
    EnumTable<NumberFormat> f = formats({P::fp32, P::bf16, P::fp16, P::fp8, P::int8, P::int4, P::fp4});
    f.emplace_back(NumberFormat{P::fp4, false}, "nvfp4");  // "fp4" has always meant NVFP4
    f.emplace_back(NumberFormat{P::fp4, true}, "mxfp4");
    return f;
  }();
  return t;
}

const EnumTable<Precision>& kv_precision_names() {
  using P = Precision;
  static const EnumTable<Precision> t = precisions({P::bf16, P::fp16, P::fp8, P::int8, P::fp4});
  return t;
}

const EnumTable<Precision>& state_precision_names() {
  using P = Precision;
  static const EnumTable<Precision> t = precisions({P::fp32, P::bf16, P::fp16});
  return t;
}

const EnumTable<LinearKind>& linear_kind_names() {
  static const EnumTable<LinearKind> t{{LinearKind::gated_deltanet, "gated_deltanet"}, {LinearKind::mamba2, "mamba2"}};
  return t;
}

const EnumTable<LocalAttention>& local_attention_names() {
  static const EnumTable<LocalAttention> t{{LocalAttention::window, "window"}, {LocalAttention::chunk, "chunk"}};
  return t;
}

const EnumTable<Topology>& topology_names() {
  static const EnumTable<Topology> t{{Topology::switched, "switch"}, {Topology::mesh, "mesh"}, {Topology::torus, "torus"}};
  return t;
}

std::string training_precision_name(const Training& t) {
  if (t.precision == Precision::fp4) return t.fp4_mx ? "mxfp4" : "nvfp4";
  return to_string(t.precision);
}

std::string weight_precision_name(const Inference& in) {
  if (in.weight_precision == Precision::fp4 && in.weight_mx) return "mxfp4";
  return to_string(in.weight_precision);
}

const EnumTable<Precision>& math_precision_names() {
  using P = Precision;
  static const EnumTable<Precision> t = precisions({P::bf16, P::fp16, P::fp8, P::int8, P::fp4});
  return t;
}

const EnumTable<Precision>& all_precision_names() {
  using P = Precision;
  static const EnumTable<Precision> t =
      precisions({P::fp32, P::tf32, P::fp16, P::bf16, P::fp8, P::int8, P::int4, P::fp4});
  return t;
}

}  // namespace llmcalc
