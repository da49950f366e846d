// Validation cases: a scenario paired with a published measurement
// (docs/scenario.md, "Validation cases").
#pragma once
#include <string>
#include <vector>

namespace llmcalc {

struct ValidationRow {
  std::string id, source, metric;
  double predicted = 0, measured = 0, error = 0;  // error = (predicted - measured) / measured
  bool skipped = false;
  std::string note;  // why skipped
  std::string regime = {};  // the kind of run (io/accuracy.h); empty for kernel cases
  std::string device = {};  // the device it ran on (the system's device name)
  std::vector<std::string> architecture = {};  // its model's layer kinds beyond dense attention (io/accuracy.h)
};

struct ValidationGroup {
  std::string source, metric;
  int cases = 0;
  double mean_abs_error = 0, max_abs_error = 0;
  double mean_error = 0;  // signed: the bias (> 0: the model predicts too high)
};

struct ValidationReport {
  std::vector<ValidationRow> rows;
  std::vector<ValidationGroup> groups;
};

// Runs one case given as JSON text; `origin` names it in messages.
std::vector<ValidationRow> validate_case(const std::string& case_json, const std::string& origin);
ValidationReport summarize(std::vector<ValidationRow> rows);
std::string report_text(const ValidationReport& r);
std::string report_json(const ValidationReport& r);
// The per-source summary as a Markdown table (the README embeds it).
std::string report_markdown(const ValidationReport& r);
// The per-regime summary that results quote (core/presets/validation/accuracy.json).
std::string report_accuracy(const ValidationReport& r);

}  // namespace llmcalc
