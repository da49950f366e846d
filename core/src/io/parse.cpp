#include "parse.h"

#include <string>

#include "enum_names.h"
#include "presets.h"
#include "requests.h"
#include "schema.h"
#include "table_fields.h"

namespace llmcalc {

namespace {

MoE parse_moe(StrictObject& m, int dense_ffn) {
  MoE moe;
  StrictObject o(m.raw("moe"), m.child_path("moe"));
  moe.experts = int32_field(o, "experts");
  moe.top_k = int32_field(o, "top_k");
  moe.ffn_hidden = static_cast<int>(optional_int(o, "ffn_hidden", dense_ffn));
  moe.shared_experts = int32_field(o, "shared_experts");
  moe.dense_layers = int32_field(o, "dense_layers");
  moe.shared_ffn_hidden = static_cast<int>(optional_int(o, "shared_ffn_hidden", moe.ffn_hidden));
  moe.every = int32_field(o, "every");
  moe.groups = int32_field(o, "groups");
  moe.top_groups = int32_field(o, "top_groups");
  o.finish();
  if (moe.experts > 0 && moe.top_k > moe.experts)
    throw InputError(o.child_path("top_k"), "top_k exceeds the number of experts");
  if (moe.experts % moe.groups != 0) throw InputError(o.child_path("groups"), "groups must divide the experts");
  if (moe.top_groups > moe.groups) throw InputError(o.child_path("top_groups"), "top_groups exceeds the groups");
  if (1LL * moe.routed_groups() * (moe.experts / moe.groups) < moe.top_k)
    throw InputError(o.child_path("top_groups"), "the top_groups groups hold fewer experts than top_k");
  return moe;
}

Parallelism parse_parallelism(const nlohmann::json& root) {
  Parallelism p;
  if (!root.contains("parallelism")) return p;
  StrictObject o(root.at("parallelism"), "parallelism");
  p.tp = int32_field(o, "tp");
  p.pp = int32_field(o, "pp");
  p.dp = int32_field(o, "dp");
  p.cp = int32_field(o, "cp");
  p.ep = int32_field(o, "ep");
  p.etp = static_cast<int>(optional_int(o, "etp", 0));
  p.sp = bool_field(o, "sp");
  p.schedule = enum_field(o, "pp_schedule", schedule_names());
  p.virtual_stages = int32_field(o, "virtual_stages");
  p.zero = int32_field(o, "zero");
  p.zero_shard = static_cast<int>(optional_int(o, "zero_shard", 0));
  // Bytes per element on the wire; "auto" follows the training precision.
  p.gather_bytes = enum_field(o, "gather_precision", gather_precision_names());
  p.reduce_bytes = enum_field(o, "reduce_precision", reduce_precision_names());
  o.finish();
  if (p.gpus() > (1LL << 24)) throw InputError("parallelism", "tp x pp x dp x cp exceeds 16,777,216 GPUs");
  return p;
}

// An absent section reads as an empty one, so that its fields take the
// input table's defaults either way (StrictObject keeps a reference: static).
const nlohmann::json& section_or_empty(const nlohmann::json& root, const char* key) {
  static const nlohmann::json empty = nlohmann::json::object();
  return root.contains(key) ? root.at(key) : empty;
}

Training parse_training(const nlohmann::json& root, int model_seq) {
  Training t;
  StrictObject o(section_or_empty(root, "training"), "training");
  t.global_batch = int_field(o, "global_batch");
  t.micro_batch = int32_field(o, "micro_batch");
  t.seq_len = static_cast<int>(optional_int(o, "seq_len", model_seq));
  const NumberFormat format = enum_field(o, "precision", training_precision_names());
  t.precision = format.precision;
  t.fp4_mx = format.mx && format.precision == Precision::fp4;
  t.recompute = enum_field(o, "recompute", recompute_names());
  t.recompute_layers = int32_field(o, "recompute_layers");
  t.recompute_block = enum_field(o, "recompute_method", recompute_method_names());
  t.recompute_to_fit = bool_field(o, "recompute_to_fit");
  t.optimizer = enum_field(o, "optimizer", optimizer_names());
  t.flash_attention = bool_field(o, "flash_attention");
  t.attention_kernel = enum_field(o, "attention_kernel", attention_kernel_names());
  t.fusion = enum_field(o, "fusion", fusion_names());
  const FieldSpec& host = field_spec("training.host_overhead_us");
  if (o.has("host_overhead_us")) t.host_overhead_s = o.number("host_overhead_us", 0, host.lo, host.hi) * 1e-6;
  if (o.has("overlap")) {
    StrictObject ov(o.raw("overlap"), "training.overlap");
    t.overlap.dp = bool_field(ov, "dp");
    t.overlap.tp = bool_field(ov, "tp");
    t.overlap.pp = bool_field(ov, "pp");
    t.overlap.ep = bool_field(ov, "ep");
    ov.finish();
  }
  t.moe_balance = enum_field(o, "moe_balance", moe_balance_names());
  t.moe_dispatcher = enum_field(o, "moe_dispatcher", moe_dispatcher_names());
  t.moe_dispatch_precision = enum_field(o, "moe_dispatch_precision", dispatch_precision_names());
  const FieldSpec& cf = field_spec("training.moe_capacity_factor");
  t.moe_capacity_factor = o.number("moe_capacity_factor", 0, cf.lo, cf.hi);
  t.fp8_recipe = enum_field(o, "fp8_recipe", fp8_recipe_names());
  if (format.mx && format.precision == Precision::fp8) {  // "mxfp8" is fp8 with the MXFP8 recipe
    if (o.has("fp8_recipe") && t.fp8_recipe != Fp8Recipe::mxfp8)
      throw InputError("training.fp8_recipe", "precision \"mxfp8\" takes fp8_recipe \"mxfp8\" (or none)");
    t.fp8_recipe = Fp8Recipe::mxfp8;
  }
  const FieldSpec& tok = field_spec("training.tokens");
  t.tokens = o.number("tokens", 0, tok.lo, tok.hi);
  t.lora_rank = int32_field(o, "lora_rank");
  t.lora_targets = enum_field(o, "lora_targets", lora_target_names());
  t.frozen_weights = enum_field(o, "frozen_weights", frozen_weight_names());
  t.offload = enum_field(o, "offload", offload_names());
  t.offload_activations = int32_field(o, "offload_activations");
  o.finish();
  return t;
}

Inference parse_inference(const nlohmann::json& root) {
  Inference inf;
  StrictObject o(section_or_empty(root, "inference"), "inference");
  inf.batch = int32_field(o, "batch");
  inf.input_tokens = int32_field(o, "input_tokens");
  inf.output_tokens = int32_field(o, "output_tokens");
  inf.inflight = enum_field(o, "batching", batching_names());
  const NumberFormat weights = enum_field(o, "weight_precision", weight_precision_names());
  inf.weight_precision = weights.precision;
  inf.weight_mx = weights.mx;
  inf.kv_precision = enum_field(o, "kv_precision", kv_precision_names());
  inf.compute_precision = enum_field(o, "compute_precision", math_precision_names());
  inf.flash_attention = bool_field(o, "flash_attention");
  inf.weight_group_size = int32_field(o, "weight_group_size");
  inf.decode_attention = enum_field(o, "decode_attention", decode_attention_names());
  inf.moe_gemm = enum_field(o, "moe_gemm", moe_gemm_names());
  inf.moe_gemm_auto = inf.moe_gemm == MoeGemm::auto_pick;
  inf.draft_tokens = int32_field(o, "draft_tokens");
  const FieldSpec& acc = field_spec("inference.draft_acceptance");
  inf.draft_acceptance = o.number("draft_acceptance", 0.7, acc.lo, acc.hi);
  inf.draft_layers = int32_field(o, "draft_layers");
  inf.shared_prefix_tokens = int32_field(o, "shared_prefix_tokens");
  inf.token_budget = int32_field(o, "token_budget");
  inf.prefill_tp = int32_field(o, "prefill_tp");
  inf.prefill_batch = int32_field(o, "prefill_batch");
  inf.target_requests_per_s = number_field(o, "target_requests_per_s");
  o.finish();
  return inf;
}

void require(bool ok, const std::string& path, const std::string& msg) {
  if (!ok) throw InputError(path, msg);
}

}  // namespace

Model parse_model(const nlohmann::json& value, const std::string& path) {
  const nlohmann::json j = resolve_preset(value, "models", path);
  StrictObject o(j, path);
  Model m;
  read_released_weights(value, m);
  m.name = o.string("name", "custom", 100);
  m.layers = int32_field(o, "layers");
  m.hidden = int32_field(o, "hidden");
  m.heads = int32_field(o, "heads");
  m.kv_heads = static_cast<int>(optional_int(o, "kv_heads", m.heads));
  m.head_dim = static_cast<int>(optional_int(o, "head_dim", std::max(1, m.hidden / m.heads)));
  m.ffn_hidden = static_cast<int>(optional_int(o, "ffn_hidden", std::min(4LL * m.hidden, 4LL * 1048576)));
  m.ffn_type = enum_field(o, "ffn_type", ffn_type_names());
  m.norm = enum_field(o, "norm", norm_names());
  m.vocab = int32_field(o, "vocab");
  m.seq_len = int32_field(o, "seq_len");
  m.context = optional_int(o, "context", m.seq_len);
  m.tied_embeddings = bool_field(o, "tied_embeddings");
  m.bias = bool_field(o, "bias");
  m.learned_positions = bool_field(o, "learned_positions");
  m.dropout = bool_field(o, "dropout");
  m.qk_norm = bool_field(o, "qk_norm");
  if (o.has("moe")) m.moe = parse_moe(o, m.ffn_hidden);
  parse_architecture(o, m);
  o.finish();
  require(m.heads % m.kv_heads == 0, join_path(path, "kv_heads"), "heads must be a multiple of kv_heads");
  require(m.moe.dense_layers <= m.layers, join_path(path, "moe.dense_layers"), "exceeds the number of layers");
  return m;
}

namespace {

// The mode: given, or implied by the one mode section present. A section of
// the other mode is an error, not silently ignored.
Mode parse_mode(StrictObject& top, const nlohmann::json& root) {
  const bool has_train = root.contains("training"), has_infer = root.contains("inference");
  if (!top.has("mode")) {
    if (has_train != has_infer) return has_train ? Mode::training : Mode::inference;
    throw InputError("mode", has_train ? "is required when both training and inference sections are given"
                                       : "is required: \"training\" or \"inference\" (or give one of those sections)");
  }
  const Mode mode = enum_field(top, "mode", mode_names());
  const char* other = mode == Mode::training ? "inference" : "training";
  if (root.contains(other))
    throw InputError(other, std::string("belongs to mode \"") + other + "\" but mode is \"" +
                                (mode == Mode::training ? "training" : "inference") + "\"");
  return mode;
}

}  // namespace

Scenario parse_scenario(const nlohmann::json& root) {
  StrictObject top(root, "");
  Scenario s;
  s.mode = parse_mode(top, root);
  const FieldSpec& mf = field_spec("model");
  const FieldSpec& sf = field_spec("system");
  s.model = parse_model(top.has("model") ? top.raw("model") : mf.def, "model");
  s.system = parse_system(top.has("system") ? top.raw("system") : sf.def, "system");
  top.has("parallelism");
  s.par = parse_parallelism(root);
  s.par.serving = s.mode == Mode::inference;  // sets the default etp (Parallelism::expert_tp)
  top.has("training");
  s.train = parse_training(root, s.model.seq_len);
  if (s.train.host_overhead_s < 0) s.train.host_overhead_s = s.system.device.efficiency.host_overhead_s;
  top.has("inference");
  s.infer = parse_inference(root);
  top.has("cost");
  s.costs = parse_costs(root);
  top.has("reliability");
  s.reliability = parse_reliability(root);
  // A search request rides on its scenario (llmcalc search); it is checked
  // here so that a bad one is an error wherever the scenario goes.
  if (top.has("search")) parse_search_request(root);
  top.finish();
  default_16bit_to_device(root, s);
  check_consistency(s);
  pick_moe_gemm(s);  // needs a consistent plan
  return s;
}

// Objects merge key by key (overrides win); arrays and scalars are replaced.
void merge_into(nlohmann::json& base, const nlohmann::json& over) {
  for (auto it = over.begin(); it != over.end(); ++it) {
    if (it.value().is_object() && base.contains(it.key()) && base[it.key()].is_object())
      merge_into(base[it.key()], it.value());
    else
      base[it.key()] = it.value();
  }
}

// A preset id, {"preset": id, ...overrides}, or a full object.
nlohmann::json resolve_preset(const nlohmann::json& v, const std::string& kind, const std::string& path) {
  auto lookup = [&](const nlohmann::json& id, const std::string& at) {
    if (!id.is_string()) throw InputError(at, "expected a preset id string or an object");
    const std::string name = id.get<std::string>();
    const nlohmann::json* p = find_preset(kind, name);
    if (!p) {
      std::vector<std::string> names;
      for (auto it = all_presets().at(kind).begin(); it != all_presets().at(kind).end(); ++it) names.push_back(it.key());
      const std::string hint = did_you_mean(name, names);  // a near miss needs no list
      throw InputError(at, "unknown preset \"" + name.substr(0, 60) + "\"" + (hint.empty() ? "; known: " + comma_list(names) : hint));
    }
    return *p;
  };
  if (v.is_string()) return lookup(v, path);
  if (!v.is_object()) throw InputError(path, "expected a preset id string or an object");
  if (!v.contains("preset")) return v;
  nlohmann::json base = lookup(v.at("preset"), join_path(path, "preset"));
  nlohmann::json over = v;
  over.erase("preset");
  merge_into(base, over);
  return base;
}

}  // namespace llmcalc
