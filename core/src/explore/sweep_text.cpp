// `llmcalc sweep --text`: a sweep_scenario result as one table per series,
// each output in its unit from the output table.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "outputs.h"
#include "summary_text.h"
#include "sweep.h"

namespace llmcalc {

namespace {

using nlohmann::json;

std::string cell(const std::string& text, size_t width) { return column_text(text, width) + "  "; }

// A value in its output's unit: "5.94 s", "64.5%", "24.3 GiB", "80,188".
std::string value_text(const std::string& key, const json& v) {
  if (!v.is_number()) return "n/a";
  const double x = v.get<double>();
  const OutputSpec* o = find_output(key);
  const std::string unit = o ? o->unit : "";
  if (unit == "s") return seconds_text(x);
  if (unit == "bytes") return bytes_text(x);
  if (unit == "fraction") return percent_text(x);
  return std::fabs(x) >= 1000 ? count_text(x) : number_text("%.3g", x);
}

// A swept value: an integer as it is, else four figures ("1.111").
std::string x_text(const json& x) {
  if (!x.is_number_float()) return x.is_string() ? x.get<std::string>() : x.dump();
  return number_text("%.4g", x.get<double>());
}

// The output table's labels say GPU; a table of a TPU's series says chip.
std::string in_unit(std::string label, const std::string& unit) {
  for (size_t at = label.find("GPU"); at != std::string::npos; at = label.find("GPU", at + unit.size()))
    label.replace(at, 3, unit);
  return label;
}

std::string column_label(const std::string& key, const std::string& unit) {
  const OutputSpec* o = find_output(key);
  return o ? in_unit(o->label, unit) : key;
}

// The word for a device of every series, or "device" where they differ.
std::string common_unit(const json& series) {
  std::string unit;
  for (const json& one : series) {
    const std::string u = one.value("unit_name", std::string("GPU"));
    if (!unit.empty() && u != unit) return "device";
    unit = u;
  }
  return unit.empty() ? "GPU" : unit;
}

std::string series_table(const json& x, const json& series, const std::string& input) {
  const std::string unit = series.value("unit_name", std::string("GPU"));
  const json& values = series.value("values", json::object());
  std::vector<std::string> keys;
  for (const auto& [key, _] : values.items()) keys.push_back(key);
  // Widths: each column as wide as its label or its widest cell.
  std::vector<size_t> width(keys.size() + 1, input.size());
  for (size_t c = 0; c < keys.size(); ++c) width[c + 1] = column_label(keys[c], unit).size();
  for (size_t i = 0; i < x.size(); ++i) {
    width[0] = std::max(width[0], x_text(x[i]).size());
    for (size_t c = 0; c < keys.size(); ++c) width[c + 1] = std::max(width[c + 1], value_text(keys[c], values[keys[c]][i]).size() + 1);
  }
  std::string head = cell(input, width[0]);
  for (size_t c = 0; c < keys.size(); ++c) head += cell(column_label(keys[c], unit), width[c + 1]);
  std::string out = head.substr(0, head.find_last_not_of(' ') + 1) + "\n";
  const json& fits = series.value("fits", json::array());
  for (size_t i = 0; i < x.size(); ++i) {
    const bool spills = i < fits.size() && fits[i].is_boolean() && !fits[i].get<bool>();
    std::string line = cell(x_text(x[i]), width[0]);
    for (size_t c = 0; c < keys.size(); ++c)
      line += cell(value_text(keys[c], values[keys[c]][i]) + (spills ? "*" : ""), width[c + 1]);
    out += line.substr(0, line.find_last_not_of(' ') + 1) + "\n";
  }
  for (const auto& e : series.value("errors", json::array()))
    out += "error at " + x_text(e.value("x", json())) + ": " + e.value("path", "$") + ": " + e.value("message", "") + "\n";
  return out;
}

}  // namespace

std::string sweep_table(const json& out) {
  const json& s = out.at("sweep");
  const std::string input = s.value("input", "");
  const json& x = s.value("x", json::array());
  const json& series = s.value("series", json::array());
  std::string text = "Sweep of " + input + " (" + s.value("scale", "") + "), " + std::to_string(x.size()) + " values";
  if (series.size() > 1) text += ", one table per " + s.value("series_input", std::string("series"));
  text += "; * = the plan does not fit in " + common_unit(series) + " memory.\n";
  for (const auto& one : series) {
    text += "\n";
    if (series.size() > 1) text += one.value("name", "") + "\n";
    text += series_table(x, one, input);
  }
  return text;
}

}  // namespace llmcalc
