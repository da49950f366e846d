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
const EnumTable<Fp8Recipe>& fp8_recipe_names();
// ZeRO/FSDP wire formats, as bytes per element: gather 0 = "auto" (the
// weight copy's own size), reduce fp32 / bf16.
const EnumTable<double>& gather_precision_names();
const EnumTable<double>& reduce_precision_names();
// inference.batching: false = static, true = in-flight.
const EnumTable<bool>& batching_names();
const EnumTable<DecodeAttention>& decode_attention_names();
const EnumTable<MoeGemm>& moe_gemm_names();
// Precisions each input accepts (a subset of Precision, in display order).
const EnumTable<Precision>& training_precision_names();
const EnumTable<Precision>& weight_precision_names();
const EnumTable<Precision>& kv_precision_names();
const EnumTable<Precision>& math_precision_names();
const EnumTable<Precision>& all_precision_names();

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

}  // namespace llmcalc
