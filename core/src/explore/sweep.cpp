#include "sweep.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <set>

#include "inputs.h"
#include "output.h"
#include "outputs.h"
#include "parse.h"
#include "schema.h"
#include "strict_json.h"

namespace llmcalc {

namespace {

json lookup_output(const json& out, const std::string& path) {
  const json* node = &out;
  for (const std::string& seg : split_path(path)) {
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
  // Ranges and defaults from the input table's "sweep." rows.
  const FieldSpec &fr = field_spec("sweep.from"), &st = field_spec("sweep.steps"), &sc = field_spec("sweep.scale");
  const double from = o.required_number("from", fr.lo, fr.hi), to = o.required_number("to", fr.lo, fr.hi);
  const int steps = static_cast<int>(o.integer("steps", st.def.get<long long>(), static_cast<long long>(st.lo),
                                               static_cast<long long>(st.hi)));
  sp.scale = sc.values.at(static_cast<size_t>(o.choice("scale", 0, sc.values)));
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
  // fits[i]: whether the plan at x[i] fits in GPU memory (null where it
  // could not be evaluated), so a chart can mark the points past the limit.
  json values = json::object(), errors = json::array(), fits = json::array();
  std::string unit;  // the series system's word for a device ("GPU", a TPU's "chip")
  for (const std::string& out : sp.outputs) values[out] = json::array();
  for (double x : sp.x) {
    const json xv = sp.integer ? json(static_cast<long long>(x)) : json(x);
    Scenario sc;
    Result result;
    try {
      json s = scenario;
      set_input(s, sp.input, xv);
      result = evaluate_input(s, &sc);
    } catch (const InputError& e) {
      errors.push_back({{"x", xv}, {"path", e.path}, {"message", e.what()}});
      for (const std::string& out : sp.outputs) values[out].push_back(nullptr);
      fits.push_back(nullptr);
      continue;
    } catch (const std::exception& e) {
      errors.push_back({{"x", xv}, {"path", "$"}, {"message", e.what()}});
      for (const std::string& out : sp.outputs) values[out].push_back(nullptr);
      fits.push_back(nullptr);
      continue;
    }
    fits.push_back(sc.mode == Mode::training ? result.training.fits : result.inference.fits);
    unit = sc.system.device.unit_name;
    // Outputs come from the output table (typed); the result JSON is built
    // only if an output outside the table (a per-op figure, ...) asks for it.
    std::optional<json> full;
    for (const std::string& out : sp.outputs) {
      json v;
      if (const OutputSpec* o = find_output(out)) {
        v = o->mode == sc.mode ? json(o->get(result)) : json(nullptr);
      } else {
        if (!full) full = result_to_json(sc, result);
        v = lookup_output(*full, out);
      }
      if (v.is_null() || (v.is_number() && !std::isfinite(v.get<double>()))) {
        errors.push_back({{"x", xv}, {"path", out}, {"message", "no number at this output path"}});
        v = nullptr;
      }
      values[out].push_back(v);
    }
  }
  json series = {{"name", name}, {"values", values}, {"fits", fits}, {"errors", errors}};
  if (!unit.empty()) series["unit_name"] = unit;
  return series;
}

// A global batch is a whole number of micro-batches on every replica
// (micro_batch x dp divides it), so a swept one is rounded to the nearest
// multiple of the base scenario's micro_batch x dp; 1 when the input is
// another or the base does not parse (its error then shows at every point).
long long sweep_multiple(const json& base, const std::string& input) {
  if (input != "training.global_batch") return 1;
  try {
    const Scenario s = parse_scenario(base);
    return std::max(1LL, 1LL * s.train.micro_batch * s.par.dp);
  } catch (const std::exception&) {
    return 1;
  }
}

void round_to_multiple(std::vector<double>& xs, long long unit) {
  std::vector<double> out;
  for (double x : xs) {
    const double r = std::max(1.0, std::round(x / static_cast<double>(unit))) * static_cast<double>(unit);
    if (out.empty() || out.back() != r) out.push_back(r);
  }
  xs = out;
}

}  // namespace

json sweep_scenario(const json& input) {
  SweepSpec sp = parse_sweep(input);
  json base = input;
  base.erase("sweep");
  const long long multiple = sweep_multiple(base, sp.input);
  if (multiple > 1) round_to_multiple(sp.x, multiple);
  json series = json::array();
  if (sp.series.empty()) {
    series.push_back(run_series(base, sp, "base"));
  } else {
    for (const json& v : sp.series) {
      json s = base;
      set_input(s, sp.series_key, v);
      series.push_back(run_series(s, sp, v.is_string() ? v.get<std::string>() : v.dump()));
    }
  }
  json xs = json::array();
  for (double x : sp.x) xs.push_back(sp.integer ? json(static_cast<long long>(x)) : json(x));
  json out = {{"input", sp.input}, {"scale", sp.scale}, {"x", xs}, {"series", series}};
  if (!sp.series_key.empty()) out["series_input"] = sp.series_key;
  if (multiple > 1) out["x_multiple_of"] = multiple;
  return {{"sweep", out}};
}

}  // namespace llmcalc
