#include "validate_kernels.h"

#include "compute.h"
#include "enum_names.h"
#include "memory.h"
#include "parse.h"
#include "presets.h"

namespace llmcalc {

namespace {

using nlohmann::json;

Precision precision_of(const std::string& name) {
  for (int i = 0; i < kPrecisionCount; ++i)
    if (name == to_string(static_cast<Precision>(i))) return static_cast<Precision>(i);
  throw std::runtime_error("unknown precision '" + name + "'");
}

// A GEMM as cuBLAS runs it: operands in the math precision, a bf16 output
// (torch.matmul in bf16; torch._scaled_mm with out_dtype=bf16 for fp8).
// "batch": a grouped GEMM of that many equal groups in one launch, as the
// model prices MoE experts (torch._grouped_mm). "weight_precision" (with
// "group"): a weight-only kernel dequantising int8/int4 weights as serving
// prices it (inference.cpp: stored bytes with the group scales, the
// unpack-convert-scale ops, efficiency.weight_only's stream).
double gemm_time(const Device& d, const json& k) {
  GemmShape g;
  g.m = k.at("m").get<double>();
  g.n = k.at("n").get<double>();
  g.k = k.at("k").get<double>();
  g.batch = k.value("batch", 1.0);
  g.math = precision_of(k.at("precision").get<std::string>());
  g.a_bytes = g.b_bytes = bytes_per_element(g.math);
  g.c_bytes = 2;
  if (k.contains("weight_precision")) {
    const Precision w = precision_of(k.at("weight_precision").get<std::string>());
    g.b_bytes = stored_weight_bytes(w, k.value("group", 0));
    g.dequant_ops = dequant_ops_per_weight(g.b_bytes, g.a_bytes);
    g.dram_eff = d.efficiency.weight_only_stream[static_cast<size_t>(w)];
    g.setup_s = d.efficiency.weight_only_setup_s;
  }
  return gemm_cost(d, g).time_s;
}

// FlashAttention accounting (Dao et al. 2022): 4 b h s^2 d forward FLOPs,
// halved by a causal mask; backward 2.5x forward. Traffic: forward reads
// Q, K, V and writes O; backward also reads O and dO and writes dQ, dK, dV.
double attention_time(const Device& d, const json& k) {
  const double b = k.at("batch").get<double>(), h = k.at("heads").get<double>();
  const double hkv = k.at("kv_heads").get<double>(), s = k.at("seq").get<double>();
  const double hd = k.at("head_dim").get<double>();
  const bool causal = k.at("causal").get<bool>(), bwd = k.at("pass").get<std::string>() == "bwd";
  const double fwd_flops = 4 * b * h * s * s * hd * (causal ? 0.5 : 1.0);
  const double q = b * s * h * hd * 2, kv = 2 * b * s * hkv * hd * 2;
  const double bytes = bwd ? 4 * q + 2 * kv : 2 * q + kv;
  const double kv_per_row = causal ? 0.5 * (s + 1) : s;
  // "kernel": the generation timed (absent: the device's best, cuDNN).
  AttentionKernel kernel = AttentionKernel::best;
  const std::string name = k.value("kernel", "best");
  if (!value_named(attention_kernel_names(), name, &kernel)) throw std::runtime_error("unknown attention kernel '" + name + "'");
  return fused_attention_cost(d, bwd ? 2.5 * fwd_flops : fwd_flops, bytes, Precision::bf16, bwd, kv_per_row, hd, kernel)
      .time_s;
}

// Norms and activations stream their bytes at their kind's rate; ~8 vector
// FLOPs per element.
double elementwise_time(const Device& d, const json& k) {
  const std::string name = k.value("name", "");
  const StreamKind kind = name == "layer_norm" || name == "rms_norm" ? StreamKind::norm
                          : name == "gelu"                          ? StreamKind::activation
                                                                    : StreamKind::copy;
  return elementwise_cost(d, k.at("bytes").get<double>(), 8 * k.at("elements").get<double>(), Precision::bf16, kind).time_s;
}

}  // namespace

std::vector<ValidationRow> validate_kernel_case(const json& c, const std::string& origin) {
  std::vector<ValidationRow> rows;
  const std::string id = c.value("id", origin), source = c.value("source", "unknown source");
  const std::string system_id = c.value("system", "");
  const json* preset = find_preset("systems", system_id);
  if (!preset) {
    rows.push_back({id, source, "", 0, 0, 0, true, "unknown system preset '" + system_id + "'"});
    return rows;
  }
  const Device device = parse_system(*preset, "system").device;
  for (const json& k : c.at("kernels")) {
    ValidationRow row{id + ": " + k.value("id", "?"), source, k.value("metric", "kernel"), 0, 0, 0, false, ""};
    try {
      const std::string op = k.at("op").get<std::string>();
      if (op == "gemm")
        row.predicted = gemm_time(device, k);
      else if (op == "attention")
        row.predicted = attention_time(device, k);
      else if (op == "elementwise")
        row.predicted = elementwise_time(device, k);
      else
        throw std::runtime_error("unknown op '" + op + "'");
      row.measured = k.at("measured_s").get<double>();
      row.error = row.measured != 0 ? (row.predicted - row.measured) / row.measured : 0;
    } catch (const std::exception& e) {
      row.skipped = true;
      row.note = e.what();
    }
    rows.push_back(row);
  }
  return rows;
}

}  // namespace llmcalc
