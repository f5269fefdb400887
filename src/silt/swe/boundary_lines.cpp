// Boundary lines on the model's outer edge and inflow lines across cells (boundary_lines.hpp).
// Geometry in cell units: u = (x - x0) / dx, v = (y - y0) / dx, so cell (i, j) is [i, i + 1] x
// [j, j + 1] and half a cell is 0.5 whatever the coordinates' magnitude.
#include "silt/swe/boundary_lines.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <tuple>

#include "silt/core/error.hpp"

namespace silt::swe {

namespace {

using Pt = std::array<double, 2>;
constexpr double kHalf = 0.5 + 1e-6;  // half a cell, with room for the coordinates' round-off

double dot(Pt a, Pt b) {
  return a[0] * b[0] + a[1] * b[1];
}
double cross(Pt a, Pt b) {
  return a[0] * b[1] - a[1] * b[0];
}
Pt sub(Pt a, Pt b) {
  return Pt{a[0] - b[0], a[1] - b[1]};
}
double norm(Pt a) {
  return std::sqrt(dot(a, a));
}

// Distance from p to segment a-b, and the parameter of the foot of the perpendicular (unclamped).
double segment_distance(Pt p, Pt a, Pt b, double* t_out = nullptr) {
  const Pt d = sub(b, a);
  const double l2 = dot(d, d);
  const double t = l2 > 0 ? dot(sub(p, a), d) / l2 : 0.0;
  if (t_out) *t_out = t;
  const double c = std::clamp(t, 0.0, 1.0);
  return norm(sub(p, Pt{a[0] + c * d[0], a[1] + c * d[1]}));
}

class Line {
 public:
  Line(const Grid& g, const std::vector<std::array<double, 2>>& points, std::string what)
      : g_(g), what_(std::move(what)) {
    if (points.size() < 2)
      fail(fmt::format("has {} point{}; a line needs at least 2", points.size(),
                       points.size() == 1 ? "" : "s"));
    for (const auto& p : points) {
      if (!std::isfinite(p[0]) || !std::isfinite(p[1]))
        fail(fmt::format("has a point that is not finite ({}, {})", p[0], p[1]));
      const Pt q{(p[0] - g.x0) / g.dx, (p[1] - g.y0) / g.dx};
      if (pts_.empty() || q != pts_.back()) pts_.push_back(q);  // repeated points: one
    }
    if (pts_.size() < 2) fail("has all its points at one place; a line needs length");
    check_crossings();
  }

  [[noreturn]] void fail(const std::string& why) const { throw Error(what_ + " " + why); }
  const std::vector<Pt>& pts() const { return pts_; }
  double x(double u) const { return g_.x0 + u * g_.dx; }
  double y(double v) const { return g_.y0 + v * g_.dx; }

  /// Points along the line at most a quarter cell apart, its vertices among them.
  std::vector<Pt> samples() const {
    std::vector<Pt> out{pts_.front()};
    for (size_t k = 1; k < pts_.size(); ++k) {
      const Pt a = pts_[k - 1], d = sub(pts_[k], a);
      const int n = int(std::ceil(norm(d) * 4.0));
      for (int s = 1; s <= n; ++s) out.push_back(Pt{a[0] + d[0] * s / n, a[1] + d[1] * s / n});
    }
    return out;
  }

 private:
  // Two segments that are not neighbours meet, or neighbours double back along each other.
  void check_crossings() const {
    const size_t n = pts_.size() - 1;
    const bool closed = pts_.front() == pts_.back();
    for (size_t a = 0; a < n; ++a)
      for (size_t b = a + 1; b < n; ++b) {
        const Pt p0 = pts_[a], p1 = pts_[a + 1], q0 = pts_[b], q1 = pts_[b + 1];
        const Pt d = sub(p1, p0), e = sub(q1, q0);
        if (b == a + 1 || (closed && a == 0 && b == n - 1)) {
          // Sharing a vertex: a crossing only if they run back along each other.
          if (std::fabs(cross(d, e)) <= 1e-12 * norm(d) * norm(e) && dot(d, e) < 0)
            report(a, b, b == a + 1 ? p1 : p0);
          continue;
        }
        const double o1 = cross(d, sub(q0, p0)), o2 = cross(d, sub(q1, p0));
        const double o3 = cross(e, sub(p0, q0)), o4 = cross(e, sub(p1, q0));
        const bool proper = ((o1 > 0) != (o2 > 0)) && ((o3 > 0) != (o4 > 0)) && o1 != 0 &&
                            o2 != 0 && o3 != 0 && o4 != 0;
        if (proper) {
          const double t = cross(sub(q0, p0), e) / cross(d, e);
          report(a, b, Pt{p0[0] + t * d[0], p0[1] + t * d[1]});
        }
        // Touching or overlapping: a point of one within round-off of the other.
        const double eps = 1e-9;
        for (const auto& [p, s0, s1] : {std::tuple{q0, p0, p1}, std::tuple{q1, p0, p1},
                                        std::tuple{p0, q0, q1}, std::tuple{p1, q0, q1}})
          if (segment_distance(p, s0, s1) <= eps) report(a, b, p);
      }
  }
  [[noreturn]] void report(size_t a, size_t b, Pt at) const {
    fail(
        fmt::format("crosses itself: its segments {} and {} (from point {} and from point {}) "
                    "meet at ({}, {})",
                    a, b, a, b, x(at[0]), y(at[1])));
  }

  const Grid& g_;
  std::string what_;
  std::vector<Pt> pts_;  // cell units
};

bool is_active(const Grid& g, const std::vector<std::uint8_t>& active, Index i, Index j) {
  if (i < 0 || j < 0 || i >= g.nx || j >= g.ny) return false;
  return active.empty() || active[size_t(j) * size_t(g.nx) + size_t(i)] != 0;
}

// Edge side of cell (i, j) as a segment in cell units.
std::array<Pt, 2> edge_ends(Index i, Index j, int side) {
  const double u = double(i), v = double(j);
  switch (side) {
    case 0:
      return {Pt{u, v}, Pt{u, v + 1}};
    case 1:
      return {Pt{u + 1, v}, Pt{u + 1, v + 1}};
    case 2:
      return {Pt{u, v}, Pt{u + 1, v}};
    default:
      return {Pt{u, v + 1}, Pt{u + 1, v + 1}};
  }
}

// The sides of active cell (i, j) that face the outside of the model.
template <class F>
void for_outer_edges(const Grid& g, const std::vector<std::uint8_t>& active, Index i, Index j,
                     F&& f) {
  if (!is_active(g, active, i, j)) return;
  const Index di[4] = {-1, 1, 0, 0}, dj[4] = {0, 0, -1, 1};
  for (int s = 0; s < 4; ++s)
    if (!is_active(g, active, i + di[s], j + dj[s])) f(s);
}

// Whether the line runs along the edge: its middle within half a cell of a segment (the foot
// within it) or an inner vertex, the edge within 60 degrees of that segment.
bool runs_along(const std::vector<Pt>& p, const std::array<Pt, 2>& edge) {
  const Pt m{0.5 * (edge[0][0] + edge[1][0]), 0.5 * (edge[0][1] + edge[1][1])};
  const Pt dir = sub(edge[1], edge[0]);  // unit
  const auto parallel = [&](size_t k) {
    const Pt d = sub(p[k + 1], p[k]);
    return std::fabs(dot(dir, d)) >= 0.5 * norm(d);
  };
  for (size_t k = 0; k + 1 < p.size(); ++k) {
    double t;
    const double dist = segment_distance(m, p[k], p[k + 1], &t);
    if (t >= -1e-9 && t <= 1.0 + 1e-9 && dist <= kHalf && parallel(k)) return true;
  }
  for (size_t k = 1; k + 1 < p.size(); ++k)
    if (norm(sub(m, p[k])) <= kHalf && (parallel(k - 1) || parallel(k))) return true;
  return false;
}

// Distance (cell units) from q to the nearest outer edge of the model (infinity: none).
double outer_distance(const Grid& g, const std::vector<std::uint8_t>& active, Pt q, Index reach) {
  double best = INFINITY;
  const Index ci = Index(std::floor(std::clamp(q[0], -1.0, double(g.nx)))),
              cj = Index(std::floor(std::clamp(q[1], -1.0, double(g.ny))));
  for (Index j = std::max<Index>(0, cj - reach); j <= std::min(g.ny - 1, cj + reach); ++j)
    for (Index i = std::max<Index>(0, ci - reach); i <= std::min(g.nx - 1, ci + reach); ++i)
      for_outer_edges(g, active, i, j, [&](int s) {
        const auto e = edge_ends(i, j, s);
        best = std::min(best, segment_distance(q, e[0], e[1]));
      });
  return best;
}

// Distance from q to the nearest outer edge, searching rings of cells twice as wide each time
// until an edge is nearer than the ring's reach (cells beyond it are farther).
double nearest_outer(const Grid& g, const std::vector<std::uint8_t>& active, Pt q) {
  double d = INFINITY;
  for (Index r = 2;; r *= 2) {
    d = outer_distance(g, active, q, r);
    if (d <= double(r) - 1.0 || r > std::max(g.nx, g.ny)) return d;
  }
}

// The line's farthest point from the outer edge, refused when it is more than half a cell away
// (the exact distance for at most 64 of the points that are, spread along the line: a line far off
// a large grid costs no search of the grid per point).
// A vertex more than half a cell outside the grid's rectangle is that far from every outer edge
// too: the farthest such vertex is refused before the line is sampled (a typo such as 1e9 m
// would otherwise ask for four samples a cell all the way there).
void check_on_edge(const Line& line, const Grid& g, const std::vector<std::uint8_t>& active) {
  double worst = 0.0;
  Pt at{0, 0};
  for (const Pt& q : line.pts()) {
    const double out = std::max({-q[0], -q[1], q[0] - double(g.nx), q[1] - double(g.ny)});
    if (out > kHalf && out > worst) worst = out, at = q;
  }
  if (worst > 0.0) {
    worst = nearest_outer(g, active, at);
  } else {
    std::vector<Pt> off;
    for (const Pt& q : line.samples())
      if (outer_distance(g, active, q, 1) > kHalf) off.push_back(q);
    const size_t stride = (off.size() + 63) / 64;
    for (size_t k = 0; k < off.size(); k += stride) {
      const double d = nearest_outer(g, active, off[k]);
      if (d > worst) worst = d, at = off[k];
    }
  }
  if (worst == 0.0) return;
  // Inside is decided in cells as doubles: a point far off the grid (1e9 m at dx 2 cm) has a cell
  // index beyond Index's range.
  const bool inside = at[0] >= 0.0 && at[1] >= 0.0 && at[0] < double(g.nx) && at[1] < double(g.ny);
  const Index i = inside ? Index(std::floor(at[0])) : -1,
              j = inside ? Index(std::floor(at[1])) : -1;
  const std::string where = !inside ? "outside the grid"
                            : is_active(g, active, i, j)
                                ? fmt::format("inside the domain, in active cell ({}, {})", i, j)
                                : fmt::format("over inactive (nodata) cell ({}, {})", i, j);
  if (!std::isfinite(worst))
    line.fail(fmt::format("lies on a grid without active cells (point ({}, {}) m)", line.x(at[0]),
                          line.y(at[1])));
  line.fail(fmt::format(
      "runs off the model's outer edge: its point ({}, {}) m, {}, is {:.6g} m from the nearest "
      "edge "
      "between an active cell and the outside of the model; a boundary line must run along that "
      "edge within half a cell ({} m)",
      line.x(at[0]), line.y(at[1]), where, worst * g.dx, 0.5 * g.dx));
}

std::vector<BoundaryEdge> side_edges(const Grid& g, const Boundary& b) {
  std::vector<BoundaryEdge> out;
  const Index len = b.side == Side::west || b.side == Side::east ? g.ny : g.nx;
  for (Index p = std::max<Index>(0, b.begin); p < std::min(b.end, len); ++p) {
    const Index i = b.side == Side::west ? 0 : b.side == Side::east ? g.nx - 1 : p;
    const Index j = b.side == Side::south ? 0 : b.side == Side::north ? g.ny - 1 : p;
    out.push_back(BoundaryEdge{i, j, int(b.side)});
  }
  return out;
}

}  // namespace

std::vector<BoundaryEdge> boundary_edges(const Grid& g, const std::vector<std::uint8_t>& active,
                                         const Boundary& b, size_t index) {
  if (b.line.empty()) return side_edges(g, b);
  const Line line(g, b.line, fmt::format("boundary {} '{}': its line", index, b.name));
  check_on_edge(line, g, active);
  // Candidates: the cells around the line's samples (an edge within half a cell of the line
  // belongs to a cell within one cell of a sample a quarter cell from the foot).
  std::set<std::tuple<Index, Index, int>> taken;  // (j, i, side)
  std::set<std::pair<Index, Index>> seen;
  for (const Pt& q : line.samples()) {
    const Index ci = Index(std::floor(std::clamp(q[0], -2.0, double(g.nx) + 1))),
                cj = Index(std::floor(std::clamp(q[1], -2.0, double(g.ny) + 1)));
    for (Index j = cj - 1; j <= cj + 1; ++j)
      for (Index i = ci - 1; i <= ci + 1; ++i) {
        if (!seen.insert({j, i}).second) continue;
        for_outer_edges(g, active, i, j, [&](int s) {
          if (runs_along(line.pts(), edge_ends(i, j, s))) taken.insert({j, i, s});
        });
      }
  }
  if (taken.empty())
    line.fail(
        "runs along no edge of an active cell: no edge between an active cell and the outside "
        "of the model has its middle within half a cell of the line (a line shorter than half a "
        "cell, or across the edge rather than along it)");
  std::vector<BoundaryEdge> out;
  for (const auto& [j, i, s] : taken) out.push_back(BoundaryEdge{i, j, s});
  return out;
}

std::vector<LineCell> line_cells(const Grid& g, const std::vector<std::uint8_t>& active,
                                 const PointSource& s, size_t index) {
  const Line line(g, s.line, fmt::format("inflow line {} '{}'", index, s.name));
  std::map<std::pair<Index, Index>, double> length;  // (j, i): cell units
  const std::vector<Pt>& p = line.pts();
  for (size_t k = 1; k < p.size(); ++k) {
    const Pt a = p[k - 1], d = sub(p[k], a);
    // The parameters where the segment crosses a grid line, then each piece's cell.
    std::vector<double> ts{0.0, 1.0};
    for (int c = 0; c < 2; ++c) {
      if (d[c] == 0) continue;
      const double lo = std::min(a[c], a[c] + d[c]), hi = std::max(a[c], a[c] + d[c]);
      const double n_lo = std::max(std::ceil(lo), -1.0),
                   n_hi = std::min(std::floor(hi), double(c == 0 ? g.nx : g.ny) + 1);
      for (double n = n_lo; n <= n_hi; n += 1.0) ts.push_back((n - a[c]) / d[c]);
    }
    std::sort(ts.begin(), ts.end());
    const double len = norm(d);
    for (size_t t = 1; t < ts.size(); ++t) {
      if (!(ts[t] > ts[t - 1])) continue;
      const double tm = 0.5 * (ts[t] + ts[t - 1]);
      const Index i = Index(std::floor(std::clamp(a[0] + tm * d[0], -1.0, double(g.nx))));
      const Index j = Index(std::floor(std::clamp(a[1] + tm * d[1], -1.0, double(g.ny))));
      if (is_active(g, active, i, j)) length[{j, i}] += (ts[t] - ts[t - 1]) * len;
    }
  }
  if (length.empty())
    line.fail(
        fmt::format("crosses no active cell of the grid, which spans x {} to {} m and y {} to "
                    "{} m (a line outside it, or over inactive, nodata cells only)",
                    g.x0, g.x0 + double(g.nx) * g.dx, g.y0, g.y0 + double(g.ny) * g.dx));
  std::vector<LineCell> out;
  for (const auto& [c, l] : length) out.push_back(LineCell{c.second, c.first, l * g.dx});
  return out;
}

namespace {

// The x where the closed polygon p's edges cross the row of centres at v, sorted: the crossing
// number test with half-open edges (an edge counts when exactly one of its ends lies above v), so
// a centre (u, v) lies inside when an odd number of them are greater than u, and a centre on an
// edge shared by two polygons falls in exactly one.
std::vector<double> row_crossings(const std::vector<Pt>& p, double v) {
  std::vector<double> xs;
  for (size_t k = 1; k < p.size(); ++k) {
    const Pt a = p[k - 1], b = p[k];
    if ((a[1] > v) != (b[1] > v)) xs.push_back(a[0] + (v - a[1]) / (b[1] - a[1]) * (b[0] - a[0]));
  }
  std::sort(xs.begin(), xs.end());
  return xs;
}

}  // namespace

std::vector<SourceCellIndex> polygon_cells(const Grid& g, const std::vector<std::uint8_t>& active,
                                           const PointSource& s, size_t index) {
  const std::string what = fmt::format("inflow polygon {} '{}'", index, s.name);
  std::vector<std::array<double, 2>> pts;
  for (const auto& p : s.polygon)
    if (pts.empty() || p != pts.back()) pts.push_back(p);
  if (pts.size() > 1 && pts.front() == pts.back()) pts.pop_back();  // closed by the user
  if (pts.size() < 3)
    throw Error(fmt::format("{} has {} distinct point{}; a polygon needs at least 3", what,
                            pts.size(), pts.size() == 1 ? "" : "s"));
  const double x1 = g.x0 + double(g.nx) * g.dx, y1 = g.y0 + double(g.ny) * g.dx;
  for (size_t k = 0; k < pts.size(); ++k) {
    const auto& p = pts[k];
    if (std::isfinite(p[0]) && std::isfinite(p[1]) &&
        !(p[0] >= g.x0 && p[0] <= x1 && p[1] >= g.y0 && p[1] <= y1))
      throw Error(fmt::format(
          "{} is off the grid: its point {} ({}, {}) m lies outside the grid, which spans x {} "
          "to {} m and y {} to {} m",
          what, k, p[0], p[1], g.x0, x1, g.y0, y1));
  }
  pts.push_back(pts.front());
  const Line ring(g, pts, what);  // finite points, no self-crossing (closed: ends are neighbours)
  const std::vector<Pt>& p = ring.pts();
  double u0 = INFINITY, u1 = -INFINITY, v0 = INFINITY, v1 = -INFINITY;
  for (const Pt& q : p) {
    u0 = std::min(u0, q[0]), u1 = std::max(u1, q[0]);
    v0 = std::min(v0, q[1]), v1 = std::max(v1, q[1]);
  }
  std::vector<SourceCellIndex> out;
  const Index j_lo = std::max<Index>(0, Index(std::floor(v0 - 0.5))),
              j_hi = std::min<Index>(g.ny - 1, Index(std::ceil(v1)));
  const Index i_lo = std::max<Index>(0, Index(std::floor(u0 - 0.5))),
              i_hi = std::min<Index>(g.nx - 1, Index(std::ceil(u1)));
  for (Index j = j_lo; j <= j_hi; ++j) {
    const std::vector<double> xs = row_crossings(p, double(j) + 0.5);
    size_t passed = 0;  // crossings at or left of the centre
    for (Index i = i_lo; i <= i_hi; ++i) {
      const double u = double(i) + 0.5;
      while (passed < xs.size() && !(u < xs[passed])) ++passed;
      if ((xs.size() - passed) % 2 == 1 && is_active(g, active, i, j))
        out.push_back(SourceCellIndex{i, j});
    }
  }
  if (out.empty())
    ring.fail(
        "holds no active cell: no centre of an active cell lies inside it (a polygon smaller "
        "than a cell between the centres, or over inactive, nodata cells only)");
  return out;
}

std::string level_below_ground(const Scene& s, const Boundary& b,
                               const std::vector<BoundaryEdge>& edges) {
  if (b.kind != BoundaryKind::level || b.series.empty() || s.bed.empty()) return {};
  double high = -INFINITY;
  for (double v : b.series.value) high = std::max(high, v);
  const BoundaryEdge* low = nullptr;
  double ground = INFINITY;
  for (const BoundaryEdge& e : edges) {
    if (!is_active(s.grid, s.active, e.i, e.j)) continue;
    const double z = s.bed[size_t(e.j) * size_t(s.grid.nx) + size_t(e.i)];
    if (z < ground) ground = z, low = &e;
  }
  if (!low || high > ground) return {};
  return fmt::format(
      "its highest level, {:.6g} m, is not above the ground of any of its cells (the lowest, "
      "cell ({}, {}), is at {:.6g} m): water can only leave through it, as over a free outfall, "
      "never "
      "enter; if the level is a depth or on another datum, give the water surface elevation on "
      "the bed's datum (for a free outflow \"critical\" says so)",
      high, low->i, low->j, ground);
}

EdgeFall bed_fall_toward_edge(const Scene& s, const std::vector<BoundaryEdge>& edges) {
  EdgeFall f;
  if (s.bed.empty()) return f;
  const Index di[4] = {1, -1, 0, 0}, dj[4] = {0, 0, 1, -1};  // inward, by SideCode's order
  const auto z = [&](Index i, Index j) {
    return s.bed[size_t(j) * size_t(s.grid.nx) + size_t(i)];
  };
  double sum = 0;
  for (const BoundaryEdge& e : edges) {
    const Index ii = e.i + di[e.side], ij = e.j + dj[e.side];
    if (!is_active(s.grid, s.active, e.i, e.j) || !is_active(s.grid, s.active, ii, ij)) continue;
    sum += (z(ii, ij) - z(e.i, e.j)) / s.grid.dx;
    ++f.cells;
  }
  if (f.cells) f.slope = sum / double(f.cells);
  return f;
}

std::string open_on_falling_bed(const Scene& s, const Boundary& b,
                                const std::vector<BoundaryEdge>& edges) {
  if (b.kind != BoundaryKind::open) return {};
  const EdgeFall f = bed_fall_toward_edge(s, edges);
  if (!(f.slope > kOpenEdgeFallWarn)) return {};
  const double pct = 100.0 * f.slope;
  return fmt::format(
      "(open) lies on a bed falling {} toward the edge (the mean over its {} edge cell{} of the "
      "bed one cell inside less the bed at the edge, over dx): an open edge holds back a "
      "subcritical outflow (a pond forms, less water leaves); for an outlet use \"type\": "
      "\"normal_depth\" with \"slope\": {:.2g}, or \"critical\" (docs/scenes-swe.md, boundaries)",
      pct >= 1.0 ? fmt::format("{:.1f}%", pct) : fmt::format("{:.2f}%", pct), f.cells,
      f.cells == 1 ? "" : "s", f.slope);
}

size_t boundary_source_slots(const Scene& s) {
  const Grid& g = s.grid;
  size_t n = size_t(2 * (g.nx + g.ny));
  std::set<std::tuple<Index, Index, int>> mask;  // an edge is one slot, whichever boundary
  for (size_t k = 0; k < s.boundaries.size(); ++k)
    for (const BoundaryEdge& e : boundary_edges(g, s.active, s.boundaries[k], k)) {
      const bool global = (e.side == 0 && e.i == 0) || (e.side == 1 && e.i == g.nx - 1) ||
                          (e.side == 2 && e.j == 0) || (e.side == 3 && e.j == g.ny - 1);
      if (!global) mask.insert({e.i, e.j, e.side});
    }
  n += mask.size();
  for (size_t k = 0; k < s.sources.size(); ++k) {
    const PointSource& p = s.sources[k];
    n += !p.polygon.empty() ? polygon_cells(g, s.active, p, k).size()
         : !p.line.empty()  ? line_cells(g, s.active, p, k).size()
                            : 1;
  }
  return n;
}

}  // namespace silt::swe
