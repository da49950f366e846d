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

// What a request answers when its file cannot be read: the error object, or
// the error line for --text.
int cannot_read(const std::string& path, bool as_json = true) {
  if (as_json)
    std::cout << "{\"error\":{\"path\":\"$\",\"message\":\"cannot read " << escape(path) << "\"}}\n";
  else
    std::cout << "error: $: cannot read " << path << "\n";
  return 2;
}

// run, search and sweep --text: the answer as lines for a person.
int text_of(const std::string& path, std::string (*fn)(const std::string&)) {
  std::string text;
  if (!read_text(path, text)) return cannot_read(path, false);
  const std::string out = fn(text);
  std::cout << out;
  return out.rfind("error:", 0) == 0 ? 2 : 0;
}

// run / search / sweep / derive: one file in, one JSON object out.
int json_of(const std::string& path, std::string (*fn)(const std::string&)) {
  std::string text;
  if (!read_text(path, text)) return cannot_read(path);
  const std::string out = fn(text);
  std::cout << out << "\n";
  return out.rfind("{\"error\"", 0) == 0 ? 2 : 0;
}

// study NAME PARAMS_FILE: the parameters go with the name as one request.
int study_with(const std::string& name, const std::string& params_path, bool as_json) {
  std::string params;
  if (!read_text(params_path, params)) return cannot_read(params_path, as_json);
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

enum class Format { text, json, markdown, accuracy };

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
    case Format::accuracy: std::cout << llmcalc::report_accuracy(report); break;
  }
  return 0;
}

// One row per subcommand: its name, the arguments it takes, what it does,
// and the handler (args without the subcommand). usage() is printed from it.
using Args = std::vector<std::string>;
struct Command {
  const char* name;
  const char* args;
  const char* help;
  size_t min_args, max_args;
  int (*run)(const Args&);
};

int validate_command(const Args& a) {
  const bool flag = a[0] == "--json" || a[0] == "--markdown" || a[0] == "--accuracy";
  const Format format = a[0] == "--json"       ? Format::json
                        : a[0] == "--markdown" ? Format::markdown
                        : a[0] == "--accuracy" ? Format::accuracy
                                               : Format::text;
  if (flag && a.size() < 2) return -1;
  return validate(Args(a.begin() + (flag ? 1 : 0), a.end()), format);
}

int study_command(const Args& a) {
  const bool as_json = a[0] == "--json";
  const Args rest(a.begin() + (as_json ? 1 : 0), a.end());
  if (rest.empty() || rest.size() > 2) return -1;
  return rest.size() == 1 ? study(rest[0], as_json) : study_with(rest[0], rest[1], as_json);
}

int print(const std::string& text) { return std::cout << text << "\n", 0; }

const std::vector<Command>& commands() {
  static const std::vector<Command> k = {
      {"run", "[--text] FILE|-", "evaluate one scenario (JSON; --text: a summary to read)", 1, 2, [](const Args& a) {
         if (a.size() == 2) return a[0] == "--text" ? text_of(a[1], llmcalc::evaluate_text) : -1;
         return json_of(a[0], llmcalc::evaluate_json);
       }},
      {"validate", "[--json|--markdown|--accuracy] PATH...", "run validation cases (files or folders)", 1, 10000, validate_command},
      {"search", "[--text] FILE|-", "search the parallelism (scenario with a \"search\" section; --text: a table)", 1, 2,
       [](const Args& a) {
         if (a.size() == 2) return a[0] == "--text" ? text_of(a[1], llmcalc::search_text) : -1;
         return json_of(a[0], llmcalc::search_json);
       }},
      {"sweep", "[--text] FILE|-", "sweep one input (scenario with a \"sweep\" section; --text: tables)", 1, 2,
       [](const Args& a) {
         if (a.size() == 2) return a[0] == "--text" ? text_of(a[1], llmcalc::sweep_text) : -1;
         return json_of(a[0], llmcalc::sweep_json);
       }},
      {"study", "[--json] NAME [PARAMS|-]",
       "gpu-generations | technology-nodes | dram-scaling | inference-boundedness | systems | scaling | models | published-runs; PARAMS: a JSON file (systems, scaling, models: a scenario)", 1, 3,
       study_command},
      {"derive", "FILE|-", "derive a device from a technology budget (JSON)", 1, 1,
       [](const Args& a) { return json_of(a[0], llmcalc::derive_device_json); }},
      {"presets", "", "every preset (JSON)", 0, 0, [](const Args&) { return print(llmcalc::presets_json()); }},
      {"schema", "", "the input table (JSON)", 0, 0, [](const Args&) { return print(llmcalc::schema_json()); }},
      {"version", "", "the version", 0, 0, [](const Args&) { return print(llmcalc::version()); }},
  };
  return k;
}

int usage() {
  std::cerr << "usage:\n";
  for (const Command& c : commands()) {
    std::string line = std::string("  llmcalc ") + c.name + (*c.args ? " " : "") + c.args;
    line.resize(std::max<size_t>(line.size() + 2, 48), ' ');
    std::cerr << line << c.help << "\n";
  }
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  const Args args(argv + 1, argv + argc);
  if (args.empty()) return usage();
  for (const Command& c : commands()) {
    if (args[0] != c.name) continue;
    const Args rest(args.begin() + 1, args.end());
    if (rest.size() < c.min_args || rest.size() > c.max_args) return usage();
    const int rc = c.run(rest);
    return rc < 0 ? usage() : rc;
  }
  std::cerr << "error: unknown command \"" << args[0].substr(0, 60) << "\"\n";
  return usage();
}
