// Reading one field of the input table from a strict JSON object: its
// default and range (or enum names) come from its row in io/schema.cpp, so
// every parser of the scenario shares them with the web form.
#pragma once
#include <stdexcept>
#include <string>

#include "enum_names.h"
#include "schema.h"
#include "strict_json.h"

namespace llmcalc {

// A schema field read through its table entry: the default and range come
// from one place, shared with the web form.
inline long long int_field(StrictObject& o, const std::string& key) {
  const FieldSpec& f = field_spec(join_path(o.path(), key));
  const auto lo = static_cast<long long>(f.lo), hi = static_cast<long long>(f.hi);
  if (f.def.is_null()) return o.required_integer(key, lo, hi);
  return o.integer(key, f.def.get<long long>(), lo, hi);
}
inline int int32_field(StrictObject& o, const std::string& key) { return static_cast<int>(int_field(o, key)); }

inline double number_field(StrictObject& o, const std::string& key) {
  const FieldSpec& f = field_spec(join_path(o.path(), key));
  if (f.def.is_null()) return o.required_number(key, f.lo, f.hi);
  return o.number(key, f.def.get<double>(), f.lo, f.hi);
}

inline long long optional_int(StrictObject& o, const std::string& key, long long def) {
  const FieldSpec& f = field_spec(join_path(o.path(), key));
  return o.integer(key, def, static_cast<long long>(f.lo), static_cast<long long>(f.hi));
}

inline bool bool_field(StrictObject& o, const std::string& key) {
  return o.boolean(key, field_spec(join_path(o.path(), key)).def.get<bool>());
}

// An enum field: its name, checked against the schema's list (which is the
// enum's name table), mapped to the value by that table.
template <class E>
E enum_field(StrictObject& o, const std::string& key, const EnumTable<E>& table) {
  const FieldSpec& f = field_spec(join_path(o.path(), key));
  const std::string def = f.def.get<std::string>();
  int def_index = 0;
  for (size_t i = 0; i < f.values.size(); ++i)
    if (f.values[i] == def) def_index = static_cast<int>(i);
  const std::string name = f.values.at(static_cast<size_t>(o.choice(key, def_index, f.values)));
  E value{};
  if (!value_named(table, name, &value)) throw std::logic_error("enum table lacks " + name);
  return value;
}

}  // namespace llmcalc
