// One name table per enum: the parser maps names to values through it and
// the schema lists its names from it, so no code casts a list index to an
// enum and the two can never disagree.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "llmcalc/scenario.h"

namespace llmcalc {

template <class E>
using EnumTable = std::vector<std::pair<E, const char*>>;

const EnumTable<Mode>& mode_names();
const EnumTable<FfnType>& ffn_type_names();
const EnumTable<NormType>& norm_names();
const EnumTable<Recompute>& recompute_names();
const EnumTable<PipeSchedule>& schedule_names();
const EnumTable<Optimizer>& optimizer_names();
// training.recompute_method: false = uniform, true = block.
const EnumTable<bool>& recompute_method_names();
const EnumTable<AttentionKernel>& attention_kernel_names();
const EnumTable<MoeBalance>& moe_balance_names();
const EnumTable<MoeDispatcher>& moe_dispatcher_names();
const EnumTable<DispatchPrecision>& dispatch_precision_names();
const EnumTable<Fp8Recipe>& fp8_recipe_names();
const EnumTable<Fusion>& fusion_names();
const EnumTable<LoraTargets>& lora_target_names();
const EnumTable<FrozenWeights>& frozen_weight_names();
const EnumTable<Offload>& offload_names();
// ZeRO/FSDP wire formats, as bytes per element: gather 0 = "auto" (the
// weight copy's own size), reduce fp32 / bf16.
const EnumTable<double>& gather_precision_names();
const EnumTable<double>& reduce_precision_names();
// inference.batching: false = static, true = in-flight.
const EnumTable<bool>& batching_names();
const EnumTable<DecodeAttention>& decode_attention_names();
const EnumTable<MoeGemm>& moe_gemm_names();
// Precisions each input accepts (a subset of Precision, in display order).
// Training and weights also name block-scaled formats: mxfp8 (fp8 with the
// MXFP8 recipe), nvfp4 / mxfp4 (fp4 with E4M3 scales per 16 / E8M0 per 32).
const EnumTable<NumberFormat>& training_precision_names();
const EnumTable<NumberFormat>& weight_precision_names();
const EnumTable<Precision>& kv_precision_names();
const EnumTable<Precision>& state_precision_names();  // a linear-attention layer's recurrent state
const EnumTable<LinearKind>& linear_kind_names();
const EnumTable<Precision>& math_precision_names();
const EnumTable<Precision>& all_precision_names();
// model.attention: which key names the local span ("window" or "chunk").
const EnumTable<LocalAttention>& local_attention_names();
const EnumTable<Topology>& topology_names();
// The names search and sweep write back for a parsed format.
std::string training_precision_name(const Training& t);
std::string weight_precision_name(const Inference& in);

template <class E>
std::vector<std::string> names_of(const EnumTable<E>& t) {
  std::vector<std::string> out;
  for (const auto& [value, name] : t) out.emplace_back(name);
  return out;
}

// The value named `name`; false when the table has no such name.
template <class E>
bool value_named(const EnumTable<E>& t, const std::string& name, E* out) {
  for (const auto& [value, n] : t)
    if (name == n) return *out = value, true;
  return false;
}

// The name of `value` (empty when the table lacks it).
template <class E>
const char* name_of(const EnumTable<E>& t, E value) {
  for (const auto& [v, n] : t)
    if (v == value) return n;
  return "";
}

}  // namespace llmcalc
