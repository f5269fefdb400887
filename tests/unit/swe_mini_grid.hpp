// A small host-only shallow-water grid for the kernel unit tests: walls all round, every step
// built from the kernel functions alone (edge fluxes with well_balanced_flux_k and
// boundary_edge_flux_k, cell updates with update_cell_k), independent of the solver.
#pragma once

#include <algorithm>
#include <random>
#include <vector>

#include "silt/swe/kernels/bed_source_k.hpp"
#include "silt/swe/kernels/boundary_k.hpp"
#include "silt/swe/kernels/cell_update_k.hpp"
#include "silt/swe/kernels/cfl_k.hpp"
#include "silt/swe/kernels/wet_dry_k.hpp"

namespace silt::swe::mini {

template <class T>
struct MiniGrid {
  int nx, ny;
  T dx;
  std::vector<CellState<T>> u;
  std::vector<T> z;

  MiniGrid(int nx_, int ny_, T dx_)
      : nx(nx_),
        ny(ny_),
        dx(dx_),
        u(size_t(nx_) * ny_, CellState<T>{0, 0, 0, 0}),
        z(size_t(nx_) * ny_, T(0)) {}

  int at(int i, int j) const { return j * nx + i; }

  /// Random bed (0..bed_amplitude), depths, velocities and concentrations; a fraction of the cells
  /// dry.
  void randomise(std::mt19937& rng, double bed_amplitude, double dry_fraction) {
    std::uniform_real_distribution<double> uni(0, 1), vel(-2, 2);
    for (size_t c = 0; c < u.size(); ++c) {
      z[c] = T(bed_amplitude * uni(rng));
      const T h = uni(rng) < dry_fraction ? T(0) : T(0.2 + uni(rng));
      u[c] = CellState<T>{h, T(h * vel(rng)), T(h * vel(rng)), T(h * uni(rng))};
    }
  }
  void set_uniform_concentration(T c) {
    for (auto& s : u) s.hc = s.h * c;
  }
  T total_h() const {
    T s = 0;
    for (const auto& c : u) s += c.h;
    return s;
  }
  T total_hc() const {
    T s = 0;
    for (const auto& c : u) s += c.hc;
    return s;
  }

  EdgeFlux<T> edge(int i, int j, Dir d, T g, T dry) const {
    // Edge between cell (i, j) - e_d and (i, j).
    const int il = d == Dir::x ? i - 1 : i, jl = d == Dir::y ? j - 1 : j;
    const bool has_l = il >= 0 && jl >= 0, has_r = i < nx && j < ny;
    if (has_l && has_r)
      return well_balanced_flux_k(normal_state_k(u[at(il, jl)], d, dry), z[at(il, jl)],
                                  normal_state_k(u[at(i, j)], d, dry), z[at(i, j)], g, dry);
    const int c = has_r ? at(i, j) : at(il, jl);
    return boundary_edge_flux_k(kWall, normal_state_k(u[c], d, dry), z[c], T(0), T(0), g, dry,
                                /*ghost_left=*/has_r);
  }

  /// One step at Courant number cfl; returns the first fault code (kFaultNone when all is well).
  int step(T g, T dry, T cfl) {
    T smax = 0;
    for (const auto& s : u) smax = std::max(smax, wave_speed_k(s.h, s.hu, s.hv, g, dry));
    const T dt = T(cfl_dt_k(smax, dx, cfl, 1e-3));
    std::vector<CellState<T>> next(u.size());
    int fault = kFaultNone;
    for (int j = 0; j < ny; ++j)
      for (int i = 0; i < nx; ++i) {
        CellState<T> s = u[at(i, j)];
        const int code =
            update_cell_k(s, edge(i, j, Dir::x, g, dry), edge(i + 1, j, Dir::x, g, dry),
                          edge(i, j, Dir::y, g, dry), edge(i, j + 1, Dir::y, g, dry),
                          CellUpdateParams<T>{dt / dx, dt, T(0), g, dry, T(0)});
        if (code != kFaultNone && fault == kFaultNone) fault = code;
        next[at(i, j)] = s;
      }
    u.swap(next);
    return fault;
  }
};

}  // namespace silt::swe::mini
