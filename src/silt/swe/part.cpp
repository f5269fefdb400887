#include "silt/swe/part.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

#include "silt/core/parallel_for.hpp"

namespace silt::swe::detail {

namespace {

template <class T>
DeviceBuffer<T> upload(const Exec& exec, const std::vector<T>& host, const char* label) {
  DeviceBuffer<T> b(exec, Index(host.size()), label);
  if (!host.empty()) b.upload(host);
  return b;
}

// Boundary cells owned by sub, with their cells and positions along their side made local.
std::vector<BoundaryCell> owned_cells(const std::vector<BoundaryCell>& all,
                                      const partition::Subdomain& sub) {
  std::vector<BoundaryCell> out;
  for (BoundaryCell c : all) {
    if (!sub.contains(c.i, c.j)) continue;
    const bool vertical = c.side == kWest || c.side == kEast;
    if (c.pos >= 0) c.pos -= vertical ? sub.cells.j0 : sub.cells.i0;
    c.i -= sub.cells.i0;
    c.j -= sub.cells.j0;
    out.push_back(c);
  }
  return out;
}

/// The cross-section edges whose east or north cell the part owns, with cells made local.
std::vector<SectionEdge> owned_edges(const SectionEdges& all, const partition::Subdomain& sub) {
  std::vector<SectionEdge> out;
  for (SectionEdge e : all.edges) {
    if (!sub.contains(e.i, e.j)) continue;
    e.i -= sub.cells.i0;
    e.j -= sub.cells.j0;
    out.push_back(e);
  }
  return out;
}

bool has_neighbours(const partition::Subdomain& sub) {
  for (int d = 0; d < partition::kDirections; ++d)
    if (d != partition::kSelf && sub.neighbour[size_t(d)] >= 0) return true;
  return false;
}

/// n values on the host, zeroed on all threads: a 16.8M-cell grid's set-up spent most of its time
/// faulting in and zeroing such arrays on one thread (std::vector zeroes before it can be filled
/// in parallel).
template <class T>
struct HostArray {
  std::unique_ptr<T[]> v;
  size_t n = 0;
  HostArray() = default;
  explicit HostArray(size_t count) : v(count ? new T[count] : nullptr), n(count) {
    const auto m = static_cast<std::int64_t>(count);
#pragma omp parallel for schedule(static)
    for (std::int64_t k = 0; k < m; ++k) v[size_t(k)] = T(0);
  }
  T& operator[](size_t k) {
    return v[k];
  }
  T* data() const {
    return v.get();
  }
  size_t size() const {
    return n;
  }
  bool empty() const {
    return n == 0;
  }
};

template <class T>
DeviceBuffer<T> upload(const Exec& exec, const HostArray<T>& host, const char* label) {
  DeviceBuffer<T> b(exec, Index(host.size()), label);
  if (!host.empty()) b.upload(host.data(), Index(host.size()));
  return b;
}

/// The initial state of a part on the host: owned cells and the ring, from the scene. The ring
/// holds the neighbours' cells (their initial state, bed, mask and Manning n) and nothing beyond
/// the global edge, as on one device.
template <class T>
struct HostState {
  // Depth h (m), discharges hu, hv (m^2/s), h times concentration hc (m), bed z above z_ref (m),
  // Manning n (s/m^(1/3)).
  HostArray<T> h, hu, hv, hc, z, manning;
  HostArray<std::uint8_t> active;
  size_t owned_active = 0;  // active cells the part owns (not the ring's)
};

template <class T>
HostState<T> host_state(const Scene& s, const Layout& l, const partition::Subdomain& sub, Index nx,
                        Index ny, Index ring) {
  const Index gnx = s.grid.nx, gny = s.grid.ny;
  const size_t n = size_t(Grid2<T>::alloc_size(nx, ny, ring));
  HostState<T> st;
  for (HostArray<T>* a : {&st.h, &st.hu, &st.hv, &st.hc, &st.z}) *a = HostArray<T>(n);
  st.active = HostArray<std::uint8_t>(n);
  if (!s.manning.empty()) st.manning = HostArray<T>(n);
  const Grid2<T> g{st.h.data(), nx, ny, ring};
  std::int64_t owned_active = 0;
  // Rows in parallel: each cell is written once, from the scene's arrays (16.8M cells of a large
  // grid were a second of serial set-up).
#pragma omp parallel for schedule(static) reduction(+ : owned_active)
  for (Index j = -ring; j < ny + ring; ++j)
    for (Index i = -ring; i < nx + ring; ++i) {
      const Index gi = i + sub.cells.i0, gj = j + sub.cells.j0;
      if (gi < 0 || gj < 0 || gi >= gnx || gj >= gny) continue;
      const size_t k = size_t(gj) * size_t(gnx) + size_t(gi);
      if (!l.active[k]) continue;
      if (i >= 0 && j >= 0 && i < nx && j < ny) ++owned_active;
      const size_t o = size_t(g.offset(i, j));
      st.active[o] = 1;
      st.z[o] = T(s.bed[k] - l.z_ref);
      const double d = s.depth[k];
      st.h[o] = T(d);
      if (d > s.dry_depth) {
        if (!s.velocity_x.empty()) st.hu[o] = T(d * s.velocity_x[k]);
        if (!s.velocity_y.empty()) st.hv[o] = T(d * s.velocity_y[k]);
      }
      if (!s.concentration.empty()) st.hc[o] = T(d * s.concentration[k]);
      if (!st.manning.empty()) st.manning[o] = T(s.manning[k]);
    }
  st.owned_active = size_t(owned_active);
  return st;
}

/// The point sources within the part or its ring, with cells made local, ordered by (j, i) (the
/// scene's order within a cell) for first_source().
std::vector<SourceCell> local_sources(const Layout& l, const partition::Subdomain& sub, Index nx,
                                      Index ny, Index ring) {
  std::vector<SourceCell> src;
  for (const SourceCell& sc : l.sources) {
    const Index i = sc.i - sub.cells.i0, j = sc.j - sub.cells.j0;
    if (i >= -ring && j >= -ring && i < nx + ring && j < ny + ring)
      src.push_back(SourceCell{i, j, sc.series, sc.conc, sc.id});
  }
  std::stable_sort(src.begin(), src.end(), [](const SourceCell& a, const SourceCell& b) {
    return a.j < b.j || (a.j == b.j && a.i < b.i);
  });
  return src;
}

template <class T>
void upload_state(Part<T>& p, const HostState<T>& st) {
  const Index n = Index(st.h.size());
  p.active_area = double(st.owned_active) * p.scene->grid.dx * p.scene->grid.dx;
  // Uploaded once; the second state buffer and the maximum depth copied on the device.
  const auto twin = [&](const DeviceBuffer<T>& from, const char* label) {
    DeviceBuffer<T> b(p.exec, from.size(), label);
    silt::detail::copy_bytes(b.data(), p.exec, from.data(), p.exec, from.bytes());
    return b;
  };
  p.h[0] = upload(p.exec, st.h, "swe.h");
  p.hu[0] = upload(p.exec, st.hu, "swe.hu");
  p.hv[0] = upload(p.exec, st.hv, "swe.hv");
  p.hc[0] = upload(p.exec, st.hc, "swe.hc");
  p.h[1] = twin(p.h[0], "swe.h");
  p.hu[1] = twin(p.hu[0], "swe.hu");
  p.hv[1] = twin(p.hv[0], "swe.hv");
  p.hc[1] = twin(p.hc[0], "swe.hc");
  if (p.scene->scheme == Scheme::muscl) {
    p.h[2] = twin(p.h[0], "swe.h_stage");
    p.hu[2] = twin(p.hu[0], "swe.hu_stage");
    p.hv[2] = twin(p.hv[0], "swe.hv_stage");
    p.hc[2] = twin(p.hc[0], "swe.hc_stage");
  }
  p.z = upload(p.exec, st.z, "swe.z");
  p.manning = upload(p.exec, st.manning, "swe.manning");
  p.max_depth = twin(p.h[0], "swe.max_depth");
  p.active = upload(p.exec, st.active, "swe.active");
  p.bk_h = DeviceBuffer<T>(p.exec, n, "swe.checkpoint.h");
  p.bk_hu = DeviceBuffer<T>(p.exec, n, "swe.checkpoint.hu");
  p.bk_hv = DeviceBuffer<T>(p.exec, n, "swe.checkpoint.hv");
  p.bk_hc = DeviceBuffer<T>(p.exec, n, "swe.checkpoint.hc");
  p.bk_max_depth = DeviceBuffer<T>(p.exec, n, "swe.checkpoint.max_depth");
  const Layout& l = *p.layout;
  std::vector<double> c(
      size_t(clock_size(l.n_edge(), Index(l.sources.size()), Index(l.sections.edges.size()))), 0.0);
  c[kTarget] = std::numeric_limits<double>::infinity();
  c[kStopAfter] = std::numeric_limits<double>::infinity();
  c[kGaugeNext] = std::numeric_limits<double>::infinity();
  p.clock = upload(p.exec, c, "swe.clock");
  p.bk_clock = upload(p.exec, c, "swe.checkpoint.clock");
  p.smax = upload(p.exec, std::vector<T>{T(0)}, "swe.smax");
  p.fault = FaultFlags(p.exec);
}

template <class T>
void upload_tables(Part<T>& p, const Layout& l) {
  const size_t n_seg = l.seg_kind.size();
  const size_t n_slots = size_t(l.seg_slot.back());
  p.scalars = upload(p.exec, std::vector<double>(1 + n_seg + n_slots, 0.0), "swe.step_scalars");
  p.conveyance = upload(p.exec, std::vector<double>(n_slots, 0.0), "swe.segment.conveyance");
  p.wet_partial = upload(p.exec, std::vector<int>(n_seg, 0), "swe.segment.wet_partial");
  p.side_seg = upload(p.exec, l.side_seg, "swe.side_segment");
  p.seg_kind = upload(p.exec, l.seg_kind, "swe.segment.kind");
  p.seg_series = upload(p.exec, l.seg_series, "swe.segment.series");
  p.seg_cells = upload(p.exec, l.seg_cells, "swe.segment.cells");
  p.seg_wet = upload(p.exec, std::vector<int>(n_seg, 0), "swe.segment.wet");
  p.seg_conc = upload(p.exec, std::vector<T>(l.seg_conc.begin(), l.seg_conc.end()),
                      "swe.segment.concentration");
  p.seg_value = upload(p.exec, std::vector<T>(n_seg, T(0)), "swe.segment.value");
  p.seg_aux_series = upload(p.exec, l.seg_aux_series, "swe.segment.aux_series");
  p.seg_table = upload(p.exec, l.seg_table, "swe.segment.table");
  p.seg_aux = upload(p.exec, std::vector<T>(n_seg, T(0)), "swe.segment.aux");
  p.seg_slope =
      upload(p.exec, std::vector<T>(l.seg_slope.begin(), l.seg_slope.end()), "swe.segment.slope");
  p.flow_cells = upload(p.exec, owned_cells(l.flow_cells, p.sub), "swe.boundary_cells");
  p.discharge_cells = upload(p.exec, owned_cells(l.discharge_cells, p.sub), "swe.discharge_cells");
  p.rating_cells = upload(p.exec, owned_cells(l.rating_cells, p.sub), "swe.rating_cells");
  p.mask_cells = upload(p.exec, owned_cells(l.mask_cells, p.sub), "swe.mask_cells");
  p.mask_key = upload(p.exec, l.mask_key, "swe.mask_key");
  p.mask_seg = upload(p.exec, l.mask_seg, "swe.mask_segment");
  p.seg_slot = upload(p.exec, l.seg_slot, "swe.segment.slot");
  p.sources = upload(p.exec, local_sources(l, p.sub, p.nx, p.ny, p.ring), "swe.sources");
  p.section_edges = upload(p.exec, owned_edges(l.sections, p.sub), "swe.section_edges");
  std::vector<int> series;
  for (const SourceCell& sc : l.sources) series.push_back(sc.series);
  p.source_series = upload(p.exec, series, "swe.source_series");
  p.series_t = upload(p.exec, l.series_t, "swe.series.t");
  p.series_v = upload(p.exec, l.series_v, "swe.series.value");
  p.series_offset = upload(p.exec, l.series_offset, "swe.series.offset");
}

}  // namespace

template <class T>
Part<T>::Part(const Scene& s, const Layout& l, const partition::Subdomain& sd, int ring_width,
              const Exec& e)
    : scene(&s),
      layout(&l),
      sub(sd),
      nx(sd.nx()),
      ny(sd.ny()),
      ring(ring_width),
      ext(has_neighbours(sd) ? ring_width : 0),
      exec(e) {
  activate(exec);
  upload_state(*this, host_state<T>(s, l, sub, nx, ny, ring));
  upload_tables(*this, l);
  if (!exec.is_cuda()) rows.reserve(nx + 2 * ring, ny + 2 * ring, host_thread_count());
  if (s.hazard.enabled) hazard.allocate(exec, h[0].size());
  forcing.allocate(s, sub, nx, ny, ring, l.active, exec);
}

template <class T>
EdgeView<T> Part<T>::edge_view(int read) const {
  EdgeView<T> e;
  e.h = grid(h[read]);
  e.hu = grid(hu[read]);
  e.hv = grid(hv[read]);
  e.hc = grid(hc[read]);
  e.z = grid(z);
  e.active = Grid2<const std::uint8_t>{active.data(), nx, ny, ring};
  e.nx = nx;
  e.ny = ny;
  e.i0 = sub.cells.i0;
  e.j0 = sub.cells.j0;
  e.gnx = scene->grid.nx;
  e.gny = scene->grid.ny;
  e.ext = ext;
  e.dx = T(scene->grid.dx);
  e.g = T(scene->gravity);
  e.dry = T(scene->dry_depth);
  e.side_seg = side_seg.data();
  e.seg_kind = seg_kind.data();
  e.seg_value = seg_value.data();
  e.seg_conc = seg_conc.data();
  e.seg_wet = seg_wet.data();
  e.seg_cells = seg_cells.data();
  e.seg_aux = seg_aux.data();
  e.seg_slope = seg_slope.data();
  e.seg_table = seg_table.data();
  e.mask_key = mask_key.data();
  e.mask_seg = mask_seg.data();
  e.n_mask = mask_key.size();
  e.manning = manning.size() > 0 ? Grid2<const T>(grid(manning)) : Grid2<const T>{};
  e.series_t = series_t.data();
  e.series_v = series_v.data();
  e.series_offset = series_offset.data();
  return e;
}

template <class T>
SolverView<T> Part<T>::view(int read, int write) const {
  SolverView<T> v;
  v.e = edge_view(read);
  v.h_new = grid(h[write]);
  v.hu_new = grid(hu[write]);
  v.hv_new = grid(hv[write]);
  v.hc_new = grid(hc[write]);
  v.manning = manning.size() > 0 ? Grid2<const T>(grid(manning)) : Grid2<const T>{};
  v.max_depth = grid(max_depth);
  v.clock = const_cast<double*>(clock.data());
  v.smax = const_cast<T*>(smax.data());
  v.fault = FaultView{const_cast<FaultFlags&>(fault).view()};
  v.dx = scene->grid.dx;
  v.cfl = scene->cfl;
  v.max_dt = scene->max_dt;
  v.min_dt = scene->min_dt;
  v.speed_floor = std::sqrt(scene->gravity * scene->dry_depth);  // as on one device
  // muscl_hancock: the predictor rains half the step before the fluxes.
  v.rain_before_fluxes = scene->scheme != Scheme::first_order;
  v.active_area = active_area;
  v.z_ref = layout->z_ref;
  v.series_t = series_t.data();
  v.series_v = series_v.data();
  v.series_offset = series_offset.data();
  v.rain_series = layout->rain_series;
  v.n_seg = int(layout->seg_kind.size());
  v.seg_series = seg_series.data();
  v.seg_value = const_cast<T*>(seg_value.data());
  v.seg_aux_series = seg_aux_series.data();
  v.seg_aux = const_cast<T*>(seg_aux.data());
  v.seg_wet = const_cast<int*>(seg_wet.data());
  v.flow_cells = flow_cells.data();
  v.n_flow_cells = flow_cells.size();
  v.mask_cells = mask_cells.data();
  v.n_mask_cells = mask_cells.size();
  v.discharge_cells = discharge_cells.data();
  v.n_discharge_cells = discharge_cells.size();
  v.rating_cells = rating_cells.data();
  v.n_rating_cells = rating_cells.size();
  v.seg_slot = seg_slot.data();
  v.sources = sources.data();
  v.n_sources = sources.size();
  v.source_series = source_series.data();
  v.n_all_sources = int(source_series.size());
  v.n_edge = layout->n_edge();
  v.forcing = forcing.view(read, write);
  return v;
}

template <class T>
SolverView<T> Part<T>::stage_view(int read) const {
  SolverView<T> v = view(read, 1 - read);
  v.h_new = grid(h[2]);
  v.hu_new = grid(hu[2]);
  v.hv_new = grid(hv[2]);
  v.hc_new = grid(hc[2]);
  return v;
}

template <class T>
SectionFlowView<T> Part<T>::section_view(int read) const {
  SectionFlowView<T> v;
  v.e = edge_view(read);
  v.edges = section_edges.data();
  v.n = section_edges.size();
  v.clock = const_cast<double*>(clock.data());
  v.first = kClockSize + layout->n_edge() + Index(layout->sources.size());
  v.dx = scene->grid.dx;
  return v;
}

template <class T>
void Part<T>::copy_state(int cur, bool to_backup) {
  const DeviceBuffer<T>* live[5] = {&h[cur], &hu[cur], &hv[cur], &hc[cur], &max_depth};
  const DeviceBuffer<T>* back[5] = {&bk_h, &bk_hu, &bk_hv, &bk_hc, &bk_max_depth};
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
  c.clock = to_backup ? clock.data() : bk_clock.data();
  c.clock_out = const_cast<double*>(to_backup ? bk_clock.data() : clock.data());
  c.n = h[0].size();
  c.n_clock = clock.size();
  phase_copy(exec, c);
  hazard.copy(exec, to_backup);
  forcing.copy(cur, to_backup);
}

template <class T>
std::vector<void*> Part<T>::exchanged(int which) {
  return {h[which].data(), hu[which].data(), hv[which].data(), hc[which].data()};
}

template <class T>
void phase_step_scalars(const Part<T>& p, int read) {
  SolverView<T> v = p.view(read, read);
  int* partial = const_cast<int*>(p.wet_partial.data());
  const int n_seg = v.n_seg;
  if (n_seg > 0) {
    parallel_fill(p.exec, "swe.wet_partial.zero", partial, n_seg, 0);
    v.seg_wet = partial;
    if (v.n_discharge_cells > 0) phase_wet_count(p.exec, v);
  }
  const int n_slots = p.layout->seg_slot.back();
  if (n_slots > 0) {
    // Every part sends every slot: zero, but for the rating cells it owns.
    double* slots = const_cast<double*>(p.scalars.data()) + 1 + n_seg;
    parallel_fill(p.exec, "swe.conveyance.zero", slots, n_slots, 0.0);
    if (v.n_rating_cells > 0) phase_conveyance(p.exec, v, slots);
  }
  const T* smax = v.smax;
  double* out = const_cast<double*>(p.scalars.data());
  parallel_for(
      p.exec, "swe.pack_step_scalars", 1, SILT_LAMBDA(Index) {
        out[0] = double(*smax);
        for (int s = 0; s < n_seg; ++s) out[1 + s] = double(partial[s]);
      });
}

template <class T>
void phase_unpack_speed(const Part<T>& p) {
  const double* in = p.scalars.data();
  T* smax = const_cast<T*>(p.smax.data());
  parallel_for(
      p.exec, "swe.unpack_speed", 1, SILT_LAMBDA(Index) { *smax = T(in[0]); });
}

template <class T>
void phase_unpack_wet(const Part<T>& p) {
  const double* in = p.scalars.data();
  int* wet = const_cast<int*>(p.seg_wet.data());
  const int n_seg = int(p.seg_wet.size());
  parallel_for(
      p.exec, "swe.unpack_wet", n_seg, SILT_LAMBDA(Index s) { wet[s] = int(in[1 + s]); });
}

template <class T>
void phase_rating_conveyance(const Part<T>& p, int read, bool coupled) {
  const SolverView<T> v = p.view(read, read);
  double* slots = coupled ? const_cast<double*>(p.scalars.data()) + 1 + v.n_seg
                          : const_cast<double*>(p.conveyance.data());
  if (!coupled && v.n_rating_cells > 0) phase_conveyance(p.exec, v, slots);
  phase_conveyance_sum(p.exec, v, slots);
}

template struct Part<float>;
template struct Part<double>;
#define SILT_SWE_MULTI_PART(T)                              \
  template void phase_step_scalars<T>(const Part<T>&, int); \
  template void phase_unpack_speed<T>(const Part<T>&);      \
  template void phase_unpack_wet<T>(const Part<T>&);        \
  template void phase_rating_conveyance<T>(const Part<T>&, int, bool);
SILT_SWE_MULTI_PART(float)
SILT_SWE_MULTI_PART(double)
#undef SILT_SWE_MULTI_PART

}  // namespace silt::swe::detail
