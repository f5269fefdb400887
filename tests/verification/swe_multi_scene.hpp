// A scene that exercises everything a split run must get right at its cuts: an odd-sized grid,
// a bed with a mound, wet and dry cells, inactive cells straddling the middle rows and columns
// (where cuts fall), discharge, level and open boundaries that span several subdomains, rain,
// friction, pollutant, and point sources next to the cuts (so that they lie in halos too).
#pragma once

#include <cmath>
#include <string>

#include "silt/swe/scene.hpp"

namespace silt::swe::multi_test {

inline Series ramp(double t1, double v0, double v1) {
  return Series{{0.0, t1}, {v0, v1}};
}

inline Scene split_basin(Precision p, Index nx = 37, Index ny = 29) {
  Scene s;
  s.name = "split_basin";
  s.grid = Grid{nx, ny, 2.0, 100.0, 200.0};
  const size_t n = size_t(nx) * size_t(ny);
  s.bed.assign(n, 0.0);
  s.depth.assign(n, 0.0);
  s.velocity_x.assign(n, 0.0);
  s.velocity_y.assign(n, 0.0);
  s.concentration.assign(n, 0.0);
  s.manning.assign(n, 0.025);
  s.active.assign(n, 1);
  for (Index j = 0; j < ny; ++j)
    for (Index i = 0; i < nx; ++i) {
      const size_t k = size_t(j) * size_t(nx) + size_t(i);
      const double x = (i + 0.5) / nx, y = (j + 0.5) / ny;
      // A mound in the middle, a slope to the east; 12 m above sea level (float keeps digits
      // through the solver's datum shift).
      s.bed[k] =
          12.0 + 0.4 * x + 0.8 * std::exp(-40.0 * ((x - 0.5) * (x - 0.5) + (y - 0.5) * (y - 0.5)));
      // A dam break: a deep reservoir in the south-west, a thin sheet and dry land elsewhere.
      s.depth[k] = (x < 0.35 && y < 0.6) ? 1.5 : (x > 0.7 ? 0.0 : 0.05);
      if (s.depth[k] > 0) s.velocity_y[k] = 0.3 * std::sin(6.0 * x);
      s.concentration[k] = x < 0.2 ? 2.0 : 0.0;
      // Inactive cells: an island across the middle row and column, and a notch on the west edge.
      if (std::abs(j - ny / 2) <= 1 && i > nx / 3 && i < nx / 3 + 5) s.active[k] = 0;
      if (std::abs(i - nx / 2) <= 1 && j > ny / 4 && j < ny / 4 + 3) s.active[k] = 0;
      if (i == 0 && j >= 2 && j < 4) s.active[k] = 0;
    }
  s.boundaries = {
      Boundary{"river", Side::west, 5, ny - 3, BoundaryKind::discharge, ramp(6.0, 4.0, 9.0), 3.0},
      Boundary{"sea", Side::south, nx / 2, nx, BoundaryKind::level, ramp(8.0, 12.5, 12.2), 0.5},
      Boundary{"weir", Side::east, 0, ny, BoundaryKind::open, Series{}, 0.0},
      Boundary{"gap", Side::north, 2, nx / 2 + 3, BoundaryKind::open, Series{}, 0.0}};
  s.rainfall = Series{{0, 3, 6}, {0.0, 2e-3, 0.0}};
  const double xm = s.grid.x0 + s.grid.dx * (nx / 2 + 0.5),
               ym = s.grid.y0 + s.grid.dx * (ny / 2 + 0.5);
  s.sources = {
      PointSource{"pipe", xm - 6 * s.grid.dx, ym + 2 * s.grid.dx, Series{{0.0}, {0.8}}, 5.0},
      PointSource{"pump", xm + 4 * s.grid.dx, ym - s.grid.dx, Series{{0.0}, {-0.3}}, 0.0},
      PointSource{"drain", s.grid.x0 + 3 * s.grid.dx, ym, Series{{0.0}, {-0.1}}, 0.0}};
  s.precision = p;
  return s;
}

/// Velocities of 1e30 m/s in a 6 x 4 patch at the north-west corner: they overflow float in the
/// momentum flux there (a NaN fault in the subdomain holding the north strip).
inline void make_north_strip_overflow(Scene& s) {
  const Index nx = s.grid.nx, ny = s.grid.ny;
  for (Index j = ny - 4; j < ny; ++j)
    for (Index i = 0; i < 6; ++i) {
      const size_t k = size_t(j) * size_t(nx) + size_t(i);
      s.depth[k] = 1.0;
      s.velocity_x[k] = 1e30;
    }
  s.min_dt = 0;
}

}  // namespace silt::swe::multi_test
