// Strict reading of one JSON object at a known path: every key is looked up
// once, numbers are range-checked, and finish() rejects keys nobody read.
// All failures throw InputError naming the JSON path (the one parse boundary).
#pragma once
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace llmcalc {

using json = nlohmann::json;

struct InputError : std::runtime_error {
  std::string path;
  InputError(std::string p, const std::string& msg) : std::runtime_error(msg), path(std::move(p)) {}
};

std::string join_path(const std::string& base, const std::string& key);

class StrictObject {
 public:
  StrictObject(const json& j, std::string path);
  bool has(const std::string& key) const;
  const json& raw(const std::string& key);
  std::string child_path(const std::string& key) const { return join_path(path_, key); }
  const std::string& path() const { return path_; }

  double number(const std::string& key, double def, double lo, double hi);
  double required_number(const std::string& key, double lo, double hi);
  long long integer(const std::string& key, long long def, long long lo, long long hi);
  long long required_integer(const std::string& key, long long lo, long long hi);
  bool boolean(const std::string& key, bool def);
  std::string string(const std::string& key, const std::string& def, size_t max_len = 200);
  // The value must be one of `names`; returns its index.
  int choice(const std::string& key, int def, const std::vector<std::string>& names);
  // Rejects every key that was not read.
  void finish() const;

 private:
  const json& j_;
  std::string path_;
  mutable std::set<std::string> read_;
};

// The name in `names` closest to `typed` (edits counted case-blind, a swap of
// two neighbouring letters one edit), or "" when none is within a third of
// its length: what a "did you mean" offers for a mistyped key or preset.
std::string closest_name(const std::string& typed, const std::vector<std::string>& names);

// "a, b, c": the names as an error message lists them.
std::string comma_list(const std::vector<std::string>& names);

// ` (did you mean "x"?)` for the closest name, else "".
std::string did_you_mean(const std::string& typed, const std::vector<std::string>& names);

double checked_number(const json& v, const std::string& path, double lo, double hi);
long long checked_integer(const json& v, const std::string& path, long long lo, long long hi);

}  // namespace llmcalc
