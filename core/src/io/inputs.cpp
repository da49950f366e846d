#include "inputs.h"

#include <set>
#include <vector>

#include "parse.h"
#include "schema.h"
#include "strict_json.h"

namespace llmcalc {

namespace {

bool is_index(const std::string& s) {
  return !s.empty() && s.size() < 4 && s.find_first_not_of("0123456789") == std::string::npos;
}

// The element of an array named `seg` (or at index `seg`), or nullptr.
json* element(json& array, const std::string& seg) {
  for (json& e : array)
    if (e.is_object() && e.value("name", "") == seg) return &e;
  if (is_index(seg) && std::stoul(seg) < array.size()) return &array[std::stoul(seg)];
  return nullptr;
}

// One step down from `node` to `seg`, creating objects on the way.
json* descend(json& node, const std::string& seg, bool last, const std::string& input) {
  if (node.is_number() && !last && seg == "bf16") node = json{{"bf16", node}};  // one value for every precision
  if (node.is_array()) {
    json* found = element(node, seg);
    if (!found) throw InputError(input, "no element \"" + seg + "\" in this list");
    return found;
  }
  if (!node.is_object()) throw InputError(input, "\"" + seg + "\" is not inside an object or list");
  if (!node.contains(seg) && !last) node[seg] = json::object();
  return &node[seg];
}

}  // namespace

std::vector<std::string> split_path(const std::string& path) {
  std::vector<std::string> out;
  size_t start = 0;
  for (size_t i = 0; i <= path.size(); ++i)
    if (i == path.size() || path[i] == '.') {
      out.push_back(path.substr(start, i - start));
      start = i + 1;
    }
  return out;
}

void set_input(json& scenario, const std::string& input, const json& value) {
  const FieldSpec* f = find_field(input);
  const std::string path = f && !f->at.empty() ? "system." + f->at : input;
  const std::vector<std::string> segs = split_path(path);
  if (segs.empty() || segs[0].empty()) throw InputError(input, "empty input path");
  if (!scenario.is_object()) throw InputError(input, "the scenario is not an object");
  if ((segs[0] == "model" || segs[0] == "system") && segs.size() > 1) {
    json& v = scenario[segs[0]];
    if (v.is_null()) v = field_spec(segs[0]).def;
    v = resolve_preset(v, segs[0] + "s", segs[0]);
  }
  json* node = &scenario;
  for (size_t i = 0; i < segs.size(); ++i) {
    const bool last = i + 1 == segs.size();
    if (last && f)
      for (const std::string& k : f->clear)
        if (node->is_object()) node->erase(k);
    node = descend(*node, segs[i], last, input);
  }
  *node = value;
}

bool integer_input(const std::string& input) {
  static const std::set<std::string> kInts = {"layers", "hidden", "heads", "kv_heads", "head_dim", "ffn_hidden",
                                              "vocab", "seq_len", "gpus_per_node", "sm_count", "span_gpus",
                                              "experts", "top_k", "shared_experts", "dense_layers",
                                              "shared_ffn_hidden", "every", "q_lora_rank", "kv_lora_rank",
                                              "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim", "window", "chunk",
                                              "global_every", "mtp_layers", "torus_dims"};
  if (const FieldSpec* f = find_field(input)) return f->type == "int";
  const std::vector<std::string> segs = split_path(input);
  return kInts.count(segs.back()) > 0;
}

}  // namespace llmcalc
