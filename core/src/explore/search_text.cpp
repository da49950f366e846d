// `llmcalc search --text`: the search's best plans as a table to read, from
// the same JSON the page draws (search_scenario), as study_table does for
// the studies.
#include <algorithm>
#include <set>
#include <string>

#include "search.h"
#include "summary_text.h"

namespace llmcalc {

namespace {

using nlohmann::json;

std::string gib(double bytes) { return number_text("%.1f", bytes / (1024.0 * 1024 * 1024)); }

std::string cell(const std::string& text, size_t width) { return column_text(text, width) + " "; }

// tp pp dp cp ep, and for training sp, ZeRO and the schedule. An expert
// tensor parallelism the plan names follows its ep: "8/1" is ep 8, etp 1.
std::string plan_cells(const json& p, bool training) {
  std::string out;
  for (const char* k : {"tp", "pp", "dp", "cp"}) out += cell(std::to_string(p.value(k, 1)), 3);
  out += cell(ep_text(p), training ? 5 : 3);
  if (!training) return out;
  std::string schedule = p.value("pp_schedule", "1f1b");
  if (p.value("virtual_stages", 1) > 1) schedule += " x" + std::to_string(p.value("virtual_stages", 1));
  return out + cell(p.value("sp", false) ? "yes" : "no", 3) + cell(std::to_string(p.value("zero", 0)), 4) + cell(schedule, 16);
}

// "memory", "memory and ttft_s": what a closest plan misses.
std::string misses(const json& closest) {
  std::string out;
  for (const auto& m : closest.value("misses", json::array())) out += (out.empty() ? "" : " and ") + m.get<std::string>();
  return out.empty() ? "nothing named" : out;
}

// `unit`: the system's word for a device ("GPU", "chip", "HPU"; search.unit_name).
std::string header(bool training, const std::string& unit) {
  if (training)
    return cell("#", 3) + cell("iteration", 10) + cell("tokens/s", 10) + cell("MFU", 6) + cell("GiB/" + unit, 8) +
           "tp  pp  dp  cp  ep    sp  ZeRO schedule         mb  recompute\n";
  return cell("#", 3) + cell("TTFT", 9) + cell("TPOT", 9) + cell("tokens/s", 10) + cell("per " + unit, 8) + cell("GiB/" + unit, 8) +
         "tp  pp  dp  cp  ep  batch  prefill\n";
}

// A serving plan's chunked-prefill budget (tokens per step under in-flight
// batching; its inference section names both where not the defaults), else 0.
double chunked_budget(const json& in) {
  return in.value("batching", std::string()) == "inflight" ? in.value("token_budget", 0.0) : 0.0;
}

std::string row(const json& e, bool training) {
  const json& p = e.value("parallelism", json::object());
  if (training) {
    const json& t = e.value("training", json::object());
    return cell(seconds_text(e.value("iteration_time_s", 0.0)), 10) + cell(count_text(e.value("tokens_per_s", 0.0)), 10) +
           cell(percent_text(e.value("mfu", 0.0)), 6) + cell(gib(e.value("memory_bytes_total", 0.0)), 8) +
           plan_cells(p, true) + cell(std::to_string(t.value("micro_batch", 1)), 3) + t.value("recompute", std::string());
  }
  const json& in = e.value("inference", json::object());
  // Prefill on instances of its own (disaggregated), or beside the decodes:
  // in chunks of the token budget inside the decode steps, or whole.
  const double budget = chunked_budget(in);
  const std::string prefill = e.contains("prefill_instances")
                                  ? number_text("%.2f", e.value("prefill_instances", 0.0)) + " x tp " + std::to_string(in.value("prefill_tp", 1))
                              : budget > 0 ? "chunked " + count_text(budget)
                                           : "colocated";
  return cell(seconds_text(e.value("ttft_s", 0.0)), 9) + cell(seconds_text(e.value("tpot_s", 0.0)), 9) +
         cell(count_text(e.value("output_tokens_per_s", 0.0)), 10) + cell(count_text(e.value("output_tokens_per_s_per_gpu", 0.0)), 8) +
         cell(gib(e.value("memory_bytes_total", 0.0)), 8) + plan_cells(p, false) + cell(std::to_string(in.value("batch", 1)), 6) + prefill;
}

// Where none fits: the fewest GPUs (doublings of the searched count) with a
// plan that does, and its best plan; or how far the walk went.
std::string more_gpus_text(const json& s, bool training, const std::string& unit) {
  if (!s.contains("more_gpus")) return "";
  const json& m = s.at("more_gpus");
  std::string tried;
  for (const auto& g : m.at("searched_gpus")) tried += (tried.empty() ? "" : ", ") + count_text(g.get<double>());
  const std::string floor = " (fewer than " + count_text(m.value("memory_floor_gpus", 1.0)) + " cannot hold the weights" +
                            (training ? ", gradients and optimizer states" : "") + "; searched " + tried + ")";
  if (!m.contains("gpus")) return "\nDoubling the " + unit + "s, no plan fits on up to " + count_text(m.at("searched_gpus").back().get<double>()) + floor + ".\n";
  return "\nDoubling the " + unit + "s, a plan fits on " + count_text(m.at("gpus").get<double>()) + floor +
         ". Its best plan:\n\n" + header(training, unit) + cell("", 3) + row(m.at("plan"), training) + "\n";
}

// Up to twelve points spread along a front (search output `key`), fastest
// per user first, under `heading`.
std::string front_rows(const json& s, const char* key, const std::string& heading, const std::string& unit) {
  const json& front = s.value(key, json::array());
  if (front.empty()) return "";
  std::string text = "\n" + heading + ":\n\n" + header(false, unit);
  const size_t shown = std::min<size_t>(12, front.size());
  for (size_t i = 0; i < shown; ++i) {
    const size_t k = shown == 1 ? 0 : i * (front.size() - 1) / (shown - 1);
    text += cell("", 3) + row(front[k], false) + "\n";
  }
  return text;
}

// How one colocated plan interleaves prefill with decode (its inference
// section gives batching and token_budget where not the defaults).
std::string plan_batching(const json& in) {
  if (in.value("batching", std::string("static")) != "inflight") return "static batching: each batch is prefilled, then decoded";
  if (chunked_budget(in) > 0) return "in-flight batching with chunked prefill inside the decode steps";
  return "in-flight batching: prompts are prefilled whole between decode steps";
}

// How the colocated front's plans batch: one way, or each way they take
// (the search tries chunked prefill beside the scenario's own batching).
std::string batching_words(const json& s) {
  std::vector<std::string> ways;
  for (const json& e : s.value("serving_front_colocated", json::array())) {
    const std::string way = plan_batching(e.value("inference", json::object()));
    if (std::find(ways.begin(), ways.end(), way) == ways.end()) ways.push_back(way);
  }
  if (ways.empty()) return plan_batching(json::object());
  std::string text = ways[0];
  for (size_t i = 1; i < ways.size(); ++i) text += "; or " + ways[i];
  return text;
}

// Serving: the throughput-interactivity front (TPOT is the speed each user
// sees, per GPU what the fleet serves) and, where its plans place prefill on
// instances of their own, the front of the colocated plans beside it.
std::string serving_front_text(const json& s, const std::string& unit) {
  return front_rows(s, "serving_front",
                    "Throughput vs interactivity, the front: the most tokens/s per " + unit +
                        " at each speed per user (1 / TPOT), fastest per user first",
                    unit) +
         front_rows(s, "serving_front_colocated",
                    "The same front with prefill colocated on the decode " + unit + "s (no prefill instances; " +
                        batching_words(s) + "); the gap to the one above is what disaggregated prefill buys",
                    unit);
}

}  // namespace

std::string search_table(const json& out) {
  const json& s = out.at("search");
  const json& best = s.value("best", json::array());
  const bool training = (best.empty() ? s.value("closest", json::object()) : best[0]).contains("training");
  const std::string unit = s.value("unit_name", std::string("GPU"));
  std::string text = "Searched " + units_text("plan", s.value("evaluated", 0.0)) + " on " + units_text(unit, s.value("gpus", 0.0)) +
                     " in " + seconds_text(s.value("elapsed_s", 0.0)) + "; " + count_text(s.value("feasible", 0.0)) + " fit.\n";
  for (const auto& w : s.value("warnings", json::array())) text += "warning: " + w.get<std::string>() + "\n";
  if (best.empty()) {
    if (s.contains("closest") && !s.at("closest").is_null()) {
      const json& c = s.at("closest");
      text += "No plan fits. The closest, which misses on " + misses(c) + ":\n\n" + header(training, unit) + cell("", 3) +
              row(c, training) + "\n";
      // Its other warnings can name the way out (a model released in
      // narrower weights); "does not fit" repeats the miss above.
      for (const auto& w : c.value("warnings", json::array()))
        if (w.get<std::string>().rfind("does not fit", 0) != 0) text += "note: " + w.get<std::string>() + "\n";
    }
    return text + more_gpus_text(s, training, unit);
  }
  const size_t recommended = s.value("recommended", 0);
  text += "\n" + header(training, unit);
  std::set<std::string> notes;
  for (size_t i = 0; i < best.size(); ++i) {
    // A warning every plan carries tells no plan from another: no "!" for it.
    const bool warned = warned_alone(best[i], best);
    for (const auto& w : best[i].value("warnings", json::array())) notes.insert(w.get<std::string>());
    text += cell(std::to_string(i + 1) + (i == recommended ? ">" : warned ? "!" : ""), 3) + row(best[i], training) + "\n";
  }
  const json& pick = best[recommended < best.size() ? recommended : 0];
  text += !pick.value("beyond_top", false)
              ? "\n> the recommended plan: the fastest without a warning (the fastest when every plan has one).\n"
          : pick.value("beyond_top_why", "kind") == "warnings"
              ? "\n> the recommended plan: the plans above all carry a warning; this is the fastest without one, found "
                "beyond them.\n"
              : "\n> the recommended plan: the plans above are all of kinds the model has been optimistic about; this is "
                "the fastest of a kind it has been less optimistic about, found beyond them.\n";
  const bool named_etp = std::any_of(best.begin(), best.end(), [](const json& b) {
    return b.value("parallelism", json::object()).contains("etp");
  });
  if (!training)
    text += "tokens/s: one replica's output (dp replicas run side by side); prefill: colocated, chunked N (colocated, "
            "in-flight batching with chunked prefill of N tokens per step) or the prefill instances each replica keeps busy "
            "x their tp; per " + unit + ": tokens/s over the replica's decode and prefill " + unit + "s\n";
  if (named_etp)
    text += "ep a/b: expert parallelism a with expert tensor parallelism b (a lone ep: the default, tp where ep "
            "divides dp x cp, else 1)\n";
  for (const std::string& n : notes) text += "! " + n + "\n";
  if (!training) text += serving_front_text(s, unit);
  // How far published runs of the recommended plan's kinds have been.
  const json& chosen = best[recommended < best.size() ? recommended : 0];
  const json& kinds = s.value("accuracy", json::object());
  const std::string kind = chosen.value("regime", ""), also = chosen.value("also_regime", "");
  if (!kinds.contains(kind)) return text;
  json quoted = kinds.at(kind);  // with its second kind as the calculator quotes it
  if (kinds.contains(also)) quoted["also"] = json::array({kinds.at(also)});
  return text + "\n" + published_runs_text(quoted);
}

}  // namespace llmcalc
