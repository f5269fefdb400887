#include "silt/run/checkpoint_policy.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "silt/core/error.hpp"

namespace silt::run {

namespace {

[[noreturn]] void bad(const std::string& option, const std::string& spec) {
  throw Error(
      fmt::format("{} '{}': expected a wall-clock interval (600s, 10min, 2h; a plain number "
                  "is seconds) or a simulated-time interval (sim:2.5, seconds of simulated time)",
                  option, spec));
}

/// A positive finite number followed by exactly `rest`; bad() otherwise.
double number(const std::string& option, const std::string& spec, const std::string& text,
              std::string* unit) {
  const char* begin = text.c_str();
  char* end = nullptr;
  const double v = std::strtod(begin, &end);
  if (end == begin || !std::isfinite(v) || !(v > 0)) bad(option, spec);
  *unit = std::string(end);
  return v;
}

}  // namespace

CheckpointPolicy::CheckpointPolicy(const std::string& spec, const std::string& option)
    : spec_(spec), option_(option) {
  if (spec.empty()) return;
  std::string unit;
  if (spec.rfind("sim:", 0) == 0) {
    sim_s_ = number(option, spec, spec.substr(4), &unit);
    if (!unit.empty() && unit != "s") bad(option, spec);
    return;
  }
  const double v = number(option, spec, spec, &unit);
  if (unit.empty() || unit == "s")
    wall_s_ = v;
  else if (unit == "min")
    wall_s_ = 60 * v;
  else if (unit == "h")
    wall_s_ = 3600 * v;
  else
    bad(option, spec);
}

bool CheckpointPolicy::due(double t) const {
  if (sim_s_ > 0) return t >= last_sim_ + sim_s_;
  if (wall_s_ > 0)
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - last_wall_).count() >=
           wall_s_;
  return false;
}

void CheckpointPolicy::check_run(double start, double end) const {
  if (!(sim_s_ > 0)) return;
  // Each interval must move the simulated time (1e-300 added to 0.5 s leaves it 0.5 s), and
  // their count over the run must be one a loop may count.
  const double span = std::max(std::abs(start), std::abs(end));
  const double intervals = (end - start) / sim_s_;
  if (!(span + sim_s_ > span) || !(intervals <= kMaxIntervals))
    throw Error(
        fmt::format("{} '{}': {} s of simulated time is too short for a run from t = {} s to "
                    "{} s ({:.4g} intervals; at most {:.0f}): give a longer interval",
                    option_, spec_, sim_s_, start, end, intervals, kMaxIntervals));
}

void CheckpointPolicy::taken(double t) {
  last_wall_ = std::chrono::steady_clock::now();
  // The last multiple of the interval from the start at or before t, so that late checkpoints
  // do not drift: computed, not counted up to (a loop of (t - start) / interval steps).
  if (sim_s_ > 0 && t >= origin_ + sim_s_) {
    const double n = std::floor((t - origin_) / sim_s_);
    last_sim_ = std::max(last_sim_, origin_ + n * sim_s_);
    if (last_sim_ + sim_s_ <= t) last_sim_ = t;  // rounding: never due again at the same t
  }
}

}  // namespace silt::run
