#include "precision_fit.h"

#include <optional>
#include <string>
#include <vector>

#include "enum_names.h"
#include "parse.h"
#include "strict_json.h"

namespace llmcalc {

namespace {

// The matmul peak a math-precision name needs (training.precision,
// inference.compute_precision), from the parser's own name tables; none for a
// name the parser will refuse.
std::optional<Precision> peak_of(const std::string& name) {
  for (const auto& [format, n] : training_precision_names())
    if (name == n) return format.precision;
  for (const auto& [precision, n] : math_precision_names())
    if (name == n) return precision;
  return std::nullopt;
}

// The math precision a run on `d` would use for `asked`: the scenario's when
// the device has a peak for it, else the nearest narrower-to-wider step it has
// (4-bit formats -> fp8 -> bf16 -> fp16 on Volta, fp16 -> bf16 on TPUs), as
// the job would be run on that system; "" when the device runs none of them.
std::string runnable_math(const Device& d, const std::string& asked) {
  const std::optional<Precision> peak = peak_of(asked);
  if (!peak) return "";
  std::vector<std::string> steps{asked};
  if (*peak == Precision::fp4) steps.insert(steps.end(), {"fp8", "bf16", "fp16"});
  if (*peak == Precision::fp8) steps.insert(steps.end(), {"bf16", "fp16"});
  if (asked == "bf16") steps.push_back("fp16");
  if (asked == "fp16") steps.push_back("bf16");
  for (const std::string& p : steps)
    if (d.matmul_flops[static_cast<int>(*peak_of(p))] > 0) return p;
  return "";
}

}  // namespace

// A study row runs the scenario's math precision where the system has it;
// where not (fp8 on A100, bf16 on V100), the nearest it runs, and the row
// says so ({"scenario", "run"}) rather than failing.
void fit_math_to_system(json& run, json& row, Mode mode) {
  const char* section = mode == Mode::training ? "training" : "inference";
  const char* key = mode == Mode::training ? "precision" : "compute_precision";
  if (!run.contains(section) || !run.at(section).is_object() || !run.at(section).contains(key)) return;
  json& sec = run.at(section);
  if (!sec.at(key).is_string()) return;
  const std::string asked = sec.at(key).get<std::string>();
  std::string ran;
  try {
    ran = runnable_math(parse_system(run.at("system"), "system").device, asked);
  } catch (const InputError&) {
    return;  // the row's own parse names the error
  }
  if (ran.empty() || ran == asked) return;
  sec[key] = ran;
  // fp8 token copies feed fp8 expert GEMMs only
  if (*peak_of(ran) != Precision::fp8 && *peak_of(ran) != Precision::fp4) sec.erase("moe_dispatch_precision");
  row["precision"] = {{"scenario", asked}, {"run", ran}};
}

}  // namespace llmcalc
