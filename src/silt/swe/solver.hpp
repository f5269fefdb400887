// The shallow-water + pollutant solver on one device (CPU or CUDA). The state lives where the Exec
// runs; the time step is chosen and applied on the device, so advance_to() only waits for the
// device once per batch of steps.
#pragma once

#include <memory>
#include <vector>

#include "silt/core/exec.hpp"
#include "silt/swe/scene.hpp"

namespace silt::swe {

/// Cell fields copied back to the host (double regardless of the solver's precision).
struct Fields {
  Index nx = 0, ny = 0;
  std::vector<double> h;          // depth, m
  std::vector<double> hu, hv;     // unit discharges, m^2/s
  std::vector<double> hc;         // pollutant mass per area, kg/m^2
  std::vector<double> max_depth;  // maximum depth seen so far, m
};

/// Values of one cell at the current time.
struct Probe {
  double h = 0, u = 0, v = 0, c = 0;
};

struct Totals {
  double volume = 0;          // m^3 of water in the domain
  double pollutant_mass = 0;  // kg
  double inflow_volume = 0;   // m^3 that entered through boundaries, sources and rain so far
};

class Solver {
 public:
  Solver(const Scene& scene, const Exec& exec);
  ~Solver();
  Solver(Solver&&) noexcept;
  Solver& operator=(Solver&&) noexcept;

  /// Steps until the simulated time reaches t_end exactly (the last dt is clipped on the device).
  /// Throws silt::Error naming the cell (i, j), its position, the step and the time when a NaN,
  /// a negative depth or a collapsing time step appears; the state of the last good check is kept.
  void advance_to(double t_end);
  /// Exactly one step (tests). It is queued without waiting for the device (a benchmark can time
  /// a run of them, then read time()); a fault it raises is reported by the next advance_to().
  void step();

  double time() const;
  long long steps() const;
  double last_dt() const;
  const Scene& scene() const;
  const Exec& exec() const;

  Fields fields() const;
  std::vector<Probe> probe(const std::vector<Index>& cells) const;
  Totals totals() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace silt::swe
