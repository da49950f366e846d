#include "technology.h"

#include <algorithm>
#include <cmath>

#include "presets.h"
#include "strict_json.h"

namespace llmcalc {

namespace {

using nlohmann::json;

const json& tech() { return all_presets().at("technology").at("technology"); }

const json& node_data(const std::string& node) {
  for (const json& n : tech().at("nodes"))
    if (n.at("node") == node) return n;
  throw InputError("node", "unknown technology node \"" + node.substr(0, 20) + "\"; known: 12nm, 7nm, 5nm, 3nm, 2nm, 1.4nm, 1nm");
}

// Cumulative iso-power speed index of a node (12nm = 1).
double speed_index(const std::string& node) {
  double s = 1;
  for (const json& n : tech().at("nodes")) {
    s *= n.at("speed_step").get<double>();
    if (n.at("node") == node) return s;
  }
  return s;
}

double per_sm(const json& arch, const char* table, const char* precision) {
  const json& t = arch.at(table);
  return t.contains(precision) ? t.at(precision).get<double>() : 0.0;
}

// DeepFlow's core voltage-frequency law (hw_component.py;
// docs/sources.md [TS12c]): f ∝ (V - Vt)^2 / V, dynamic power ∝ V^2 f ∝ V (V - Vt)^2.
double vf(double v, double vt) { return (v - vt) * (v - vt) / v; }

struct OperatingPoint {
  double v, f_ratio;  // voltage, frequency / nominal frequency
  bool limited;
};

// Highest point at or below nominal whose power fits `ratio` = budget / nominal power.
// Below the floor Vt + margin the voltage stays at the floor and power falls with f alone.
OperatingPoint operating_point(double ratio, double vnom, double vt, double vmin) {
  if (ratio >= 1 - 1e-4) return {vnom, 1.0, false};  // the anchor sits at nominal (its datasheet peak is rounded)
  const double pnom = vnom * (vnom - vt) * (vnom - vt);
  const double pmin = vmin * (vmin - vt) * (vmin - vt) / pnom;  // power ratio at the floor
  if (ratio <= pmin) return {vmin, vf(vmin, vt) / vf(vnom, vt) * ratio / pmin, true};
  double lo = vmin, hi = vnom;  // bisection on V (V - Vt)^2 = ratio x pnom, monotone above Vt
  for (int i = 0; i < 60; ++i) {
    const double mid = 0.5 * (lo + hi);
    (mid * (mid - vt) * (mid - vt) > ratio * pnom ? hi : lo) = mid;
  }
  return {lo, vf(lo, vt) / vf(vnom, vt), true};
}

void check_budget(const TechBudget& b) {
  if (!(b.die_area_mm2 >= 50 && b.die_area_mm2 <= 10000)) throw InputError("die_area_mm2", "must be within 50..10000 mm2");
  if (!(b.package_area_mm2 >= b.die_area_mm2 && b.package_area_mm2 <= 100000))
    throw InputError("package_area_mm2", "must be at least the die area and at most 100000 mm2");
  if (!(b.tdp_W >= 50 && b.tdp_W <= 10000)) throw InputError("tdp_W", "must be within 50..10000 W");
}

// HBM stacks: limited by the die edge given to HBM PHYs and by the package
// area beside the die (DeepFlow hw_component, docs/sources.md [TS12c]).
void place_hbm(DerivedDevice& d, const json& gen, const json& c) {
  const double perimeter = 4 * std::sqrt(d.budget.die_area_mm2);
  const int by_edge = static_cast<int>(perimeter * c.at("hbm_perimeter_fraction").get<double>() / gen.at("width_mm").get<double>());
  const int by_area = static_cast<int>((d.budget.package_area_mm2 - d.budget.die_area_mm2) / c.at("hbm_stack_area_mm2").get<double>());
  d.hbm_stacks = std::max(0, std::min(by_edge, by_area));
  d.hbm_limit = by_edge <= by_area ? "perimeter" : "package";
  d.hbm_Bps = d.hbm_stacks * gen.at("stack_GBps").get<double>() * 1e9;
  d.hbm_bytes = d.hbm_stacks * gen.at("stack_GB").get<double>() * 1e9;
  d.power_hbm = d.hbm_Bps * 8 * gen.at("pJ_per_bit").get<double>() * 1e-12;
}

// Links on the die edge not taken by HBM, at the architecture's edge density
// (SerDes energy both ways), and the uncore's fixed share of the TDP.
void place_links_and_uncore(DerivedDevice& d, const json& arch, const json& c) {
  d.nvlink_Bps = 4 * std::sqrt(d.budget.die_area_mm2) * (1 - c.at("hbm_perimeter_fraction").get<double>()) *
                 arch.at("nvlink_GBps_per_mm").get<double>() * 1e9;
  d.power_io = 2 * d.nvlink_Bps * 8 * c.at("io_pJ_per_bit").get<double>() * 1e-12;
  d.power_uncore = d.budget.tdp_W * c.at("uncore_power_fraction").get<double>();
}

// Energy per bf16 FLOP of an architecture at its home node and clock: what its
// anchor product's TDP leaves for compute after HBM, links and uncore, over
// the anchor's peak (the anchor runs at nominal by construction).
double anchor_energy_per_flop(const std::string& architecture, const json& t) {
  const json& arch = t.at("architectures").at(architecture);
  const json& c = t.at("constants");
  for (const auto& item : t.at("anchors").items()) {
    const json& a = item.value();
    if (a.at("architecture") != architecture) continue;
    DerivedDevice d;
    d.budget.architecture = architecture;
    d.budget.node = a.at("node").get<std::string>();
    d.budget.die_area_mm2 = a.at("die_area_mm2").get<double>();
    d.budget.package_area_mm2 = a.at("package_area_mm2").get<double>();
    d.budget.tdp_W = a.at("tdp_W").get<double>();
    place_hbm(d, t.at("hbm").at(node_data(d.budget.node).at("hbm")), c);
    place_links_and_uncore(d, arch, c);
    const double compute_W = d.budget.tdp_W - d.power_hbm - d.power_io - d.power_uncore;
    return compute_W / (a.at("measured").at("bf16_tflops").get<double>() * 1e12);
  }
  throw InputError("architecture", "no anchor device for \"" + architecture + "\"");
}

}  // namespace

const std::vector<std::string>& technology_nodes() {
  static const std::vector<std::string> k = [] {
    std::vector<std::string> v;
    for (const json& n : tech().at("nodes")) v.push_back(n.at("node").get<std::string>());
    return v;
  }();
  return k;
}

DerivedDevice derive_device(const TechBudget& b) {
  check_budget(b);
  const json& t = tech();
  if (!t.at("architectures").contains(b.architecture))
    throw InputError("architecture", "unknown architecture \"" + b.architecture.substr(0, 20) + "\"; known: ampere, hopper");
  const json& arch = t.at("architectures").at(b.architecture);
  const json& node = node_data(b.node);
  const json& home = node_data(arch.at("home_node").get<std::string>());
  const json& c = t.at("constants");
  const json& fp = t.at("floorplan");
  DerivedDevice d;
  d.budget = b;
  d.hbm = b.hbm.empty() ? node.at("hbm").get<std::string>() : b.hbm;
  if (!t.at("hbm").contains(d.hbm)) throw InputError("hbm", "unknown HBM generation \"" + d.hbm.substr(0, 20) + "\"");

  // Area: DeepFlow's A100/H100 floorplan shares of the die.
  const double A = b.die_area_mm2;
  d.area_compute = A * fp.at("compute").get<double>();
  d.area_l2 = A * fp.at("l2").get<double>();
  d.area_l1 = A * fp.at("l1_and_registers").get<double>();
  d.area_controllers = A * fp.at("memory_controllers").get<double>();
  d.area_io = A * fp.at("io").get<double>();

  // SMs: the architecture's SM shrinks with logic density; a fixed share is
  // disabled for yield, as on the anchor product.
  const double density = node.at("logic_MTr_per_mm2").get<double>() / home.at("logic_MTr_per_mm2").get<double>();
  const double sm_area = arch.at("sm_area_mm2").get<double>() / density;
  const double sms_built = std::floor(d.area_compute / sm_area + 1e-9);
  d.sm_count = static_cast<int>(std::floor(sms_built * arch.at("enabled_sm_fraction").get<double>() + 1e-9));

  place_hbm(d, t.at("hbm").at(d.hbm), c);

  place_links_and_uncore(d, arch, c);

  // Clock: nominal = home clock x the foundries' iso-power speed steps;
  // energy per FLOP at nominal = the anchor's x home/node speed (iso-power:
  // the same design draws the same power at the higher clock).
  const double mm_flops = per_sm(arch, "matmul_flop_per_clk_per_sm", "bf16");
  const double f_home = arch.at("frequency_GHz").get<double>() * 1e9;
  const double e_home = anchor_energy_per_flop(b.architecture, t);
  const double speed = speed_index(b.node) / speed_index(arch.at("home_node").get<std::string>());
  const double f_nom = f_home * speed;
  const double e_nom = e_home / speed;
  const double budget_W = b.tdp_W - d.power_hbm - d.power_io - d.power_uncore;
  if (budget_W <= 0) throw InputError("tdp_W", "the HBM and links alone use the whole power budget");
  const double p_nom = e_nom * mm_flops * d.sm_count * f_nom;
  const double vnom = node.at("vdd_V").get<double>(), vt = c.at("threshold_V").get<double>();
  const OperatingPoint op = operating_point(budget_W / p_nom, vnom, vt, vt + c.at("voltage_margin_V").get<double>());
  d.voltage_V = op.v;
  d.power_limited = op.limited;
  d.nominal_frequency_GHz = f_nom / 1e9;
  d.frequency_GHz = f_nom * op.f_ratio / 1e9;
  // Dynamic energy per operation scales with V^2 (same switched capacitance).
  d.energy_pJ_per_flop = e_nom * (op.v / vnom) * (op.v / vnom) * 1e12;
  d.bf16_flops = mm_flops * d.sm_count * d.frequency_GHz * 1e9;
  d.fp8_flops = per_sm(arch, "matmul_flop_per_clk_per_sm", "fp8") * d.sm_count * d.frequency_GHz * 1e9;
  d.power_compute = d.bf16_flops * d.energy_pJ_per_flop * 1e-12;

  // SRAM: L2 from its area at the node's bitcell and the array efficiency
  // calibrated on the H100; shared memory per SM is the architecture's.
  d.l2_bytes = d.area_l2 * c.at("l2_array_efficiency").get<double>() / (node.at("sram_bitcell_um2").get<double>() * 1e-6) / 8;
  d.smem_bytes = d.sm_count * arch.at("smem_KiB_per_sm").get<double>() * 1024;
  return d;
}

json derived_system(const DerivedDevice& d) {
  const json& t = tech();
  const json& arch = t.at("architectures").at(d.budget.architecture);
  const json& c = t.at("constants");
  json sys = *find_preset("systems", arch.at("base_system").get<std::string>());
  json& dev = sys["device"];
  const double hz = d.frequency_GHz * 1e9;
  dev["name"] = d.budget.architecture + " @ " + d.budget.node + " (" + d.hbm + ", " + std::to_string(static_cast<int>(d.budget.tdp_W)) + " W)";
  json mm = json::object(), vec = json::object();
  for (const auto& [p, v] : arch.at("matmul_flop_per_clk_per_sm").items()) mm[p] = v.get<double>() * d.sm_count * hz / 1e12;
  for (const auto& [p, v] : arch.at("vector_flop_per_clk_per_sm").items()) vec[p] = v.get<double>() * d.sm_count * hz / 1e12;
  mm["fp32"] = vec["fp32"];
  dev["matmul_tflops"] = mm;
  dev["vector_tflops"] = vec;
  const double sm_hz = d.sm_count * hz;
  dev["memory"] = json::array({
      {{"name", "smem"}, {"capacity_MiB", d.smem_bytes / 1048576.0}, {"bandwidth_GBps", c.at("smem_bytes_per_clk_per_sm").get<double>() * sm_hz / 1e9}},
      {{"name", "l2"}, {"capacity_MiB", d.l2_bytes / 1048576.0}, {"bandwidth_GBps", c.at("l2_bytes_per_clk_per_sm").get<double>() * sm_hz / 1e9}},
      {{"name", "hbm"}, {"capacity_GiB", d.hbm_bytes / 1073741824.0}, {"bandwidth_GBps", d.hbm_Bps / 1e9}, {"label", d.hbm}},
  });
  dev["tdp_W"] = d.budget.tdp_W;
  dev["sm_count"] = d.sm_count;
  for (json& tier : sys["network"])
    if (tier["name"] == "nvlink") tier["bandwidth_GBps"] = d.nvlink_Bps / 1e9;
  return sys;
}

json to_json(const DerivedDevice& d) {
  return {{"architecture", d.budget.architecture}, {"node", d.budget.node}, {"hbm", d.hbm},
          {"budget", {{"die_area_mm2", d.budget.die_area_mm2}, {"package_area_mm2", d.budget.package_area_mm2}, {"tdp_W", d.budget.tdp_W}}},
          {"area_mm2", {{"compute", d.area_compute}, {"l2", d.area_l2}, {"l1_and_registers", d.area_l1},
                        {"memory_controllers", d.area_controllers}, {"io", d.area_io}}},
          {"power_W", {{"compute", d.power_compute}, {"hbm", d.power_hbm}, {"io", d.power_io}, {"uncore", d.power_uncore}}},
          {"sm_count", d.sm_count}, {"voltage_V", d.voltage_V}, {"frequency_GHz", d.frequency_GHz},
          {"nominal_frequency_GHz", d.nominal_frequency_GHz}, {"power_limited", d.power_limited},
          {"energy_pJ_per_flop", d.energy_pJ_per_flop}, {"bf16_flops", d.bf16_flops}, {"fp8_flops", d.fp8_flops},
          {"l2_bytes", d.l2_bytes}, {"smem_bytes", d.smem_bytes}, {"hbm_stacks", d.hbm_stacks}, {"hbm_limit", d.hbm_limit},
          {"hbm_Bps", d.hbm_Bps}, {"hbm_bytes", d.hbm_bytes}, {"nvlink_Bps", d.nvlink_Bps}};
}

TechBudget parse_budget(const json& j) {
  if (!j.is_object()) throw InputError("", "a technology budget must be a JSON object");
  TechBudget b;
  for (const auto& [key, v] : j.items()) {
    if (key == "architecture" || key == "node" || key == "hbm") {
      if (!v.is_string()) throw InputError(key, "must be a string");
      (key == "architecture" ? b.architecture : key == "node" ? b.node : b.hbm) = v.get<std::string>();
    } else if (key == "die_area_mm2" || key == "package_area_mm2" || key == "tdp_W") {
      if (!v.is_number()) throw InputError(key, "must be a number");
      (key == "die_area_mm2" ? b.die_area_mm2 : key == "package_area_mm2" ? b.package_area_mm2 : b.tdp_W) = v.get<double>();
    } else {
      throw InputError(key.substr(0, 40), "unknown key; known: architecture, node, die_area_mm2, package_area_mm2, tdp_W, hbm");
    }
  }
  return b;
}

}  // namespace llmcalc
