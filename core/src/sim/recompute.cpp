#include "recompute.h"

namespace llmcalc {

bool is_attention_core(const std::string& name) {
  return name.rfind("attn.scores", 0) == 0 || name.rfind("attn.softmax", 0) == 0 ||
         name.rfind("attn.dropout", 0) == 0 || name.rfind("attn.context", 0) == 0 || name.rfind("attn.flash", 0) == 0;
}

// Share of a forward op that runs again in backward. Selective recompute
// re-runs the attention core (Korthikanti et al. 2022 §5), which
// FlashAttention already recomputes inside its backward; op-level
// checkpointing (op_checkpoint.h) keeps the saved matmuls' outputs, the fused
// attention and the reduce-scatters and re-runs everything else.
double recompute_share(const OpSpec& f, Recompute rc, bool flash, const std::vector<MatmulPart>& mms) {
  switch (rc) {
    case Recompute::none: return 0;
    case Recompute::full: return 1;
    case Recompute::selective: return !flash && is_attention_core(f.name) ? 1 : 0;
    case Recompute::selective_op:
      if (f.kind == OpKind::gemm) return op_checkpoint_gemm_share(mms, f.name);
      // The fused softmax attention is on the save list; a linear layer's
      // recurrence kernel is not.
      if (f.kind == OpKind::attention) return f.name.rfind("linear.", 0) == 0 ? 1 : 0;
      if (f.kind == OpKind::comm) return f.coll == Collective::reduce_scatter ? 0 : 1;
      return 1;
  }
  return 0;
}

OpSpec narrowed(const OpSpec& f, double share) {
  OpSpec r = f;
  if (r.kind == OpKind::gemm) r.gemm.n *= share;
  return r;
}

}  // namespace llmcalc
