// Small helpers to build shallow-water scenes in tests (unit and verification).
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "silt/swe/scene.hpp"

namespace silt::swe::scenes {

/// A scene of nx x ny cells of size dx with its lower-left corner at (x0, y0), flat bed at 0, dry,
/// walls all round, in the given precision.
inline Scene make_scene(const std::string& name, Index nx, Index ny, double dx, Precision p,
                        double x0 = 0.0, double y0 = 0.0) {
  Scene s;
  s.name = name;
  s.grid = Grid{nx, ny, dx, x0, y0};
  const size_t n = size_t(nx) * size_t(ny);
  s.bed.assign(n, 0.0);
  s.depth.assign(n, 0.0);
  s.precision = p;
  return s;
}

/// Calls f(i, j, x, y, k) for every cell (centre x, y; row-major index k).
inline void for_cells(const Scene& s,
                      const std::function<void(Index, Index, double, double, size_t)>& f) {
  for (Index j = 0; j < s.grid.ny; ++j)
    for (Index i = 0; i < s.grid.nx; ++i)
      f(i, j, s.grid.x0 + (i + 0.5) * s.grid.dx, s.grid.y0 + (j + 0.5) * s.grid.dx,
        size_t(j) * s.grid.nx + i);
}

inline Series constant_series(double v) {
  return Series{{0.0}, {v}};
}

// A 60 m x 40 m sloping basin, partly wet: discharge in on the west, a level on the south, open on
// the east, rain, friction and two point sources (one withdrawing). nx x ny cells (dx = 60 m / nx;
// 30 x 20 by default).
inline Scene forced_basin(Precision p, Index nx = 30, Index ny = 20) {
  Scene s = make_scene("budget", nx, ny, 60.0 / double(nx), p);
  for_cells(s, [&](Index, Index, double x, double y, size_t k) {
    s.bed[k] = 0.01 * x + 0.005 * y;
    s.depth[k] = x < 30 ? 0.5 : 0.0;
  });
  s.concentration.assign(s.depth.size(), 0.1);
  s.manning.assign(s.depth.size(), 0.03);
  Boundary in{"inflow",
              Side::west,
              ny / 4,
              3 * ny / 4,
              BoundaryKind::discharge,
              Series{{0, 10}, {2.0, 6.0}},
              3.0};
  Boundary lvl{"sea", Side::south, 0, nx / 3, BoundaryKind::level, Series{{0, 20}, {0.6, 0.3}},
               0.0};
  Boundary out{"weir", Side::east, 0, ny, BoundaryKind::open, Series{}, 0.0};
  s.boundaries = {in, lvl, out};
  s.rainfall = Series{{0, 5, 10}, {0.0, 1e-4, 0.0}};
  s.sources = {PointSource{"pipe", 20.5, 20.5, constant_series(0.7), 5.0},
               PointSource{"pump", 10.5, 30.5, constant_series(-0.2), 0.0}};
  return s;
}

}  // namespace silt::swe::scenes
