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
#include "silt/swe/phases.hpp"
#include "silt/swe/setup.hpp"

namespace silt::swe::detail {

namespace {

// Steps launched between two host reads of the clock and fault flags. Large enough that the read
// (one synchronisation, ~9 us on the H200) is negligible, small enough that steps wasted past the
// target (no-ops with dt = 0 when the estimate overshoots) stay few.
constexpr long long kMaxBatch = 256;

template <class T>
DeviceBuffer<T> upload(const Exec& exec, const std::vector<T>& host, const char* label) {
  DeviceBuffer<T> b(exec, Index(host.size()), label);
  if (!host.empty()) b.upload(host);
  return b;
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
  Grid2<T> grid(const DeviceBuffer<T>& b) const {
    return Grid2<T>{const_cast<T*>(b.data()), nx_, ny_, 1};
  }
  EdgeView<T> edge_view(int read) const;
  SolverView<T> view(int read, int write);
  void launch_step();
  void set_target(double t);
  void copy_state(bool to_backup);
  void update_speed();
  [[noreturn]] void report(const Fault& f, const Clock& c, bool restore);
  std::vector<double> to_host(const DeviceBuffer<T>& b) const;

  const Scene& scene_;
  Exec exec_;
  Layout layout_;
  Index nx_, ny_;
  DeviceBuffer<T> h_[2], hu_[2], hv_[2], hc_[2];
  DeviceBuffer<T> z_, manning_, max_depth_;
  DeviceBuffer<std::uint8_t> active_;
  DeviceBuffer<T> bk_h_, bk_hu_, bk_hv_, bk_hc_, bk_max_depth_;
  DeviceBuffer<double> clock_, bk_clock_;
  DeviceBuffer<T> smax_;
  FaultFlags fault_;
  DeviceBuffer<int> side_seg_, seg_kind_, seg_series_, seg_cells_, seg_wet_;
  DeviceBuffer<T> seg_value_, seg_conc_;
  DeviceBuffer<BoundaryCell> flow_cells_, discharge_cells_;
  DeviceBuffer<SourceCell> sources_;
  DeviceBuffer<double> series_t_, series_v_;
  DeviceBuffer<int> series_offset_;
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
      fused_(s.fused_kernel && fused_step_available(exec)) {
  activate(exec_);
  const Index n = Grid2<T>::alloc_size(nx_, ny_, 1);
  const Layout& l = layout_;
  // Initial state on the host, halo ring included (zero; physical boundaries are ghost states).
  std::vector<T> h(size_t(n), T(0)), hu(h), hv(h), hc(h), z(h), manning;
  std::vector<std::uint8_t> active(size_t(n), 0);
  if (!s.manning.empty()) manning.assign(size_t(n), T(0));
  const Grid2<T> hg{h.data(), nx_, ny_, 1};
  for (Index j = 0; j < ny_; ++j)
    for (Index i = 0; i < nx_; ++i) {
      const size_t k = size_t(j) * nx_ + i;
      const Index o = hg.offset(i, j);
      if (!l.active[k]) continue;
      active[size_t(o)] = 1;
      // Beds relative to the lowest one: fewer digits lost in float for terrain high above 0.
      z[size_t(o)] = T(s.bed[k] - l.z_ref);
      const double d = s.depth[k];
      h[size_t(o)] = T(d);
      if (d > s.dry_depth) {
        if (!s.velocity_x.empty()) hu[size_t(o)] = T(d * s.velocity_x[k]);
        if (!s.velocity_y.empty()) hv[size_t(o)] = T(d * s.velocity_y[k]);
      }
      if (!s.concentration.empty()) hc[size_t(o)] = T(d * s.concentration[k]);
      if (!manning.empty()) manning[size_t(o)] = T(s.manning[k]);
    }
  for (int b = 0; b < 2; ++b) {
    h_[b] = upload(exec_, h, "swe.h");
    hu_[b] = upload(exec_, hu, "swe.hu");
    hv_[b] = upload(exec_, hv, "swe.hv");
    hc_[b] = upload(exec_, hc, "swe.hc");
  }
  z_ = upload(exec_, z, "swe.z");
  manning_ = upload(exec_, manning, "swe.manning");
  max_depth_ = upload(exec_, h, "swe.max_depth");
  active_ = upload(exec_, active, "swe.active");
  bk_h_ = DeviceBuffer<T>(exec_, n, "swe.checkpoint.h");
  bk_hu_ = DeviceBuffer<T>(exec_, n, "swe.checkpoint.hu");
  bk_hv_ = DeviceBuffer<T>(exec_, n, "swe.checkpoint.hv");
  bk_hc_ = DeviceBuffer<T>(exec_, n, "swe.checkpoint.hc");
  bk_max_depth_ = DeviceBuffer<T>(exec_, n, "swe.checkpoint.max_depth");
  Clock c{};
  c[kTarget] = target_on_device_;
  clock_ = upload(exec_, std::vector<double>(c.begin(), c.end()), "swe.clock");
  bk_clock_ = upload(exec_, std::vector<double>(c.begin(), c.end()), "swe.checkpoint.clock");
  smax_ = upload(exec_, std::vector<T>{T(0)}, "swe.smax");
  fault_ = FaultFlags(exec_);
  side_seg_ = upload(exec_, l.side_seg, "swe.side_segment");
  seg_kind_ = upload(exec_, l.seg_kind, "swe.segment.kind");
  seg_series_ = upload(exec_, l.seg_series, "swe.segment.series");
  seg_cells_ = upload(exec_, l.seg_cells, "swe.segment.cells");
  seg_wet_ = upload(exec_, std::vector<int>(l.seg_kind.size(), 0), "swe.segment.wet");
  std::vector<T> conc(l.seg_conc.begin(), l.seg_conc.end());
  seg_conc_ = upload(exec_, conc, "swe.segment.concentration");
  seg_value_ = upload(exec_, std::vector<T>(l.seg_kind.size(), T(0)), "swe.segment.value");
  flow_cells_ = upload(exec_, l.flow_cells, "swe.boundary_cells");
  discharge_cells_ = upload(exec_, l.discharge_cells, "swe.discharge_cells");
  sources_ = upload(exec_, l.sources, "swe.sources");
  series_t_ = upload(exec_, l.series_t, "swe.series.t");
  series_v_ = upload(exec_, l.series_v, "swe.series.value");
  series_offset_ = upload(exec_, l.series_offset, "swe.series.offset");
  update_speed();
}

template <class T>
EdgeView<T> Engine<T>::edge_view(int read) const {
  EdgeView<T> e;
  e.h = grid(h_[read]);
  e.hu = grid(hu_[read]);
  e.hv = grid(hv_[read]);
  e.hc = grid(hc_[read]);
  e.z = grid(z_);
  e.active = Grid2<const std::uint8_t>{active_.data(), nx_, ny_, 1};
  e.nx = nx_;
  e.ny = ny_;
  e.gnx = nx_;  // the whole grid: no offset, no halo of neighbour data
  e.gny = ny_;
  e.dx = T(scene_.grid.dx);
  e.g = T(scene_.gravity);
  e.dry = T(scene_.dry_depth);
  e.side_seg = side_seg_.data();
  e.seg_kind = seg_kind_.data();
  e.seg_value = seg_value_.data();
  e.seg_conc = seg_conc_.data();
  e.seg_wet = seg_wet_.data();
  e.seg_cells = seg_cells_.data();
  return e;
}

template <class T>
SolverView<T> Engine<T>::view(int read, int write) {
  SolverView<T> v;
  v.e = edge_view(read);
  v.h_new = grid(h_[write]);
  v.hu_new = grid(hu_[write]);
  v.hv_new = grid(hv_[write]);
  v.hc_new = grid(hc_[write]);
  v.manning = manning_.size() > 0 ? Grid2<const T>(grid(manning_)) : Grid2<const T>{};
  v.max_depth = grid(max_depth_);
  v.clock = clock_.data();
  v.smax = smax_.data();
  v.fault = fault_.view();
  v.dx = scene_.grid.dx;
  v.cfl = scene_.cfl;
  v.max_dt = scene_.max_dt;
  v.min_dt = scene_.min_dt;
  // A still or dry domain has no wave speed; step as if waves ran at the speed of a film of
  // dry_depth (about 1 cm/s for 1e-5 m), so dt stays finite and rain or sources can start.
  v.speed_floor = std::sqrt(scene_.gravity * scene_.dry_depth);
  v.active_area = layout_.active_area;
  v.z_ref = layout_.z_ref;
  v.series_t = series_t_.data();
  v.series_v = series_v_.data();
  v.series_offset = series_offset_.data();
  v.rain_series = layout_.rain_series;
  v.n_seg = int(layout_.seg_kind.size());
  v.seg_series = seg_series_.data();
  v.seg_value = seg_value_.data();
  v.seg_wet = seg_wet_.data();
  v.flow_cells = flow_cells_.data();
  v.n_flow_cells = flow_cells_.size();
  v.discharge_cells = discharge_cells_.data();
  v.n_discharge_cells = discharge_cells_.size();
  v.sources = sources_.data();
  v.n_sources = sources_.size();
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
  smax_.set(0, T(0));
  phase_cfl(exec_, view(cur_, cur_));
}

template <class T>
void Engine<T>::set_target(double t) {
  if (t == target_on_device_) return;
  clock_.set(kTarget, t);
  target_on_device_ = t;
}

template <class T>
void Engine<T>::copy_state(bool to_backup) {
  const DeviceBuffer<T>* live[5] = {&h_[cur_], &hu_[cur_], &hv_[cur_], &hc_[cur_], &max_depth_};
  const DeviceBuffer<T>* back[5] = {&bk_h_, &bk_hu_, &bk_hv_, &bk_hc_, &bk_max_depth_};
  const DeviceBuffer<T>* const* from = to_backup ? live : back;
  const DeviceBuffer<T>* const* to = to_backup ? back : live;
  StateCopy<T> c;
  c.h = from[0]->data();
  c.hu = from[1]->data();
  c.hv = from[2]->data();
  c.hc = from[3]->data();
  c.max_depth = from[4]->data();
  c.h_out = const_cast<T*>(to[0]->data());
  c.hu_out = const_cast<T*>(to[1]->data());
  c.hv_out = const_cast<T*>(to[2]->data());
  c.hc_out = const_cast<T*>(to[3]->data());
  c.max_depth_out = const_cast<T*>(to[4]->data());
  c.clock = to_backup ? clock_.data() : bk_clock_.data();
  c.clock_out = to_backup ? bk_clock_.data() : clock_.data();
  c.n = h_[0].size();
  phase_copy(exec_, c);
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
  if (const Fault f = fault_.read()) report(f, c, false);
  if (!(t_end > c[kTime])) return;
  set_target(t_end);
  for (;;) {
    copy_state(/*to_backup=*/true);
    // Steps needed at the last unclipped dt; past the target the device turns extra steps into
    // no-ops (a copy of the state, phases.cpp).
    const long long n = batch_steps(t_end - c[kTime], c[kCflDt], kMaxBatch);
    for (long long k = 0; k < n; ++k) launch_step();
    c = clock();
    if (const Fault f = fault_.read()) report(f, c, true);
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
    const auto h = to_host(h_[cur_]), hu = to_host(hu_[cur_]), hv = to_host(hv_[cur_]);
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
  fault_.clear();
  throw Error(msg);
}

template <class T>
Clock Engine<T>::clock() const {
  Clock c;
  clock_.download(c.data(), kClockSize);
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
  f.h = to_host(h_[cur_]);
  f.hu = to_host(hu_[cur_]);
  f.hv = to_host(hv_[cur_]);
  f.hc = to_host(hc_[cur_]);
  f.max_depth = to_host(max_depth_);
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
    const double h = double(h_[cur_].get(o));
    const double dry = scene_.dry_depth;
    Probe p;
    p.h = h;
    p.u = h > dry ? double(hu_[cur_].get(o)) / h : 0.0;
    p.v = h > dry ? double(hv_[cur_].get(o)) / h : 0.0;
    p.c = h > 0 ? double(hc_[cur_].get(o)) / h : 0.0;
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
