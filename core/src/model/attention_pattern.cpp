#include "attention_pattern.h"

#include <algorithm>
#include <cmath>

#include "linear_attention.h"
#include "sparse_attention.h"

namespace llmcalc {

bool has_local_layers(const Model& m) {
  return m.attention.kind != LocalAttention::none && m.attention.span > 0;
}

// GPT-OSS (openai/gpt-oss model.py: sliding window on even 0-based layers,
// global_every 2), Gemma 3 (google-deepmind/gemma _config.py: 5 local then 1
// global, global_every 6) and Llama 4 (meta-llama/llama-models llama4
// model.py: NoPE global layer when (layer_id + 1) % 4 == 0) all make layer
// i global when (i + 1) % global_every == 0.
bool is_global_layer(const Model& m, int layer) {
  if (!has_local_layers(m)) return true;
  const int g = m.attention.global_every;
  return g > 0 && (layer + 1) % g == 0;
}

int global_layers(const Model& m, int first, int count) {
  int n = 0;
  for (int l = first; l < first + count; ++l) n += is_global_layer(m, l) ? 1 : 0;
  return n;
}

double global_share(const Model& m) {
  return m.layers > 0 ? global_layers(m, 0, m.layers) / static_cast<double>(m.layers) : 1.0;
}

namespace {
double full_pairs(double s) { return s * (s + 1) / 2; }
}  // namespace

// Sliding window of W (query i sees keys i-W < j <= i): sum_i min(i, W) =
// W S - W (W - 1) / 2 for S >= W. Chunks of C (keys in the query's chunk, up
// to itself; llama4 create_chunked_attention_mask): n C (C + 1) / 2 + r (r + 1) / 2
// for S = n C + r. (model-architectures facts §13.3-13.4, derived from the masks.)
double window_pairs(double w, double s) {
  s = std::max(0.0, s);
  return s <= w ? full_pairs(s) : w * s - w * (w - 1) / 2;
}

double causal_pairs(const Model& m, bool local, double s) {
  s = std::max(0.0, s);
  if (!local || !has_local_layers(m)) return full_pairs(s);
  const double w = m.attention.span;
  if (m.attention.kind == LocalAttention::window) return window_pairs(w, s);
  const double n = std::floor(s / w), r = s - n * w;
  return n * full_pairs(w) + full_pairs(r);
}

// The query at position t attends as many keys as the pairs grow from t - 1 to t.
double mean_decode_keys(const Model& m, bool local, double a, double n) {
  if (n <= 0) return cached_tokens(m, local, a + 1);
  return (causal_pairs(m, local, a + n) - causal_pairs(m, local, a)) / n;
}

double cached_tokens(const Model& m, bool local, double t) {
  if (!local || !has_local_layers(m)) return t;
  return std::min(t, static_cast<double>(m.attention.span));  // a ring buffer of the span
}

// NVFP4: 4-bit E2M1 values with one FP8 E4M3 scale per 16 (NVIDIA, "Introducing
// NVFP4", 2025; TensorRT-LLM NVFP4 KV cache).
double kv_element_bytes(Precision p) { return bytes_per_element(p) + (p == Precision::fp4 ? 1.0 / 16 : 0.0); }

double kv_elements_per_token(const Model& m, int tp) {
  // DeepSeek-V2 §2.1.3 and Table 1: MLA caches (d_c + d_h^R) elements per token per layer.
  if (m.mla.on()) return m.mla.kv_lora_rank + m.mla.qk_rope_head_dim;
  return 2 * std::max(1.0, m.kv_heads / static_cast<double>(std::max(1, tp))) * m.head_dim;
}

std::vector<KvLayerType> kv_cache_by_layer_type(const Model& m, int tp, Precision kv, double context, int first,
                                                int count) {
  std::vector<KvLayerType> out;
  const double per_layer = kv_elements_per_token(m, tp) * kv_element_bytes(kv);
  const int linear = linear_layers(m, first, count);
  const int global = global_layers(m, first, count) - linear;
  auto add = [&](const char* type, int layers, bool local) {
    if (layers <= 0) return;
    KvLayerType t;
    t.type = type;
    t.layers = layers;
    t.bytes_per_token_per_layer = per_layer;
    t.bytes_per_token = per_layer * layers;
    t.tokens_cached = cached_tokens(m, local, context);
    t.bytes_per_sequence = t.bytes_per_token * t.tokens_cached;
    out.push_back(t);
  };
  add(m.mla.on() ? "mla" : "full", global, false);
  add(m.attention.kind == LocalAttention::chunk ? "chunked" : "sliding_window", count - global - linear, true);
  if (m.sparse.on() && global > 0) {  // DeepSeek Sparse Attention: the indexer's fp8 key of every token
    KvLayerType t;
    t.type = "indexer_keys";
    t.layers = global;
    t.bytes_per_token_per_layer = indexer_key_bytes(m);
    t.bytes_per_token = t.bytes_per_token_per_layer * global;
    t.tokens_cached = context;
    t.bytes_per_sequence = t.bytes_per_token * context;
    out.push_back(t);
  }
  if (linear > 0) {  // a fixed state per sequence, whatever the context
    KvLayerType t;
    t.type = "linear_state";
    t.layers = linear;
    t.bytes_per_sequence = linear * linear_state_bytes(m, tp);
    out.push_back(t);
  }
  return out;
}

double kv_bytes_per_sequence(const Model& m, int tp, Precision kv, double context, int first, int count) {
  double bytes = 0;
  for (const KvLayerType& t : kv_cache_by_layer_type(m, tp, kv, context, first, count)) bytes += t.bytes_per_sequence;
  return bytes;
}

}  // namespace llmcalc
