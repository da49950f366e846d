// Technology-node engine: derives a device (SMs, clock, FLOP/s, SRAM, HBM,
// links) from a micro-architecture, a technology node and area / power /
// die-perimeter budgets, in the manner of DeepFlow's hw_component as used by
// Kundu et al. 2024 (arXiv 2407.14645, §IV-C); the node data and its sources
// are core/presets/technology/technology.json.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace llmcalc {

struct TechBudget {
  std::string architecture = "hopper";  // a key of technology.json "architectures"
  std::string node = "5nm";
  double die_area_mm2 = 814, package_area_mm2 = 1330, tdp_W = 700;
  std::string hbm;  // empty: the node's generation
};

struct DerivedDevice {
  TechBudget budget;
  std::string hbm;
  // Area (mm2) by block; sums to the die area.
  double area_compute = 0, area_l2 = 0, area_l1 = 0, area_controllers = 0, area_io = 0;
  int sm_count = 0;
  double voltage_V = 0, frequency_GHz = 0, nominal_frequency_GHz = 0;
  bool power_limited = false;
  double bf16_flops = 0, fp8_flops = 0;  // dense, FLOP/s (fp8 0 when the architecture has none)
  double l2_bytes = 0, smem_bytes = 0;
  int hbm_stacks = 0;
  std::string hbm_limit;  // "perimeter" or "package"
  double hbm_Bps = 0, hbm_bytes = 0, nvlink_Bps = 0;
  // Power (W) by consumer; their sum never exceeds the TDP.
  double power_compute = 0, power_hbm = 0, power_io = 0, power_uncore = 0;
  double energy_pJ_per_flop = 0;  // bf16 at the operating point
};

const std::vector<std::string>& technology_nodes();
// Throws InputError on an unknown architecture, node or HBM generation, or a budget out of range.
DerivedDevice derive_device(const TechBudget& b);
// A system preset object (as in core/presets/systems) carrying the derived device:
// the architecture's base system with its device and NVLink tier replaced.
nlohmann::json derived_system(const DerivedDevice& d);
nlohmann::json to_json(const DerivedDevice& d);
// Parses {"architecture","node","die_area_mm2","package_area_mm2","tdp_W","hbm"} strictly.
TechBudget parse_budget(const nlohmann::json& j);

}  // namespace llmcalc
