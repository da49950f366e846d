// The sections around a run: what its GPU-hours cost (cost) and how often it
// is interrupted (reliability). Defaults and ranges come from the input table.
#include "parse.h"
#include "table_fields.h"

namespace llmcalc {

Costs parse_costs(const nlohmann::json& root) {
  Costs c;
  if (!root.contains("cost")) return c;
  StrictObject o(root.at("cost"), "cost");
  c.gpu_hour_usd = number_field(o, "gpu_hour_usd");
  c.power_fraction = number_field(o, "power_fraction");
  c.pue = number_field(o, "pue");
  c.usd_per_kwh = number_field(o, "usd_per_kwh");
  c.g_co2_per_kwh = number_field(o, "g_co2_per_kwh");
  o.finish();
  return c;
}

// Absent, the section takes every default of the table.
Reliability parse_reliability(const nlohmann::json& root) {
  const nlohmann::json section = root.contains("reliability") ? root.at("reliability") : nlohmann::json::object();
  StrictObject o(section, "reliability");  // holds a reference: the section outlives it
  Reliability r;
  r.gpu_hours_per_interruption = number_field(o, "gpu_hours_per_interruption");
  r.storage_Bps_per_gpu = number_field(o, "storage_GBps_per_gpu") * 1e9;
  r.restart_s = number_field(o, "restart_s");
  r.checkpoint_interval_s = number_field(o, "checkpoint_interval_s");
  o.finish();
  return r;
}

}  // namespace llmcalc
