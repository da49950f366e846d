#include "schema.h"

#include <stdexcept>

namespace llmcalc {

namespace {
using json = nlohmann::json;
const std::vector<std::string> kBoth = {"training", "inference"};
const std::vector<std::string> kTrain = {"training"};
const std::vector<std::string> kInfer = {"inference"};
const std::vector<std::string> kPrec = {"fp32", "tf32", "fp16", "bf16", "fp8"};
const std::vector<std::string> kWeightPrec = {"fp32", "bf16", "fp16", "fp8", "int8", "int4", "fp4"};
const std::vector<std::string> kKvPrec = {"bf16", "fp16", "fp8", "int8"};
const std::vector<std::string> kMathPrec = {"bf16", "fp16", "fp8", "fp4"};

// Bounds are documented limits: wide enough for absurd-but-valid plans
// (a 100T-parameter model, a million GPUs, a 4M-token context) and tight
// enough that every evaluation stays finite and bounded in time.
constexpr double kMaxDim = 1048576;    // 2^20
constexpr double kMaxSeq = 4194304;    // 2^22 tokens
constexpr double kMaxBatch = 1e8;

std::vector<FieldSpec> build() {
  std::vector<FieldSpec> f;
  auto add = [&](FieldSpec s) { f.push_back(std::move(s)); };
  add({"mode", "mode", "enum", "", "training", 0, 0, {"training", "inference"}, "What to estimate: a training iteration or serving.", "scenario", kBoth});
  add({"model", "m", "preset", "", "llama3.1-8b", 0, 0, {"models"}, "Model preset id, or a custom model object.", "model", kBoth});
  add({"system", "s", "preset", "", "dgx-h100", 0, 0, {"systems"}, "System preset id, or a custom system object.", "system", kBoth});

  add({"model.layers", "ml", "int", "", nullptr, 1, 100000, {}, "Transformer blocks.", "model", kBoth});
  add({"model.hidden", "mh", "int", "", nullptr, 1, kMaxDim, {}, "Model width h.", "model", kBoth});
  add({"model.heads", "ma", "int", "", nullptr, 1, 65536, {}, "Attention (query) heads.", "model", kBoth});
  add({"model.kv_heads", "mk", "int", "", nullptr, 1, 65536, {}, "Key/value heads (GQA; 1 = MQA). Default: heads.", "model", kBoth});
  add({"model.head_dim", "md", "int", "", nullptr, 1, 65536, {}, "Per-head width. Default: hidden / heads.", "model", kBoth});
  add({"model.ffn_hidden", "mf", "int", "", nullptr, 1, 4 * kMaxDim, {}, "Feed-forward inner width. Default: 4 x hidden.", "model", kBoth});
  add({"model.ffn_type", "mt", "enum", "", "gelu", 0, 0, {"gelu", "relu2", "swiglu", "geglu"}, "gelu/relu2: 2 matrices; swiglu/geglu: 3.", "model", kBoth});
  add({"model.norm", "mn", "enum", "", "layernorm", 0, 0, {"layernorm", "rmsnorm"}, "Normalisation layer.", "model", kBoth});
  add({"model.vocab", "mv", "int", "", nullptr, 1, 1e8, {}, "Vocabulary size.", "model", kBoth});
  add({"model.seq_len", "ms", "int", "tokens", 2048, 1, kMaxSeq, {}, "Default sequence length.", "model", kBoth});
  add({"model.tied_embeddings", "me", "bool", "", false, 0, 0, {}, "Input and output embeddings share weights.", "model", kBoth});
  add({"model.bias", "mbi", "bool", "", false, 0, 0, {}, "Linear layers carry biases (GPT-2/3 style).", "model", kBoth});
  add({"model.dropout", "mdo", "bool", "", true, 0, 0, {}, "Hidden and attention dropout (Megatron's default; stores masks).", "model", kBoth});
  add({"model.learned_positions", "mlp", "bool", "", false, 0, 0, {}, "Learned absolute position embeddings (GPT-2/3 style).", "model", kBoth});
  add({"model.moe.experts", "xe", "int", "", 0, 0, 65536, {}, "Routed experts per MoE layer (0: dense).", "model", kBoth});
  add({"model.moe.top_k", "xk", "int", "", 1, 1, 65536, {}, "Experts per token.", "model", kBoth});
  add({"model.moe.ffn_hidden", "xf", "int", "", nullptr, 1, 4 * kMaxDim, {}, "Inner width of one expert. Default: the model's ffn_hidden.", "model", kBoth});
  add({"model.moe.shared_experts", "xs", "int", "", 0, 0, 1024, {}, "Always-active shared experts.", "model", kBoth});
  add({"model.moe.dense_layers", "xd", "int", "", 0, 0, 100000, {}, "Leading dense layers.", "model", kBoth});

  add({"parallelism.tp", "tp", "int", "", 1, 1, kMaxDim, {}, "Tensor parallel degree (Megatron).", "parallelism", kBoth});
  add({"parallelism.pp", "pp", "int", "", 1, 1, kMaxDim, {}, "Pipeline stages.", "parallelism", kBoth});
  add({"parallelism.dp", "dp", "int", "", 1, 1, kMaxDim, {}, "Data-parallel replicas.", "parallelism", kBoth});
  add({"parallelism.cp", "cp", "int", "", 1, 1, kMaxDim, {}, "Context parallel degree.", "parallelism", kTrain});
  add({"parallelism.ep", "ep", "int", "", 1, 1, kMaxDim, {}, "Expert parallel degree; etp x ep divides tp x cp x dp.", "parallelism", kTrain});
  add({"parallelism.etp", "etp", "int", "", nullptr, 1, kMaxDim, {}, "Expert tensor parallel degree (MoE parallel folding: etp x ep divides tp x cp x dp). Default: tp when ep divides dp x cp, else 1.", "parallelism", kTrain});
  add({"parallelism.sp", "sp", "bool", "", false, 0, 0, {}, "Megatron sequence parallelism.", "parallelism", kTrain});
  add({"parallelism.pp_schedule", "ps", "enum", "", "1f1b", 0, 0, {"1f1b", "interleaved", "gpipe"}, "Pipeline schedule.", "parallelism", kTrain});
  add({"parallelism.virtual_stages", "vs", "int", "", 1, 1, 1024, {}, "Model chunks per stage (interleaved schedule).", "parallelism", kTrain});
  add({"parallelism.zero", "z", "int", "", 0, 0, 3, {}, "ZeRO stage: 1 optimizer states, 2 +gradients, 3 +weights sharded over dp.", "parallelism", kTrain});

  add({"training.global_batch", "gb", "int", "sequences", 512, 1, kMaxBatch, {}, "Sequences per iteration.", "training", kTrain});
  add({"training.micro_batch", "mb", "int", "sequences", 1, 1, 1e6, {}, "Sequences per micro-batch.", "training", kTrain});
  add({"training.seq_len", "sl", "int", "tokens", nullptr, 1, kMaxSeq, {}, "Sequence length. Default: the model's.", "training", kTrain});
  add({"training.precision", "pr", "enum", "", "bf16", 0, 0, kPrec, "Math precision (mixed precision with fp32 master weights).", "training", kTrain});
  add({"training.recompute", "rc", "enum", "", "selective", 0, 0, {"none", "selective", "full"}, "Activation recomputation.", "training", kTrain});
  add({"training.optimizer", "op", "enum", "", "adam", 0, 0, {"adam", "sgd"}, "Optimizer.", "training", kTrain});
  add({"training.flash_attention", "fa", "bool", "", true, 0, 0, {}, "Fused FlashAttention (no s^2 score tensor).", "training", kTrain});
  add({"training.overlap.dp", "od", "bool", "", true, 0, 0, {}, "Hide data-parallel gradient reduction behind backward.", "training", kTrain});
  add({"training.overlap.tp", "ot", "bool", "", false, 0, 0, {}, "Hide tensor-parallel communication behind compute.", "training", kTrain});
  add({"training.overlap.pp", "oq", "bool", "", true, 0, 0, {}, "Hide pipeline transfers behind compute.", "training", kTrain});
  add({"training.overlap.ep", "oe", "bool", "", false, 0, 0, {}, "Hide the MoE all-to-all behind another micro-batch's compute (Megatron-Core EP overlap).", "training", kTrain});
  add({"training.moe_balance", "mbl", "enum", "", "random", 0, 0, {"random", "forced"}, "MoE routing load: expected maximum of top-k routing, or forced balance (benchmarks).", "training", kTrain});
  add({"training.moe_capacity_factor", "mcf", "number", "", 0, 0, 1000, {}, "Expert capacity as a multiple of the mean load (0: dropless).", "training", kTrain});
  add({"training.fp8_recipe", "f8", "enum", "", "delayed", 0, 0, {"delayed", "current", "mxfp8"}, "FP8 scaling: per-tensor delayed or current scaling, or MXFP8 32-element blocks.", "training", kTrain});
  add({"training.tokens", "tk", "number", "tokens", nullptr, 0, 1e16, {}, "Total training tokens (gives time to train).", "training", kTrain});

  add({"inference.batch", "b", "int", "sequences", 8, 1, kMaxBatch, {}, "Concurrent sequences.", "inference", kInfer});
  add({"inference.input_tokens", "in", "int", "tokens", 2048, 1, kMaxSeq, {}, "Prompt length.", "inference", kInfer});
  add({"inference.output_tokens", "out", "int", "tokens", 256, 1, kMaxSeq, {}, "Generated tokens per sequence.", "inference", kInfer});
  add({"inference.weight_precision", "wp", "enum", "", "bf16", 0, 0, kWeightPrec, "Stored weight precision.", "inference", kInfer});
  add({"inference.kv_precision", "kp", "enum", "", "bf16", 0, 0, kKvPrec, "KV-cache precision.", "inference", kInfer});
  add({"inference.compute_precision", "ic", "enum", "", "bf16", 0, 0, kMathPrec, "Math precision of the GEMMs.", "inference", kInfer});
  add({"inference.flash_attention", "ifa", "bool", "", true, 0, 0, {}, "Fused attention kernels.", "inference", kInfer});
  return f;
}
}  // namespace

const std::vector<FieldSpec>& schema_fields() {
  static const std::vector<FieldSpec> kFields = build();
  return kFields;
}

const FieldSpec& field_spec(const std::string& key) {
  for (const auto& f : schema_fields())
    if (f.key == key) return f;
  throw std::logic_error("no schema field " + key);
}

json schema_to_json() {
  json fields = json::array();
  for (const auto& f : schema_fields()) {
    json j = {{"key", f.key}, {"url", f.url}, {"type", f.type}, {"unit", f.unit}, {"default", f.def},
              {"help", f.help}, {"group", f.group}, {"modes", f.modes}};
    if (f.type == "int" || f.type == "number") {
      j["min"] = f.lo;
      j["max"] = f.hi;
    }
    if (f.type == "enum") j["values"] = f.values;
    if (f.type == "preset") j["kind"] = f.values.at(0);
    fields.push_back(j);
  }
  // Starting points for a first visit: realistic runs that fit.
  const json examples = {
      {"training",
       {{"mode", "training"}, {"model", "llama3.1-8b"}, {"system", "dgx-h100"},
        {"parallelism", {{"tp", 2}, {"pp", 1}, {"dp", 4}, {"sp", true}, {"zero", 1}}},
        {"training", {{"global_batch", 256}, {"micro_batch", 1}, {"seq_len", 8192}, {"precision", "bf16"},
                      {"recompute", "selective"}, {"flash_attention", true}}}}},
      {"inference",
       {{"mode", "inference"}, {"model", "llama3.1-70b"}, {"system", "dgx-h100"},
        {"parallelism", {{"tp", 4}, {"pp", 1}, {"dp", 1}}},
        {"inference", {{"batch", 32}, {"input_tokens", 2048}, {"output_tokens", 256}, {"weight_precision", "fp8"},
                       {"kv_precision", "fp8"}, {"compute_precision", "fp8"}}}}}};
  return {{"version", 1}, {"fields", fields}, {"examples", examples}};
}

}  // namespace llmcalc
