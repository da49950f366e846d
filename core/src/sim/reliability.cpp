#include "reliability.h"

#include <algorithm>
#include <cmath>

#include "lora.h"
#include "memory.h"

namespace llmcalc {

namespace {

// Expected wall-clock time of one segment, `work` seconds of training then a
// checkpoint of `ckpt` seconds, when interruptions arrive at random (a
// Poisson process of mean interval M) and each costs `restart` seconds and
// the work since the last checkpoint: M e^(R/M) (e^((w+c)/M) - 1)
// (Daly 2006, FGCS 22(3), the exponential model with a restart time).
// Exponents are capped so that a hopeless case gives a huge finite time.
double segment_wall_s(double work, double ckpt, double restart, double mtbf) {
  const double grow = std::min((work + ckpt) / mtbf, 600.0);
  return mtbf * std::exp(std::min(restart / mtbf, 100.0)) * std::expm1(grow);
}

double goodput_at(double interval, double ckpt, double restart, double mtbf) {
  return interval / segment_wall_s(interval, ckpt, restart, mtbf);
}

// The checkpoint interval that maximises goodput. Goodput is unimodal in the
// interval (short ones spend the time checkpointing, long ones lose more
// work per interruption), so a golden-section search over log(interval)
// finds it, from a millisecond (no run checkpoints more often) to a hundred
// MTBFs; Young's first-order optimum is sqrt(2 c M) (Young 1974, CACM 17(9)).
// Each step keeps one of its two points; 60 steps narrow the bracket's ~50
// units of log to 1e-11, past where goodput, flat at its peak, still changes
// in double precision (the interval is then good to ~1e-7).
double best_interval(double ckpt, double restart, double mtbf) {
  const double r = (std::sqrt(5.0) - 1) / 2;
  auto g = [&](double x) { return goodput_at(std::exp(x), ckpt, restart, mtbf); };
  double lo = std::log(1e-3), hi = std::log(100 * mtbf + 1);
  double a = hi - r * (hi - lo), b = lo + r * (hi - lo);
  double ga = g(a), gb = g(b);
  for (int i = 0; i < 60; ++i) {
    if (ga >= gb) {  // the best lies left of b
      hi = b;
      b = a;
      gb = ga;
      a = hi - r * (hi - lo);
      ga = g(a);
    } else {
      lo = a;
      a = b;
      ga = gb;
      b = lo + r * (hi - lo);
      gb = g(b);
    }
  }
  return std::exp((lo + hi) / 2);
}

}  // namespace

ReliabilityResult training_reliability(const Scenario& s, double time_to_train_s) {
  const Reliability& in = s.reliability;
  const double gpus = static_cast<double>(std::max(1LL, s.par.gpus()));
  ReliabilityResult r;
  r.mtbf_s = in.gpu_hours_per_interruption * 3600 / gpus;
  // A checkpoint holds what resumes training: the weights and the optimizer
  // states (fp32 master copy, Adam's moments) of what trains (LoRA: the
  // adapters; the frozen weights do not change). Each GPU writes its share
  // (Megatron-Core distributed checkpointing, fully parallel save).
  const ParamBytes pb = param_bytes(s.train);
  double active = 0;
  r.checkpoint_bytes_per_gpu = trainable_params(s.model, s.train, &active) * (pb.weight + pb.optim) / gpus;
  r.checkpoint_s = r.checkpoint_bytes_per_gpu / in.storage_Bps_per_gpu;
  r.restart_s = in.restart_s;
  r.checkpoint_interval_s = in.checkpoint_interval_s > 0 ? in.checkpoint_interval_s
                                                           : best_interval(r.checkpoint_s, r.restart_s, r.mtbf_s);
  r.goodput = goodput_at(r.checkpoint_interval_s, r.checkpoint_s, r.restart_s, r.mtbf_s);
  // Below a billionth the run makes no progress worth a figure.
  if (time_to_train_s > 0 && r.goodput > 1e-9) {
    r.time_to_train_s = time_to_train_s / r.goodput;
    r.interruptions = r.time_to_train_s / r.mtbf_s;
  }
  return r;
}

}  // namespace llmcalc
