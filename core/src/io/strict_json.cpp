#include "strict_json.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace llmcalc {

std::string join_path(const std::string& base, const std::string& key) {
  return base.empty() ? key : base + "." + key;
}

namespace {
// Whole numbers print exactly (a limit of 1048576 read as "1.04858e+06"
// names a different number); others keep six significant digits.
std::string fmt(double v) {
  std::ostringstream os;
  if (std::floor(v) == v && std::fabs(v) < 1e15)
    os << static_cast<long long>(v);
  else
    os << v;
  return os.str();
}
const char* type_name(const json& v) { return v.type_name(); }

char lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

// Optimal string alignment distance (Levenshtein with adjacent swaps;
// Damerau 1964), case-blind.
size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i)
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t cost = lower(a[i - 1]) == lower(b[j - 1]) ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && lower(a[i - 1]) == lower(b[j - 2]) && lower(a[i - 2]) == lower(b[j - 1]))
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}
}  // namespace

std::string closest_name(const std::string& typed, const std::vector<std::string>& names) {
  if (typed.empty() || typed.size() > 200) return "";
  // A tie goes to the longer shared start: slips fall late in a word more
  // often than on its first letter ("tpp" is "tp" rather than "pp").
  auto shared_start = [&](const std::string& n) {
    size_t i = 0;
    while (i < typed.size() && i < n.size() && lower(typed[i]) == lower(n[i])) ++i;
    return i;
  };
  std::string best;
  size_t best_d = std::max<size_t>(1, typed.size() / 3) + 1, best_start = 0;
  for (const std::string& n : names) {
    const size_t dist = edit_distance(typed, n), start = shared_start(n);
    if (dist < best_d || (dist == best_d && !best.empty() && start > best_start)) best = n, best_d = dist, best_start = start;
  }
  return best;
}

std::string comma_list(const std::vector<std::string>& names) {
  std::string all;
  for (const std::string& n : names) all += (all.empty() ? "" : ", ") + n;
  return all;
}

std::string did_you_mean(const std::string& typed, const std::vector<std::string>& names) {
  const std::string n = closest_name(typed, names);
  return n.empty() ? "" : " (did you mean \"" + n + "\"?)";
}

double checked_number(const json& v, const std::string& path, double lo, double hi) {
  if (!v.is_number()) throw InputError(path, std::string("expected a number, got ") + type_name(v));
  double x = v.get<double>();
  if (!std::isfinite(x)) throw InputError(path, "must be finite");
  if (x < lo || x > hi)
    throw InputError(path, "out of range: " + fmt(x) + " not in [" + fmt(lo) + ", " + fmt(hi) + "]");
  return x;
}

long long checked_integer(const json& v, const std::string& path, long long lo, long long hi) {
  double x = checked_number(v, path, static_cast<double>(lo), static_cast<double>(hi));
  if (std::floor(x) != x) throw InputError(path, "expected an integer, got " + fmt(x));
  return static_cast<long long>(x);
}

StrictObject::StrictObject(const json& j, std::string path) : j_(j), path_(std::move(path)) {
  if (!j_.is_object())
    throw InputError(path_.empty() ? "$" : path_, std::string("expected an object, got ") + type_name(j_));
}

bool StrictObject::has(const std::string& key) const {
  read_.insert(key);
  auto it = j_.find(key);
  return it != j_.end() && !it->is_null();
}

const json& StrictObject::raw(const std::string& key) {
  read_.insert(key);
  auto it = j_.find(key);
  if (it == j_.end()) throw InputError(child_path(key), "is required");
  return *it;
}

double StrictObject::number(const std::string& key, double def, double lo, double hi) {
  if (!has(key)) return def;
  return checked_number(j_.at(key), child_path(key), lo, hi);
}

double StrictObject::required_number(const std::string& key, double lo, double hi) {
  if (!has(key)) throw InputError(child_path(key), "is required");
  return checked_number(j_.at(key), child_path(key), lo, hi);
}

long long StrictObject::integer(const std::string& key, long long def, long long lo, long long hi) {
  if (!has(key)) return def;
  return checked_integer(j_.at(key), child_path(key), lo, hi);
}

long long StrictObject::required_integer(const std::string& key, long long lo, long long hi) {
  if (!has(key)) throw InputError(child_path(key), "is required");
  return checked_integer(j_.at(key), child_path(key), lo, hi);
}

bool StrictObject::boolean(const std::string& key, bool def) {
  if (!has(key)) return def;
  const json& v = j_.at(key);
  if (!v.is_boolean()) throw InputError(child_path(key), std::string("expected true or false, got ") + type_name(v));
  return v.get<bool>();
}

std::string StrictObject::string(const std::string& key, const std::string& def, size_t max_len) {
  if (!has(key)) return def;
  const json& v = j_.at(key);
  if (!v.is_string()) throw InputError(child_path(key), std::string("expected a string, got ") + type_name(v));
  std::string s = v.get<std::string>();
  if (s.size() > max_len) throw InputError(child_path(key), "string longer than " + std::to_string(max_len));
  return s;
}

int StrictObject::choice(const std::string& key, int def, const std::vector<std::string>& names) {
  if (!has(key)) return def;
  const json& v = j_.at(key);
  std::string all;
  for (const auto& n : names) all += (all.empty() ? "" : ", ") + ("\"" + n + "\"");
  if (!v.is_string()) throw InputError(child_path(key), "expected one of " + all);
  const std::string s = v.get<std::string>();
  for (size_t i = 0; i < names.size(); ++i)
    if (names[i] == s) return static_cast<int>(i);
  throw InputError(child_path(key), "unknown value \"" + s.substr(0, 60) + "\"" + did_you_mean(s, names) + "; expected one of " + all);
}

void StrictObject::finish() const {
  for (auto it = j_.begin(); it != j_.end(); ++it)
    if (!read_.count(it.key())) {
      const std::vector<std::string> known(read_.begin(), read_.end());  // what the reader looked up, sorted
      const std::string hint = did_you_mean(it.key(), known);
      throw InputError(child_path(it.key()), "unknown key" + (hint.empty() ? "; known here: " + comma_list(known) : hint));
    }
}

}  // namespace llmcalc
