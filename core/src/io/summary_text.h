// A result as a few lines of text for a person at a terminal (`llmcalc run
// --text`): what runs where, the headline numbers by their output-table
// labels, where the time and the memory go, what limits it, and how far the
// model has been from published runs of its kind.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

#include "evaluate.h"

namespace llmcalc {

std::string result_text(const Scenario& s, const Result& r);

// Every number of a text passes through these. One printf format and value;
// a value that is not finite reads "n/a", so no "nan" reaches a text.
std::string number_text(const char* format, double v);
// 0.562 -> "56.2%".
std::string percent_text(double fraction);
// `text` padded with spaces to `width` characters (a table's column).
std::string column_text(const std::string& text, size_t width);
// "18.9 s", "700 ms", "3.2 h", "20.8 days"; "n/a" for a number that is not finite.
std::string seconds_text(double s);
// "24.3 GiB", "512 MiB".
std::string bytes_text(double b);
// 166778.3 -> "166,778".
std::string count_text(double v);
// "8 GPUs", "1 chip", "64 HPUs": a count of devices in their own word
// (system.device.unit_name).
std::string units_text(const std::string& unit, double n);
// How far published runs of a kind have been from the model, a line per
// measured output; `kind` is {"label", "metrics": [...]} (accuracy.h).
std::string published_runs_text(const nlohmann::json& kind);

}  // namespace llmcalc
