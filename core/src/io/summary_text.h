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

// "18.9 s", "700 ms", "3.2 h", "20.8 days"; "n/a" for a number that is not finite.
std::string seconds_text(double s);
// "24.3 GiB", "512 MiB".
std::string bytes_text(double b);
// 166778.3 -> "166,778".
std::string count_text(double v);
// How far published runs of a kind have been from the model, a line per
// measured output; `kind` is {"label", "metrics": [...]} (accuracy.h).
std::string published_runs_text(const nlohmann::json& kind);

}  // namespace llmcalc
