// Cell values copied back to the host for output: whole fields and single-cell probes, plain
// data so that io/ writes them (rasters, maps, gauges) without including the solver.
#pragma once

#include <memory>
#include <utility>
#include <vector>

#include "silt/core/config.hpp"

namespace silt::swe {

/// Cell fields copied back to the host (double regardless of the solver's precision).
struct Fields {
  Index nx = 0, ny = 0;
  std::vector<double> h;          // depth, m
  std::vector<double> hu, hv;     // unit discharges, m^2/s
  std::vector<double> hc;         // pollutant mass per area, kg/m^2
  std::vector<double> max_depth;  // maximum depth seen so far, m
  // Hazard outputs (empty unless Scene::hazard.enabled; swe/kernels/hazard_k.hpp): since the
  // start of the run, over the times the cell was wet above Scene::hazard.wet_depth.
  std::vector<double> max_speed;          // m/s
  std::vector<double> max_depth_speed;    // m^2/s
  std::vector<double> max_concentration;  // kg/m^3
  std::vector<double> max_rating;         // hazard rating HR, -
  std::vector<double> first_wet_time;     // s (< 0: never wet)
  std::vector<double> wet_duration;       // s
  // Cumulative infiltrated depth F since the start, m (empty unless the scene infiltrates).
  std::vector<double> infiltration;
};

/// The stored arrays that Solver::fields() brings to the host, as a mask: a frame's outputs name
/// theirs (io::field_arrays_of), so that a depth raster does not download five arrays.
namespace arrays {
constexpr unsigned depth = 1u;      // h
constexpr unsigned discharge = 2u;  // hu, hv
constexpr unsigned pollutant = 4u;  // hc
constexpr unsigned max_depth = 8u;
constexpr unsigned hazard = 16u;        // the hazard fields (with Scene::hazard.enabled)
constexpr unsigned infiltration = 32u;  // F (with Scene::infiltration)
constexpr unsigned all = 63u;
}  // namespace arrays

/// Fields on their way to the host (Solver::fields_async): the copies were queued on the devices'
/// streams, behind the steps before and ahead of those after, when it was made; get() waits for
/// them (an event per part, no device-wide wait) and converts them to double. Move-only; get()
/// once, on any thread (a writer thread's).
class FieldsCopy {
 public:
  /// The part a solver fills in: waits for its copies and converts.
  struct Pending {
    virtual ~Pending() = default;
    virtual Fields get() = 0;
  };
  FieldsCopy() = default;
  explicit FieldsCopy(Fields ready) : ready_(std::move(ready)) {}
  explicit FieldsCopy(std::unique_ptr<Pending> pending) : pending_(std::move(pending)) {}
  Fields get() {
    if (!pending_) return std::move(ready_);
    Fields f = pending_->get();
    pending_.reset();
    return f;
  }

 private:
  Fields ready_;
  std::unique_ptr<Pending> pending_;
};

/// Values of one cell at the current time.
struct Probe {
  double h = 0, u = 0, v = 0, c = 0;
};

/// A gauge sample taken on the device (Solver::sample_gauges): the end time of the step that
/// reached the sample time (s) and the probes of the gauges' cells then.
struct GaugeRow {
  double time = 0;
  std::vector<Probe> probes;
};

}  // namespace silt::swe
