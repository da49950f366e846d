#include "published_runs.h"

#include <algorithm>
#include <vector>

#include "accuracy.h"
#include "llmcalc/validate.h"
#include "presets.h"
#include "validate_report.h"

namespace llmcalc {

namespace {

using json = nlohmann::json;

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
  json out = {{"study", "published-runs"},
              {"workload", "every published measurement in tests/validation/public, rerun with this build of the model"}};
  out.update(report_object(report));
  // The sources weigh alike in the overall figure, as the project's accuracy
  // target counts them (a mean over source families), whatever their size.
  double sum = 0, worst = 0;
  int cases = 0;
  for (const ValidationGroup& g : report.groups) {
    sum += g.mean_abs_error;
    worst = std::max(worst, g.max_abs_error);
    cases += g.cases;
  }
  const double groups = static_cast<double>(report.groups.size());
  out["overall"] = {{"cases", cases}, {"groups", report.groups.size()},
                    {"mean_of_group_means", groups > 0 ? sum / groups : 0.0}, {"max_abs_error", worst}};
  // Per kind of run and output: the figures a result of that kind quotes, from
  // the table the library holds (core/presets/validation/accuracy.json, which
  // a test keeps equal to these cases' report_accuracy).
  json kinds = json::array();
  for (const auto& [id, kind] : accuracy_table().at("regimes").items())
    for (const json& m : kind.at("metrics"))
      kinds.push_back({{"kind", id}, {"kind_label", kind.at("label")}, {"metric", m.at("metric")}, {"cases", m.at("cases")},
                       {"mean_abs_error", m.at("mean_abs_error")}, {"max_abs_error", m.at("max_abs_error")},
                       {"mean_error", m.at("mean_error")}});
  out["kinds"] = kinds;
  return out;
}

std::string published_runs_table(const json& result) {
  return "Published runs: " + result.value("workload", std::string()) + "\n\n" + report_text(summarize(rows_of(result)));
}

}  // namespace llmcalc
