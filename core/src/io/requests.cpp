#include "requests.h"

#include "schema.h"
#include "strict_json.h"

namespace llmcalc {

namespace {
// A number of a request, with its range from the input table.
double request_number(StrictObject& o, const std::string& key, double def) {
  const FieldSpec& f = field_spec(join_path(o.path(), key));
  return o.number(key, def, f.lo, f.hi);
}
long long request_integer(StrictObject& o, const std::string& key, long long def) {
  const FieldSpec& f = field_spec(join_path(o.path(), key));
  return o.integer(key, def, static_cast<long long>(f.lo), static_cast<long long>(f.hi));
}
}  // namespace

SearchSpec parse_search_request(const nlohmann::json& root) {
  if (!root.is_object() || !root.contains("search")) throw InputError("search", "a search needs a \"search\" section");
  StrictObject o(root.at("search"), "search");
  SearchSpec s;
  s.gpus = request_integer(o, "gpus", 0);
  s.top = static_cast<int>(request_integer(o, "top", field_spec("search.top").def.get<long long>()));
  s.max_ttft_s = request_number(o, "max_ttft_s", 0);
  s.max_tpot_s = request_number(o, "max_tpot_s", 0);
  s.memory_share = request_number(o, "memory_share", field_spec("search.memory_share").def.get<double>());
  const FieldSpec& vary = field_spec("search.vary");
  s.whole_plan = vary.values.at(static_cast<size_t>(o.choice("vary", 0, vary.values))) == "plan";
  s.more_gpus = o.boolean("more_gpus", field_spec("search.more_gpus").def.get<bool>());
  o.finish();
  return s;
}

}  // namespace llmcalc
