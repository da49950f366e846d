#include "energy_cost.h"

namespace llmcalc {

namespace {
// A DGX H100 node draws at most 10.2 kW for 8 GPUs of 700 W TDP: 1.82x the
// GPU TDP per GPU ([CE4.1]: NVIDIA DGX H100 user guide via [CE-K39]). Used for
// devices whose system preset gives no node power of its own (an assumption:
// hosts, NICs and fans scale with the accelerators they serve).
constexpr double kNodeToTdp = 10200.0 / (8 * 700);

CostFigures scaled(const CostFigures& c, double k) {
  return {c.gpu_hours * k, c.usd * k, c.kwh * k, c.electricity_usd * k, c.co2_kg * k};
}

// What every cost result states: whether dollars and energy are known.
CostResult cost_basis(const Scenario& s) {
  CostResult r;
  r.priced = s.costs.gpu_hour_usd > 0;
  r.power_W_per_gpu = wall_power_per_gpu(s);
  r.metered = r.power_W_per_gpu > 0;
  return r;
}
}  // namespace

double wall_power_per_gpu(const Scenario& s) {
  const Device& d = s.system.device;
  const double node = d.node_power_W > 0 ? d.node_power_W : d.tdp_W * kNodeToTdp;
  return s.costs.power_fraction * node * s.costs.pue;
}

// [CE6] formulas 9-10: GPU-hours x price; energy = GPU-hours x wall power;
// CO2 = energy x grid intensity.
CostFigures cost_of(const Scenario& s, double gpus, double seconds) {
  CostFigures c;
  c.gpu_hours = gpus * seconds / 3600;
  c.usd = c.gpu_hours * s.costs.gpu_hour_usd;
  c.kwh = c.gpu_hours * wall_power_per_gpu(s) / 1000;
  c.electricity_usd = c.kwh * s.costs.usd_per_kwh;
  c.co2_kg = c.kwh * s.costs.g_co2_per_kwh / 1000;
  return c;
}

CostResult training_costs(const Scenario& s, double iteration_time_s) {
  CostResult r = cost_basis(s);
  const double gpus = static_cast<double>(s.par.gpus());
  r.per_iteration = cost_of(s, gpus, iteration_time_s);
  const double tokens = static_cast<double>(s.train.global_batch) * s.train.seq_len;
  if (tokens > 0) r.per_million_tokens = scaled(r.per_iteration, 1e6 / tokens);
  if (s.train.tokens > 0 && tokens > 0) {
    r.to_train = scaled(r.per_iteration, s.train.tokens / tokens);
    r.has_to_train = true;
  }
  return r;
}

// [CE6] formulas 11-12: the replica's GPU-hours and energy per million
// output tokens at its throughput (prefill included in the time).
CostResult inference_costs(const Scenario& s, double output_tokens_per_s, double replica_gpus) {
  CostResult r = cost_basis(s);
  if (output_tokens_per_s <= 0) return r;
  r.per_million_tokens = cost_of(s, replica_gpus, 1e6 / output_tokens_per_s);
  // kWh per million tokens -> J per token: x 3.6e6 J/kWh / 1e6 tokens.
  r.joules_per_token = r.per_million_tokens.kwh * 3.6;
  return r;
}

}  // namespace llmcalc
