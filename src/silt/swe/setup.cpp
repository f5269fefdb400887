#include "silt/swe/setup.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <string>

#include "silt/core/error.hpp"
#include "silt/swe/boundary_lines.hpp"
#include "silt/swe/kernels/boundary_k.hpp"

namespace silt::swe::detail {

namespace {

const char* side_name(Side s) {
  static const char* const names[] = {"west", "east", "south", "north"};  // Side's order
  return names[int(s)];
}

class Checker {
 public:
  explicit Checker(const Scene& s) : s_(s) {}

  [[noreturn]] void fail(const std::string& what) const {
    throw Error(fmt::format("swe scene '{}': {}", s_.name, what));
  }

  void field(const std::vector<double>& f, const char* name, bool required, double lo) const {
    const size_t n = size_t(s_.grid.cells());
    if (f.empty()) {
      if (required) fail(fmt::format("field '{}' is missing ({} values expected)", name, n));
      return;
    }
    if (f.size() != n)
      fail(fmt::format("field '{}' has {} values, expected nx * ny = {} * {} = {}", name, f.size(),
                       s_.grid.nx, s_.grid.ny, n));
    // In parallel (16.8M cells a field on a large grid), then the lowest bad index: the message
    // names the cell a serial scan would.
    const auto cells = static_cast<std::int64_t>(n);
    std::int64_t first = cells;
#pragma omp parallel for schedule(static) reduction(min : first)
    for (std::int64_t k = 0; k < cells; ++k)
      if ((!std::isfinite(f[size_t(k)]) || f[size_t(k)] < lo) && k < first) first = k;
    if (first < cells) {
      const size_t k = size_t(first);
      fail(fmt::format("field '{}' at cell ({}, {}) is {}{}", name, k % s_.grid.nx, k / s_.grid.nx,
                       f[k],
                       std::isfinite(lo) ? fmt::format(" (must be >= {})", lo) : std::string()));
    }
  }

  void series(const Series& se, const std::string& what, bool non_negative) const {
    if (se.t.size() != se.value.size())
      fail(fmt::format("{}: {} times but {} values", what, se.t.size(), se.value.size()));
    for (size_t k = 0; k < se.t.size(); ++k) {
      if (!std::isfinite(se.t[k]) || !std::isfinite(se.value[k]))
        fail(fmt::format("{}: sample {} is not finite", what, k));
      if (k > 0 && !(se.t[k] > se.t[k - 1]))
        fail(fmt::format("{}: times must increase strictly (sample {} at t = {} s)", what, k,
                         se.t[k]));
      if (non_negative && se.value[k] < 0)
        fail(fmt::format("{}: sample {} is {} (must be >= 0)", what, k, se.value[k]));
    }
  }

 private:
  const Scene& s_;
};

[[noreturn]] void fail_rating_row(const Checker& check, const std::string& what, const Series& r,
                                  size_t k, const char* why) {
  check.fail(fmt::format("{}: rating row {} (stage {} m, discharge {} m^3/s): {}", what, k, r.t[k],
                         r.value[k], why));
}

int add_series(Layout& l, const Series& s) {
  l.series_t.insert(l.series_t.end(), s.t.begin(), s.t.end());
  l.series_v.insert(l.series_v.end(), s.value.begin(), s.value.end());
  l.series_offset.push_back(int(l.series_t.size()));
  return int(l.series_offset.size()) - 2;
}

/// The grid, the per-cell fields (sizes, and finite values within their bounds) and the scalar
/// parameters, in that order.
void check_scene(const Checker& check, const Scene& s) {
  const Grid& g = s.grid;
  if (g.nx <= 0 || g.ny <= 0)
    check.fail(fmt::format("grid is {} x {} cells (both must be > 0)", g.nx, g.ny));
  if (double(g.nx) * double(g.ny) > 2.0e9)
    check.fail(fmt::format("grid of {} x {} cells is too large for one device", g.nx, g.ny));
  if (!(g.dx > 0) || !std::isfinite(g.dx)) check.fail(fmt::format("dx = {} m (must be > 0)", g.dx));
  if (!std::isfinite(g.x0) || !std::isfinite(g.y0)) check.fail("grid origin is not finite");
  const double inf = -std::numeric_limits<double>::infinity();
  check.field(s.bed, "bed", true, inf);
  check.field(s.depth, "depth", true, 0.0);
  check.field(s.velocity_x, "velocity_x", false, inf);
  check.field(s.velocity_y, "velocity_y", false, inf);
  check.field(s.manning, "manning", false, 0.0);
  check.field(s.concentration, "concentration", false, 0.0);
  const size_t n = size_t(g.cells());
  if (!s.active.empty() && s.active.size() != n)
    check.fail(fmt::format("field 'active' has {} values, expected {}", s.active.size(), n));
  if (!(s.gravity > 0) || !std::isfinite(s.gravity))
    check.fail(fmt::format("gravity = {} m/s^2 (must be > 0)", s.gravity));
  if (!(s.cfl > 0 && s.cfl <= 0.5))
    check.fail(fmt::format("cfl = {} (the first-order 2D scheme needs 0 < cfl <= 0.5)", s.cfl));
  if (!(s.dry_depth > 0) || !std::isfinite(s.dry_depth))
    check.fail(fmt::format("dry_depth = {} m (must be > 0)", s.dry_depth));
  if (!(s.max_dt > 0)) check.fail(fmt::format("max_dt = {} s (must be > 0)", s.max_dt));
  if (!(s.min_dt >= 0) || !std::isfinite(s.min_dt))
    check.fail(fmt::format("min_dt = {} s (must be >= 0)", s.min_dt));
}

/// The active mask, the reference bed level (the lowest active bed) and the active area.
void add_active_cells(const Checker& check, const Scene& s, Layout& l) {
  const size_t n = size_t(s.grid.cells());
  l.active.assign(n, 1);
  const auto cells = static_cast<std::int64_t>(n);
  std::int64_t n_active = 0;
  double zmin = std::numeric_limits<double>::infinity();
#pragma omp parallel for schedule(static) reduction(+ : n_active) reduction(min : zmin)
  for (std::int64_t k = 0; k < cells; ++k) {
    const bool on = s.active.empty() || s.active[size_t(k)] != 0;
    l.active[size_t(k)] = on;
    if (on) {
      ++n_active;
      zmin = std::min(zmin, s.bed[size_t(k)]);
    }
  }
  if (n_active == 0) check.fail("no active cell");
  l.z_ref = zmin;
  l.active_area = double(n_active) * s.grid.dx * s.grid.dx;
}

/// The data of the kinds after level: a supercritical inflow's depth or velocity (> 0), a normal
/// depth's slope (> 0) over cells with Manning n > 0, a rating table with stages increasing
/// strictly and discharges >= 0 that never decrease.
void check_flow_boundary(const Checker& check, const Scene& s, const Boundary& bd,
                         const std::vector<BoundaryEdge>& edges, const std::string& what) {
  const Grid& g = s.grid;
  if (bd.kind == BoundaryKind::inflow_depth || bd.kind == BoundaryKind::inflow_velocity) {
    const char* name = bd.kind == BoundaryKind::inflow_depth ? "depth" : "velocity";
    if (bd.aux.empty()) check.fail(fmt::format("{}: needs a {} series", what, name));
    check.series(bd.aux, fmt::format("{} ({})", what, name), false);
    for (size_t k = 0; k < bd.aux.value.size(); ++k)
      if (!(bd.aux.value[k] > 0))
        check.fail(fmt::format("{}: {} sample {} (t = {} s) is {} (must be > 0)", what, name, k,
                               bd.aux.t[k], bd.aux.value[k]));
    for (size_t k = 0; k < bd.series.value.size(); ++k)
      if (!(bd.series.value[k] > 0))
        check.fail(
            fmt::format("{}: discharge sample {} (t = {} s) is {} (a supercritical inflow "
                        "needs > 0)",
                        what, k, bd.series.t[k], bd.series.value[k]));
  }
  if (bd.kind == BoundaryKind::normal_depth) {
    if (!(bd.slope > 0) || !std::isfinite(bd.slope))
      check.fail(fmt::format("{}: slope {} (must be > 0)", what, bd.slope));
    for (const BoundaryEdge& e : edges) {
      const Index i = e.i, j = e.j;
      const size_t k = size_t(j) * size_t(g.nx) + size_t(i);
      if (!s.active.empty() && !s.active[k]) continue;
      if (s.manning.empty() || !(s.manning[k] > 0))
        check.fail(fmt::format("{}: normal depth needs Manning n > 0, cell ({}, {}) has {}", what,
                               i, j, s.manning.empty() ? 0.0 : s.manning[k]));
    }
  }
  if (bd.kind == BoundaryKind::rating) {
    // The table's Q is shared by conveyance h^(5/3) / n: n > 0 in every active cell, or a
    // frictionless segment (n = 0 in all, shared by h^(5/3)); a mix has no meaning.
    const BoundaryEdge* rough = nullptr;
    const BoundaryEdge* smooth = nullptr;
    for (const BoundaryEdge& e : edges) {
      const size_t k = size_t(e.j) * size_t(g.nx) + size_t(e.i);
      if (!s.active.empty() && !s.active[k]) continue;
      (!s.manning.empty() && s.manning[k] > 0 ? rough : smooth) = &e;
    }
    if (rough && smooth) {
      const auto cell = [&](const BoundaryEdge* e) {
        return bd.line.empty() ? fmt::format("cell {}", e->side < kSouth ? e->j : e->i)
                               : fmt::format("cell ({}, {})", e->i, e->j);
      };
      check.fail(fmt::format(
          "{}: the rating's discharge is shared by conveyance h^(5/3) / n, so Manning n must be > "
          "0 in every cell of the segment or 0 in all; {}{} has n > 0, {} has 0",
          what, cell(rough), bd.line.empty() ? " along the side" : "", cell(smooth)));
    }
    const Series& r = bd.rating;
    if (r.t.size() < 2 || r.t.size() != r.value.size())
      check.fail(fmt::format("{}: the stage-discharge table needs at least 2 rows, has {}", what,
                             r.t.size()));
    for (size_t k = 0; k < r.t.size(); ++k) {
      if (!std::isfinite(r.t[k]) || !std::isfinite(r.value[k]) || r.value[k] < 0)
        fail_rating_row(check, what, r, k, "discharge must be finite and >= 0");
      if (k > 0 && !(r.t[k] > r.t[k - 1]))
        fail_rating_row(check, what, r, k, "stages must increase strictly");
      if (k > 0 && r.value[k] < r.value[k - 1])
        fail_rating_row(check, what, r, k, "discharge must not decrease as the stage rises");
    }
  }
}

// The flow slot key of edge e of the grid (edge_key()).
long long key_of(const BoundaryEdge& e, Index nx) {
  const Index i = e.side == kEast ? e.i + 1 : e.i, j = e.side == kNorth ? e.j + 1 : e.j;
  return edge_key(i, j, e.side < kSouth ? 0 : 1, nx);
}

const char* edge_name(int side) {
  static const char* const names[] = {"west", "east", "south", "north"};
  return names[side];
}

/// Boundary segment b: its edges in side_seg or, beside inactive cells inside the grid, in `mask`
/// (each edge belongs to at most one segment; the others are walls), its table entries, and its
/// flow cells (a mask cell's flow slot is set once every mask edge is known).
void add_boundary(const Checker& check, const Scene& s, size_t b, Layout& l,
                  std::map<long long, int>& mask) {
  const Grid& g = s.grid;
  const Boundary& bd = s.boundaries[b];
  const bool vertical = bd.side == Side::west || bd.side == Side::east;
  const Index len = vertical ? g.ny : g.nx;
  const std::string what = bd.line.empty()
                               ? fmt::format("boundary '{}' ({} side, cells {}..{})", bd.name,
                                             side_name(bd.side), bd.begin, bd.end - 1)
                               : fmt::format("boundary {} '{}' (a line)", b, bd.name);
  if (bd.line.empty() && (bd.begin < 0 || bd.end > len || bd.begin >= bd.end))
    check.fail(fmt::format("{}: range [{}, {}) is not within the side's {} cells", what, bd.begin,
                           bd.end, len));
  std::vector<BoundaryEdge> edges;
  try {
    edges = boundary_edges(g, l.active, bd, b);
  } catch (const Error& e) {
    check.fail(e.what());
  }
  const bool needs_series = boundary_has_series(bd.kind);
  if (needs_series && bd.series.empty()) check.fail(what + ": needs a time series");
  check.series(bd.series, what, false);
  check_flow_boundary(check, s, bd, edges, what);
  if (!std::isfinite(bd.concentration) || bd.concentration < 0)
    check.fail(fmt::format("{}: concentration {} (must be >= 0)", what, bd.concentration));
  const int seg = int(l.seg_kind.size());  // == b: one segment per boundary, in order
  const bool rating = bd.kind == BoundaryKind::rating;
  const int first_slot = l.seg_slot.back();
  int cells = 0;
  std::vector<BoundaryCell> flow;
  for (const BoundaryEdge& e : edges) {
    const bool global = (e.side == kWest && e.i == 0) || (e.side == kEast && e.i == g.nx - 1) ||
                        (e.side == kSouth && e.j == 0) || (e.side == kNorth && e.j == g.ny - 1);
    const Index pos = e.side < kSouth ? e.j : e.i;
    const Index base = e.side == kWest    ? 0
                       : e.side == kEast  ? g.ny
                       : e.side == kSouth ? 2 * g.ny
                                          : 2 * g.ny + g.nx;
    int& owner = global ? l.side_seg[size_t(base + pos)] : mask[key_of(e, g.nx)];
    if (global ? owner >= 0 : owner != 0)
      check.fail(
          fmt::format("{} overlaps boundary '{}' (boundary {}) on the {} edge of cell ({}, {})",
                      what, s.boundaries[size_t(global ? owner : owner - 1)].name,
                      global ? owner : owner - 1, edge_name(e.side), e.i, e.j));
    owner = global ? seg : seg + 1;  // mask: 1 + segment until the keys are laid out
    cells += l.active[size_t(e.j) * size_t(g.nx) + size_t(e.i)];
    const int slot = rating ? first_slot + int(flow.size()) : -1;
    flow.push_back(BoundaryCell{e.side, global ? pos : -1, seg, slot, e.i, e.j,
                                global ? base + pos : Index(-1)});
  }
  if (bd.kind != BoundaryKind::wall && bd.kind != BoundaryKind::open &&
      bd.kind != BoundaryKind::level && cells == 0)
    check.fail(what + ": every cell of the segment is inactive");
  l.seg_kind.push_back(int(bd.kind));
  l.seg_series.push_back(bd.series.empty() || !needs_series ? -1 : add_series(l, bd.series));
  const bool supercritical =
      bd.kind == BoundaryKind::inflow_depth || bd.kind == BoundaryKind::inflow_velocity;
  l.seg_aux_series.push_back(supercritical ? add_series(l, bd.aux) : -1);
  Series table = bd.rating;  // stages on the solver's datum (the lowest active bed)
  for (double& st : table.t) st -= l.z_ref;
  l.seg_table.push_back(rating ? add_series(l, table) : -1);
  l.seg_slope.push_back(bd.kind == BoundaryKind::normal_depth ? std::sqrt(bd.slope) : 0.0);
  l.seg_cells.push_back(cells);
  l.seg_conc.push_back(bd.concentration);
  l.seg_slot.push_back(first_slot + (rating ? int(flow.size()) : 0));
  if (bd.kind == BoundaryKind::wall) return;
  for (const BoundaryCell& c : flow) {
    (c.pos >= 0 ? l.flow_cells : l.mask_cells).push_back(c);
    if (bd.kind == BoundaryKind::discharge) l.discharge_cells.push_back(c);
    if (rating) l.rating_cells.push_back(c);
  }
}

/// The mask edges in key order (EdgeView::mask_key) and the flow slots of their cells.
void lay_out_mask(const std::map<long long, int>& mask, Layout& l) {
  for (const auto& [key, seg1] : mask) {
    l.mask_key.push_back(key);
    l.mask_seg.push_back(seg1 - 1);
  }
  const Index first = edge_slots(l.nx, l.ny);
  for (auto* cells : {&l.mask_cells, &l.discharge_cells, &l.rating_cells})
    for (BoundaryCell& c : *cells) {
      if (c.pos >= 0) continue;
      const BoundaryEdge e{c.i, c.j, c.side};
      const auto it = std::lower_bound(l.mask_key.begin(), l.mask_key.end(), key_of(e, l.nx));
      c.flow = first + Index(it - l.mask_key.begin());
    }
}
static_assert(int(BoundaryKind::wall) == kWall && int(BoundaryKind::open) == kOpen &&
                  int(BoundaryKind::discharge) == kDischarge &&
                  int(BoundaryKind::level) == kLevel &&
                  int(BoundaryKind::inflow_depth) == kInflowDepth &&
                  int(BoundaryKind::inflow_velocity) == kInflowVelocity &&
                  int(BoundaryKind::critical) == kCritical &&
                  int(BoundaryKind::normal_depth) == kNormalDepth &&
                  int(BoundaryKind::rating) == kRating,
              "BoundaryCode follows BoundaryKind");
static_assert(int(Side::west) == kWest && int(Side::east) == kEast && int(Side::south) == kSouth &&
                  int(Side::north) == kNorth,
              "SideCode follows Side");

/// Cell (i, j) of source k (a source's id is its flow slot) with its share of the discharge.
void add_source_cell(const PointSource& p, size_t k, Index i, Index j, const Series& q, Layout& l) {
  const int id = int(l.sources.size());
  l.sources.push_back(SourceCell{i, j, add_series(l, q), p.concentration, id});
  l.source_of.push_back(int(k));
}

/// The cells of inflow line or polygon k and each one's share: a line's length in the cell over
/// its whole length; a polygon's cells 1 / N each (equal areas).
std::vector<std::pair<LineCell, double>> source_shares(const Checker& check, const Layout& l,
                                                       const Scene& s, size_t k) {
  const PointSource& p = s.sources[k];
  std::vector<std::pair<LineCell, double>> out;
  try {
    if (!p.polygon.empty()) {
      const auto cells = polygon_cells(s.grid, l.active, p, k);
      for (const SourceCellIndex& c : cells)
        out.push_back({LineCell{c.i, c.j, 0.0}, 1.0 / double(cells.size())});
      return out;
    }
    const auto cells = line_cells(s.grid, l.active, p, k);
    double total = 0.0;
    for (const LineCell& c : cells) total += c.length;
    for (const LineCell& c : cells) out.push_back({c, c.length / total});
  } catch (const Error& e) {
    check.fail(e.what());
  }
  return out;
}

/// Point source k: the active cell it lies on and its discharge series; an inflow line or
/// polygon: each of its active cells, with the discharge times the cell's share.
void add_source(const Checker& check, const Scene& s, size_t k, Layout& l) {
  const Grid& g = s.grid;
  const PointSource& p = s.sources[k];
  const std::string what = p.is_point() ? fmt::format("source '{}' at ({}, {}) m", p.name, p.x, p.y)
                           : p.line.empty() ? fmt::format("inflow polygon {} '{}'", k, p.name)
                                            : fmt::format("inflow line {} '{}'", k, p.name);
  if (p.discharge.empty()) check.fail(what + ": needs a discharge series");
  check.series(p.discharge, what, false);
  if (!std::isfinite(p.concentration) || p.concentration < 0)
    check.fail(fmt::format("{}: concentration {} (must be >= 0)", what, p.concentration));
  if (!p.line.empty() && !p.polygon.empty())
    check.fail(what + ": is both a line and a polygon; give one");
  if (!p.is_point()) {
    for (const auto& [c, share] : source_shares(check, l, s, k)) {
      Series q = p.discharge;
      for (double& v : q.value) v *= share;
      add_source_cell(p, k, c.i, c.j, q, l);
    }
    return;
  }
  const double fi = std::floor((p.x - g.x0) / g.dx), fj = std::floor((p.y - g.y0) / g.dx);
  if (!(fi >= 0 && fi < g.nx && fj >= 0 && fj < g.ny)) check.fail(what + " lies outside the grid");
  const Index i = Index(fi), j = Index(fj);
  if (!l.active[size_t(j) * g.nx + i])
    check.fail(fmt::format("{} lies on inactive cell ({}, {})", what, i, j));
  add_source_cell(p, k, i, j, p.discharge, l);
}

// Rain rasters: one grid of rates (m/s, >= 0) per frame, times increasing strictly; soil fields
// on the grid, finite and >= 0 (Horton: f0 >= fc).
void check_rain_and_soil(const Checker& check, const Scene& s) {
  const RainRaster& r = s.rain;
  if (r.rate.size() != r.t.size())
    check.fail(fmt::format("rain rasters: {} times but {} frames", r.t.size(), r.rate.size()));
  for (size_t k = 0; k < r.t.size(); ++k) {
    const std::string what = fmt::format("rain frame {} (t = {} s)", k, r.t[k]);
    if (!std::isfinite(r.t[k])) check.fail(what + ": time is not finite");
    if (k > 0 && !(r.t[k] > r.t[k - 1]))
      check.fail(what + fmt::format(": times must increase strictly (frame {} is at {} s)", k - 1,
                                    r.t[k - 1]));
    check.field(r.rate[k], what.c_str(), true, 0.0);
  }
  const Infiltration& f = s.infiltration;
  if (!f.enabled()) return;
  const bool horton = f.model == InfiltrationModel::horton;
  check.field(f.a, horton ? "infiltration final rate fc" : "infiltration conductivity Ks", true,
              0.0);
  check.field(f.b, horton ? "infiltration initial rate f0" : "infiltration psi * dtheta", true,
              0.0);
  if (horton) {
    check.field(f.c, "infiltration decay k", true, 0.0);
    for (size_t k = 0; k < f.a.size(); ++k)
      if (f.b[k] < f.a[k])
        check.fail(
            fmt::format("infiltration at cell ({}, {}): initial rate f0 = {} m/s is below "
                        "the final rate fc = {} m/s",
                        k % s.grid.nx, k / s.grid.nx, f.b[k], f.a[k]));
  }
}

}  // namespace

Layout prepare(const Scene& s) {
  const Checker check(s);
  check_scene(check, s);
  Layout l;
  add_active_cells(check, s, l);
  if (!s.rainfall.empty()) {
    check.series(s.rainfall, "rainfall", true);
    l.rain_series = add_series(l, s.rainfall);
  }
  check_rain_and_soil(check, s);
  l.nx = s.grid.nx;
  l.ny = s.grid.ny;
  l.side_seg.assign(size_t(2 * s.grid.ny + 2 * s.grid.nx), -1);
  std::map<long long, int> mask;
  for (size_t b = 0; b < s.boundaries.size(); ++b) add_boundary(check, s, b, l, mask);
  lay_out_mask(mask, l);
  for (size_t k = 0; k < s.sources.size(); ++k) add_source(check, s, k, l);
  try {
    l.sections = section_edges(s.grid, l.active, s.sections);
  } catch (const Error& e) {
    check.fail(e.what());
  }
  return l;
}

}  // namespace silt::swe::detail
