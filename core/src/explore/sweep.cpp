#include "sweep.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <set>

#include "output.h"
#include "presets.h"
#include "schema.h"
#include "strict_json.h"

namespace llmcalc {

namespace {

std::vector<std::string> split(const std::string& path) {
  std::vector<std::string> out;
  size_t start = 0;
  for (size_t i = 0; i <= path.size(); ++i)
    if (i == path.size() || path[i] == '.') {
      out.push_back(path.substr(start, i - start));
      start = i + 1;
    }
  return out;
}

// Same semantics as parse.cpp merge_into: objects merge key by key.
void merge(json& base, const json& over) {
  for (auto it = over.begin(); it != over.end(); ++it) {
    if (it.value().is_object() && base.contains(it.key()) && base[it.key()].is_object())
      merge(base[it.key()], it.value());
    else
      base[it.key()] = it.value();
  }
}

// A "model" or "system" value as a full object (preset id, {"preset", ...} or object).
json resolved(const json& v, const std::string& key) {
  const std::string kind = key == "model" ? "models" : "systems";
  auto lookup = [&](const json& id) {
    const json* p = id.is_string() ? find_preset(kind, id.get<std::string>()) : nullptr;
    if (!p) throw InputError(key, "unknown preset " + id.dump().substr(0, 60));
    return *p;
  };
  if (v.is_string()) return lookup(v);
  if (!v.is_object() || !v.contains("preset")) return v;
  json base = lookup(v.at("preset"));
  json over = v;
  over.erase("preset");
  merge(base, over);
  return base;
}

bool is_index(const std::string& s) {
  return !s.empty() && s.size() < 4 && s.find_first_not_of("0123456789") == std::string::npos;
}

// Integer-valued inputs: schema "int" fields, and the integer keys of model
// and system objects (which the schema leaves to the presets).
bool integer_input(const std::string& path) {
  static const std::set<std::string> kInts = {"layers", "hidden", "heads", "kv_heads", "head_dim", "ffn_hidden",
                                              "vocab", "seq_len", "gpus_per_node", "sm_count", "span_gpus",
                                              "experts", "top_k", "shared_experts", "dense_layers"};
  for (const FieldSpec& f : schema_fields())
    if (f.key == path) return f.type == "int";
  return kInts.count(split(path).back()) > 0;
}

json lookup_output(const json& out, const std::string& path) {
  const json* node = &out;
  for (const std::string& seg : split(path)) {
    if (!node->is_object() || !node->contains(seg)) return nullptr;
    node = &node->at(seg);
  }
  return node->is_number() ? *node : json(nullptr);
}

std::vector<double> grid(double from, double to, int steps, bool log_scale) {
  std::vector<double> x;
  for (int i = 0; i < steps; ++i) {
    const double f = steps == 1 ? 0.0 : i / static_cast<double>(steps - 1);
    const double v = log_scale ? from * std::pow(to / from, f) : from + (to - from) * f;  // geometric / arithmetic grid
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.12g", v);  // 3999.9999999999995 -> 4000
    x.push_back(std::strtod(buf, nullptr));
  }
  return x;
}

struct SweepSpec {
  std::string input, scale;
  std::vector<double> x;
  std::vector<std::string> outputs;
  std::string series_key;
  std::vector<json> series;
  bool integer = false;
};

SweepSpec parse_sweep(const json& input) {
  if (!input.is_object() || !input.contains("sweep")) throw InputError("sweep", "a sweep needs a \"sweep\" section");
  StrictObject o(input.at("sweep"), "sweep");
  SweepSpec sp;
  sp.input = o.string("input", "", 200);
  if (sp.input.empty()) throw InputError("sweep.input", "is required");
  const double from = o.required_number("from", -1e15, 1e15), to = o.required_number("to", -1e15, 1e15);
  const int steps = static_cast<int>(o.integer("steps", 10, 1, 1000));
  sp.scale = o.choice("scale", 0, {"lin", "log"}) == 0 ? "lin" : "log";
  if (sp.scale == "log" && (from <= 0 || to <= 0)) throw InputError("sweep.from", "a log sweep needs from, to > 0");
  sp.integer = integer_input(sp.input);
  for (double v : grid(from, to, steps, sp.scale == "log")) {
    const double x = sp.integer ? std::round(v) : v;
    if (sp.x.empty() || sp.x.back() != x) sp.x.push_back(x);
  }
  const json& outs = o.raw("outputs");
  if (!outs.is_array() || outs.empty() || outs.size() > 32) throw InputError("sweep.outputs", "expected 1 to 32 output paths");
  for (const json& s : outs) {
    if (!s.is_string()) throw InputError("sweep.outputs", "expected strings");
    sp.outputs.push_back(s.get<std::string>());
  }
  if (o.has("series")) {
    const json& ser = o.raw("series");
    if (!ser.is_object() || ser.size() != 1 || !ser.begin().value().is_array() || ser.begin().value().empty() ||
        ser.begin().value().size() > 16)
      throw InputError("sweep.series", "expected {\"<input path>\": [1 to 16 values]}");
    sp.series_key = ser.begin().key();
    for (const json& v : ser.begin().value()) sp.series.push_back(v);
  }
  o.finish();
  return sp;
}

json run_series(const json& scenario, const SweepSpec& sp, const std::string& name) {
  json values = json::object(), errors = json::array();
  for (const std::string& out : sp.outputs) values[out] = json::array();
  for (double x : sp.x) {
    const json xv = sp.integer ? json(static_cast<long long>(x)) : json(x);
    json result;
    try {
      json s = scenario;
      set_scenario_path(s, sp.input, xv);
      result = evaluate_to_json(s);
      if (result.contains("error")) throw InputError(result["error"].value("path", ""), result["error"].value("message", ""));
    } catch (const InputError& e) {
      errors.push_back({{"x", xv}, {"path", e.path}, {"message", e.what()}});
      for (const std::string& out : sp.outputs) values[out].push_back(nullptr);
      continue;
    } catch (const std::exception& e) {
      errors.push_back({{"x", xv}, {"path", "$"}, {"message", e.what()}});
      for (const std::string& out : sp.outputs) values[out].push_back(nullptr);
      continue;
    }
    for (const std::string& out : sp.outputs) {
      json v = lookup_output(result, out);
      if (v.is_null()) errors.push_back({{"x", xv}, {"path", out}, {"message", "no number at this output path"}});
      values[out].push_back(v);
    }
  }
  return {{"name", name}, {"values", values}, {"errors", errors}};
}

}  // namespace

void set_scenario_path(json& scenario, const std::string& path, const json& value) {
  const std::vector<std::string> segs = split(path);
  if (segs.empty() || segs[0].empty()) throw InputError("sweep.input", "empty path");
  json* node = &scenario;
  for (size_t i = 0; i < segs.size(); ++i) {
    const std::string& seg = segs[i];
    const bool last = i + 1 == segs.size();
    if (i == 0 && (seg == "model" || seg == "system") && !last) {
      json& v = scenario[seg];
      if (v.is_null()) v = field_spec(seg).def;
      v = resolved(v, seg);
    }
    if (node->is_array()) {
      json* found = nullptr;
      for (json& e : *node)
        if (e.is_object() && e.value("name", "") == seg) found = &e;
      if (!found && is_index(seg) && std::stoul(seg) < node->size()) found = &(*node)[std::stoul(seg)];
      if (!found) throw InputError(path, "no element \"" + seg + "\" in this list");
      node = found;
    } else if (node->is_object()) {
      if (!node->contains(seg) && !last) (*node)[seg] = json::object();
      node = &(*node)[seg];
    } else {
      throw InputError(path, "\"" + seg + "\" is not inside an object or list");
    }
    if (last) *node = value;
  }
}

json sweep_scenario(const json& input) {
  const SweepSpec sp = parse_sweep(input);
  json base = input;
  base.erase("sweep");
  json series = json::array();
  if (sp.series.empty()) {
    series.push_back(run_series(base, sp, "base"));
  } else {
    for (const json& v : sp.series) {
      json s = base;
      set_scenario_path(s, sp.series_key, v);
      series.push_back(run_series(s, sp, v.is_string() ? v.get<std::string>() : v.dump()));
    }
  }
  json xs = json::array();
  for (double x : sp.x) xs.push_back(sp.integer ? json(static_cast<long long>(x)) : json(x));
  json out = {{"input", sp.input}, {"scale", sp.scale}, {"x", xs}, {"series", series}};
  if (!sp.series_key.empty()) out["series_input"] = sp.series_key;
  return {{"sweep", out}};
}

}  // namespace llmcalc
