// llmcalc command line: run, validate, search, sweep, study, derive, presets, schema, version.
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
               "       llmcalc validate [--json|--markdown] PATH...  run validation cases (files or folders)\n"
               "       llmcalc search FILE|-       search the parallelism (scenario with a \"search\" section)\n"
               "       llmcalc sweep FILE|-        sweep one input (scenario with a \"sweep\" section)\n"
               "       llmcalc study [--json] NAME [PARAMS|-]  gpu-generations | technology-nodes | dram-scaling |\n"
               "                                   inference-boundedness; PARAMS: a JSON file (technology-nodes: a budget)\n"
               "       llmcalc derive FILE|-       derive a device from a technology budget (JSON)\n"
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

// search / sweep: one scenario file in, one JSON object out.
int explore(const std::string& path, std::string (*fn)(const std::string&)) {
  std::string text;
  if (!read_text(path, text)) {
    std::cout << "{\"error\":{\"path\":\"$\",\"message\":\"cannot read " << escape(path) << "\"}}\n";
    return 2;
  }
  const std::string out = fn(text);
  std::cout << out << "\n";
  return out.rfind("{\"error\"", 0) == 0 ? 2 : 0;
}

// study NAME PARAMS_FILE: the parameters go with the name as one request.
int study_with(const std::string& name, const std::string& params_path, bool as_json) {
  std::string params;
  if (!read_text(params_path, params)) {
    std::cout << "{\"error\":{\"path\":\"$\",\"message\":\"cannot read " << escape(params_path) << "\"}}\n";
    return 2;
  }
  const std::string request = "{\"name\":\"" + escape(name) + "\",\"params\":" + params + "}";
  const std::string out = as_json ? llmcalc::study_request_json(request) : llmcalc::study_request_text(request);
  std::cout << out << (as_json ? "\n" : "");
  return out.rfind("{\"error\"", 0) == 0 || out.rfind("error:", 0) == 0 ? 2 : 0;
}

int study(const std::string& name, bool as_json) {
  if (as_json) {
    const std::string out = llmcalc::study_json(name);
    std::cout << out << "\n";
    return out.rfind("{\"error\"", 0) == 0 ? 2 : 0;
  }
  const std::string out = llmcalc::study_text(name);
  std::cout << out;
  return out.rfind("error:", 0) == 0 ? 2 : 0;
}

enum class Format { text, json, markdown };

int validate(const std::vector<std::string>& paths, Format format) {
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
  switch (format) {
    case Format::json: std::cout << llmcalc::report_json(report) << "\n"; break;
    case Format::markdown: std::cout << llmcalc::report_markdown(report); break;
    case Format::text: std::cout << llmcalc::report_text(report) << "\n"; break;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) return usage();
  const std::string cmd = args[0];
  if (cmd == "run" && args.size() == 2) return run(args[1]);
  if (cmd == "validate" && args.size() >= 2) {
    const Format format = args[1] == "--json" ? Format::json : args[1] == "--markdown" ? Format::markdown : Format::text;
    std::vector<std::string> paths(args.begin() + (format == Format::text ? 1 : 2), args.end());
    if (paths.empty()) return usage();
    return validate(paths, format);
  }
  if (cmd == "search" && args.size() == 2) return explore(args[1], llmcalc::search_json);
  if (cmd == "sweep" && args.size() == 2) return explore(args[1], llmcalc::sweep_json);
  if (cmd == "derive" && args.size() == 2) return explore(args[1], llmcalc::derive_device_json);
  if (cmd == "study" && args.size() == 2) return study(args[1], false);
  if (cmd == "study" && args.size() == 3 && args[1] == "--json") return study(args[2], true);
  if (cmd == "study" && args.size() == 3) return study_with(args[1], args[2], false);
  if (cmd == "study" && args.size() == 4 && args[1] == "--json") return study_with(args[2], args[3], true);
  if (cmd == "presets") return std::cout << llmcalc::presets_json() << "\n", 0;
  if (cmd == "schema") return std::cout << llmcalc::schema_json() << "\n", 0;
  if (cmd == "version") return std::cout << llmcalc::version() << "\n", 0;
  return usage();
}
