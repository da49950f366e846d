#include "what_if.h"

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "enum_names.h"

namespace llmcalc {

using json = nlohmann::json;

// Fused attention's share of a training step's op time, and the iteration
// time under each attention kernel generation the device runs (FlashAttention
// 1 / Triton, 2 (Dao 2023), 3 / cuDNN (Shah et al. 2024), at the rates in the
// device preset's efficiency.attention_kernels and their sources), when
// attention is at least a tenth of the step. Published runs of one model and
// plan differ by the kernel they ran (the MPT rows of the validation set fit
// within 6% with FlashAttention 1 / Triton), which a scenario names in
// training.attention_kernel. Null otherwise, and in an fp32 or tf32 run,
// which no FlashAttention generation takes (compute.cpp, fused_attention_cost).
json attention_kernel_sensitivity(const Scenario& s, const Result& r) {
  if (s.mode != Mode::training || !s.train.flash_attention) return nullptr;
  if (is_fp32(s.train.precision)) return nullptr;
  double attention = 0, all = 0;
  for (const Op& op : r.training.ops) {
    if (op.kind == OpKind::comm) continue;
    const double t = op.cost.time_s * op.count;
    all += t;
    if (op.kind == OpKind::attention) attention += t;
  }
  if (all <= 0 || attention < 0.1 * all) return nullptr;
  json times = json::object();
  for (const auto& [kernel, name] : attention_kernel_names()) {
    if (kernel == AttentionKernel::best || s.system.device.efficiency.attention_kernel[static_cast<size_t>(kernel)][0] <= 0)
      continue;
    if (kernel == s.train.attention_kernel) {  // the one this result ran
      times[name] = r.training.iteration_time_s;
      continue;
    }
    Scenario k = s;
    k.train.attention_kernel = kernel;
    try {
      const double t = evaluate(k).training.iteration_time_s;
      if (std::isfinite(t)) times[name] = t;
    } catch (const std::exception&) {
      // a kernel that cannot run this scenario has no time; the result stands
    }
  }
  if (times.empty()) return nullptr;
  return {{"attention_share", attention / all}, {"iteration_time_s", times}};
}

// The same step with the other element-wise kernels (training.fusion,
// model/eager_ops.h): what torch.compile or fused modules buy a PyTorch run
// (or what eager modules cost it), in time and in saved activations.
// A device whose compiler blocks the step in an on-chip scratchpad (XLA on
// a TPU, Gaudi's graph compiler: scratchpad_MiB > 0) fuses element-wise work
// itself; PyTorch eager modules describe no run there, so nothing to compare.
json fusion_sensitivity(const Scenario& s, const Result& r) {
  if (s.mode != Mode::training || s.system.device.scratchpad_bytes > 0) return nullptr;
  Scenario other = s;
  other.train.fusion = s.train.fusion == Fusion::eager ? Fusion::fused : Fusion::eager;
  double t = 0, memory = 0;
  try {
    const Result o = evaluate(other);
    t = o.training.iteration_time_s;
    memory = o.training.memory.total;
  } catch (const std::exception&) {
    return nullptr;  // the other kernels cannot run this scenario: nothing to compare
  }
  const double now = r.training.iteration_time_s;
  if (!std::isfinite(t) || !std::isfinite(memory) || now <= 0 || std::fabs(t / now - 1) < 0.02) return nullptr;
  const std::string here = name_of(fusion_names(), s.train.fusion), there = name_of(fusion_names(), other.train.fusion);
  return {{"iteration_time_s", {{here, now}, {there, t}}},
          {"memory_bytes_total", {{here, r.training.memory.total}, {there, memory}}}};
}

namespace {

// One part of the system and how to make it twice as fast in a scenario.
struct Part {
  std::string part, label;
  std::function<void(Scenario&)> double_it;
};

// The parts a result depends on. Network tiers count from the innermost; a
// job reaches tier i when its GPUs outnumber tier i-1's span (the scale-out
// tier of a one-node job carries nothing).
std::vector<Part> parts_of(const Scenario& s) {
  std::vector<Part> parts;
  parts.push_back({"compute", "compute (all peaks)", [](Scenario& x) {
                     for (double& f : x.system.device.matmul_flops) f *= 2;
                     for (double& f : x.system.device.vector_flops) f *= 2;
                     x.system.device.sfu_ops *= 2;
                   }});
  const MemoryLevel& dram = s.system.device.dram();
  parts.push_back({"memory", (dram.label.empty() ? dram.name : dram.label) + " bandwidth",
                   [](Scenario& x) { x.system.device.memory.back().bandwidth_Bps *= 2; }});
  // Disaggregated serving sends each prompt's K/V from a prefill instance
  // to the decode replica: together they reach the tiers that hold both.
  const long long prefill = s.mode == Mode::inference ? s.infer.prefill_tp : 0;
  const long long gpus = s.par.gpus() + prefill;
  long long inner = 1;
  for (size_t i = 0; i < s.system.network.size(); ++i) {
    const NetworkTier& t = s.system.network[i];
    if (gpus <= inner) break;
    const std::string tier = i == 0 ? "scale-up link" : i == 1 ? "scale-out link" : "network tier " + std::to_string(i);
    parts.push_back({"network." + std::to_string(i), tier + " (" + t.name + ")",
                     [i](Scenario& x) { x.system.network[i].bandwidth_Bps *= 2; }});
    inner = t.span_gpus > 0 ? t.span_gpus : gpus;
  }
  // Fixed costs that do not shrink with bandwidth or FLOPs: a kernel's launch
  // (and a dequantising kernel's setup), a collective step's latency, a
  // serving step's scheduling and sampling.
  parts.push_back({"latency", "latencies (halved)", [](Scenario& x) {
                     DeviceEfficiency& e = x.system.device.efficiency;
                     e.launch_overhead_s /= 2;
                     e.weight_only_setup_s /= 2;
                     e.decode_step_overhead_s /= 2;
                     for (NetworkTier& t : x.system.network) t.latency_s /= 2, t.nvls_latency_s /= 2;
                   }});
  // Offloaded states and activations cross the host link; the CPUs step the
  // offloaded optimizer at the host memory's rate.
  if (s.mode == Mode::training && (s.train.offload != Offload::none || s.train.offload_activations > 0))
    parts.push_back({"host_link", "host link and host memory", [](Scenario& x) {
                       x.system.host.link_Bps *= 2;
                       x.system.host.memory_Bps *= 2;
                     }});
  if (s.mode == Mode::training && s.train.host_overhead_s > 0)
    parts.push_back({"host", "host launch time (halved)", [](Scenario& x) { x.train.host_overhead_s /= 2; }});
  return parts;
}

// The headline times of a result: the iteration, or the first token and each next one.
json times_of(const Scenario& s, const Result& r) {
  if (s.mode == Mode::training) return {{"iteration_time_s", r.training.iteration_time_s}};
  return {{"ttft_s", r.inference.ttft_s}, {"tpot_s", r.inference.tpot_s}};
}

}  // namespace

// Doubling a part and evaluating again is the marginal question behind "what
// limits it": the breakdown says where the time goes, but overlapped work
// hides behind the slowest part, and only removing a limit shows the next.
// (The roofline argument of Williams et al. 2009, asked of the whole run.)
json doubled_parts(const Scenario& s, const Result& r) {
  const json base = times_of(s, r);
  json out = json::array();
  for (const Part& p : parts_of(s)) {
    Scenario x = s;
    p.double_it(x);
    json times, speedup = json::object();
    try {
      times = times_of(x, evaluate(x));
    } catch (const std::exception&) {
      continue;  // a part that cannot be doubled here has no row; the result stands
    }
    bool finite = true;
    for (const auto& [metric, t] : times.items()) {
      const double b = base.at(metric).get<double>(), v = t.get<double>();
      finite = finite && std::isfinite(v) && v > 0;
      if (finite) speedup[metric] = b / v;
    }
    if (finite) out.push_back({{"part", p.part}, {"label", p.label}, {"times", times}, {"speedup", speedup}});
  }
  return {{"factor", 2}, {"base", base}, {"parts", out}};
}

}  // namespace llmcalc
