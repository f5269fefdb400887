// The solver's engine behind swe::Solver: one implementation per real type (float or double,
// chosen at run time from scene.precision), behind a small virtual interface.
#pragma once

#include <array>
#include <memory>
#include <string>
#include <vector>

#include "silt/core/exec.hpp"
#include "silt/swe/scene.hpp"
#include "silt/swe/solver.hpp"
#include "silt/swe/views.hpp"

namespace silt::swe::detail {

using Clock = std::array<double, kClockSize>;

class EngineBase {
 public:
  virtual ~EngineBase() = default;
  virtual void advance_to(double t_end) = 0;
  virtual void step() = 0;
  /// The device clock (waits for the device).
  virtual Clock clock() const = 0;
  virtual Fields fields() const = 0;
  virtual std::vector<Probe> probe(const std::vector<Index>& cells) const = 0;
  virtual Totals totals() const = 0;
  /// A split run's communication timed on its own (multi_engine.hpp); nothing on one device.
  virtual CommTimes measure_communication(int repetitions) {
    (void)repetitions;
    return CommTimes{};
  }
  virtual std::string layout() const { return "one subdomain"; }
};

/// Validates the scene (silt::Error) and builds the engine for its precision on exec.
std::unique_ptr<EngineBase> make_engine(const Scene& scene, const Exec& exec);
/// Validates the scene and split (silt::Error) and builds the engine of a split run.
std::unique_ptr<EngineBase> make_multi_engine(const Scene& scene, const Split& split);

}  // namespace silt::swe::detail
