#include "summary_text.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "accuracy.h"
#include "enum_names.h"
#include "outputs.h"
#include "what_if.h"

namespace llmcalc {

namespace {

// Three significant figures below 1,000; whole numbers with separators above.
std::string sig3(double v) {
  const double a = std::fabs(v);
  if (a >= 1000 && std::isfinite(v)) return count_text(v);
  return number_text(a >= 100 ? "%.0f" : a >= 10 ? "%.1f" : a >= 1 ? "%.2f" : "%.3g", v);
}

const OutputSpec& output(const char* key) {
  static const OutputSpec none{"", "", "", Mode::training, nullptr};
  const OutputSpec* o = find_output(key);
  return o ? *o : none;
}

// "label  text", the label padded so that the texts line up.
std::string line(const std::string& label, const std::string& text) {
  std::string l = label;
  l.resize(std::max<size_t>(l.size() + 2, 24), ' ');
  return l + text + "\n";
}

// The parts of a whole, largest first, zero parts left out:
// "compute 15.1 s (80.1%) · tp comm ...". `as` formats one part.
std::string parts_text(std::vector<std::pair<std::string, double>> parts, double whole, std::string (*as)(double)) {
  std::stable_sort(parts.begin(), parts.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string out;
  for (const auto& [name, v] : parts) {
    if (!(v > 0)) continue;
    if (!out.empty()) out += " · ";
    out += name + " " + as(v) + (whole > 0 ? " (" + percent_text(v / whole) + ")" : "");
  }
  return out.empty() ? "none" : out;
}

// The label of an output without its " per GPU" ("weights per GPU" -> "weights").
std::string part_label(const char* key) {
  std::string l = output(key).label;
  if (l.empty()) return key;  // not in the output table: its path
  const std::string tail = " per GPU";
  if (l.size() > tail.size() && l.compare(l.size() - tail.size(), tail.size(), tail) == 0) l.resize(l.size() - tail.size());
  return l;
}

std::string memory_text(double total, double capacity, bool fits, const std::vector<std::pair<const char*, double>>& parts) {
  std::vector<std::pair<std::string, double>> named;
  for (const auto& [key, v] : parts) named.emplace_back(part_label(key), v);
  return bytes_text(total) + " of " + bytes_text(capacity) + (fits ? ", fits: " : ", does not fit: ") +
         parts_text(named, 0, bytes_text);
}

std::string plan_text(const Scenario& s) {
  const Parallelism& p = s.par;
  std::string t = "tp " + std::to_string(p.tp) + " · pp " + std::to_string(p.pp) + " · dp " + std::to_string(p.dp);
  if (p.cp > 1 && s.mode == Mode::training) t += " · cp " + std::to_string(p.cp);  // serving ignores cp (a warning says so)
  if (p.ep > 1) t += " · ep " + std::to_string(p.ep);
  if (s.mode == Mode::inference) {
    const Inference& in = s.infer;
    const std::string prefill = in.disaggregated() ? " · prefill on instances of tp " + std::to_string(in.prefill_tp) +
                                                         ", " + std::to_string(in.prefill_batch) + " prompt" +
                                                         (in.prefill_batch == 1 ? "" : "s") + " at a time"
                                                   : "";
    const std::string budget = in.token_budget > 0 ? ", chunked prefill under " + count_text(in.token_budget) + " tokens a step" : "";
    const std::string prefix = in.shared_prefix_tokens > 0 ? " · " + count_text(in.shared_prefix_tokens) + "-token shared prefix cached" : "";
    const std::string draft = in.draft_tokens > 0 ? " · speculative decoding, " + std::to_string(in.draft_tokens) + " draft tokens a step" : "";
    return t + " · batch " + std::to_string(in.batch) + " · " + count_text(in.input_tokens) + " + " +
           count_text(in.output_tokens) + " tokens · " + name_of(batching_names(), in.inflight) + " batching" + budget + prefill +
           prefix + draft;
  }
  if (p.sp) t += " · sp";
  if (p.zero > 0) t += " · ZeRO " + std::to_string(p.zero);
  const Training& tr = s.train;
  if (tr.lora()) t += " · LoRA rank " + std::to_string(tr.lora_rank) + ", frozen weights " + name_of(frozen_weight_names(), tr.frozen_weights);
  const std::string chunks = p.schedule == PipeSchedule::interleaved && p.virtual_stages > 1 ? " ×" + std::to_string(p.virtual_stages) : "";
  const std::string schedule = p.pp > 1 ? std::string(" · ") + name_of(schedule_names(), p.schedule) + chunks : "";  // no pipeline, no schedule
  return t + schedule + " · micro-batch " + std::to_string(tr.micro_batch) +
         " · global batch " + count_text(static_cast<double>(tr.global_batch)) + " × " + count_text(tr.seq_len) +
         " tokens · recompute " + name_of(recompute_names(), tr.recompute) +
         (tr.fusion == Fusion::eager ? " · eager element-wise kernels" : "");
}

// "compute (all peaks) 1.62x · scale-up link (nvlink) 1.08x", largest first,
// for one headline time of the what-if evaluation.
std::string what_if_text(const nlohmann::json& w, const char* metric) {
  std::vector<std::pair<std::string, double>> parts;
  for (const auto& p : w.value("parts", nlohmann::json::array()))
    if (p.contains("speedup") && p["speedup"].contains(metric))
      parts.emplace_back(p.value("label", ""), p["speedup"][metric].get<double>());
  std::stable_sort(parts.begin(), parts.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string out;
  for (const auto& [label, x] : parts) out += (out.empty() ? "" : " · ") + label + " " + number_text("%.2fx", x);
  return out;
}

// What bounds a phase, as a reader names it: a memory level by its label
// ("hbm" -> "HBM3"), else as the model says ("compute", "network").
std::string bound_text(const Device& d, const std::string& bound) {
  for (const MemoryLevel& level : d.memory)
    if (level.name == bound && !level.label.empty()) return level.label;
  return bound;
}

// The part of the time breakdown that bounds a training step, in words.
std::string training_bound_text(const std::string& part) {
  if (part == "compute") return "compute";
  if (part == "host") return "the host's kernel launches";
  const std::string key = "training.time_breakdown_s." + part;
  return *output(key.c_str()).label ? output(key.c_str()).label : part;
}

// The label of a measured output; a sum of per-GPU outputs reads as its
// parts' labels: "weights + gradients + optimizer states per GPU".
std::string metric_label(const std::string& key) {
  if (key.find('+') == std::string::npos) return *output(key.c_str()).label ? output(key.c_str()).label : key;
  std::string label;
  for (size_t from = 0; from <= key.size();) {
    const size_t plus = std::min(key.find('+', from), key.size());
    const std::string part = key.substr(from, plus - from);
    label += (label.empty() ? "" : " + ") + part_label(part.c_str());
    from = plus + 1;
  }
  return label + " per GPU";
}

// "0.0227 GPU-h · $0.05 · 32.4 Wh" of one set of cost figures (a TPU's
// "chip-h"); the dollars only when a GPU-hour price was given, energy when
// the device's power is known.
std::string cost_figures_text(const CostResult& c, const CostFigures& f, const std::string& unit) {
  std::string out = sig3(f.gpu_hours) + " " + unit + "-h";
  if (c.priced) out += " · $" + sig3(f.usd);
  if (c.metered) out += " · " + (f.kwh >= 1 ? sig3(f.kwh) + " kWh" : sig3(f.kwh * 1e3) + " Wh");
  return out;
}

// Per million tokens, and to train (with the CO2) when tokens are given.
std::string cost_text(const CostResult& c, const char* per, const std::string& unit) {
  std::string out = line(std::string("per million ") + per, cost_figures_text(c, c.per_million_tokens, unit));
  if (c.has_to_train)
    out += line("to train", cost_figures_text(c, c.to_train, unit) +
                                (c.metered ? " · " + count_text(c.to_train.co2_kg / 1000) + " t CO2" : std::string()));
  return out;
}

std::string training_text(const Scenario& s, const Result& r) {
  const TrainingResult& t = r.training;
  const TimeBreakdown& b = t.breakdown;
  std::string out = line(output("training.iteration_time_s").label, seconds_text(t.iteration_time_s) + ", bound by " + training_bound_text(t.bound));
  out += line("throughput", count_text(t.tokens_per_s) + " tokens/s · " + sig3(t.tflops_per_gpu) + " TFLOP/s per " + s.system.device.unit_name + " · MFU " +
                                percent_text(t.mfu) + " · HFU " + percent_text(t.hfu));
  const std::vector<std::pair<const char*, double>> times = {
      {"compute", b.compute},   {"recompute", b.recompute}, {"tp_comm", b.tp_comm},     {"cp_comm", b.cp_comm},
      {"ep_comm", b.ep_comm},   {"pp_comm", b.pp_comm},     {"pp_bubble", b.pp_bubble}, {"dp_comm", b.dp_comm},
      {"optimizer", b.optimizer}, {"host", b.host},         {"offload", b.offload}};
  std::vector<std::pair<std::string, double>> named;
  for (const auto& [k, v] : times) named.emplace_back(output(("training.time_breakdown_s." + std::string(k)).c_str()).label, v);
  out += line("where the time goes", parts_text(named, b.total(), seconds_text));
  const TrainingMemory& m = t.memory;
  // With offload the device line says whether the device memory holds its
  // part, and a line of its own whether the host holds the rest.
  const bool offload = m.host_capacity > 0;
  out += line("memory per " + s.system.device.unit_name, memory_text(m.total, m.capacity, offload ? m.total <= m.capacity : t.fits,
                                            {{"training.memory_bytes.weights", m.weights},
                                             {"training.memory_bytes.gradients", m.gradients},
                                             {"training.memory_bytes.optimizer", m.optimizer},
                                             {"training.memory_bytes.activations", m.activations}}));
  if (offload)
    out += line("host memory per " + s.system.device.unit_name,
                bytes_text(m.offloaded) + " offloaded of " + bytes_text(m.host_capacity) +
                    (host_short(m) ? ", does not fit" : ", fits"));
  if (t.time_to_train_s > 0) out += line(output("training.time_to_train_s").label, seconds_text(t.time_to_train_s));
  const nlohmann::json kernels = attention_kernel_sensitivity(s, r);
  if (!kernels.is_null()) {
    std::string steps;
    const nlohmann::json per_kernel = kernels.value("iteration_time_s", nlohmann::json::object());  // held: items() views it
    for (const auto& [kernel, time] : per_kernel.items()) {
      const double change = time.get<double>() / t.iteration_time_s - 1;
      steps += (steps.empty() ? "" : " · ") + kernel + " " + seconds_text(time.get<double>()) + " (" +
               (std::fabs(change) < 1e-9 ? std::string("this run") : number_text("%+.1f%%", 100 * change)) + ")";
    }
    out += line("attention kernels", "fused attention is " + percent_text(kernels.value("attention_share", 0.0)) +
                                         " of the op time; the step with each: " + steps);
  }
  const nlohmann::json fusion = fusion_sensitivity(s, r);
  if (!fusion.is_null()) {
    const bool eager = s.train.fusion == Fusion::eager;
    const double other = fusion["iteration_time_s"][eager ? "fused" : "eager"].get<double>();
    const double memory = fusion["memory_bytes_total"][eager ? "fused" : "eager"].get<double>();
    out += line("element-wise kernels", std::string(eager ? "fused (Megatron-Core, torch.compile) " : "eager PyTorch modules ") +
                                           seconds_text(other) + " (" + number_text("%+.1f%%", 100 * (other / t.iteration_time_s - 1)) +
                                           "), " + bytes_text(memory) + " per " + s.system.device.unit_name);
  }
  out += cost_text(t.cost, "tokens", s.system.device.unit_name);
  const std::string w = what_if_text(doubled_parts(s, r), "iteration_time_s");
  if (!w.empty()) out += line("twice as fast buys", w);
  return out;
}

std::string units_text(const Device& d, double n) { return llmcalc::units_text(d.unit_name, n); }

// Every data-parallel rank serves its own batch, so with several replicas the
// whole serves their sum (disaggregated replicas carry prefill instances: no
// whole number of them, left out).
std::string all_replicas_text(const Scenario& s, const InferenceResult& i) {
  const double all = static_cast<double>(s.par.tp) * s.par.pp * s.par.dp;
  if (i.disaggregated || i.replica_gpus <= 0 || all < 2 * i.replica_gpus) return "";
  return ", " + count_text(i.output_tokens_per_s * all / i.replica_gpus) + " on all " + units_text(s.system.device, all);
}

std::string inference_text(const Scenario& s, const Result& r) {
  const InferenceResult& i = r.inference;
  std::string out = line(output("inference.ttft_s").label, seconds_text(i.ttft_s) + ", prefill bound by " + bound_text(s.system.device, i.prefill_bound));
  // One output token comes with the prefill: no decode step runs (tpot_s is what one would take).
  const std::string none = s.infer.output_tokens == 1 ? " (no decode step runs: the one output token comes with the prefill)" : "";
  out += line(output("inference.tpot_s").label, seconds_text(i.tpot_s) + ", decode bound by " + bound_text(s.system.device, i.decode_bound) + none);
  out += line(output("inference.e2e_latency_s").label, seconds_text(i.e2e_latency_s));
  // Speculative decoding emits more than one token per sequence and step.
  const std::string per_step = i.tokens_per_step > 1 ? " · " + sig3(i.tokens_per_step) + " tokens per decode step" : "";
  const std::string all = all_replicas_text(s, i);
  // A disaggregated replica holds a share of a prefill pool: a fractional count.
  const std::string replica = i.disaggregated ? sig3(i.replica_gpus) + " " + s.system.device.unit_name + "s"
                                              : units_text(s.system.device, i.replica_gpus);
  out += line(output("inference.output_tokens_per_s").label,
              count_text(i.output_tokens_per_s) + " per replica of " + replica + all + " · " +
                  llmcalc::units_text("sequence", i.concurrency) + " in flight" +
                  (all.empty() ? "" : " per replica") + per_step);
  if (i.chunked) {
    const ChunkedStep& c = i.chunked_step;
    const auto rows = [](double v) { return v == std::floor(v) ? count_text(v) : sig3(v); };
    out += line("engine step", rows(c.decode_rows) + " decode rows + " + rows(c.prompt_tokens) + " prompt tokens · " +
                                   sig3(c.steps_per_prompt) + " steps to a prompt's first token");
  }
  if (i.disaggregated) {
    const PrefillPool& pool = i.prefill_pool;
    out += line("prefill instances", sig3(pool.instances) + " of " + units_text(s.system.device, s.infer.prefill_tp) +
                                         " per decode instance · a prefill batch in " + seconds_text(pool.prefill_time_s) +
                                         ", its KV sent in " + seconds_text(pool.kv_transfer_s) + " · " +
                                         bytes_text(pool.memory.total) + " of " + bytes_text(pool.memory.capacity) + " per " +
                                         s.system.device.unit_name + (pool.fits ? ", fits" : ", does not fit"));
  }
  const InferenceMemory& m = i.memory;
  out += line("memory per " + s.system.device.unit_name, memory_text(m.total, m.capacity, i.fits,
                                            {{"inference.memory_bytes.weights", m.weights},
                                             {"inference.memory_bytes.kv_cache", m.kv_cache},
                                             {"inference.memory_bytes.activations", m.activations}}) +
                                    " · largest batch that fits " + count_text(static_cast<double>(m.max_batch)));
  if (s.infer.target_requests_per_s > 0)
    out += line(output("inference.capacity.gpus").label, units_text(s.system.device, i.capacity.gpus) + ": " +
                                                             count_text(static_cast<double>(i.capacity.replicas)) +
                                                             (i.capacity.replicas == 1 ? " replica" : " replicas"));
  out += cost_text(i.cost, "output tokens", s.system.device.unit_name);
  if (i.cost.metered) out += line("energy per token", sig3(i.cost.joules_per_token) + " J");
  const nlohmann::json w = doubled_parts(s, r);
  const std::string ttft = what_if_text(w, "ttft_s"), tpot = what_if_text(w, "tpot_s");
  if (!ttft.empty()) out += line("twice as fast buys", "first token: " + ttft);
  if (!tpot.empty()) out += line("", "per token: " + tpot);
  return out;
}

}  // namespace

std::string number_text(const char* format, double v) {
  if (!std::isfinite(v)) return "n/a";
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

std::string percent_text(double fraction) { return number_text("%.1f%%", 100 * fraction); }

std::string column_text(const std::string& text, size_t width) {
  std::string t = text;
  if (t.size() < width) t.resize(width, ' ');
  return t;
}

std::string count_text(double v) {
  if (!std::isfinite(v)) return "n/a";
  std::string digits = number_text("%.0f", std::fabs(v));
  for (int i = static_cast<int>(digits.size()) - 3; i > 0; i -= 3) digits.insert(static_cast<size_t>(i), ",");
  return (v < 0 ? "-" : "") + digits;
}

namespace {
// One kind's runs under `heading` ("runs of this kind").
std::string kind_runs_text(const nlohmann::json& kind, const char* heading) {
  std::string out;
  for (const auto& m : kind.value("metrics", nlohmann::json::array())) {
    out += line(out.empty() ? "published runs" : "",
                metric_label(m.value("metric", "")) + " off by " + percent_text(m.value("mean_abs_error", 0.0)) +
                    " on average (bias " + number_text("%+.1f%%", 100 * m.value("mean_error", 0.0)) + ", worst " +
                    percent_text(m.value("max_abs_error", 0.0)) + ", " + std::to_string(m.value("cases", 0)) +
                    (m.value("cases", 0) == 1 ? " run)" : " runs)"));
  }
  const std::string label = kind.value("label", "");
  if (out.empty()) return line("published runs", "none of this kind (" + label + ") in the validation set");
  // What the runs did not have: the device (accuracy_json says), layer kinds.
  std::string unlike;
  for (const auto& feature : kind.value("architecture_unvalidated", nlohmann::json::array()))
    unlike += (unlike.empty() ? "" : ", ") + feature.get<std::string>();
  if (kind.contains("device_validated") && !kind.value("device_validated", true))
    out += line("", "none of them ran on the " + kind.value("device", std::string("device")));
  if (!unlike.empty()) out += line("", "none of them had " + unlike);
  return line(heading, label) + out;
}
}  // namespace

std::string published_runs_text(const nlohmann::json& kind) {
  std::string out = kind_runs_text(kind, "runs of this kind");
  // Kinds whose runs measure a mechanism the run has too (accuracy_json "also").
  for (const auto& also : kind.value("also", nlohmann::json::array())) out += kind_runs_text(also, "and of this kind");
  return out;
}

std::string seconds_text(double s) {
  if (!std::isfinite(s)) return "n/a";
  const double a = std::fabs(s);
  if (a >= 2 * 86400) return sig3(s / 86400) + " days";
  if (a >= 3600) return sig3(s / 3600) + " h";
  if (a >= 120) return sig3(s / 60) + " min";
  if (a >= 1 || a == 0) return sig3(s) + " s";
  if (a >= 1e-3) return sig3(s * 1e3) + " ms";
  return sig3(s * 1e6) + " µs";
}

std::string bytes_text(double b) {
  if (!std::isfinite(b)) return "n/a";
  const double gib = 1024.0 * 1024 * 1024;
  return std::fabs(b) >= gib || b == 0 ? sig3(b / gib) + " GiB" : sig3(b / (1024.0 * 1024)) + " MiB";
}

std::string result_text(const Scenario& s, const Result& r) {
  const bool training = s.mode == Mode::training;
  const long long gpus = training ? s.par.gpus() : 1LL * s.par.tp * s.par.pp * s.par.dp;
  const std::string precision = training ? training_precision_name(s.train)
                                         : weight_precision_name(s.infer) + " weights, " +
                                               name_of(math_precision_names(), s.infer.compute_precision) + " math";
  std::string out = std::string(training ? "Training " : "Serving ") + s.model.name + " on " + count_text(static_cast<double>(gpus)) +
                    " × " + s.system.device.name + " (" + s.system.name + "), " + precision + "\n";
  out += line("plan", plan_text(s));
  out += training ? training_text(s, r) : inference_text(s, r);
  out += published_runs_text(accuracy_json(s));
  for (const std::string& w : r.warnings) out += line("warning", w);
  return out;
}

std::string units_text(const std::string& unit, double n) { return count_text(n) + " " + unit + (n == 1 ? "" : "s"); }

}  // namespace llmcalc
