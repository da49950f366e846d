#include "llmcalc/validate.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "accuracy.h"
#include "output.h"
#include "outputs.h"
#include "strict_json.h"
#include "validate_kernels.h"
#include "validate_report.h"

namespace llmcalc {

namespace {

std::vector<std::string> split_plus(const std::string& key) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (size_t plus = key.find('+'); plus != std::string::npos; plus = key.find('+', start)) {
    parts.push_back(key.substr(start, plus - start));
    start = plus + 1;
  }
  parts.push_back(key.substr(start));
  return parts;
}

// Sums of one group's errors; averaged() turns the sums into means.
void add_error(ValidationGroup& g, double error) {
  g.cases += 1;
  g.mean_abs_error += std::fabs(error);
  g.mean_error += error;
  g.max_abs_error = std::max(g.max_abs_error, std::fabs(error));
}

// A kind of run in words (io/accuracy.cpp); empty for kernel cases.
const char* regime_label(const std::string& id) {
  const Regime* r = find_regime(id);
  return r ? r->label : "";
}

ValidationGroup averaged(ValidationGroup g) {
  g.mean_abs_error /= g.cases;
  g.mean_error /= g.cases;
  return g;
}

}  // namespace

std::vector<ValidationRow> validate_case(const std::string& case_json, const std::string& origin) {
  std::vector<ValidationRow> rows;
  json c;
  try {
    c = json::parse(case_json);
  } catch (const std::exception& e) {
    rows.push_back({origin, "", "", 0, 0, 0, true, std::string("malformed JSON: ") + e.what()});
    return rows;
  }
  if (c.is_object() && c.contains("kernels")) return validate_kernel_case(c, origin);
  const std::string id = c.value("id", origin), source = c.value("source", "unknown source");
  Scenario scenario;
  Result result;
  try {
    result = evaluate_input(c.at("scenario"), &scenario);
  } catch (const InputError& e) {
    rows.push_back({id, source, "", 0, 0, 0, true, "invalid scenario at " + e.path + ": " + e.what()});
    return rows;
  } catch (const std::exception& e) {
    rows.push_back({id, source, "", 0, 0, 0, true, e.what()});
    return rows;
  }
  if (!c.contains("measured") || !c["measured"].is_object()) return rows;
  for (auto it = c["measured"].begin(); it != c["measured"].end(); ++it) {
    ValidationRow row{id, source, it.key(), 0, 0, 0, false, "", regime_of(scenario).id, scenario.system.device.name,
                      architecture_features(scenario.model)};
    row.measured = it.value().is_number() ? it.value().get<double>() : 0;
    for (const std::string& part : split_plus(it.key())) {
      const OutputSpec* o = find_output(part);
      if (!o || o->mode != scenario.mode) {
        row.skipped = true;
        row.note = "the model does not produce " + part;
        break;
      }
      row.predicted += o->get(result);
    }
    if (!row.skipped && row.measured != 0) row.error = (row.predicted - row.measured) / row.measured;
    rows.push_back(row);
  }
  return rows;
}

ValidationReport summarize(std::vector<ValidationRow> rows) {
  ValidationReport r;
  r.rows = std::move(rows);
  std::map<std::pair<std::string, std::string>, ValidationGroup> groups;
  for (const auto& row : r.rows) {
    if (row.skipped) continue;
    // A source is named up to its first ';' (what follows is the case's detail).
    const std::string src = row.source.substr(0, row.source.find(';'));
    auto& g = groups[{src, row.metric}];
    g.source = src;
    g.metric = row.metric;
    add_error(g, row.error);
  }
  for (auto& [key, g] : groups) r.groups.push_back(averaged(g));
  return r;
}

std::string report_text(const ValidationReport& r) {
  std::string out;
  char buf[512];
  for (const auto& row : r.rows) {
    if (row.skipped)
      std::snprintf(buf, sizeof buf, "%-58s SKIP %s\n", row.id.c_str(), row.note.c_str());
    else
      std::snprintf(buf, sizeof buf, "%-58s %-28.28s pred %12.5g  meas %12.5g  err %+6.1f%%\n", row.id.c_str(),
                    row.metric.c_str(), row.predicted, row.measured, 100 * row.error);
    out += buf;
  }
  out += "\nper source and metric: cases, mean |error|, max |error|, bias (mean signed error)\n";
  for (const auto& g : r.groups) {
    std::snprintf(buf, sizeof buf, "  %3d  mean %5.1f%%  max %5.1f%%  bias %+6.1f%%  %.70s | %s\n", g.cases,
                  100 * g.mean_abs_error, 100 * g.max_abs_error, 100 * g.mean_error, g.source.c_str(), g.metric.c_str());
    out += buf;
  }
  return out;
}

std::string report_markdown(const ValidationReport& r) {
  std::string out;
  char buf[512];
  out += "| source | measured output | cases | mean abs. error | max abs. error | bias |\n|---|---|---|---|---|---|\n";
  for (const auto& g : r.groups) {
    std::snprintf(buf, sizeof buf, "| %s | `%s` | %d | %.1f%% | %.1f%% | %+.1f%% |\n", g.source.c_str(), g.metric.c_str(),
                  g.cases, 100 * g.mean_abs_error, 100 * g.max_abs_error, 100 * g.mean_error);
    out += buf;
  }
  return out;
}

// Per regime and metric, in the order of regimes(): what every result quotes
// about runs of its kind. Written to core/presets/validation/accuracy.json by
// scripts/update-golden.sh; a GoogleTest checks the committed file is current.
std::string report_accuracy(const ValidationReport& r) {
  json out = {{"source", "generated by `llmcalc validate --accuracy tests/validation/public` (scripts/update-golden.sh): "
                         "the published runs of tests/validation/public, per regime (core/src/io/accuracy.cpp); do not edit"},
              {"regimes", json::object()}};
  for (const Regime& reg : regimes()) {
    std::map<std::string, ValidationGroup> by_metric;
    std::map<std::string, json> runs;  // the cases behind each figure, so a reader can look them up
    std::set<std::string> devices;     // what they ran on: a result on other hardware says so
    std::set<std::string> layers;      // the layer kinds their models had: a result with others says so
    for (const auto& row : r.rows) {
      if (row.skipped || row.regime != reg.id) continue;
      ValidationGroup& g = by_metric[row.metric];
      g.metric = row.metric;
      add_error(g, row.error);
      runs[row.metric].push_back({{"id", row.id}, {"source", row.source.substr(0, row.source.find(';'))}, {"signed_error", row.error}});
      devices.insert(row.device);
      layers.insert(row.architecture.begin(), row.architecture.end());
    }
    if (by_metric.empty()) continue;
    json metrics = json::array();
    for (const auto& [name, sum] : by_metric) {
      const ValidationGroup g = averaged(sum);
      metrics.push_back({{"metric", name}, {"cases", g.cases}, {"mean_abs_error", g.mean_abs_error},
                         {"max_abs_error", g.max_abs_error}, {"mean_error", g.mean_error}, {"runs", runs[name]}});
    }
    out["regimes"][reg.id] = {{"label", reg.label}, {"devices", devices}, {"architectures", layers}, {"metrics", metrics}};
  }
  return out.dump(2) + "\n";
}

json report_object(const ValidationReport& r) {
  json rows = json::array(), groups = json::array();
  for (const auto& row : r.rows) {
    json j = {{"id", row.id}, {"source", row.source}, {"metric", row.metric}, {"skipped", row.skipped}};
    if (row.skipped)
      j["note"] = row.note;
    else
      j.update({{"predicted", row.predicted}, {"measured", row.measured}, {"error", row.error}, {"kind", row.regime},
                {"kind_label", regime_label(row.regime)}, {"device", row.device}});
    rows.push_back(j);
  }
  for (const auto& g : r.groups)
    groups.push_back({{"source", g.source}, {"metric", g.metric}, {"cases", g.cases},
                      {"mean_abs_error", g.mean_abs_error}, {"max_abs_error", g.max_abs_error},
                      {"mean_error", g.mean_error}});
  return {{"rows", rows}, {"groups", groups}};
}

std::string report_json(const ValidationReport& r) { return report_object(r).dump(2); }

}  // namespace llmcalc
