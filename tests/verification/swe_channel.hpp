// Straight channels for the boundary verification (swe_boundaries_test) and the backend and split
// comparisons: nx x kChannelRows cells along x, walls north and south, a plane bed falling at
// `slope` toward the east, uniform Manning n, and the steady uniform-flow (normal) depth.
#pragma once

#include <cmath>
#include <string>

#include "silt/swe/scene.hpp"
#include "swe_scene_builder.hpp"

namespace silt::swe::channel {

constexpr double kG = 9.81;
constexpr Index kChannelRows = 3;

/// Manning's normal depth (m) of unit discharge q (m^2/s) on a wide channel of bed slope s:
/// q = h^(5/3) sqrt(s) / n.
inline double normal_depth(double q, double n, double s) {
  return std::pow(q * n / std::sqrt(s), 0.6);
}

/// The slope whose normal depth is h at unit discharge q.
inline double slope_for(double q, double n, double h) {
  const double r = q * n / std::pow(h, 5.0 / 3.0);
  return r * r;
}

inline double critical_depth(double q) {
  return std::cbrt(q * q / kG);
}

/// A channel of length `length` (m) in nx cells, bed z = slope (length - x), Manning n (0: none),
/// dry unless h0 > 0 (then depth h0 and velocity u0 everywhere).
inline Scene make_channel(const std::string& name, Index nx, double length, double slope, double n,
                          Precision p, double h0 = 0.0, double u0 = 0.0) {
  Scene s = scenes::make_scene(name, nx, kChannelRows, length / double(nx), p);
  s.velocity_x.assign(s.depth.size(), 0.0);
  scenes::for_cells(s, [&](Index, Index, double x, double, size_t k) {
    s.bed[k] = slope * (length - x);
    s.depth[k] = h0;
    s.velocity_x[k] = h0 > 0 ? u0 : 0.0;
  });
  if (n > 0) s.manning.assign(s.depth.size(), n);
  return s;
}

/// A boundary over the whole west or east side.
inline Boundary side(const std::string& name, Side sd, BoundaryKind kind, Series series = {}) {
  Boundary b;
  b.name = name;
  b.side = sd;
  b.begin = 0;
  b.end = kChannelRows;
  b.kind = kind;
  b.series = std::move(series);
  return b;
}

/// A compound channel with a rating-curve outflow (swe_boundaries_test, swe_multi_test): nx x 4
/// cells over 100 m, the bed falling at kSlope toward the east; rows 0-1 a main channel kStep below
/// rows 2-3, a floodplain, Manning n 0.02 and 0.04. In uniform flow the water surface is level
/// across: depth h_plain on the floodplain, h_plain + kStep in the channel, each strip at its own
/// normal unit discharge q = h^(5/3) sqrt(S) / n, which a discharge segment per strip feeds on the
/// west. The east side is one rating segment whose table is the exact Q(stage) of the last column
/// (rows every 1 cm), so only a share by conveyance K = h^(5/3) / n holds the flow uniform up to
/// the edge: an equal share takes ~40 % from the channel's outflow and gives it to the floodplain.
struct CompoundChannel {
  static constexpr double kLength = 100, kSlope = 1e-3, kStep = 0.5;
  static constexpr double kNMain = 0.02, kNPlain = 0.04;
  Scene scene;
  double h_main = 0, h_plain = 0, q_main = 0, q_plain = 0;  // m, m^2/s
};

inline CompoundChannel compound_channel(Index nx, Precision p, double h_plain = 0.6) {
  using C = CompoundChannel;
  CompoundChannel c;
  c.h_plain = h_plain;
  c.h_main = h_plain + C::kStep;
  const auto uniform_q = [](double h, double n) {
    return std::pow(h, 5.0 / 3.0) * std::sqrt(C::kSlope) / n;
  };
  c.q_main = uniform_q(c.h_main, C::kNMain);
  c.q_plain = uniform_q(c.h_plain, C::kNPlain);
  Scene& s = c.scene;
  s = scenes::make_scene("compound", nx, 4, C::kLength / double(nx), p);
  s.velocity_x.assign(s.depth.size(), 0.0);
  s.manning.assign(s.depth.size(), 0.0);
  scenes::for_cells(s, [&](Index, Index j, double x, double, size_t k) {
    const bool main = j < 2;
    s.bed[k] = C::kSlope * (C::kLength - x) - (main ? C::kStep : 0.0);
    s.manning[k] = main ? C::kNMain : C::kNPlain;
    s.depth[k] = main ? c.h_main : c.h_plain;
    s.velocity_x[k] = (main ? c.q_main : c.q_plain) / s.depth[k];
  });
  const double dx = s.grid.dx, z_plain = C::kSlope * dx / 2;  // the last column's floodplain bed
  Series table;
  for (int r = 0; r <= 150; ++r) {
    const double stage = z_plain + 0.01 * r, hp = stage - z_plain, hm = hp + C::kStep;
    table.t.push_back(stage);
    table.value.push_back(2 * dx * (uniform_q(hm, C::kNMain) + uniform_q(hp, C::kNPlain)));
  }
  auto segment = [&](const char* name, Side sd, Index a, Index b, BoundaryKind k, Series q) {
    Boundary bd = side(name, sd, k, std::move(q));
    bd.begin = a;
    bd.end = b;
    return bd;
  };
  Boundary gauge = segment("gauge", Side::east, 0, 4, BoundaryKind::rating, {});
  gauge.rating = table;
  s.boundaries = {segment("main", Side::west, 0, 2, BoundaryKind::discharge,
                          scenes::constant_series(2 * dx * c.q_main)),
                  segment("plain", Side::west, 2, 4, BoundaryKind::discharge,
                          scenes::constant_series(2 * dx * c.q_plain)),
                  gauge};
  return c;
}

/// A 40 m x 30 m basin (nx x ny cells) falling toward the east and north, partly wet, with every
/// flow boundary: a supercritical inflow by depth and one by velocity, a discharge on the west; a
/// normal-depth and a rating outflow on the east; a critical outflow on the north. For comparing
/// backends and splits, not for an analytic answer.
inline Scene flow_boundaries_basin(Precision p, Index nx = 40, Index ny = 30) {
  Scene s = scenes::make_scene("flow_boundaries", nx, ny, 40.0 / double(nx), p);
  scenes::for_cells(s, [&](Index, Index, double x, double y, size_t k) {
    s.bed[k] = 0.02 * (40 - x) + 0.01 * (30 - y) + 0.05 * std::sin(0.4 * x) * std::cos(0.3 * y);
    s.depth[k] = x < 20 ? 0.3 : 0.0;
  });
  s.manning.assign(s.depth.size(), 0.025);
  s.concentration.assign(s.depth.size(), 0.0);
  const double dx = s.grid.dx;
  auto seg = [&](const char* name, Side sd, Index a, Index b, BoundaryKind k, Series q) {
    Boundary bd;
    bd.name = name;
    bd.side = sd;
    bd.begin = a;
    bd.end = b;
    bd.kind = k;
    bd.series = std::move(q);
    return bd;
  };
  Boundary steep =
      seg("steep", Side::west, 2, ny / 3, BoundaryKind::inflow_depth, Series{{0, 4}, {2.0, 3.0}});
  steep.aux = Series{{0, 4}, {0.25, 0.3}};
  steep.concentration = 2.0;
  Boundary jet = seg("jet", Side::west, ny / 3 + 1, ny / 2, BoundaryKind::inflow_velocity,
                     scenes::constant_series(1.5));
  jet.aux = scenes::constant_series(3.0);
  Boundary river = seg("river", Side::west, ny / 2 + 2, ny - 2, BoundaryKind::discharge,
                       Series{{0, 6}, {1.0, 4.0}});
  river.concentration = 1.0;
  Boundary reach = seg("reach", Side::east, 0, ny / 2, BoundaryKind::normal_depth, {});
  reach.slope = 0.02;
  Boundary gauge = seg("gauge", Side::east, ny / 2, ny, BoundaryKind::rating, {});
  gauge.rating = Series{{0.0, 0.3, 1.0}, {0.0, 2.0 * dx, 12.0 * dx}};
  Boundary fall = seg("fall", Side::north, nx / 4, 3 * nx / 4, BoundaryKind::critical, {});
  s.boundaries = {steep, jet, river, reach, gauge, fall};
  return s;
}

}  // namespace silt::swe::channel
