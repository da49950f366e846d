// The architecture fields of a model object beyond the dense transformer:
// multi-head latent attention, local-attention layer patterns,
// linear-attention layers and multi-token prediction modules (docs/scenario.md, "Model object").
#include "enum_names.h"
#include "model_math.h"
#include "parse.h"
#include "schema.h"
#include "table_fields.h"

namespace llmcalc {

namespace {

Mla parse_mla(StrictObject& m) {
  StrictObject o(m.raw("mla"), m.child_path("mla"));
  Mla a;
  a.q_lora_rank = static_cast<int>(int_field(o, "q_lora_rank"));
  a.kv_lora_rank = static_cast<int>(int_field(o, "kv_lora_rank"));
  a.qk_nope_head_dim = static_cast<int>(int_field(o, "qk_nope_head_dim"));
  a.qk_rope_head_dim = static_cast<int>(int_field(o, "qk_rope_head_dim"));
  a.v_head_dim = static_cast<int>(int_field(o, "v_head_dim"));
  o.finish();
  return a;
}

AttentionPattern parse_attention(StrictObject& m) {
  StrictObject o(m.raw("attention"), m.child_path("attention"));
  AttentionPattern a;
  int given = 0;
  for (const auto& [kind, name] : local_attention_names()) {
    if (!o.has(name)) continue;
    ++given;
    a.kind = kind;
    a.span = static_cast<int>(int_field(o, name));
  }
  if (given > 1) throw InputError(o.path(), "give one of window or chunk, not both");
  a.global_every = static_cast<int>(int_field(o, "global_every"));
  if (given == 0 && a.global_every > 0)
    throw InputError(o.child_path("global_every"), "needs the local layers' window or chunk");
  a.sinks = o.boolean("sinks", field_spec(o.child_path("sinks")).def.get<bool>());
  a.output_gate = o.boolean("output_gate", field_spec(o.child_path("output_gate")).def.get<bool>());
  o.finish();
  return a;
}

SparseAttention parse_sparse(StrictObject& m) {
  StrictObject o(m.raw("sparse_attention"), m.child_path("sparse_attention"));
  SparseAttention a;
  a.top_k = static_cast<int>(int_field(o, "top_k"));
  a.index_heads = static_cast<int>(int_field(o, "index_heads"));
  a.index_head_dim = static_cast<int>(int_field(o, "index_head_dim"));
  o.finish();
  return a;
}

LinearAttention parse_linear(StrictObject& m) {
  StrictObject o(m.raw("linear_attention"), m.child_path("linear_attention"));
  LinearAttention a;
  a.kind = enum_field(o, "kind", linear_kind_names());
  a.key_heads = static_cast<int>(int_field(o, "key_heads"));
  a.value_heads = static_cast<int>(int_field(o, "value_heads"));
  a.key_head_dim = static_cast<int>(int_field(o, "key_head_dim"));
  a.value_head_dim = static_cast<int>(int_field(o, "value_head_dim"));
  a.conv_kernel = static_cast<int>(int_field(o, "conv_kernel"));
  a.chunk = static_cast<int>(int_field(o, "chunk"));
  // The kernels' own chunk lengths: flash-linear-attention's chunk_gated_delta_rule
  // 64, mamba_ssm's Mamba2 chunk_size 256 (mamba_ssm/modules/mamba2.py).
  if (a.chunk == 0) a.chunk = a.kind == LinearKind::mamba2 ? 256 : 64;
  a.full_every = static_cast<int>(int_field(o, "full_every"));
  // full_layers > 0 replaces full_every (which a preset below an override may carry).
  a.full_layers = static_cast<int>(int_field(o, "full_layers"));
  a.state_precision = enum_field(o, "state_precision", state_precision_names());
  // Qwen3-Next repeats each query/key head over value_heads / key_heads value
  // heads; Mamba-2 shares each B/C group among heads / n_groups heads.
  if (a.value_heads % a.key_heads != 0)
    throw InputError(o.child_path("value_heads"), "must be a multiple of key_heads");
  o.finish();
  return a;
}

}  // namespace

void parse_architecture(StrictObject& o, Model& m) {
  if (o.has("mla")) m.mla = parse_mla(o);
  if (o.has("attention")) m.attention = parse_attention(o);
  if (o.has("linear_attention")) {
    m.linear = parse_linear(o);
    // One layer pattern at a time: the hybrid's softmax layers attend the full context with GQA.
    if (m.mla.on() || m.attention.kind != LocalAttention::none)
      throw InputError(o.child_path("linear_attention"), "is modelled beside full GQA attention layers, not with mla or a local window / chunk");
    if (m.linear.full_layers > m.layers)
      throw InputError(join_path(o.child_path("linear_attention"), "full_layers"), "exceeds the number of layers");
  }
  if (o.has("sparse_attention")) {
    m.sparse = parse_sparse(o);
    // One attention pattern at a time: every layer runs the indexer over the full context.
    if (m.attention.kind != LocalAttention::none || m.linear.on())
      throw InputError(o.child_path("sparse_attention"), "is modelled on full-context layers, not with a local window / chunk or linear_attention");
  }
  // MLA normalises its compressed latents instead (mla.cpp: q_norm, kv_norm).
  if (m.mla.on() && m.qk_norm) throw InputError(o.child_path("qk_norm"), "is modelled for GQA attention; mla normalises its latents itself");
  if (m.mla.on() && m.attention.output_gate)
    throw InputError(join_path(o.child_path("attention"), "output_gate"), "is modelled for GQA attention, not with mla");
  m.mtp_layers = static_cast<int>(int_field(o, "mtp_layers"));
  m.mixer_only_layers = static_cast<int>(int_field(o, "mixer_only_layers"));
  if (m.mixer_only_layers > m.layers) throw InputError(o.child_path("mixer_only_layers"), "exceeds the number of layers");
  // In an MoE model the layers without an MLP are taken from the MoE layers.
  if (m.mixer_only_layers > 0 && m.is_moe() && m.mixer_only_layers > mlp_kind_layers(m))
    throw InputError(o.child_path("mixer_only_layers"),
                     "exceeds the " + std::to_string(mlp_kind_layers(m)) + " MoE layers (with moe, the layers without an MLP are MoE layers)");
  if (m.mla.on() && m.mla.qk_nope_head_dim + m.mla.qk_rope_head_dim > 65536)
    throw InputError(o.child_path("mla"), "query-key head width exceeds 65536");
}

}  // namespace llmcalc
