// Which layers attend the full context and which a local span (sliding
// window or chunk), and what that does to attention work and the KV cache.
#pragma once
#include <string>
#include <vector>

#include "llmcalc/scenario.h"

namespace llmcalc {

bool has_local_layers(const Model& m);
// Layer `layer` (0-based) attends the full context: every global_every-th layer, 1-based.
bool is_global_layer(const Model& m, int layer);
// Global layers among layers [first, first + count).
int global_layers(const Model& m, int first, int count);
// Fraction of the model's layers that are global.
double global_share(const Model& m);

// Causal query-key pairs over `s` tokens when each query attends at most `w`
// keys (a sliding window of w; DeepSeek Sparse Attention's top_k): sum_i min(i, w).
double window_pairs(double w, double s);
// Query-key pairs of causal attention over `s` tokens in a global or local layer.
double causal_pairs(const Model& m, bool local, double s);
// Keys one query attends, averaged over decode steps at contexts a + 1 .. a + n.
double mean_decode_keys(const Model& m, bool local, double a, double n);
// Tokens one layer keeps in its KV cache at context `t` (local layers: at most the span).
double cached_tokens(const Model& m, bool local, double t);

// Bytes per stored KV-cache element: NVFP4 adds one E4M3 scale per 16 values.
double kv_element_bytes(Precision p);
// KV-cache elements per token in one layer on one tensor-parallel rank: MLA
// keeps the latent and the RoPE key, shared by all heads and replicated over
// tp; GQA keeps K and V of its kv_heads / tp heads (replicated when tp > kv_heads).
double kv_elements_per_token(const Model& m, int tp);

struct KvLayerType {
  std::string type;           // "full", "mla", "sliding_window", "chunked", "linear_state"
  int layers = 0;
  double bytes_per_token_per_layer = 0;
  double bytes_per_token = 0;  // all layers of the type
  double tokens_cached = 0;    // per sequence at the context asked for (0: linear_state, a fixed state)
  double bytes_per_sequence = 0;
};
// The KV cache of layers [first, first + count) by layer type, at context `context`.
std::vector<KvLayerType> kv_cache_by_layer_type(const Model& m, int tp, Precision kv, double context, int first,
                                                int count);
double kv_bytes_per_sequence(const Model& m, int tp, Precision kv, double context, int first, int count);

}  // namespace llmcalc
