// Design-space search (docs/scenario.md "Search"): enumerate the parallelism
// a scenario does not fix, drop what does not fit, rank what is left.
// Training uses FastTraining, a cached re-composition of training.cpp and
// memory.cpp that evaluates a configuration in well under a microsecond.
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <nlohmann/json.hpp>

#include "llmcalc/scenario.h"
#include "memory.h"
#include "result.h"

namespace llmcalc {

struct FastTrainingResult {
  double iteration_time_s = 0;
  TimeBreakdown breakdown;
  TrainingMemory memory;
};

// Evaluates training plans of one scenario (model, system, global batch,
// sequence, precision, optimizer, flash, overlap fixed) for many
// parallelism / micro-batch / recompute choices. Per-layer op times depend
// only on (tp, sp, cp, ep, micro_batch, recompute) and are costed once per
// key; collectives, stage parameters and the optimizer step are cached too.
// The composition mirrors evaluate_training() and training_memory()
// exactly; tests/cpp/search_test.cpp holds the two equal to 1e-9.
class FastTraining {
 public:
  explicit FastTraining(const Scenario& base);
  ~FastTraining();
  FastTraining(const FastTraining&) = delete;
  FastTraining& operator=(const FastTraining&) = delete;
  // The plan must pass check_consistency (the caller's job).
  FastTrainingResult evaluate(const Parallelism& p, int micro_batch, Recompute rc);
  const Scenario& base() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The whole search: input is a scenario JSON with a "search" section (raw, so
// that the fields it gives are known). `max_configs` bounds the work; the
// output says when it was reached. Throws InputError on invalid input.
constexpr long long kDefaultSearchLimit = 20000000;
nlohmann::json search_scenario(const nlohmann::json& input, long long max_configs = kDefaultSearchLimit);
// A search_scenario result as a table to read (`llmcalc search --text`):
// the best plans, the recommended one marked, their warnings, and the
// published runs of the recommended plan's kind.
std::string search_table(const nlohmann::json& out);

// The headline metric a search ranks by, as the accuracy table names it:
// "training.iteration_time_s" or "inference.output_tokens_per_s".
const char* ranked_metric(Mode mode);

// Parallelism and training sections as scenario JSON (reusable as input).
nlohmann::json parallelism_to_json(const Parallelism& p);
nlohmann::json training_to_json(const Training& t);
nlohmann::json inference_to_json(const Inference& in);
// A plan's ep as the text tables write it: "8", or "8/1" when the plan names
// its expert tp (parallelism_to_json writes etp only then).
std::string ep_text(const nlohmann::json& parallelism);

// Index of the plan to recommend among a search's `best` list (plan_json.cpp).
long long recommended_plan(const nlohmann::json& best);
// Whether `plan` carries a warning that not every plan of `best` carries.
bool warned_alone(const nlohmann::json& plan, const nlohmann::json& best);

}  // namespace llmcalc
