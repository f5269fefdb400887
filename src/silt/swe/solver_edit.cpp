// swe::Solver's changes between steps (solver.hpp): a boundary's or source's series, gravity, the
// rain and the bed, for callers that steer a run (the Python package's setters). A series goes
// into the engine's tables in place; the others build a new engine for the changed scene and
// continue from the state now, as a checkpoint's restart does (the same on CPU and CUDA parts).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <utility>

#include "silt/core/error.hpp"
#include "silt/swe/setup.hpp"
#include "silt/swe/solver_impl.hpp"

namespace silt::swe {

namespace {

// The names of the series set_series() can replace, for messages.
std::string series_names(const Scene& sc) {
  std::string names;
  for (const Boundary& b : sc.boundaries)
    if (boundary_has_series(b.kind)) names += (names.empty() ? "'" : ", '") + b.name + "'";
  for (const PointSource& p : sc.sources) names += (names.empty() ? "'" : ", '") + p.name + "'";
  return names.empty() ? "none" : names;
}

// The series named `name` (one boundary with a series or one point source).
Series& series_named(Scene& sc, const std::string& name) {
  std::vector<Series*> targets;
  for (Boundary& b : sc.boundaries)
    if (b.name == name) {
      if (!boundary_has_series(b.kind))
        throw Error(
            fmt::format("swe scene '{}': set_series: boundary '{}' is a {} boundary, "
                        "which has no series (discharge and level boundaries have one)",
                        sc.name, name, boundary_kind_name(b.kind)));
      targets.push_back(&b.series);
    }
  for (PointSource& p : sc.sources)
    if (p.name == name) targets.push_back(&p.discharge);
  if (targets.empty())
    throw Error(
        fmt::format("swe scene '{}': set_series: no boundary or source is named '{}' (series: {})",
                    sc.name, name, series_names(sc)));
  if (targets.size() > 1)
    throw Error(
        fmt::format("swe scene '{}': set_series: '{}' names several boundaries or sources ({})",
                    sc.name, name, series_names(sc)));
  return *targets.front();
}

// Keeps the water level h + z of each wet cell over a new bed: h' = max(h + z - z', 0), the
// velocity and concentration as they were (hu, hv, hc scaled by h' / h); dry cells stay dry.
void keep_level(Fields& f, const std::vector<double>& z, const std::vector<double>& z_new) {
  for (std::size_t c = 0; c < f.h.size(); ++c) {
    const double h = f.h[c];
    if (!(h > 0)) continue;
    const double h_new = std::max(h + z[c] - z_new[c], 0.0);
    const double r = h_new / h;
    f.h[c] = h_new;
    f.hu[c] *= r;
    f.hv[c] *= r;
    f.hc[c] *= r;
  }
}

}  // namespace

void Solver::Impl::rebuild(const RestartState& s) {
  // Device gauges go on from where they were, with the rows not yet taken.
  const double next = engine->next_gauge();
  std::vector<GaugeRow> rows = engine->take_gauge_rows();
  const StepPeaks peaks = engine->step_peaks();  // empty when not tracking
  engine = detail::make_engine(scene, split, options);
  engine->restore(s);
  if (!gauge_cells.empty() && engine->sample_gauges(gauge_cells, next, gauge_interval))
    pending_rows = std::move(rows);
  if (track_peaks) engine->track_step_peaks(peaks);
}

void Solver::Impl::note_change(std::string what) {
  changed = std::move(what);
  changed_at = engine->clock()[detail::kTime];
}

void Solver::set_series(const std::string& name, const Series& series) {
  Impl& m = *impl_;
  Scene& sc = m.scene;
  Series& target = series_named(sc, name);
  // The scene's own checks (times increasing, finite samples) on the scene with the new series;
  // the tables then hold it in the place of the old, every other index unchanged.
  Series old = std::move(target);
  target = series;
  detail::Layout l;
  try {
    if (series.empty())
      throw Error(fmt::format("swe scene '{}': set_series: '{}': the series has no samples",
                              sc.name, name));
    l = detail::prepare(sc);
  } catch (...) {
    target = std::move(old);
    throw;
  }
  m.engine->set_series(l);
  m.note_change("a series was replaced");
}

void Solver::set_gravity(double g) {
  Impl& m = *impl_;
  if (!(g > 0) || !std::isfinite(g))
    throw Error(fmt::format("swe scene '{}': set_gravity: gravity = {} m/s^2 (must be > 0)",
                            m.scene.name, g));
  const RestartState now = m.current_state();
  if (!m.scene_gravity) m.scene_gravity = m.scene.gravity;
  m.scene.gravity = g;
  m.rebuild(now);
  m.note_change("gravity was set");
}

void Solver::set_rain(const Series& rainfall, const RainRaster& rain) {
  Impl& m = *impl_;
  Scene& sc = m.scene;
  const RestartState now = m.current_state();
  Series old_rainfall = std::exchange(sc.rainfall, rainfall);
  RainRaster old_rain = std::exchange(sc.rain, rain);
  try {
    (void)detail::prepare(sc);  // the scene's checks (rates >= 0, times increasing)
  } catch (...) {
    sc.rainfall = std::move(old_rainfall);
    sc.rain = std::move(old_rain);
    throw;
  }
  m.rebuild(now);
  if (!m.scene_rainfall) m.scene_rainfall = std::move(old_rainfall);
  if (!m.scene_rain) m.scene_rain = std::move(old_rain);
  m.note_change("the rain was set");
}

void Solver::set_bed(const std::vector<double>& bed, BedChange keep) {
  Impl& m = *impl_;
  Scene& sc = m.scene;
  const std::size_t n = std::size_t(sc.grid.cells());
  if (bed.size() != n)
    throw Error(fmt::format("swe scene '{}': set_bed: {} values for a grid of {} x {} cells",
                            sc.name, bed.size(), sc.grid.nx, sc.grid.ny));
  std::vector<double> z = bed;
  for (std::size_t c = 0; c < n; ++c) {
    if (!sc.active.empty() && !sc.active[c]) z[c] = sc.bed[c];  // outside stays outside
    if (!std::isfinite(z[c]))
      throw Error(fmt::format("swe scene '{}': set_bed: the bed is {} at cell (i = {}, j = {})",
                              sc.name, z[c], Index(c) % sc.grid.nx, Index(c) / sc.grid.nx));
  }
  RestartState now = m.current_state();
  if (keep == BedChange::keep_level) keep_level(now.fields, sc.bed, z);
  std::vector<double> old = std::exchange(sc.bed, std::move(z));
  if (!m.scene_bed) m.scene_bed = std::move(old);
  m.rebuild(now);
  m.note_change("the bed was set");
}

}  // namespace silt::swe
