#include "llmcalc/validate.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

#include "output.h"
#include "outputs.h"
#include "strict_json.h"
#include "validate_kernels.h"

namespace llmcalc {

namespace {

std::vector<std::string> split_plus(const std::string& key) {
  std::vector<std::string> parts;
  std::stringstream ss(key);
  std::string p;
  while (std::getline(ss, p, '+')) parts.push_back(p);
  return parts;
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
    ValidationRow row{id, source, it.key(), 0, 0, 0, false, ""};
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
    g.cases += 1;
    g.mean_abs_error += std::fabs(row.error);
    g.mean_error += row.error;
    g.max_abs_error = std::max(g.max_abs_error, std::fabs(row.error));
  }
  for (auto& [key, g] : groups) {
    g.mean_abs_error /= g.cases;
    g.mean_error /= g.cases;
    r.groups.push_back(g);
  }
  return r;
}

std::string report_text(const ValidationReport& r) {
  std::ostringstream os;
  char buf[512];
  for (const auto& row : r.rows) {
    if (row.skipped)
      std::snprintf(buf, sizeof buf, "%-58s SKIP %s\n", row.id.c_str(), row.note.c_str());
    else
      std::snprintf(buf, sizeof buf, "%-58s %-28.28s pred %12.5g  meas %12.5g  err %+6.1f%%\n", row.id.c_str(),
                    row.metric.c_str(), row.predicted, row.measured, 100 * row.error);
    os << buf;
  }
  os << "\nper source and metric: cases, mean |error|, max |error|, bias (mean signed error)\n";
  for (const auto& g : r.groups) {
    std::snprintf(buf, sizeof buf, "  %3d  mean %5.1f%%  max %5.1f%%  bias %+6.1f%%  %.70s | %s\n", g.cases,
                  100 * g.mean_abs_error, 100 * g.max_abs_error, 100 * g.mean_error, g.source.c_str(), g.metric.c_str());
    os << buf;
  }
  return os.str();
}

std::string report_markdown(const ValidationReport& r) {
  std::ostringstream os;
  char buf[512];
  os << "| source | measured output | cases | mean abs. error | max abs. error | bias |\n|---|---|---|---|---|---|\n";
  for (const auto& g : r.groups) {
    std::snprintf(buf, sizeof buf, "| %s | `%s` | %d | %.1f%% | %.1f%% | %+.1f%% |\n", g.source.c_str(), g.metric.c_str(),
                  g.cases, 100 * g.mean_abs_error, 100 * g.max_abs_error, 100 * g.mean_error);
    os << buf;
  }
  return os.str();
}

std::string report_json(const ValidationReport& r) {
  json rows = json::array(), groups = json::array();
  for (const auto& row : r.rows) {
    json j = {{"id", row.id}, {"source", row.source}, {"metric", row.metric}, {"skipped", row.skipped}};
    if (row.skipped)
      j["note"] = row.note;
    else
      j.update({{"predicted", row.predicted}, {"measured", row.measured}, {"error", row.error}});
    rows.push_back(j);
  }
  for (const auto& g : r.groups)
    groups.push_back({{"source", g.source}, {"metric", g.metric}, {"cases", g.cases},
                      {"mean_abs_error", g.mean_abs_error}, {"max_abs_error", g.max_abs_error},
                      {"mean_error", g.mean_error}});
  return json({{"rows", rows}, {"groups", groups}}).dump(2);
}

}  // namespace llmcalc
