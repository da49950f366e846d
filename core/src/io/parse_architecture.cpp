// The architecture fields of a model object beyond the dense transformer:
// multi-head latent attention, local-attention layer patterns and
// multi-token prediction modules (docs/scenario.md, "Model object").
#include "enum_names.h"
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
  if (given != 1) throw InputError(o.path(), "give exactly one of window or chunk");
  a.global_every = static_cast<int>(int_field(o, "global_every"));
  a.sinks = o.boolean("sinks", field_spec(o.child_path("sinks")).def.get<bool>());
  o.finish();
  return a;
}

}  // namespace

void parse_architecture(StrictObject& o, Model& m) {
  if (o.has("mla")) m.mla = parse_mla(o);
  if (o.has("attention")) m.attention = parse_attention(o);
  m.mtp_layers = static_cast<int>(int_field(o, "mtp_layers"));
  if (m.mla.on() && m.mla.qk_nope_head_dim + m.mla.qk_rope_head_dim > 65536)
    throw InputError(o.child_path("mla"), "query-key head width exceeds 65536");
}

}  // namespace llmcalc
