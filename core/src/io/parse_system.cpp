// Parsing a system: its device (peaks, memory hierarchy, efficiencies), its
// network tiers and its host side, from a preset id or an object (strict
// keys, units converted once; see parse.h).
#include <set>
#include <string>
#include <vector>

#include "enum_names.h"
#include "parse.h"
#include "presets.h"
#include "table_fields.h"

namespace llmcalc {

namespace {

std::array<double, kPrecisionCount> parse_peaks(StrictObject& dev, const std::string& key, bool required) {
  std::array<double, kPrecisionCount> peaks{};
  if (!dev.has(key)) {
    if (required) throw InputError(dev.child_path(key), "is required");
    return peaks;
  }
  StrictObject o(dev.raw(key), dev.child_path(key));
  for (const auto& [p, name] : all_precision_names())
    peaks[static_cast<size_t>(p)] = o.number(name, 0, 0, 1e9) * 1e12;  // TFLOP/s -> FLOP/s
  o.finish();
  return peaks;
}

MemoryLevel parse_memory_level(const nlohmann::json& v, const std::string& path) {
  StrictObject o(v, path);
  MemoryLevel m;
  m.name = o.string("name", "", 40);
  if (m.name.empty()) throw InputError(o.child_path("name"), "is required");
  m.label = o.string("label", m.name, 40);
  if (m.label.empty()) throw InputError(o.child_path("label"), "must not be empty");
  const bool mib = o.has("capacity_MiB"), gib = o.has("capacity_GiB");
  if (mib == gib) throw InputError(path, "give exactly one of capacity_MiB or capacity_GiB");
  m.capacity_bytes = mib ? o.number("capacity_MiB", 0, 1e-6, 1e12) * 1048576.0
                         : o.number("capacity_GiB", 0, 1e-9, 1e9) * 1073741824.0;
  m.bandwidth_Bps = o.required_number("bandwidth_GBps", 1e-3, 1e9) * 1e9;
  o.finish();
  return m;
}

// {"fa2": {"fwd": .., "bwd": ..}, ...}: efficiency of each kernel generation
// the device runs (at head dim 128, long sequences); absent ones do not run.
void parse_attention_kernels(StrictObject& eff, DeviceEfficiency& e) {
  StrictObject o(eff.raw("attention_kernels"), eff.child_path("attention_kernels"));
  const char* names[] = {"fa1", "fa2", "fa3"};
  for (int k = 0; k < 3; ++k) {
    if (!o.has(names[k])) continue;
    StrictObject at(o.raw(names[k]), o.child_path(names[k]));
    e.attention_kernel[static_cast<size_t>(k + 1)] = {at.required_number("fwd", 0.01, 1), at.required_number("bwd", 0.01, 1)};
    at.finish();
  }
  o.finish();
}

DeviceEfficiency parse_efficiency(StrictObject& dev) {
  DeviceEfficiency e;
  if (!dev.has("efficiency")) return e;
  StrictObject o(dev.raw("efficiency"), dev.child_path("efficiency"));
  // "matmul": one fraction for every precision, or {"bf16": .., "fp8": ..}
  // where an absent precision takes the 16-bit value.
  if (o.has("matmul") && o.raw("matmul").is_object()) {
    StrictObject mm(o.raw("matmul"), o.child_path("matmul"));
    const double base = mm.number("bf16", 0.8, 0.01, 1);
    for (const auto& [p, name] : all_precision_names())
      e.matmul[static_cast<size_t>(p)] = p == Precision::bf16 ? base : mm.number(name, base, 0.01, 1);
    mm.finish();
  } else {
    e.matmul.fill(o.number("matmul", 0.8, 0.01, 1));
  }
  // "attention": one fraction for both passes, or {"fwd": .., "bwd": ..}.
  if (o.has("attention") && o.raw("attention").is_object()) {
    StrictObject at(o.raw("attention"), o.child_path("attention"));
    e.attention_fwd = at.required_number("fwd", 0.01, 1);
    e.attention_bwd = at.required_number("bwd", 0.01, 1);
    e.attention_fwd_half_kv = at.number("fwd_half_kv", e.attention_fwd_half_kv, 0, 1e6);
    e.attention_bwd_half_kv = at.number("bwd_half_kv", e.attention_bwd_half_kv, 0, 1e6);
    at.finish();
  } else {
    e.attention_fwd = e.attention_bwd = o.number("attention", e.attention_fwd, 0.01, 1);
  }
  e.tile_overhead_s = o.number("tile_overhead_us", e.tile_overhead_s * 1e6, 0, 1e4) * 1e-6;
  e.gemm_multicast = o.number("gemm_multicast", e.gemm_multicast, 1, 16);
  e.gemm_ridge_exponent = o.number("gemm_ridge_exponent", e.gemm_ridge_exponent, 0, 64);
  e.vector = o.number("vector", e.vector, 0.01, 1);
  e.memory = o.number("memory", e.memory, 0.01, 1);
  e.launch_overhead_s = o.number("launch_overhead_us", e.launch_overhead_s * 1e6, 0, 1e6) * 1e-6;
  e.host_overhead_s = o.number("host_overhead_us", e.host_overhead_s * 1e6, 0, 1e4) * 1e-6;
  e.decode_step_overhead_s = o.number("decode_step_overhead_us", 0, 0, 1e7) * 1e-6;
  // "weight_only": {"int8": .., "int4": ..}: streaming fraction of the
  // dequantising GEMV kernels; an absent format streams at full rate.
  if (o.has("weight_only")) {
    StrictObject wo(o.raw("weight_only"), o.child_path("weight_only"));
    for (const auto& [p, name] : all_precision_names()) e.weight_only_stream[static_cast<size_t>(p)] = wo.number(name, 1, 0.01, 1);
    e.weight_only_setup_s = wo.number("setup_us", 0, 0, 1e4) * 1e-6;
    wo.finish();
  }
  // "elementwise": {"norm": .., "activation": ..}: device-memory rate of
  // norm and activation kernels relative to a copy; absent: the copy's.
  if (o.has("elementwise")) {
    StrictObject ew(o.raw("elementwise"), o.child_path("elementwise"));
    e.norm_stream = ew.number("norm", 1, 0.05, 1);
    e.activation_stream = ew.number("activation", 1, 0.05, 1);
    ew.finish();
  }
  e.comm_sm_share = o.number("comm_sm_share", 0, 0, 0.9);
  e.legacy_mma = o.number("legacy_mma", 1, 0.05, 1);
  if (o.has("attention_kernels")) parse_attention_kernels(o, e);
  o.finish();
  return e;
}

Device parse_device(StrictObject& sys) {
  StrictObject o(sys.raw("device"), sys.child_path("device"));
  Device d;
  d.name = o.string("name", "custom device", 100);
  d.unit_name = o.string("unit_name", "GPU", 20);
  if (d.unit_name.empty()) throw InputError(o.child_path("unit_name"), "expected a word such as \"GPU\" or \"chip\", got an empty string");
  d.matmul_flops = parse_peaks(o, "matmul_tflops", true);
  d.vector_flops = parse_peaks(o, "vector_tflops", false);
  const nlohmann::json& mem = o.raw("memory");
  if (!mem.is_array() || mem.empty() || mem.size() > 8)
    throw InputError(o.child_path("memory"), "expected an array of 1 to 8 memory levels");
  std::set<std::string> names;
  for (size_t i = 0; i < mem.size(); ++i) {
    d.memory.push_back(parse_memory_level(mem[i], o.child_path("memory") + "[" + std::to_string(i) + "]"));
    if (!names.insert(d.memory.back().name).second)
      throw InputError(o.child_path("memory") + "[" + std::to_string(i) + "].name", "duplicate level name");
  }
  d.tdp_W = o.number("tdp_W", 0, 0, 1e6);
  d.node_power_W = o.number("node_power_W", 0, 0, 1e7);
  d.sm_count = static_cast<int>(o.integer("sm_count", 108, 1, 100000));
  d.scratchpad_bytes = o.number("scratchpad_MiB", 0, 0, 1e6) * 1048576.0;
  d.sfu_ops = o.number("sfu_tops", 0, 0, 1e6) * 1e12;
  d.efficiency = parse_efficiency(o);
  o.finish();
  // Fill missing vector peaks so element-wise work always has a rate.
  const double fp32 = d.vector_flops[static_cast<int>(Precision::fp32)];
  for (auto& v : d.vector_flops)
    if (v == 0) v = fp32 > 0 ? fp32 : d.matmul_flops[static_cast<int>(Precision::fp32)];
  return d;
}

namespace {
// A mesh wires a fixed set of devices to each other (AMD Infinity Fabric:
// 8 GPUs, 7 links each): it is the innermost tier, names its span, and joins
// at least two devices; outer tiers (NICs, switches) join the meshes.
void check_mesh(StrictObject& o, const NetworkTier& t, size_t index, bool last) {
  if (index != 0 || last)
    throw InputError(o.child_path("topology"), "only the innermost tier, with span_gpus and an outer tier, can be a mesh");
  if (t.span_gpus < 2) throw InputError(o.child_path("span_gpus"), "a mesh joins at least 2 devices");
}

// torus_dims: the torus's axes, on a torus tier only. A torus needs a span
// (its axes are cut from it), so it cannot be the outermost tier.
void parse_torus(StrictObject& o, NetworkTier& t, bool last) {
  if (t.topology != Topology::torus) {
    if (o.has("torus_dims")) throw InputError(o.child_path("torus_dims"), "applies to a \"torus\" tier only");
    return;
  }
  if (last) throw InputError(o.child_path("topology"), "a torus tier needs span_gpus, so it cannot be the outermost tier");
  t.torus_dims = static_cast<int>(o.required_integer("torus_dims", 1, 3));
}

// "nvls": {"efficiency", "min_gpus", "latency_us"}: in-switch all-reduce on a
// switched tier (NVLink SHARP); meshes and tori have no switch to reduce in.
void parse_nvls(StrictObject& o, NetworkTier& t) {
  if (!o.has("nvls")) return;
  if (t.topology != Topology::switched) throw InputError(o.child_path("nvls"), "applies to a \"switch\" tier only");
  StrictObject n(o.raw("nvls"), o.child_path("nvls"));
  t.nvls_efficiency = n.required_number("efficiency", 0.01, 2);
  t.nvls_min_gpus = static_cast<int>(n.integer("min_gpus", t.nvls_min_gpus, 2, 1 << 20));
  t.nvls_latency_s = n.number("latency_us", t.nvls_latency_s * 1e6, 0, 1e6) * 1e-6;
  n.finish();
}
}  // namespace

std::vector<NetworkTier> parse_network(StrictObject& sys) {
  const nlohmann::json& net = sys.raw("network");
  const std::string path = sys.child_path("network");
  if (!net.is_array() || net.empty() || net.size() > 8)
    throw InputError(path, "expected an array of 1 to 8 network tiers");
  std::vector<NetworkTier> tiers;
  for (size_t i = 0; i < net.size(); ++i) {
    const std::string p = path + "[" + std::to_string(i) + "]";
    StrictObject o(net[i], p);
    NetworkTier t;
    t.name = o.string("name", "tier" + std::to_string(i), 40);
    const bool last = i + 1 == net.size();
    t.span_gpus = static_cast<int>(o.integer("span_gpus", 0, 1, 1 << 30));
    if (!last && t.span_gpus == 0) throw InputError(o.child_path("span_gpus"), "required on every tier but the last");
    if (!tiers.empty() && t.span_gpus != 0 && t.span_gpus < tiers.back().span_gpus)
      throw InputError(o.child_path("span_gpus"), "must not be smaller than the inner tier's span");
    if (last) t.span_gpus = 0;  // the outermost tier spans the whole cluster
    t.bandwidth_Bps = o.required_number("bandwidth_GBps", 1e-3, 1e9) * 1e9;
    t.latency_s = o.number("latency_us", 5, 0, 1e7) * 1e-6;
    t.efficiency = o.number("efficiency", 0.8, 0.01, 1.2);
    t.half_bandwidth_bytes = o.number("half_bandwidth_MiB", 0, 0, 1e6) * 1048576.0;
    const auto topologies = names_of(topology_names());
    value_named(topology_names(), topologies.at(static_cast<size_t>(o.choice("topology", 0, topologies))), &t.topology);
    if (t.topology == Topology::mesh) check_mesh(o, t, i, last);
    parse_torus(o, t, last);
    parse_nvls(o, t);
    o.finish();
    tiers.push_back(t);
  }
  return tiers;
}

// {"link_GBps", "memory_GBps", "memory_efficiency", "memory_GiB", "gpus"}: the host
// side of a node per GPU (optional; needed for offload). The
// streaming share defaults to 0.75, the presets' stated assumption (no host
// STREAM measurement is in docs/sources.md [HF2.5]).
Host parse_host(StrictObject& sys, int gpus_per_node) {
  StrictObject o(sys.raw("host"), sys.child_path("host"));
  Host h;
  h.gpus = static_cast<int>(o.integer("gpus", gpus_per_node, 1, gpus_per_node));
  h.link_Bps = o.required_number("link_GBps", 0.1, 1e5) * 1e9;
  h.memory_Bps = o.required_number("memory_GBps", 1, 1e6) * 1e9;
  h.memory_efficiency = o.number("memory_efficiency", 0.75, 0.01, 1);
  h.capacity_bytes = o.required_number("memory_GiB", 1, 1e7) * 1073741824.0;
  o.finish();
  return h;
}

}  // namespace

System parse_system(const nlohmann::json& value, const std::string& path) {
  const nlohmann::json j = resolve_preset(value, "systems", path);
  StrictObject o(j, path);
  System s;
  s.name = o.string("name", "custom system", 100);
  s.gpus_per_node = static_cast<int>(o.integer("gpus_per_node", 8, 1, 1 << 20));
  s.device = parse_device(o);
  s.network = parse_network(o);
  if (o.has("host")) s.host = parse_host(o, s.gpus_per_node);
  o.finish();
  return s;
}

}  // namespace llmcalc
