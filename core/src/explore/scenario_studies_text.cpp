// The studies' text tables (llmcalc study NAME): a line per system, GPU
// count or model, its plan's figures and degrees.
#include <cstdio>

#include "scenario_studies.h"
#include "search.h"
#include "strict_json.h"
#include "summary_text.h"

namespace llmcalc {

namespace {

// A parameter count in billions or trillions: "8.03B", "1.03T".
std::string param_text(double n) {
  char buf[32];
  std::snprintf(buf, sizeof buf, n >= 1e12 ? "%.3gT" : "%.3gB", n >= 1e12 ? n / 1e12 : n / 1e9);
  return buf;
}

// A row's speed-up, "2.31x", or "-" where it has none (no plan fits there,
// or none fits at the reference either).
std::string times_cell(const json& row) {
  return row.contains("speedup") ? number_text("%.2fx", row.at("speedup").get<double>()) : "-";
}

// The plan's columns in the three studies' tables: its parallel degrees (an
// expert tp the plan names after its ep, "8/1", as search --text writes it),
// and in training its ZeRO stage (plans of equal degrees differ by it).
std::string plan_header(bool training) { return training ? "tp pp dp cp ep[/etp] zero" : "tp pp dp cp ep[/etp]"; }
std::string plan_cells(const json& par, bool training) {
  std::string out;
  for (const char* k : {"tp", "pp", "dp", "cp"}) out += (out.empty() ? "" : " ") + std::to_string(par.value(k, 1));
  out += " " + ep_text(par);
  if (training) out += " " + std::to_string(par.value("zero", 0));
  return out;
}

// One table of scaling rows (strong or weak), a line per GPU count; `unit`
// the system's word for a device ("GPU", "chip").
std::string scaling_table(const json& rows, bool training, const std::string& unit) {
  char line[256];
  // The GPU count, and for training the global batch at it.
  auto lead = [training](const std::string& gpus, const std::string& batch) {
    char buf[48];
    std::snprintf(buf, sizeof buf, training ? "%8s %12s" : "%8s", gpus.c_str(), batch.c_str());
    return std::string(buf);
  };
  std::snprintf(line, sizeof line, " %12s %12s %9s %10s %10s  %s\n", training ? "iteration s" : "TPOT ms",
                training ? "tokens/s" : "out tok/s", "speed-up", "efficiency", ("GiB/" + unit).c_str(), plan_header(training).c_str());
  std::string out = lead(unit + "s", "global batch") + line;
  for (const json& row : rows) {
    const long long n = row.at("gpus").get<long long>();
    out += lead(std::to_string(n), std::to_string(row.value("global_batch", 0LL)));
    if (row.contains("error") || !row.at("fits").get<bool>()) {
      out += "  " + (row.contains("error") ? "error: " + row.at("error").get<std::string>() : std::string("does not fit")) + "\n";
      continue;
    }
    const json& p = row.at("plan");
    const json& par = p.at("parallelism");
    const double first = training ? p.at("iteration_time_s").get<double>() : 1e3 * p.at("tpot_s").get<double>();
    const std::string share = row.contains("efficiency") ? number_text("%.0f%%", 100 * row.at("efficiency").get<double>()) : "-";
    std::snprintf(line, sizeof line, " %12.4g %12.4g %9s %10s %10.1f  %s\n", first, row.at("throughput").get<double>(),
                  times_cell(row).c_str(), share.c_str(), p.at("memory_bytes_total").get<double>() / (1024.0 * 1024 * 1024),
                  plan_cells(par, training).c_str());
    out += line;
  }
  return out;
}

// Where the scenario's own count holds no plan, the line that says which
// count the speed-ups and shares of linear scaling are over.
std::string scaling_reference_line(const json& rows, const std::string& unit) {
  long long own = 0, reference = 0;
  for (const json& row : rows) {
    if (row.value("own", false)) own = row.at("gpus").get<long long>();
    if (row.value("reference", false)) reference = row.at("gpus").get<long long>();
  }
  if (reference == own) return "";
  if (reference == 0) return "No count holds a plan: no speed-ups.\n\n";
  return "Speed-ups and shares of linear scaling are over " + units_text(unit, static_cast<double>(reference)) +
         ", the fewest that hold a plan (none fits on the scenario's " + units_text(unit, static_cast<double>(own)) + ").\n\n";
}

// Where the scenario's own system holds no plan, the line that says which
// system the speed-ups are over.
std::string systems_reference_line(const json& rows) {
  for (const json& row : rows)
    if (row.value("reference", false))
      return row.value("own", false) ? ""
                                     : "Speed-ups are over " + row.at("system").get<std::string>() +
                                           ", the slowest system that holds a plan (none fits on the scenario's own, " +
                                           rows.at(0).at("system").get<std::string>() + ").\n\n";
  return "No system holds a plan: no speed-ups.\n\n";
}

}  // namespace

std::string models_study_text(const json& r) {
  const bool training = r.at("mode") == "training";
  const std::string unit = r.value("unit_name", std::string("GPU"));
  std::string out = "Models: " + r.at("workload").get<std::string>() + "\n\n";
  char line[256];
  std::snprintf(line, sizeof line, "%-28s %8s %8s %12s %7s %10s %10s  %s\n", "model", "params", "active",
                training ? "iteration s" : ("tok/s/" + unit).c_str(), training ? "MFU" : "TPOT ms", ("GiB/" + unit).c_str(),
                (unit + "-h/Mtok").c_str(), plan_header(training).c_str());
  out += line;
  for (const json& row : r.at("rows")) {
    const std::string name = row.at("model").get<std::string>().substr(0, 28);
    std::snprintf(line, sizeof line, "%-28s %8s %8s ", name.c_str(), param_text(row.value("parameters", 0.0)).c_str(),
                  param_text(row.value("parameters_active", 0.0)).c_str());
    out += line;
    if (row.contains("error")) {
      out += "error: " + row.at("error").get<std::string>() + "\n";
      continue;
    }
    if (!row.at("fits").get<bool>()) {
      std::snprintf(line, sizeof line, "does not fit (needs %.1f GiB per %s)\n", row.value("closest_memory_bytes", 0.0) / (1024.0 * 1024 * 1024),
                    unit.c_str());
      out += line;
      continue;
    }
    const json& p = row.at("plan");
    const json& par = p.at("parallelism");
    const double figure = training ? p.at("iteration_time_s").get<double>() : p.at("output_tokens_per_s_per_gpu").get<double>();
    const double third = training ? p.at("mfu").get<double>() : 1e3 * p.at("tpot_s").get<double>();
    std::snprintf(line, sizeof line, "%12.4g %7.3g %10.1f %10.3g  %s\n", figure, third,
                  p.at("memory_bytes_total").get<double>() / (1024.0 * 1024 * 1024),
                  row.at("per_million_tokens").at("gpu_hours").get<double>(), plan_cells(par, training).c_str());
    out += line;
  }
  return out;
}

std::string scaling_study_text(const json& r) {
  const bool training = r.at("mode") == "training";
  const std::string unit = r.value("unit_name", std::string("GPU"));
  std::string out = "Scaling: " + r.at("workload").get<std::string>() + "\n\n";
  if (training) out += "Global batch kept (strong scaling)\n\n";
  out += scaling_reference_line(r.at("rows"), unit) + scaling_table(r.at("rows"), training, unit);
  if (r.contains("weak"))
    out += "\nGlobal batch grown with the " + unit + "s (weak scaling)\n\n" + scaling_reference_line(r.at("weak"), unit) +
           scaling_table(r.at("weak"), training, unit);
  return out;
}

std::string systems_study_text(const json& r) {
  const bool training = r.at("mode") == "training";
  std::string out = "Systems: " + r.at("workload").get<std::string>() + "\n\n" + systems_reference_line(r.at("rows"));
  char line[256];
  std::snprintf(line, sizeof line, "%-34s %12s %9s %7s %10s %10s  %s\n", "system", training ? "iteration s" : "tok/s/GPU",
                "speed-up", training ? "MFU" : "TPOT ms", "GiB/GPU", "GPU-h/Mtok", plan_header(training).c_str());
  out += line;
  for (const json& row : r.at("rows")) {
    std::string name = row.at("system").get<std::string>();
    if (row.contains("precision")) name += " (" + row.at("precision").at("run").get<std::string>() + ")";
    name = name.substr(0, 34);
    const std::string padded = name + std::string(35 - name.size(), ' ');
    if (row.contains("error")) {
      out += padded + "error: " + row.at("error").get<std::string>() + "\n";
      continue;
    }
    if (!row.at("fits").get<bool>()) {
      constexpr double kGiB = 1024.0 * 1024 * 1024;
      std::snprintf(line, sizeof line, "does not fit (needs %.1f of %.1f GiB)\n", row.value("closest_memory_bytes", 0.0) / kGiB,
                    row.value("capacity_bytes", 0.0) / kGiB);
      out += padded + line;
      continue;
    }
    const json& p = row.at("plan");
    const json& par = p.at("parallelism");
    const double figure = training ? p.at("iteration_time_s").get<double>() : p.at("output_tokens_per_s_per_gpu").get<double>();
    const double third = training ? p.at("mfu").get<double>() : 1e3 * p.at("tpot_s").get<double>();
    std::snprintf(line, sizeof line, "%-34s %12.4g %9s %7.3g %10.1f %10.3g  %s\n", name.c_str(), figure,
                  times_cell(row).c_str(), third, p.at("memory_bytes_total").get<double>() / (1024.0 * 1024 * 1024),
                  row.at("per_million_tokens").at("gpu_hours").get<double>(), plan_cells(par, training).c_str());
    out += line;
  }
  return out;
}

}  // namespace llmcalc
