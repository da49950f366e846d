// Studies: every one runs, gives finite numbers, and the physics holds.
#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <vector>

#include "presets.h"
#include "scenario_studies.h"
#include "studies.h"
#include "test_util.h"

namespace llmcalc::test {
namespace {

json study(const std::string& name) {
  json out = json::parse(study_json(name));
  EXPECT_FALSE(out.contains("error")) << out.dump().substr(0, 400);
  EXPECT_FALSE(study_text(name).empty());
  return out;
}

TEST(Studies, GpuGenerations) {
  const json r = study("gpu-generations");
  ASSERT_GE(r["generations"].size(), 4u);
  const json& steps = r["decomposition"];
  ASSERT_EQ(steps.size(), 8u);  // baseline, six hardware factors, fp8 -> nvfp4
  double prev = 0;
  for (const json& s : steps) {
    ASSERT_TRUE(s["fits"].get<bool>()) << s.dump();
    const double speedup = s["speedup"].get<double>();
    EXPECT_TRUE(std::isfinite(speedup) && speedup > 0);
    EXPECT_GE(speedup, prev * (1 - 1e-9)) << s["step"];  // every factor helps or is neutral
    prev = speedup;
  }
  EXPECT_GT(prev, 3.0);  // GB200 fp4 vs A100 bf16
  // fp4 helps, but less than the 2x of its peak: only the linear layers'
  // GEMMs run in fp4, with quantisation costs, and the rest stays.
  const double fp8 = steps[6]["speedup"].get<double>(), fp4 = steps[7]["speedup"].get<double>();
  EXPECT_GT(fp4, fp8);
  EXPECT_LT(fp4, 2 * fp8);
  bool nvfp4_row = false;
  for (const json& g : r["generations"]) nvfp4_row |= g["step"].get<std::string>().find("nvfp4") != std::string::npos;
  EXPECT_TRUE(nvfp4_row);
}

TEST(Studies, DramScaling) {
  const json r = study("dram-scaling");
  const json& rows = r["rows"];
  // One row per HBM generation of the technology data (HBM2 ... HBM4).
  ASSERT_EQ(rows.size(), json::parse(presets_json())["technology"]["technology"]["hbm"].size());
  ASSERT_GE(rows.size(), 4u);
  for (size_t i = 1; i < rows.size(); ++i) {
    EXPECT_LT(rows[i]["tpot_s_batch1"].get<double>(), rows[i - 1]["tpot_s_batch1"].get<double>());
    EXPECT_GE(rows[i]["max_batch"].get<long long>(), rows[i - 1]["max_batch"].get<long long>());
  }
}

// Technology nodes: every node's derived device runs both workloads; the
// physics the engine encodes shows (density buys SMs; HBM4's power budget
// makes the 2 nm die power-limited; decode time falls with HBM bandwidth).
TEST(Studies, TechnologyNodes) {
  const json r = study("technology-nodes");
  const json& rows = r["rows"];
  ASSERT_EQ(rows.size(), 7u);
  for (size_t i = 0; i < rows.size(); ++i) {
    const json& x = rows[i];
    EXPECT_TRUE(x["training"]["fits"].get<bool>()) << x["node"];
    EXPECT_GT(x["inference"]["tpot_s"].get<double>(), 0);
    if (i == 0) continue;
    EXPECT_GT(x["sm_count"].get<int>(), rows[i - 1]["sm_count"].get<int>());
    if (x["hbm_Bps"].get<double>() > rows[i - 1]["hbm_Bps"].get<double>() && x["inference"]["bound"]["decode"] == "hbm")
      EXPECT_LT(x["inference"]["tpot_s"].get<double>(), rows[i - 1]["inference"]["tpot_s"].get<double>()) << x["node"];
  }
  EXPECT_EQ(rows[2]["node"], "5nm");
  EXPECT_EQ(rows[2]["roofs"].back()["label"], "HBM3");  // the derived device's HBM generation
  EXPECT_FALSE(rows[2]["power_limited"].get<bool>());  // the H100 anchor itself
  EXPECT_TRUE(rows[4]["power_limited"].get<bool>());
  // 5 nm reproduces the H100 that calibrated it: ~989 TFLOP/s.
  EXPECT_NEAR(rows[2]["bf16_flops"].get<double>() / 1e12, 989.4, 10);
}

// The technology-nodes study takes a budget: more power never slows a node,
// and a budget error names its key under "params".
TEST(Studies, TechnologyNodesWithABudget) {
  const json base = study("technology-nodes");
  const json more = json::parse(study_request_json(R"({"name":"technology-nodes","params":{"tdp_W":1000}})"));
  ASSERT_FALSE(more.contains("error")) << more.dump().substr(0, 300);
  EXPECT_EQ(more["budget"]["tdp_W"], 1000);
  for (size_t i = 0; i < base["rows"].size(); ++i) {
    EXPECT_GE(more["rows"][i]["bf16_flops"].get<double>(), base["rows"][i]["bf16_flops"].get<double>() * (1 - 1e-12));
    EXPECT_LE(more["rows"][i]["training"]["iteration_time_s"].get<double>(),
              base["rows"][i]["training"]["iteration_time_s"].get<double>() * 1.02);  // plans may differ
  }
  const json bad = json::parse(study_request_json(R"({"name":"technology-nodes","params":{"tdp_W":"x"}})"));
  EXPECT_EQ(bad["error"]["path"], "params.tdp_W");
  EXPECT_EQ(json::parse(study_request_json(R"({"name":"technology-nodes","params":{"node":"3nm"}})"))["error"]["path"], "params.node");
  EXPECT_EQ(json::parse(study_request_json(R"({"name":"dram-scaling","params":{"tdp_W":1}})"))["error"]["path"], "params");
  EXPECT_TRUE(json::parse(study_request_json(R"({"name":"technology-nodes","extra":1})")).contains("error"));
}

TEST(Studies, InferenceBoundedness) {
  const json r = study("inference-boundedness");
  ASSERT_EQ(r["systems"].size(), 4u);
  for (const json& s : r["systems"]) {
    EXPECT_GT(s["ridges"]["hbm"].get<double>(), 0);
    EXPECT_EQ(s["bound"]["decode"], "hbm");  // decode GEMVs stream weights
    // each row carries its device's levels with their labels, as a result's device.roofs
    ASSERT_EQ(s["roofs"].size(), s["levels"].size());
    EXPECT_EQ(s["roofs"].back()["name"], "hbm");
    EXPECT_NE(s["roofs"].back()["label"], "hbm") << s["system"];
    for (const json& op : s["ops"])
      for (auto it = op["intensity"].begin(); it != op["intensity"].end(); ++it)
        EXPECT_TRUE(std::isfinite(it.value().get<double>()));
  }
  EXPECT_TRUE(json::parse(study_json("nope")).contains("error"));
}

json systems_request(const json& scenario) { return json{{"name", "systems"}, {"params", scenario}}; }

json eight_b(const std::string& system, const std::string& precision) {
  return {{"mode", "training"},
          {"model", "llama3.1-8b"},
          {"system", system},
          {"parallelism", {{"tp", 1}, {"pp", 1}, {"dp", 8}}},
          {"training", {{"global_batch", 128}, {"seq_len", 8192}, {"precision", precision}}}};
}

// The systems study: the scenario's own system first at 1x, every preset once,
// each with its searched plan on the same GPU count or its error.
TEST(Studies, SystemsRunsTheScenarioOnEveryPreset) {
  const json r = json::parse(study_request_json(systems_request(eight_b("dgx-h100", "bf16")).dump()));
  ASSERT_FALSE(r.contains("error")) << r.dump().substr(0, 400);
  const json& rows = r.at("rows");
  ASSERT_EQ(rows.size(), all_presets().at("systems").size());
  EXPECT_TRUE(rows[0].value("own", false));
  EXPECT_EQ(rows[0].at("system"), "dgx-h100");
  EXPECT_NEAR(rows[0].at("speedup").get<double>(), 1.0, 1e-12);
  EXPECT_TRUE(rows[0].value("reference", false));  // the speed-ups are over the scenario's own system
  std::map<std::string, json> by;
  for (const json& row : rows) by[row.at("system").get<std::string>()] = row;
  EXPECT_EQ(by.size(), rows.size());  // no system twice
  std::vector<std::string> too_small, no_bf16;
  for (const json& row : rows) {
    EXPECT_FALSE(row.contains("error")) << row.dump();
    if (row.contains("precision")) {  // the scenario's bf16 does not run there (V100): fp16 does
      EXPECT_EQ(row.at("precision"), (json{{"scenario", "bf16"}, {"run", "fp16"}}));
      no_bf16.push_back(row.at("system").get<std::string>());
    }
    if (!row.at("fits").get<bool>()) {
      // A row that does not fit says how close its best plan came.
      EXPECT_GT(row.at("closest_memory_bytes").get<double>(), row.at("capacity_bytes").get<double>());
      too_small.push_back(row.at("system").get<std::string>());
      continue;
    }
    const json& par = row.at("plan").at("parallelism");
    EXPECT_EQ(par.value("tp", 1) * par.value("pp", 1) * par.value("dp", 1) * par.value("cp", 1), 8);
    EXPECT_LE(row.at("plan").at("memory_bytes_total").get<double>(), row.at("capacity_bytes").get<double>());
    // 8 GPUs for the time a million tokens take, in hours
    const double hours = 8 * 1e6 / row.at("plan").at("tokens_per_s").get<double>() / 3600;
    EXPECT_NEAR(row.at("per_million_tokens").at("gpu_hours").get<double>(), hours, 1e-9 * hours);
  }
  // 16 GiB per chip: Llama 3.1 8B's 16-bit weights and Adam states alone
  // take 15 GiB of each of 8 chips before any activation.
  EXPECT_EQ(too_small, std::vector<std::string>{"tpu-v5e"});
  EXPECT_EQ(no_bf16, std::vector<std::string>{"dgx-2"});
  EXPECT_GT(by.at("dgx-h100").at("per_million_tokens").at("kwh").get<double>(), 0);  // a DGX gives its power
  // The validation of the plan's kind: Llama 3.1 8B data parallel on 8 H100 is a published run; none on a TPU
  EXPECT_TRUE(by.at("dgx-h100").at("accuracy").at("device_validated").get<bool>());
  EXPECT_FALSE(by.at("tpu-v6e").at("accuracy").at("device_validated").get<bool>());
  EXPECT_GT(by.at("dgx-h100").at("accuracy").at("cases").get<int>(), 0);
  // More tensor FLOP/s per GPU and the same memory: a B200 node trains faster than an H100 node, an A100 slower.
  EXPECT_GT(by.at("dgx-b200").at("speedup").get<double>(), 1.5);
  EXPECT_LT(by.at("dgx-a100-80gb").at("speedup").get<double>(), 0.6);
  const std::string text = study_request_text(systems_request(eight_b("dgx-h100", "bf16")).dump());
  EXPECT_NE(text.find("dgx-b200"), std::string::npos) << text;
  // Each row ends in the plan: its degrees and, in training, its ZeRO stage.
  EXPECT_NE(text.find("tp pp dp cp ep[/etp] zero\n"), std::string::npos) << text;
  const json& h100 = by.at("dgx-h100").at("plan").at("parallelism");
  std::string cells = " ";
  for (const char* k : {"tp", "pp", "dp", "cp", "ep", "zero"}) cells += " " + std::to_string(h100.at(k).get<int>());
  cells += "\n";
  const size_t row = text.find("\ndgx-h100 ");
  ASSERT_NE(row, std::string::npos) << text;
  EXPECT_EQ(text.substr(text.find('\n', row + 1) - cells.size() + 1, cells.size()), cells) << text;
}

// A system without the scenario's math precision runs the nearest it has and
// the row says so (fp8 on A100 trains in bf16, on V100 in fp16); one with
// none of the steps (tf32 on a TPU) is that row's error, not the study's;
// a bad scenario or a search inside it is the study's error, under params.
TEST(Studies, SystemsReportsWhatCannotRun) {
  const json r = json::parse(study_request_json(systems_request(eight_b("dgx-h100", "fp8")).dump()));
  ASSERT_FALSE(r.contains("error")) << r.dump().substr(0, 400);
  std::map<std::string, json> rows;
  for (const json& row : r.at("rows")) rows[row.at("system").get<std::string>()] = row;
  EXPECT_FALSE(rows.at("dgx-h100").contains("precision"));
  EXPECT_EQ(rows.at("dgx-h100").at("plan").at("training").at("precision"), "fp8");
  for (const auto& [system, ran] : std::map<std::string, std::string>{{"dgx-a100-80gb", "bf16"}, {"dgx-2", "fp16"}}) {
    const json& row = rows.at(system);
    ASSERT_FALSE(row.contains("error")) << row.dump();
    EXPECT_EQ(row.at("precision"), (json{{"scenario", "fp8"}, {"run", ran}}));
    if (row.at("fits").get<bool>()) EXPECT_EQ(row.at("plan").at("training").at("precision"), ran);
  }
  EXPECT_TRUE(rows.at("dgx-a100-80gb").at("fits").get<bool>());
  const json tf32 = json::parse(study_request_json(systems_request(eight_b("dgx-h100", "tf32")).dump()));
  bool tpu_refused = false;
  for (const json& row : tf32.at("rows"))
    if (row.at("system") == "tpu-v5p") tpu_refused = row.at("error").get<std::string>().find("tf32") != std::string::npos;
  EXPECT_TRUE(tpu_refused);
  json bad = eight_b("dgx-h100", "bf16");
  bad["model"] = "no-such-model";
  EXPECT_EQ(json::parse(study_request_json(systems_request(bad).dump())).at("error").at("path"), "params.model");
  json searched = eight_b("dgx-h100", "bf16");
  searched["search"] = {{"gpus", 8}};
  EXPECT_EQ(json::parse(study_request_json(systems_request(searched).dump())).at("error").at("path"), "params.search");
  EXPECT_TRUE(json::parse(study_json("systems")).contains("error"));  // a scenario is required
  json defaults = eight_b("dgx-h100", "bf16");
  defaults.erase("system");  // the table's default system, first
  const json d = json::parse(study_request_json(systems_request(defaults).dump()));
  ASSERT_FALSE(d.contains("error")) << d.dump().substr(0, 300);
  EXPECT_EQ(d.at("rows").at(0).at("system"), "dgx-h100");
}

// A custom system object is the first row, named for its device; serving
// ranks by output tokens per second per GPU.
TEST(Studies, SystemsServesFromACustomSystem) {
  const json scenario = {{"mode", "inference"},
                         {"model", "llama3.1-70b"},
                         {"system", {{"preset", "dgx-h100"}, {"gpus_per_node", 4}}},
                         {"parallelism", {{"tp", 4}}},
                         {"inference", {{"batch", 64}, {"input_tokens", 2048}, {"output_tokens", 256}}}};
  const json r = json::parse(study_request_json(systems_request(scenario).dump()));
  ASSERT_FALSE(r.contains("error")) << r.dump().substr(0, 400);
  EXPECT_EQ(r.at("mode"), "inference");
  const json& rows = r.at("rows");
  EXPECT_EQ(rows.size(), all_presets().at("systems").size() + 1);  // the custom system and every preset
  EXPECT_NE(rows[0].at("system").get<std::string>().find("this scenario's system"), std::string::npos);
  for (const json& row : rows)
    if (row.at("fits").get<bool>()) EXPECT_GT(row.at("plan").at("output_tokens_per_s_per_gpu").get<double>(), 0);
}

// Llama 3.1 8B's training state (about 142 GiB) fits no 80 GiB GPU alone:
// the speed-ups are then over the slowest system that holds a plan, marked
// as the reference, so the others still rank (none is below 1x); the text
// says so and gives each row that does not fit what it needs. Where no
// system holds a plan there is no reference and no speed-up.
TEST(Studies, SystemsSpeedUpsOverTheSlowestThatFitsWhenTheScenariosDoesNot) {
  json one = eight_b("dgx-h100", "bf16");
  one["parallelism"] = {{"dp", 1}};
  const json r = json::parse(study_request_json(systems_request(one).dump()));
  ASSERT_FALSE(r.contains("error")) << r.dump().substr(0, 400);
  const json& rows = r.at("rows");
  EXPECT_FALSE(rows[0].at("fits").get<bool>());
  EXPECT_FALSE(rows[0].contains("speedup"));
  EXPECT_FALSE(rows[0].contains("reference"));
  const json* reference = nullptr;
  double slowest = 1e300;
  for (const json& row : rows) {
    if (row.value("reference", false)) {
      EXPECT_EQ(reference, nullptr) << "one reference";
      reference = &row;
    }
    if (!row.at("fits").get<bool>()) {
      EXPECT_FALSE(row.contains("speedup")) << row.at("system");
      continue;
    }
    slowest = std::min(slowest, 1 / row.at("plan").at("iteration_time_s").get<double>());  // steps per second
    EXPECT_GE(row.at("speedup").get<double>(), 1.0 - 1e-12) << row.at("system");
  }
  ASSERT_NE(reference, nullptr);
  EXPECT_NEAR(reference->at("speedup").get<double>(), 1.0, 1e-12);
  EXPECT_NEAR(1 / reference->at("plan").at("iteration_time_s").get<double>(), slowest, 1e-12 * slowest);
  const std::string text = study_request_text(systems_request(one).dump());
  EXPECT_NE(text.find("Speed-ups are over " + reference->at("system").get<std::string>() + ", the slowest system that holds a plan"),
            std::string::npos) << text;
  EXPECT_NE(text.find("\ndgx-h100 "), std::string::npos) << text;
  EXPECT_NE(text.find("does not fit (needs 14"), std::string::npos) << text;
  EXPECT_EQ(text.find("0.00x"), std::string::npos) << text;
  // Llama 3.1 405B on one GPU: nothing holds it.
  one["model"] = "llama3.1-405b";
  const json none = json::parse(study_request_json(systems_request(one).dump()));
  for (const json& row : none.at("rows")) {
    EXPECT_FALSE(row.contains("reference")) << row.at("system");
    EXPECT_FALSE(row.contains("speedup")) << row.at("system");
  }
  EXPECT_NE(study_request_text(systems_request(one).dump()).find("No system holds a plan: no speed-ups."), std::string::npos);
}

// The scaling study of Llama 3.1 8B training on one H100, which cannot hold
// it: the speed-ups and shares of linear scaling are from 2 GPUs, the fewest
// that fit, in both series; the text names that count.
TEST(Studies, ScalingFromTheFewestThatFitWhenTheScenariosCountDoesNot) {
  json one = eight_b("dgx-h100", "bf16");
  one["parallelism"] = {{"dp", 1}};
  const json request = {{"name", "scaling"}, {"params", one}};
  const json r = json::parse(study_request_json(request.dump()));
  ASSERT_FALSE(r.contains("error")) << r.dump().substr(0, 400);
  for (const char* series : {"rows", "weak"}) {
    const json& rows = r.at(series);
    ASSERT_EQ(rows.size(), 4u) << series;  // 1, 2, 4, 8
    EXPECT_TRUE(rows[0].value("own", false));
    EXPECT_FALSE(rows[0].at("fits").get<bool>());
    EXPECT_FALSE(rows[0].contains("speedup"));
    const json& two = rows[1];
    ASSERT_TRUE(two.at("fits").get<bool>()) << series;
    EXPECT_TRUE(two.value("reference", false)) << series;
    EXPECT_NEAR(two.at("speedup").get<double>(), 1.0, 1e-12);
    EXPECT_NEAR(two.at("efficiency").get<double>(), 1.0, 1e-12);
    for (size_t i = 2; i < rows.size(); ++i) {
      const double n = rows[i].at("gpus").get<double>();
      const double speedup = rows[i].at("throughput").get<double>() / two.at("throughput").get<double>();
      EXPECT_NEAR(rows[i].at("speedup").get<double>(), speedup, 1e-12 * speedup);
      EXPECT_NEAR(rows[i].at("efficiency").get<double>(), speedup * 2 / n, 1e-12 * speedup);
      EXPECT_FALSE(rows[i].contains("reference"));
    }
  }
  const std::string text = study_request_text(request.dump());
  EXPECT_NE(text.find("are over 2 GPUs, the fewest that hold a plan (none fits on the scenario's 1 GPU)"), std::string::npos) << text;
  EXPECT_EQ(text.find("0.00x"), std::string::npos) << text;
}

// The scaling study: 1 to 64 GPUs around the scenario's 8, the plan searched
// at each; the scenario's own count is 1x and 100%; data parallelism over
// NVLink and InfiniBand keeps Llama 3.1 8B near linear from 8 to 64 GPUs,
// and one GPU cannot hold its training state.
TEST(Studies, ScalingSearchesEachGpuCount) {
  const json r = json::parse(study_request_json(json{{"name", "scaling"}, {"params", eight_b("dgx-h100", "bf16")}}.dump()));
  ASSERT_FALSE(r.contains("error")) << r.dump().substr(0, 400);
  const json& rows = r.at("rows");
  std::vector<long long> counts;
  for (const json& row : rows) counts.push_back(row.at("gpus").get<long long>());
  EXPECT_EQ(counts, (std::vector<long long>{1, 2, 4, 8, 16, 32, 64}));
  EXPECT_FALSE(rows[0].at("fits").get<bool>());  // 8B parameters at 18 bytes: 150 GB
  const json& own = rows[3];
  EXPECT_TRUE(own.value("own", false));
  EXPECT_NEAR(own.at("speedup").get<double>(), 1.0, 1e-12);
  EXPECT_NEAR(own.at("efficiency").get<double>(), 1.0, 1e-12);
  EXPECT_TRUE(own.value("reference", false));
  for (size_t i = 4; i < rows.size(); ++i) {
    const json& row = rows[i];
    ASSERT_TRUE(row.at("fits").get<bool>()) << row.dump().substr(0, 300);
    const json& par = row.at("plan").at("parallelism");
    EXPECT_EQ(par.value("tp", 1) * par.value("pp", 1) * par.value("dp", 1) * par.value("cp", 1), counts[i]);
    EXPECT_GT(row.at("efficiency").get<double>(), 0.9) << counts[i];
    EXPECT_GT(row.at("speedup").get<double>(), rows[i - 1].at("speedup").get<double>());  // more GPUs, faster
  }
  // Interruptions come as often as the GPUs are many: goodput falls with the count.
  for (size_t i = 1; i < rows.size(); ++i)
    EXPECT_LT(rows[i].at("goodput").get<double>(), rows[i - 1].at("goodput").get<double>()) << counts[i];
  // Weak scaling: the global batch grows with the GPUs (16 sequences per 8 GPUs' 128 at one GPU, 1,024 at 64);
  // the scenario's own count is the same plan either way, and more batch per step never scales worse.
  const json& weak = r.at("weak");
  ASSERT_EQ(weak.size(), rows.size());
  for (size_t i = 0; i < weak.size(); ++i) {
    EXPECT_EQ(weak[i].at("gpus").get<long long>(), counts[i]);
    EXPECT_EQ(weak[i].at("global_batch").get<long long>(), 128 * counts[i] / 8);
    EXPECT_EQ(rows[i].at("global_batch").get<long long>(), 128);
    if (i > 3 && weak[i].at("fits").get<bool>())
      EXPECT_GE(weak[i].at("efficiency").get<double>(), rows[i].at("efficiency").get<double>() - 1e-9) << counts[i];
  }
  EXPECT_EQ(weak[3].at("plan"), own.at("plan"));
  EXPECT_EQ(weak[3].at("plan").at("training").at("global_batch").get<long long>(), 128);
  EXPECT_EQ(weak.back().at("plan").at("training").at("global_batch").get<long long>(), 1024);
  const std::string text = study_request_text(json{{"name", "scaling"}, {"params", eight_b("dgx-h100", "bf16")}}.dump());
  EXPECT_NE(text.find("does not fit"), std::string::npos) << text;
  EXPECT_NE(text.find("(weak scaling)"), std::string::npos) << text;
  // Counts that are not a power of two: only whole counts below the scenario's
  json odd = eight_b("dgx-h100", "bf16");
  odd["parallelism"] = {{"dp", 12}};
  odd["training"]["global_batch"] = 96;  // divisible by every count
  const json o = json::parse(study_request_json(json{{"name", "scaling"}, {"params", odd}}.dump()));
  std::vector<long long> odd_counts;
  for (const json& row : o.at("rows")) odd_counts.push_back(row.at("gpus").get<long long>());
  EXPECT_EQ(odd_counts, (std::vector<long long>{3, 6, 12, 24, 48, 96}));
  // Serving keeps its batch per replica: no weak rows.
  const json serve = {{"mode", "inference"}, {"model", "llama3.1-8b"}, {"system", "dgx-h100"}, {"parallelism", {{"tp", 2}}},
                      {"inference", {{"batch", 8}}}};
  const json sr = json::parse(study_request_json(json{{"name", "scaling"}, {"params", serve}}.dump()));
  ASSERT_FALSE(sr.contains("error")) << sr.dump().substr(0, 300);
  EXPECT_FALSE(sr.contains("weak"));
  EXPECT_FALSE(sr.at("rows").at(0).contains("global_batch"));
  EXPECT_FALSE(sr.at("rows").at(0).contains("goodput"));
}

// A plan that names its expert tp (the search's etp 1 beside the default)
// shows it after its ep, as search --text does; a plan that leaves it to
// the default shows the ep alone. The study tables showed the ep only.
TEST(Studies, StudyTablesWriteANamedExpertTpAfterItsEp) {
  const auto row = [](const std::string& model, const json& par) {
    return json{{"model", model}, {"parameters", 1e11}, {"parameters_active", 1e10}, {"fits", true},
                {"per_million_tokens", {{"gpu_hours", 1.0}}},
                {"plan", {{"parallelism", par}, {"iteration_time_s", 1.0}, {"mfu", 0.4}, {"memory_bytes_total", 6e10}}}};
  };
  const json result = {{"mode", "training"}, {"workload", "w"},
                       {"rows", {row("named", {{"tp", 2}, {"pp", 1}, {"dp", 8}, {"cp", 1}, {"ep", 8}, {"etp", 1}, {"zero", 1}}),
                                 row("default", {{"tp", 2}, {"pp", 1}, {"dp", 8}, {"cp", 1}, {"ep", 8}, {"zero", 1}})}}};
  const std::string text = models_study_text(result);
  EXPECT_NE(text.find("tp pp dp cp ep[/etp] zero\n"), std::string::npos) << text;
  const auto line = [&](const std::string& model) {
    const size_t at = text.find("\n" + model + " ");
    return at == std::string::npos ? std::string() : text.substr(at + 1, text.find('\n', at + 1) - at - 1);
  };
  EXPECT_NE(line("named").find("2 1 8 1 8/1 1"), std::string::npos) << text;
  EXPECT_NE(line("default").find("2 1 8 1 8 1"), std::string::npos) << text;
  EXPECT_EQ(line("default").find('/'), std::string::npos) << text;
}

// The models study: the scenario's own model first, then every other model
// preset smallest first, each on the scenario's system at its GPU count with
// its plan searched; past some size no plan holds the model's training state.
// On a TPU the scaling study counts chips (system.device.unit_name) in its
// workload line and its text table, and names the word for the page.
TEST(Studies, ScalingCountsTheSystemsDevicesInItsWord) {
  const json r = json::parse(study_request_json(json{{"name", "scaling"}, {"params", eight_b("tpu-v5p", "bf16")}}.dump()));
  ASSERT_FALSE(r.contains("error")) << r.dump().substr(0, 300);
  EXPECT_EQ(r.at("unit_name"), "chip");
  const std::string workload = r.at("workload");
  EXPECT_NE(workload.find(" to 64 chips (the scenario: 8)"), std::string::npos) << workload;
  EXPECT_NE(workload.find("grown with the chips (weak scaling)"), std::string::npos) << workload;
  const std::string text = study_request_text(json{{"name", "scaling"}, {"params", eight_b("tpu-v5p", "bf16")}}.dump());
  EXPECT_NE(text.find(" GiB/chip "), std::string::npos) << text;
  EXPECT_EQ(text.find("GPU"), std::string::npos) << text;
}

TEST(Studies, ModelsRunsEveryModelPresetInTheScenariosPlace) {
  const json request = {{"name", "models"}, {"params", eight_b("dgx-h100", "bf16")}};
  const json r = json::parse(study_request_json(request.dump()));
  ASSERT_FALSE(r.contains("error")) << r.dump().substr(0, 400);
  EXPECT_EQ(r.at("system"), "dgx-h100");
  const json& rows = r.at("rows");
  ASSERT_EQ(rows.size(), all_presets().at("models").size());
  EXPECT_TRUE(rows[0].value("own", false));
  EXPECT_EQ(rows[0].at("model"), "llama3.1-8b");
  std::map<std::string, json> by;
  for (const json& row : rows) by[row.at("model").get<std::string>()] = row;
  EXPECT_EQ(by.size(), rows.size());  // no model twice
  for (size_t i = 2; i < rows.size(); ++i)
    EXPECT_LE(rows[i - 1].at("parameters").get<double>(), rows[i].at("parameters").get<double>()) << rows[i].at("model");
  for (const json& row : rows) {
    ASSERT_FALSE(row.contains("error")) << row.dump().substr(0, 300);
    EXPECT_LE(row.at("parameters_active").get<double>(), row.at("parameters").get<double>());
    if (!row.at("fits").get<bool>()) {
      // The leanest plan misses the GPU's memory.
      EXPECT_GT(row.at("closest_memory_bytes").get<double>(), row.at("capacity_bytes").get<double>()) << row.at("model");
      continue;
    }
    const json& plan = row.at("plan");
    const json& par = plan.at("parallelism");
    EXPECT_EQ(par.value("tp", 1) * par.value("pp", 1) * par.value("dp", 1) * par.value("cp", 1), 8);
    EXPECT_LE(plan.at("memory_bytes_total").get<double>(), row.at("capacity_bytes").get<double>());
    EXPECT_NEAR(row.at("throughput").get<double>(), plan.at("tokens_per_s").get<double>(), 1e-9);
    const double hours = 8 * 1e6 / plan.at("tokens_per_s").get<double>() / 3600;
    EXPECT_NEAR(row.at("per_million_tokens").at("gpu_hours").get<double>(), hours, 1e-9 * hours);
  }
  // Training state of 16 to 18 bytes per parameter: 70B needs about 1.2 TB, 8 x 80 GB hold 640 GB.
  EXPECT_TRUE(by.at("llama3.1-8b").at("fits").get<bool>());
  EXPECT_FALSE(by.at("llama3.1-70b").at("fits").get<bool>());
  EXPECT_FALSE(by.at("deepseek-v3").at("fits").get<bool>());
  // Per token, a dense 70B-class cost is out of reach; among those that fit, more active parameters cost more per token.
  EXPECT_GT(by.at("qwen3-32b").at("per_million_tokens").at("gpu_hours").get<double>(),
            2 * by.at("qwen3-8b").at("per_million_tokens").at("gpu_hours").get<double>());
  const std::string text = study_request_text(request.dump());
  EXPECT_NE(text.find("does not fit (needs"), std::string::npos) << text;
  EXPECT_NE(text.find("1.03T"), std::string::npos) << text;  // Kimi K2's parameters
}

// Serving: a custom model object is the first row, named for its model; a
// bad scenario is the study's error under params.
TEST(Studies, ModelsServesACustomModelFirst) {
  json scenario = {{"mode", "inference"},
                   {"model", {{"preset", "llama3.1-8b"}, {"name", "My 8B"}, {"layers", 16}}},
                   {"system", "dgx-h100"},
                   {"parallelism", {{"tp", 1}}},
                   {"inference", {{"batch", 16}, {"input_tokens", 1024}, {"output_tokens", 128}}}};
  const json r = json::parse(study_request_json(json{{"name", "models"}, {"params", scenario}}.dump()));
  ASSERT_FALSE(r.contains("error")) << r.dump().substr(0, 400);
  const json& rows = r.at("rows");
  EXPECT_EQ(rows.size(), all_presets().at("models").size() + 1);
  EXPECT_EQ(rows[0].at("model"), "this scenario's model (My 8B)");
  ASSERT_TRUE(rows[0].at("fits").get<bool>());
  // Half the layers of Llama 3.1 8B: faster per GPU than the preset itself on one GPU.
  for (const json& row : rows)
    if (row.at("model") == "llama3.1-8b")
      EXPECT_GT(rows[0].at("throughput").get<double>(), row.at("throughput").get<double>());
  scenario["parallelism"]["tp"] = 3;  // 32 heads on 3 GPUs
  EXPECT_EQ(json::parse(study_request_json(json{{"name", "models"}, {"params", scenario}}.dump())).at("error").at("path").get<std::string>().rfind("params.", 0), 0u);
}

// The studies of a scenario over unusual scenarios (MoE in fp8 with expert
// parallelism, MLA served in int4, training with the optimizer in host
// memory): every number finite, every row a plan, a closest memory or an error.
TEST(Studies, ScenarioStudiesStayFiniteAndExplainEachRow) {
  const std::vector<json> scenarios = {
      {{"mode", "training"}, {"model", "qwen3-30b-a3b"}, {"system", "dgx-b200"},
       {"parallelism", {{"dp", 8}, {"ep", 8}}}, {"training", {{"global_batch", 64}, {"seq_len", 4096}, {"precision", "fp8"}}}},
      {{"mode", "inference"}, {"model", "deepseek-v2-lite"}, {"system", "gb200-nvl72"}, {"parallelism", {{"tp", 2}}},
       {"inference", {{"batch", 32}, {"weight_precision", "int4"}, {"kv_precision", "fp8"}}}},
      {{"mode", "training"}, {"model", "llama3.1-8b"}, {"system", "dgx-h100"}, {"parallelism", {{"dp", 4}}},
       {"training", {{"global_batch", 32}, {"seq_len", 2048}, {"offload", "optimizer"}}}},
  };
  std::function<void(const json&, const std::string&)> finite = [&](const json& j, const std::string& path) {
    if (j.is_number()) EXPECT_TRUE(std::isfinite(j.get<double>())) << path;
    for (auto it = j.begin(); j.is_structured() && it != j.end(); ++it)
      finite(it.value(), path + "." + (j.is_object() ? it.key() : std::string("[]")));
  };
  for (const json& scenario : scenarios)
    for (const auto& study : {models_study, systems_study, scaling_study}) {
      const json r = study(scenario);
      const std::string where = r.at("study").get<std::string>() + " of " + scenario.dump().substr(0, 80);
      finite(r, where);
      for (const char* list : {"rows", "weak"})
        for (const json& row : r.value(list, json::array()))
          EXPECT_TRUE(row.contains("plan") || row.contains("closest_memory_bytes") || row.contains("error")) << where << row.dump().substr(0, 200);
    }
}

}  // namespace
}  // namespace llmcalc::test
