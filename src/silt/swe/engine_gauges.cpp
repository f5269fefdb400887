// Gauges sampled on the device (Solver::sample_gauges): each step that reaches the next sample time
// writes a row of the gauges' cells into a buffer of the part (phase_gauge_sample), and the host
// reads the rows with the clock it reads after each batch of steps anyway: no host wait, copy or
// shortened batch per sample. One part in one process; elsewhere the caller probes.
#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <utility>
#include <vector>

#include "silt/core/error.hpp"
#include "silt/swe/engine_parts.hpp"
#include "silt/swe/phases.hpp"

namespace silt::swe::detail {

template <class T>
bool Engine<T>::sample_gauges(const std::vector<Index>& cells, double next, double interval) {
  // The first-order step of one part (the second-order step and split runs probe).
  if (dec_.size() != 1 || world_.distributed() || muscl_ || !(interval > 0.0) || cells.empty())
    return false;
  Part<T>& p = *parts_.front();
  const Index nx = scene_.grid.nx, ny = scene_.grid.ny;
  activate(p.exec);
  if (cells != gauges_.cells) {
    std::vector<Index> off;
    for (const Index k : cells) {
      if (k < 0 || k >= nx * ny)
        throw Error(fmt::format("swe scene '{}': gauge cell index {} is outside the {} x {} grid",
                                scene_.name, k, nx, ny));
      off.push_back(p.grid(p.h[0]).offset(k % nx, k / nx));
    }
    gauges_.offsets = DeviceBuffer<Index>(p.exec, Index(off.size()), "swe.gauge_cells");
    gauges_.offsets.upload(off);
    gauges_.capacity = Index(kMaxBatch) + 1;
    gauges_.rows = DeviceBuffer<double>(p.exec, gauges_.capacity * (1 + 4 * Index(cells.size())),
                                        "swe.gauge_rows");
    gauges_.cells = cells;
  }
  gauges_.on = true;
  gauges_.interval = interval;
  gauges_.next = next;
  p.clock.set(kGaugeNext, next);
  p.clock.set(kGaugeRows, 0.0);
  clock_known_ = false;
  return true;
}

// After each step: the row of a step that reached the sample time (engine.cpp, launch_step).
template <class T>
void Engine<T>::sample_gauges_on_device() {
  if (!gauges_.on) return;
  Part<T>& p = *parts_.front();
  activate(p.exec);
  phase_gauge_sample(p.exec, p.edge_view(1 - cur_), p.clock.data(), gauges_.offsets.data(),
                     Index(gauges_.cells.size()), gauges_.rows.data(), gauges_.capacity,
                     gauges_.interval);
}

// The rows the clock c counts, as probe() converts them; the device's count back to 0.
template <class T>
void Engine<T>::read_gauge_rows(const Clock& c) {
  if (!gauges_.on) return;
  gauges_.next = c[kGaugeNext];
  const Index rows = Index(c[kGaugeRows]);
  if (rows == 0) return;
  if (rows > gauges_.capacity)
    throw Error(fmt::format("swe scene '{}': {} gauge rows in one batch, room for {} (internal)",
                            scene_.name, rows, gauges_.capacity));
  Part<T>& p = *parts_.front();
  activate(p.exec);
  const size_t n = gauges_.cells.size(), width = 1 + 4 * n;
  std::vector<double> v(size_t(rows) * width);
  gauges_.rows.download(v.data(), Index(v.size()));
  p.clock.set(kGaugeRows, 0.0);
  clock_seen_[kGaugeRows] = 0.0;
  const double dry = scene_.dry_depth;
  for (Index r = 0; r < rows; ++r) {
    const double* row = v.data() + size_t(r) * width;
    GaugeRow g;
    g.time = row[0];
    for (size_t k = 0; k < n; ++k) {
      const double h = row[1 + 4 * k];
      Probe q;
      q.h = h;
      q.u = h > dry ? row[2 + 4 * k] / h : 0.0;
      q.v = h > dry ? row[3 + 4 * k] / h : 0.0;
      q.c = h > 0 ? row[4 + 4 * k] / h : 0.0;
      g.probes.push_back(q);
    }
    gauges_.taken.push_back(std::move(g));
  }
}

template <class T>
std::vector<GaugeRow> Engine<T>::take_gauge_rows() {
  return std::exchange(gauges_.taken, {});
}

template <class T>
double Engine<T>::next_gauge() const {
  return gauges_.on ? gauges_.next : std::numeric_limits<double>::infinity();
}

#define SILT_SWE_ENGINE_GAUGES(T)                                                    \
  template bool Engine<T>::sample_gauges(const std::vector<Index>&, double, double); \
  template void Engine<T>::sample_gauges_on_device();                                \
  template void Engine<T>::read_gauge_rows(const Clock&);                            \
  template std::vector<GaugeRow> Engine<T>::take_gauge_rows();                       \
  template double Engine<T>::next_gauge() const;
SILT_SWE_ENGINE_GAUGES(float)
SILT_SWE_ENGINE_GAUGES(double)
#undef SILT_SWE_ENGINE_GAUGES

}  // namespace silt::swe::detail
