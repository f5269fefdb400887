// The solver's engine behind swe::Solver: one implementation (engine_parts.hpp) per real type
// (float or double, chosen at run time from scene.precision), behind a small virtual interface.
#pragma once

#include <array>
#include <cmath>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "silt/core/exec.hpp"
#include "silt/swe/scene.hpp"
#include "silt/swe/setup.hpp"
#include "silt/swe/solver.hpp"
#include "silt/swe/step_peaks.hpp"
#include "silt/swe/views.hpp"

namespace silt::swe::detail {

using Clock = std::array<double, kClockSize>;

/// Steps launched between two host reads of the clocks and fault flags. Large enough that the read
/// (one synchronisation, ~9 us on the H200) is negligible, small enough that steps wasted past the
/// target (no-ops with dt = 0 when the estimate overshoots) stay few.
inline constexpr long long kMaxBatch = 256;

/// Steps to queue before the next host check when `remaining` (s) is left to the target and the
/// last step the CFL condition chose was `cfl_dt` (s; the clock's kCflDt, never the last clipped
/// step, which can be arbitrarily short after landing on a target). One step more than the
/// estimate, so that a step that grows a little still lands in one batch; what overshoots becomes
/// a cheap no-op on the device. At least 1, at most max_batch.
inline long long batch_steps(double remaining, double cfl_dt, long long max_batch) {
  if (!(remaining > 0.0)) return 1;
  const double estimate = cfl_dt > 0.0 ? std::ceil(remaining / cfl_dt) + 1.0 : 1.0;
  if (!(estimate < double(max_batch))) return max_batch;  // also a NaN or huge estimate
  return estimate < 1.0 ? 1 : static_cast<long long>(estimate);
}

class EngineBase {
 public:
  virtual ~EngineBase() = default;
  /// Steps to t_end; stop (may be empty), asked after each batch, ends it early (false); so does
  /// the first step that ends at or past `after` (true; Solver::advance_to).
  virtual bool advance_to(double t_end, const std::function<bool()>& stop, double after) = 0;
  virtual void step() = 0;
  /// count steps queued together (no host wait between them).
  virtual void step_many(long long count) = 0;
  /// The device clock (waits for the device).
  virtual Clock clock() const = 0;
  virtual Fields fields(unsigned arrays) const = 0;
  /// fields() with the copies queued behind the steps, not waited for (Solver::fields_async).
  virtual FieldsCopy fields_async(unsigned arrays) const = 0;
  virtual std::vector<Probe> probe(const std::vector<Index>& cells) const = 0;
  /// Solver::sample_gauges, take_gauge_rows, next_gauge (engine_gauges.cpp).
  virtual bool sample_gauges(const std::vector<Index>& cells, double next, double interval) = 0;
  virtual std::vector<GaugeRow> take_gauge_rows() = 0;
  virtual double next_gauge() const = 0;
  virtual Totals totals() const = 0;
  /// The communication between parts timed on its own; nothing on one part.
  virtual CommTimes measure_communication(int repetitions) = 0;
  virtual std::string layout() const = 0;
  /// Sets every part's cells and clock from a global state (engine_restore.cpp).
  virtual void restore(const RestartState& s) = 0;
  /// Replaces every part's forcing-series tables by l's (engine_series.cpp): l is prepare() of the
  /// scene with some series replaced, the same segments and sources.
  virtual void set_series(const Layout& l) = 0;
  /// Solver::track_step_peaks and step_peaks (engine_peaks.cpp).
  virtual bool track_step_peaks(const StepPeaks& from) = 0;
  virtual StepPeaks step_peaks() const = 0;
};

/// Validates the scene and split (silt::Error) and builds the engine for the scene's precision.
std::unique_ptr<EngineBase> make_engine(const Scene& scene, const Split& split,
                                        const SolverOptions& options);

}  // namespace silt::swe::detail
