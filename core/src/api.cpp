// The public entry points: JSON in, JSON out, nothing thrown.
#include "llmcalc/api.h"

#include <cmath>
#include <cstdio>
#include <vector>

#include "inference.h"
#include "output.h"
#include "parse.h"
#include "presets.h"
#include "schema.h"
#include "training.h"

namespace llmcalc {

namespace {

json error_json(const std::string& path, const std::string& message) {
  return {{"error", {{"path", path}, {"message", message}}}};
}

// Keys and strings from the input may hold invalid UTF-8 (they reach error
// messages): replace such bytes instead of throwing while serialising.
std::string dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

// Last line of defence: no NaN or Inf may reach an output.
std::string find_non_finite(const json& j, const std::string& path) {
  if (j.is_number_float() && !std::isfinite(j.get<double>())) return path.empty() ? "$" : path;
  if (j.is_object())
    for (auto it = j.begin(); it != j.end(); ++it) {
      std::string p = find_non_finite(it.value(), join_path(path, it.key()));
      if (!p.empty()) return p;
    }
  if (j.is_array())
    for (size_t i = 0; i < j.size(); ++i) {
      std::string p = find_non_finite(j[i], path + "[" + std::to_string(i) + "]");
      if (!p.empty()) return p;
    }
  return "";
}

}  // namespace

namespace {

std::string gib(double bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f GiB", bytes / 1073741824.0);
  return buf;
}

// Plain-language notes on choices that are valid but probably not intended.
std::vector<std::string> warnings_for(const Scenario& s, const Result& r) {
  std::vector<std::string> w;
  const Parallelism& p = s.par;
  if (p.tp > s.system.gpus_per_node)
    w.push_back("tp spans more GPUs than a node: tensor-parallel traffic crosses the slower network tier");
  if (s.model.kv_heads < p.tp)
    w.push_back("tp exceeds kv_heads: K/V heads are replicated across tensor-parallel ranks");
  if (s.mode == Mode::training) {
    const TrainingResult& t = r.training;
    if (!t.fits)
      w.push_back("does not fit: " + gib(t.memory.total) + " needed per GPU, " + gib(t.memory.capacity) + " available");
    if (p.pp > 1 && t.pipeline.microbatches < p.pp)
      w.push_back("fewer micro-batches than pipeline stages: the bubble dominates");
    if (p.schedule == PipeSchedule::interleaved && t.pipeline.microbatches % p.pp != 0)
      w.push_back("Megatron's interleaved schedule needs micro-batches divisible by pp");
  } else {
    const InferenceResult& i = r.inference;
    if (!i.fits)
      w.push_back("does not fit: " + gib(i.memory.total) + " needed per GPU, " + gib(i.memory.capacity) +
                  " available; largest batch that fits: " + std::to_string(i.memory.max_batch));
    if (1.0 * s.infer.input_tokens + s.infer.output_tokens > s.model.seq_len)
      w.push_back("input + output tokens exceed the model's seq_len");
  }
  return w;
}

}  // namespace

Result evaluate(const Scenario& s) {
  Result r;
  r.mode = s.mode;
  r.params = count_params(s.model);
  if (s.mode == Mode::training)
    r.training = evaluate_training(s);
  else
    r.inference = evaluate_inference(s);
  r.warnings = warnings_for(s, r);
  return r;
}

json evaluate_to_json(const json& input) {
  const Scenario s = parse_scenario(input);
  json out = result_to_json(s, evaluate(s));
  const std::string bad = find_non_finite(out, "");
  if (!bad.empty()) return error_json(bad, "the model produced a non-finite number for this input");
  return out;
}

// Inputs are bounded before they are parsed: a scenario is a few KB; links
// and files from strangers may be anything.
constexpr size_t kMaxInputBytes = 1 << 20;
constexpr int kMaxDepth = 32;

// Parses with a guard on depth, and keeps the path of the last key seen so
// that a number beyond double range (1e400: valid grammar, not finite) is
// reported where it stands.
json parse_bounded(const std::string& text) {
  if (text.size() > kMaxInputBytes) throw InputError("$", "input larger than 1 MiB");
  std::vector<std::string> keys;  // the key at each object depth
  json::parser_callback_t guard = [&keys](int depth, json::parse_event_t event, json& parsed) {
    if (depth > kMaxDepth) throw InputError("$", "input nested deeper than 32 levels");
    if (event == json::parse_event_t::key) {
      keys.resize(static_cast<size_t>(depth));
      keys.push_back(parsed.get<std::string>());
    }
    return true;
  };
  try {
    return json::parse(text, guard, true, false);
  } catch (const json::out_of_range&) {
    std::string path;
    for (const auto& k : keys)
      if (!k.empty()) path = join_path(path, k);
    throw InputError(path.empty() ? "$" : path, "number out of range: must be finite");
  }
}

std::string evaluate_json(const std::string& scenario_json) {
  try {
    const json input = parse_bounded(scenario_json);
    return dump(evaluate_to_json(input));
  } catch (const InputError& e) {
    return dump(error_json(e.path, e.what()));
  } catch (const json::parse_error& e) {
    return dump(error_json("$", std::string("malformed JSON: ") + e.what()));
  } catch (const std::exception& e) {
    return dump(error_json("$", std::string("internal error: ") + e.what()));
  } catch (...) {
    return dump(error_json("$", "internal error"));
  }
}

std::string presets_json() {
  try {
    return dump(all_presets());
  } catch (...) {
    return dump(error_json("$", "presets unavailable"));
  }
}

std::string schema_json() {
  try {
    return dump(schema_to_json());
  } catch (...) {
    return dump(error_json("$", "schema unavailable"));
  }
}

std::string version() { return LLMCALC_VERSION; }

}  // namespace llmcalc
