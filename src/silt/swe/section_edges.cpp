// Cross sections laid on the grid once, at set-up (host): the cell edges a polyline crosses, each
// with the sign of the flow toward the line's left. The io reader calls it to check a scene's lines;
// the per-step accumulation is sections.cpp's phase.
#include "silt/swe/sections.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "silt/core/error.hpp"

namespace silt::swe {

namespace {

using EdgeKey = std::tuple<Index, Index, int>;  // j, i, dir: the edges' order

// The integers n with lo < n <= hi within [first, last] (a half-open rule: a line through a
// vertex shared by two of its segments counts the crossing there once).
void crossings(double lo, double hi, Index first, Index last, Index& from, Index& to) {
  const double a = std::max(std::floor(lo) + 1.0, double(first));
  const double b = std::min(std::floor(hi), double(last));
  from = Index(a);
  to = a <= b ? Index(b) : from - 1;
}

// The crossings of the segment (u0, v0) -> (u1, v1) in cell-centre units (cell (i, j)'s centre at
// (i, j)) with the lines between neighbouring centres, added to `crossed`.
void add_segment(double u0, double v0, double u1, double v1, Index nx, Index ny,
                 std::map<EdgeKey, int>& crossed) {
  Index from, to;
  if (u1 != u0) {  // passes u = a between centres (a, b) and (a, b + 1): a south-north edge
    crossings(std::min(u0, u1), std::max(u0, u1), 0, nx - 1, from, to);
    for (Index a = from; a <= to; ++a) {
      const double v = v0 + (double(a) - u0) / (u1 - u0) * (v1 - v0);
      const double b = std::floor(v);
      if (b < 0.0 || b + 1.0 > double(ny - 1)) continue;
      crossed[EdgeKey{Index(b) + 1, a, 1}] += u1 > u0 ? 1 : -1;  // left of eastward: north
    }
  }
  if (v1 != v0) {  // passes v = c between centres (a, c) and (a + 1, c): a west-east edge
    crossings(std::min(v0, v1), std::max(v0, v1), 0, ny - 1, from, to);
    for (Index c = from; c <= to; ++c) {
      const double u = u0 + (double(c) - v0) / (v1 - v0) * (u1 - u0);
      const double a = std::floor(u);
      if (a < 0.0 || a + 1.0 > double(nx - 1)) continue;
      crossed[EdgeKey{c, Index(a) + 1, 0}] += v1 > v0 ? -1 : 1;  // left of northward: west
    }
  }
}

std::string points_text(const CrossSection& s) {
  std::string t;
  for (const auto& p : s.points) t += fmt::format("{}({}, {})", t.empty() ? "" : " ", p[0], p[1]);
  return t;
}

}  // namespace

SectionEdges section_edges(const Grid& grid, const std::vector<std::uint8_t>& active,
                           const std::vector<CrossSection>& sections) {
  SectionEdges out;
  const auto is_active = [&](Index i, Index j) {
    return active.empty() || active[size_t(j * grid.nx + i)] != 0;
  };
  for (const CrossSection& s : sections) {
    const auto fail = [&](const std::string& what) {
      throw Error(fmt::format("cross section '{}' {}", s.name, what));
    };
    if (s.points.size() < 2)
      fail(fmt::format("has {} point{}; a line needs at least 2", s.points.size(),
                       s.points.size() == 1 ? "" : "s"));
    for (const auto& p : s.points)
      if (!std::isfinite(p[0]) || !std::isfinite(p[1]))
        fail(fmt::format("has a point that is not finite ({}, {})", p[0], p[1]));
    std::map<EdgeKey, int> crossed;
    // Cell-centre units, clamped far outside the grid (only crossings inside it count).
    const auto u = [&](double x) {
      return std::clamp((x - grid.x0) / grid.dx - 0.5, -2.0, double(grid.nx) + 1.0);
    };
    const auto v = [&](double y) {
      return std::clamp((y - grid.y0) / grid.dx - 0.5, -2.0, double(grid.ny) + 1.0);
    };
    for (size_t k = 1; k < s.points.size(); ++k) {
      const auto &a = s.points[k - 1], &b = s.points[k];
      add_segment(u(a[0]), v(a[1]), u(b[0]), v(b[1]), grid.nx, grid.ny, crossed);
    }
    if (crossed.empty())
      fail(fmt::format(
          "({}) passes between no two cell centres of the grid, which spans x {} to {} m and y "
          "{} to {} m (a line outside the grid, or within one row or column of cells)",
          points_text(s), grid.x0, grid.x0 + double(grid.nx) * grid.dx, grid.y0,
          grid.y0 + double(grid.ny) * grid.dx));
    const size_t before = out.edges.size();
    for (const auto& [key, weight] : crossed) {
      const auto [j, i, dir] = key;
      const Index il = dir == 0 ? i - 1 : i, jl = dir == 0 ? j : j - 1;
      if (weight == 0 || !is_active(il, jl) || !is_active(i, j)) continue;
      out.edges.push_back(SectionEdge{i, j, dir, weight, Index(out.edges.size())});
    }
    if (out.edges.size() == before)
      fail(
          fmt::format("({}) crosses {} cell edge{}, none between two active cells: water "
                      "cannot pass there (inactive, nodata cells are walls)",
                      points_text(s), crossed.size(), crossed.size() == 1 ? "" : "s"));
    out.offset.push_back(Index(out.edges.size()));
  }
  return out;
}

}  // namespace silt::swe
