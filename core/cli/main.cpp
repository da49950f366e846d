// llmcalc command line: run, validate, presets, schema, version.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "llmcalc/api.h"
#include "llmcalc/validate.h"

namespace fs = std::filesystem;

namespace {

int usage() {
  std::cerr << "usage: llmcalc run FILE|-          evaluate one scenario\n"
               "       llmcalc validate [--json] PATH...  run validation cases (files or folders)\n"
               "       llmcalc presets | schema | version\n";
  return 2;
}

bool read_text(const std::string& path, std::string& out) {
  if (path == "-") {
    out.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
    return true;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream ss;
  ss << in.rdbuf();
  out = ss.str();
  return true;
}

std::string escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '"' || c == '\\') o += '\\';
    if (static_cast<unsigned char>(c) >= 0x20) o += c;
  }
  return o;
}

int run(const std::string& path) {
  std::string text;
  if (!read_text(path, text)) {
    std::cout << "{\"error\":{\"path\":\"$\",\"message\":\"cannot read " << escape(path) << "\"}}\n";
    return 2;
  }
  const std::string out = llmcalc::evaluate_json(text);
  std::cout << out << "\n";
  return out.rfind("{\"error\"", 0) == 0 ? 2 : 0;
}

int validate(const std::vector<std::string>& paths, bool as_json) {
  std::vector<std::string> files;
  for (const auto& p : paths) {
    std::error_code ec;
    if (fs::is_directory(p, ec)) {
      for (const auto& e : fs::directory_iterator(p))
        if (e.path().extension() == ".json") files.push_back(e.path().string());
    } else {
      files.push_back(p);
    }
  }
  std::sort(files.begin(), files.end());
  std::vector<llmcalc::ValidationRow> rows;
  for (const auto& f : files) {
    std::string text;
    if (!read_text(f, text)) {
      std::cerr << "cannot read " << f << "\n";
      return 2;
    }
    auto r = llmcalc::validate_case(text, f);
    rows.insert(rows.end(), r.begin(), r.end());
  }
  const auto report = llmcalc::summarize(rows);
  std::cout << (as_json ? llmcalc::report_json(report) : llmcalc::report_text(report)) << "\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) return usage();
  const std::string cmd = args[0];
  if (cmd == "run" && args.size() == 2) return run(args[1]);
  if (cmd == "validate" && args.size() >= 2) {
    const bool as_json = args[1] == "--json";
    std::vector<std::string> paths(args.begin() + (as_json ? 2 : 1), args.end());
    if (paths.empty()) return usage();
    return validate(paths, as_json);
  }
  if (cmd == "presets") return std::cout << llmcalc::presets_json() << "\n", 0;
  if (cmd == "schema") return std::cout << llmcalc::schema_json() << "\n", 0;
  if (cmd == "version") return std::cout << llmcalc::version() << "\n", 0;
  return usage();
}
