// A run continued from a saved state (swe::Solver::restore): each part takes its owned cells and
// the halo ring around them from the global fields, so any split continues any other; the clock
// is as it was and the wave speed of the next dt is recomputed from the cells (phase_cfl over the
// same cells gives the value the last step left: a maximum, exact in any order).
#include <fmt/format.h>

#include <limits>

#include "silt/core/error.hpp"
#include "silt/swe/engine_parts.hpp"

namespace silt::swe::detail {

namespace {

/// b's cells that lie in the global grid (owned and halo) set from the global field g, the ring
/// beyond the global edge kept as it was.
template <class U, class T>
void place(DeviceBuffer<U>& b, const Part<T>& p, const std::vector<double>& g, Index gnx,
           Index gny) {
  std::vector<U> all = b.download();
  const Grid2<U> v{all.data(), p.nx, p.ny, p.ring};
  for (Index j = -p.ring; j < p.ny + p.ring; ++j)
    for (Index i = -p.ring; i < p.nx + p.ring; ++i) {
      const Index gi = i + p.sub.cells.i0, gj = j + p.sub.cells.j0;
      if (gi < 0 || gj < 0 || gi >= gnx || gj >= gny) continue;
      v(i, j) = U(g[size_t(gj) * size_t(gnx) + size_t(gi)]);
    }
  b.upload(all);
}

}  // namespace

// The subdomain that owns the cell of flow slot k (Totals::flows: the edge cells of the global
// grid, west, east, south, north, then the mask edges of boundary lines, owned by their active
// cell, then the point sources' and inflow lines' cells, then the cross-section edges, owned by
// their east or north cell).
template <class T>
int Engine<T>::flow_owner(size_t k) const {
  const Index nx = scene_.grid.nx, ny = scene_.grid.ny, e = Index(k);
  const Index n_edge = layout_.n_edge();
  Index i, j;
  if (e < 2 * ny) {
    i = e < ny ? 0 : nx - 1;
    j = e % ny;
  } else if (e < edge_slots(nx, ny)) {
    const Index r = e - 2 * ny;
    i = r % nx;
    j = r < nx ? 0 : ny - 1;
  } else if (e < n_edge) {  // a mask edge: its active cell
    const long long key = layout_.mask_key[size_t(e - edge_slots(nx, ny))];
    const int dir = int(key % 2);
    i = Index((key / 2) % (nx + 1));
    j = Index((key / 2) / (nx + 1));
    const Index il = dir == 0 ? i - 1 : i, jl = dir == 0 ? j : j - 1;
    if (!(i < nx && j < ny && layout_.active[size_t(j) * size_t(nx) + size_t(i)])) i = il, j = jl;
  } else if (e < n_edge + Index(layout_.sources.size())) {
    const SourceCell& src = layout_.sources[size_t(e - n_edge)];
    i = src.i;
    j = src.j;
  } else {
    const SectionEdge& s =
        layout_.sections.edges[size_t(e - n_edge - Index(layout_.sources.size()))];
    i = s.i;
    j = s.j;
  }
  return dec_.owner(i, j).id;
}

template <class T>
void Engine<T>::restore(const RestartState& s) {
  const Index nx = scene_.grid.nx, ny = scene_.grid.ny;
  const size_t cells = size_t(nx) * size_t(ny);
  const Fields& f = s.fields;
  if (f.nx != nx || f.ny != ny || f.h.size() != cells || f.hu.size() != cells ||
      f.hv.size() != cells || f.hc.size() != cells || f.max_depth.size() != cells)
    throw Error(fmt::format(
        "swe scene '{}': the state to restore holds a {} x {} grid, the scene {} x {} cells",
        scene_.name, f.nx, f.ny, nx, ny));
  const std::vector<double>* hazard[] = {&f.max_speed,  &f.max_depth_speed, &f.max_concentration,
                                         &f.max_rating, &f.first_wet_time,  &f.wet_duration};
  if (scene_.hazard.enabled)
    for (const auto* v : hazard)
      if (v->size() != cells)
        throw Error(fmt::format(
            "swe scene '{}': the state to restore has no hazard fields (or not {} x {} of them); "
            "the scene accumulates hazard outputs",
            scene_.name, nx, ny));
  if (scene_.infiltration.enabled() && f.infiltration.size() != cells)
    throw Error(fmt::format(
        "swe scene '{}': the state to restore has no infiltration field (or not {} x {} of it); "
        "the scene infiltrates",
        scene_.name, nx, ny));
  fence_all();
  for (auto& p : parts_) {
    activate(p->exec);
    if (scene_.infiltration.enabled())
      for (int b = 0; b < 2; ++b) place(p->forcing.F[b], *p, f.infiltration, nx, ny);
    for (int b = 0; b < 2; ++b) {
      place(p->h[b], *p, f.h, nx, ny);
      place(p->hu[b], *p, f.hu, nx, ny);
      place(p->hv[b], *p, f.hv, nx, ny);
      place(p->hc[b], *p, f.hc, nx, ny);
    }
    place(p->max_depth, *p, f.max_depth, nx, ny);
    if (scene_.hazard.enabled) {
      HazardBuffers<T>& z = p->hazard;
      place(z.max_speed, *p, f.max_speed, nx, ny);
      place(z.max_depth_speed, *p, f.max_depth_speed, nx, ny);
      place(z.max_conc, *p, f.max_concentration, nx, ny);
      place(z.max_rating, *p, f.max_rating, nx, ny);
      place(z.first_wet, *p, f.first_wet_time, nx, ny);
      place(z.wet_time, *p, f.wet_duration, nx, ny);
    }
    std::vector<double> c(p->clock.size(), 0.0);
    c[kTime] = s.time;
    c[kSteps] = double(s.steps);
    c[kTarget] = std::numeric_limits<double>::infinity();
    c[kStopAfter] = std::numeric_limits<double>::infinity();
    c[kGaugeNext] = gauges_.on ? gauges_.next : std::numeric_limits<double>::infinity();
    c[kLastDt] = s.last_dt;
    c[kCflDt] = s.cfl_dt;
    // The inflow is counted per part and summed over all of them (totals()): the first part
    // carries what came in before.
    const bool first = world_.is_root() && p.get() == parts_.front().get();
    c[kInflow] = first ? s.inflow : 0.0;
    c[kRainIn] = first ? s.rain : 0.0;
    // Each flow slot on the part that owns its cell, which goes on adding to it as before.
    for (size_t k = 0; k < s.flows.size() && kClockSize + k < c.size(); ++k)
      if (flow_owner(k) == p->sub.id) c[kClockSize + k] = s.flows[k];
    p->clock.upload(c);
  }
  clock_known_ = false;
  target_on_device_ = std::numeric_limits<double>::infinity();
  stop_after_on_device_ = std::numeric_limits<double>::infinity();
  // The halos were set from the global fields: exchange before the next step.
  exchange_->invalidate();
  update_speed();
  accumulate_step_peaks(/*seed=*/true);  // the next step's discharge from the restored volumes
  fence_all();
}

template void Engine<float>::restore(const RestartState&);
template void Engine<double>::restore(const RestartState&);

}  // namespace silt::swe::detail
