#include "silt/swe/engine.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "silt/core/buffer.hpp"
#include "silt/core/error.hpp"
#include "silt/core/fault.hpp"
#include "silt/swe/fused_step.hpp"
#include "silt/swe/kernels/cell_update_k.hpp"
#include "silt/swe/kernels/cfl_k.hpp"
#include "silt/swe/multi_part.hpp"
#include "silt/swe/phases.hpp"
#include "silt/swe/setup.hpp"

namespace silt::swe::detail {

namespace {

// Steps launched between two host reads of the clock and fault flags. Large enough that the read
// (one synchronisation, ~9 us on the H200) is negligible, small enough that steps wasted past the
// target (no-ops with dt = 0 when the estimate overshoots) stay few.
constexpr long long kMaxBatch = 256;

// The whole grid as one subdomain: no neighbours, a ring of one inactive cell beyond each edge.
partition::Subdomain whole_grid(const Scene& s) {
  partition::Subdomain sub;
  sub.cells = Box2{0, s.grid.nx, 0, s.grid.ny};
  sub.neighbour.fill(-1);
  sub.neighbour[partition::kSelf] = 0;
  return sub;
}

template <class T>
class Engine final : public EngineBase {
 public:
  Engine(const Scene& s, const Exec& exec);
  void advance_to(double t_end) override;
  void step() override;
  Clock clock() const override;
  Fields fields() const override;
  std::vector<Probe> probe(const std::vector<Index>& cells) const override;
  Totals totals() const override;

 private:
  EdgeView<T> edge_view(int read) const;
  SolverView<T> view(int read, int write) const;
  void launch_step();
  void set_target(double t);
  void copy_state(bool to_backup) { part_.copy_state(cur_, to_backup); }
  void update_speed();
  [[noreturn]] void report(const Fault& f, const Clock& c, bool restore);
  std::vector<double> to_host(const DeviceBuffer<T>& b) const;

  const Scene& scene_;
  Exec exec_;
  Layout layout_;
  Index nx_, ny_;
  // The device state: the same type a subdomain of a split run holds (multi_part.hpp), here over
  // the whole grid.
  Part<T> part_;
  bool fused_;   // CUDA tile kernel (fused_step.hpp) instead of the plain parallel_for phases
  int cur_ = 0;  // which of the double buffers holds the current state
  double target_on_device_ = std::numeric_limits<double>::infinity();
};

template <class T>
Engine<T>::Engine(const Scene& s, const Exec& exec)
    : scene_(s),
      exec_(exec),
      layout_(prepare(s)),
      nx_(s.grid.nx),
      ny_(s.grid.ny),
      part_(s, layout_, whole_grid(s), 1, exec),
      fused_(s.fused_kernel && fused_step_available(exec)) {
  update_speed();
}

template <class T>
EdgeView<T> Engine<T>::edge_view(int read) const {
  EdgeView<T> e = part_.edge_view(read);
  e.ext = 0;  // the ring holds no neighbour's cells, only the inactive cells beyond the edge
  return e;
}

template <class T>
SolverView<T> Engine<T>::view(int read, int write) const {
  SolverView<T> v = part_.view(read, write);
  v.e = edge_view(read);
  return v;
}

// One step: a handful of launches, no host synchronisation.
template <class T>
void Engine<T>::launch_step() {
  const SolverView<T> v = view(cur_, 1 - cur_);
  phase_clock(exec_, v);  // dt from the last CFL reduction
  if (v.n_discharge_cells > 0) phase_wet_count(exec_, v);
  if (fused_) {
    phase_fused_update(exec_, v, default_tile_shape());  // all of the below in one tiled launch
  } else {
    phase_update(exec_, v);                                 // fluxes, update, rain, friction
    if (v.n_flow_cells > 0) phase_boundary_flow(exec_, v);  // volume through open boundaries
    if (v.n_sources > 0) phase_sources(exec_, v);
    phase_cfl_step(exec_, v);  // wave speed for the next dt
  }
  cur_ = 1 - cur_;
}

template <class T>
void Engine<T>::update_speed() {
  part_.smax.set(0, T(0));
  phase_cfl(exec_, view(cur_, cur_));
}

template <class T>
void Engine<T>::set_target(double t) {
  if (t == target_on_device_) return;
  part_.clock.set(kTarget, t);
  target_on_device_ = t;
}

template <class T>
void Engine<T>::step() {
  activate(exec_);
  set_target(std::numeric_limits<double>::infinity());
  launch_step();
}

template <class T>
void Engine<T>::advance_to(double t_end) {
  activate(exec_);
  if (!std::isfinite(t_end))
    throw Error(
        fmt::format("swe scene '{}': advance_to({}) needs a finite time", scene_.name, t_end));
  Clock c = clock();
  // A fault left by step() calls: there is no checkpoint to go back to.
  if (const Fault f = part_.fault.read()) report(f, c, false);
  if (!(t_end > c[kTime])) return;
  set_target(t_end);
  for (;;) {
    copy_state(/*to_backup=*/true);
    // Steps needed at the last unclipped dt; past the target the device turns extra steps into
    // no-ops (a copy of the state, phases.cpp).
    const long long n = batch_steps(t_end - c[kTime], c[kCflDt], kMaxBatch);
    for (long long k = 0; k < n; ++k) launch_step();
    c = clock();
    if (const Fault f = part_.fault.read()) report(f, c, true);
    if (!(c[kTime] < t_end)) return;
  }
}

template <class T>
void Engine<T>::report(const Fault& f, const Clock& c, bool restore) {
  const char* what = f.code == kFaultNaN             ? "NaN in the state"
                     : f.code == kFaultNegativeDepth ? "negative depth"
                     : f.code == kFaultTimeStep      ? "collapsing time step"
                                                     : "unknown device fault";
  Index cell = f.index;
  std::string extra;
  if (f.code == kFaultTimeStep) {
    // The fastest cell sets the step: find it in the state that could not advance.
    const auto h = to_host(part_.h[cur_]), hu = to_host(part_.hu[cur_]),
               hv = to_host(part_.hv[cur_]);
    double best = -1;
    for (size_t k = 0; k < h.size(); ++k) {
      if (!layout_.active[k]) continue;
      const double sp = wave_speed_k(h[k], hu[k], hv[k], scene_.gravity, scene_.dry_depth);
      if (sp > best) best = sp, cell = Index(k);
    }
    extra = fmt::format(" (CFL step {:.3g} s < min_dt = {:.3g} s; wave speed {:.6g} m/s there)",
                        scene_.cfl * scene_.grid.dx / std::max(best, 1e-300), scene_.min_dt, best);
  }
  const Index i = cell >= 0 ? cell % nx_ : -1, j = cell >= 0 ? cell / nx_ : -1;
  const std::string msg = fmt::format(
      "swe scene '{}': {} in cell ({}, {}) at x = {:.6g} m, y = {:.6g} m, step {}, t = {:.9g} s{}"
      "{}",
      scene_.name, what, i, j, scene_.grid.x0 + (i + 0.5) * scene_.grid.dx,
      scene_.grid.y0 + (j + 0.5) * scene_.grid.dx, f.aux, c[kTime], extra,
      restore ? "; the state of the last good check is kept" : "");
  if (restore) {
    copy_state(/*to_backup=*/false);
    update_speed();
  }
  part_.fault.clear();
  throw Error(msg);
}

template <class T>
Clock Engine<T>::clock() const {
  Clock c;
  part_.clock.download(c.data(), kClockSize);
  return c;
}

template <class T>
std::vector<double> Engine<T>::to_host(const DeviceBuffer<T>& b) const {
  const std::vector<T> all = b.download();
  const Grid2<const T> g{all.data(), nx_, ny_, 1};
  std::vector<double> out(size_t(nx_) * ny_);
  for (Index j = 0; j < ny_; ++j)
    for (Index i = 0; i < nx_; ++i) out[size_t(j) * nx_ + i] = double(g(i, j));
  return out;
}

template <class T>
Fields Engine<T>::fields() const {
  Fields f;
  f.nx = nx_;
  f.ny = ny_;
  f.h = to_host(part_.h[cur_]);
  f.hu = to_host(part_.hu[cur_]);
  f.hv = to_host(part_.hv[cur_]);
  f.hc = to_host(part_.hc[cur_]);
  f.max_depth = to_host(part_.max_depth);
  return f;
}

template <class T>
std::vector<Probe> Engine<T>::probe(const std::vector<Index>& cells) const {
  std::vector<Probe> out;
  out.reserve(cells.size());
  const Grid2<T> g{nullptr, nx_, ny_, 1};
  for (const Index k : cells) {
    if (k < 0 || k >= nx_ * ny_)
      throw Error(fmt::format("swe scene '{}': probe cell index {} is outside the {} x {} grid",
                              scene_.name, k, nx_, ny_));
    const Index o = g.offset(k % nx_, k / nx_);
    const double h = double(part_.h[cur_].get(o));
    const double dry = scene_.dry_depth;
    Probe p;
    p.h = h;
    p.u = h > dry ? double(part_.hu[cur_].get(o)) / h : 0.0;
    p.v = h > dry ? double(part_.hv[cur_].get(o)) / h : 0.0;
    p.c = h > 0 ? double(part_.hc[cur_].get(o)) / h : 0.0;
    out.push_back(p);
  }
  return out;
}

template <class T>
Totals Engine<T>::totals() const {
  const double area = scene_.grid.dx * scene_.grid.dx;
  const EdgeView<T> e = edge_view(cur_);
  Totals t;
  t.volume = sum_depth(exec_, e) * area;
  t.pollutant_mass = sum_pollutant(exec_, e) * area;
  t.inflow_volume = clock()[kInflow];
  return t;
}

}  // namespace

std::unique_ptr<EngineBase> make_engine(const Scene& scene, const Exec& exec) {
  if (scene.precision == Precision::f64) return std::make_unique<Engine<double>>(scene, exec);
  return std::make_unique<Engine<float>>(scene, exec);
}

}  // namespace silt::swe::detail
