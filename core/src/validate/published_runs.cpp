#include "published_runs.h"

#include <algorithm>
#include <vector>

#include "accuracy.h"
#include "llmcalc/validate.h"
#include "presets.h"

namespace llmcalc {

namespace {

using json = nlohmann::json;

const char* regime_label(const std::string& id) {
  for (const Regime& r : regimes())
    if (id == r.id) return r.label;
  return "";
}

json row_json(const ValidationRow& r) {
  json j = {{"id", r.id}, {"source", r.source}, {"metric", r.metric}, {"skipped", r.skipped}};
  if (r.skipped) {
    j["note"] = r.note;
    return j;
  }
  j.update({{"predicted", r.predicted}, {"measured", r.measured}, {"error", r.error}, {"kind", r.regime},
            {"kind_label", regime_label(r.regime)}, {"device", r.device}});
  return j;
}

// Back from the study's JSON to the rows `llmcalc validate` reports.
std::vector<ValidationRow> rows_of(const json& result) {
  std::vector<ValidationRow> rows;
  for (const json& j : result.value("rows", json::array())) {
    ValidationRow r{j.value("id", ""), j.value("source", ""), j.value("metric", ""), j.value("predicted", 0.0),
                    j.value("measured", 0.0), j.value("error", 0.0), j.value("skipped", false), j.value("note", "")};
    rows.push_back(r);
  }
  return rows;
}

}  // namespace

json published_runs_study() {
  std::vector<ValidationRow> rows;
  for (const auto& [path, text] : embedded_files("validation/public/")) {
    const std::string name = path.substr(path.rfind('/') + 1);
    for (ValidationRow& r : validate_case(text, name)) rows.push_back(std::move(r));
  }
  const ValidationReport report = summarize(rows);
  json out_rows = json::array(), groups = json::array();
  for (const ValidationRow& r : report.rows) out_rows.push_back(row_json(r));
  // The sources weigh alike in the overall figure, as the project's accuracy
  // target counts them (a mean over source families), whatever their size.
  double sum = 0, worst = 0;
  int cases = 0;
  for (const ValidationGroup& g : report.groups) {
    groups.push_back({{"source", g.source}, {"metric", g.metric}, {"cases", g.cases}, {"mean_abs_error", g.mean_abs_error},
                      {"max_abs_error", g.max_abs_error}, {"mean_error", g.mean_error}});
    sum += g.mean_abs_error;
    worst = std::max(worst, g.max_abs_error);
    cases += g.cases;
  }
  const double families = static_cast<double>(report.groups.size());
  return {{"study", "published-runs"},
          {"workload", "every published measurement in tests/validation/public, rerun with this build of the model"},
          {"rows", out_rows},
          {"groups", groups},
          {"overall",
           {{"cases", cases}, {"groups", report.groups.size()}, {"mean_of_group_means", families > 0 ? sum / families : 0.0},
            {"max_abs_error", worst}}}};
}

std::string published_runs_table(const json& result) {
  return "Published runs: " + result.value("workload", std::string()) + "\n\n" + report_text(summarize(rows_of(result)));
}

}  // namespace llmcalc
