// Unit tests of the shallow-water kernel functions (src/silt/swe/kernels/*_k.hpp), on the host in
// double (and float where the property must hold in the solver's default precision).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "silt/swe/kernels/bed_source_k.hpp"
#include "silt/swe/kernels/boundary_k.hpp"
#include "silt/swe/kernels/cell_update_k.hpp"
#include "silt/swe/kernels/cfl_k.hpp"
#include "silt/swe/kernels/friction_k.hpp"
#include "silt/swe/kernels/infiltration_k.hpp"
#include "silt/swe/kernels/roe_flux_k.hpp"
#include "silt/swe/kernels/series_k.hpp"
#include "silt/swe/kernels/transport_k.hpp"
#include "silt/swe/kernels/wet_dry_k.hpp"
#include "swe_mini_grid.hpp"

namespace silt::swe {
namespace {

constexpr double kG = 9.81;
constexpr double kDry = 1e-6;
// Flux identities that hold exactly in real arithmetic and are evaluated with a few dozen
// operations on O(1) values: a few ulps of the largest term.
constexpr double kRoundoff = 1e-13;

/// Passes when every component of flux `got` is within kRoundoff * scale of `want`; names the
/// sample, the component and both values otherwise.
::testing::AssertionResult same_flux(const Flux<double>& got, const Flux<double>& want,
                                     double scale, int sample) {
  const double g[4] = {got.h, got.un, got.ut, got.c}, w[4] = {want.h, want.un, want.ut, want.c};
  const char* const names[4] = {"h", "un", "ut", "c"};
  for (int m = 0; m < 4; ++m)
    if (!(std::abs(g[m] - w[m]) <= kRoundoff * scale))
      return ::testing::AssertionFailure()
             << "sample " << sample << ": flux." << names[m] << " " << g[m] << " vs " << w[m]
             << " (tolerance " << kRoundoff * scale << ")";
  return ::testing::AssertionSuccess();
}

NormalState<double> random_wet_state(std::mt19937& rng) {
  std::uniform_real_distribution<double> h(0.01, 3.0), u(-6.0, 6.0), c(0.0, 2.0);
  return NormalState<double>{h(rng), u(rng), u(rng), c(rng)};
}

TEST(SweFlux, ConsistentWithThePhysicalFlux) {
  std::mt19937 rng(1);
  for (int k = 0; k < 1000; ++k) {
    const auto s = random_wet_state(rng);
    const auto f = numerical_flux_k(s, s, kG, kDry);
    const auto p = physical_flux_k(s, kG);
    const double scale = 1 + std::abs(p.un);
    ASSERT_TRUE(same_flux(f, p, scale, k));
    // HLLE (the fallback) is consistent as well.
    const auto fh = hlle_flux_k(s, s, kG);
    ASSERT_NEAR(fh.h, p.h, kRoundoff * scale) << "state " << k;
    ASSERT_NEAR(fh.un, p.un, kRoundoff * scale) << "state " << k;
    ASSERT_NEAR(fh.ut, p.ut, kRoundoff * scale) << "state " << k;
  }
}

TEST(SweFlux, YEdgeIsTheRotatedXEdge) {
  // Rotating the plane by +90 degrees maps (u, v) to (-v, u) and an x edge onto a y edge: the mass
  // and normal-momentum fluxes are unchanged and the tangential flux changes sign with ut.
  std::mt19937 rng(2);
  for (int k = 0; k < 1000; ++k) {
    const auto a = random_wet_state(rng), b = random_wet_state(rng);
    const CellState<double> ca{a.h, a.h * a.un, a.h * a.ut, a.h * a.c};
    const CellState<double> cb{b.h, b.h * b.un, b.h * b.ut, b.h * b.c};
    const CellState<double> ra{a.h, -ca.hv, ca.hu, ca.hc}, rb{b.h, -cb.hv, cb.hu, cb.hc};
    const auto fx = numerical_flux_k(normal_state_k(ca, Dir::x, kDry),
                                     normal_state_k(cb, Dir::x, kDry), kG, kDry);
    const auto fy = numerical_flux_k(normal_state_k(ra, Dir::y, kDry),
                                     normal_state_k(rb, Dir::y, kDry), kG, kDry);
    const double scale = 1 + std::abs(fx.un);
    ASSERT_TRUE(same_flux(fy, Flux<double>{fx.h, fx.un, -fx.ut, fx.c}, scale, k));
  }
}

TEST(SweFlux, MirrorImageReversesTheFlux) {
  // Swapping left and right and reversing the normal velocities reverses the mass flux.
  std::mt19937 rng(3);
  for (int k = 0; k < 1000; ++k) {
    const auto a = random_wet_state(rng), b = random_wet_state(rng);
    const auto f = numerical_flux_k(a, b, kG, kDry);
    const NormalState<double> ma{a.h, -a.un, a.ut, a.c}, mb{b.h, -b.un, b.ut, b.c};
    const auto m = numerical_flux_k(mb, ma, kG, kDry);
    const double scale = 1 + std::abs(f.un);
    ASSERT_NEAR(m.h, -f.h, kRoundoff * scale) << "pair " << k;
    ASSERT_NEAR(m.un, f.un, kRoundoff * scale) << "pair " << k;
  }
}

TEST(SweFlux, WhatLeavesOneCellEntersTheOther) {
  // On a flat bed both cells of an edge see the same mass, momentum and pollutant flux (each
  // side's momentum flux is reported without that cell's own pressure g h^2 / 2), so a closed box
  // keeps its water and pollutant to round-off, also over a bed with steps and dry cells.
  std::mt19937 rng(4);
  for (int k = 0; k < 200; ++k) {
    const auto a = random_wet_state(rng), b = random_wet_state(rng);
    const auto e = well_balanced_flux_k(a, 0.3, b, 0.3, kG, kDry);
    const double left = e.un_left + 0.5 * kG * a.h * a.h;
    const double right = e.un_right + 0.5 * kG * b.h * b.h;
    ASSERT_NEAR(left, right, kRoundoff * (1 + std::abs(left))) << "pair " << k;
  }
  mini::MiniGrid<double> grid(12, 9, 1.0);
  grid.randomise(rng, /*bed_amplitude=*/0.5, /*dry_fraction=*/0.2);
  const double mass0 = grid.total_h(), pollutant0 = grid.total_hc();
  for (int step = 0; step < 20; ++step) ASSERT_EQ(grid.step(kG, kDry, 0.45), kFaultNone);
  EXPECT_NEAR(grid.total_h(), mass0, kRoundoff * mass0);
  EXPECT_NEAR(grid.total_hc(), pollutant0, kRoundoff * pollutant0);
}

TEST(SweFlux, EntropyFixBreaksTheStationaryExpansionShock) {
  // L and R satisfy the Rankine-Hugoniot conditions of a stationary jump, but deep-and-slow to
  // shallow-and-fast: an entropy-violating expansion shock (uL - cL < 0 < uR - cR). Plain Roe
  // returns F(L) = F(R) and keeps it forever; the Harten-Hyman fix lets it open into a rarefaction.
  const double hl = 1.0, hr = 0.3;
  const double m = std::sqrt(0.5 * kG * hl * hr * (hl + hr));
  const NormalState<double> L{hl, m / hl, 0, 0}, R{hr, m / hr, 0, 0};
  ASSERT_LT(L.un - std::sqrt(kG * hl), 0.0);
  ASSERT_GT(R.un - std::sqrt(kG * hr), 0.0);
  Flux<double> plain{}, fixed{};
  ASSERT_TRUE(roe_flux_k(L, R, kG, &plain, /*entropy_fix=*/false));
  ASSERT_TRUE(roe_flux_k(L, R, kG, &fixed, /*entropy_fix=*/true));
  EXPECT_NEAR(plain.h, m, kRoundoff * m) << "plain Roe keeps the expansion shock";
  // The fix makes the deep side drain: +55% mass flux for these states (0.763 m^2/s).
  constexpr double kMinimumChange = 0.5;
  EXPECT_GT(fixed.h - m, kMinimumChange) << "fixed " << fixed.h << " plain " << plain.h;
  // Away from sonic points the fix is inactive.
  const NormalState<double> a{1.0, 0.2, 0, 0}, b{0.8, 0.1, 0, 0};
  Flux<double> fa{}, fb{};
  roe_flux_k(a, b, kG, &fa, true);
  roe_flux_k(a, b, kG, &fb, false);
  EXPECT_EQ(fa.h, fb.h);
  EXPECT_EQ(fa.un, fb.un);
}

template <class T>
void check_positivity(unsigned seed) {
  // Random neighbourhoods (wet, thin-film and dry cells, strong rarefactions, bed steps) updated
  // with the CFL time step: depths never go negative beyond round-off (which is clamped).
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> uni(0, 1), vel(-8, 8);
  const T cfl = T(0.45), dx = T(1), g = T(kG), dry = T(1e-5);
  int clamped = 0;
  for (int k = 0; k < 100000; ++k) {
    CellState<T> s[5];
    T z[5];
    T smax = 0;
    for (int c = 0; c < 5; ++c) {
      const double r = uni(rng);
      const T h = r < 0.2 ? T(0) : r < 0.35 ? T(1e-6 * uni(rng)) : T(2 * uni(rng) * uni(rng));
      s[c] = CellState<T>{h, T(h * vel(rng)), T(h * vel(rng)), T(h * uni(rng))};
      dry_out_k(s[c], dry);
      z[c] = uni(rng) < 0.5 ? T(0) : T(uni(rng));
      smax = std::max(smax, wave_speed_k(s[c].h, s[c].hu, s[c].hv, g, dry));
    }
    if (smax == T(0)) continue;
    const T dt = T(cfl_dt_k(smax, dx, cfl, 1e-3));
    // s[0] centre, s[1] west, s[2] east, s[3] south, s[4] north.
    auto ns = [&](int c, Dir d) {
      return normal_state_k(s[c], d, dry);
    };
    const auto w = well_balanced_flux_k(ns(1, Dir::x), z[1], ns(0, Dir::x), z[0], g, dry);
    const auto e = well_balanced_flux_k(ns(0, Dir::x), z[0], ns(2, Dir::x), z[2], g, dry);
    const auto so = well_balanced_flux_k(ns(3, Dir::y), z[3], ns(0, Dir::y), z[0], g, dry);
    const auto n = well_balanced_flux_k(ns(0, Dir::y), z[0], ns(4, Dir::y), z[4], g, dry);
    CellState<T> u = s[0];
    const T raw = u.h - dt / dx * ((e.h - w.h) + (n.h - so.h));
    const int code = update_cell_k(u, w, e, so, n, CellUpdateParams<T>{dt / dx, dt, 0, g, dry, 0});
    ASSERT_EQ(code, kFaultNone) << "neighbourhood " << k << ": depth " << raw;
    ASSERT_GE(u.h, T(0)) << "neighbourhood " << k;
    clamped += raw < T(0);
  }
  // Clamping is for round-off only: it must stay rare.
  EXPECT_LT(clamped, 100) << "negative depths clamped";
}
TEST(SweFlux, DepthsStayNonNegativeUnderTheCflDouble) {
  check_positivity<double>(5);
}
TEST(SweFlux, DepthsStayNonNegativeUnderTheCflFloat) {
  check_positivity<float>(6);
}

TEST(SweTransport, UniformConcentrationStaysUniform) {
  std::mt19937 rng(7);
  constexpr double kC = 0.37;
  for (int k = 0; k < 200; ++k) {
    const auto a = random_wet_state(rng), b = random_wet_state(rng);
    NormalState<double> ca = a, cb = b;
    ca.c = cb.c = kC;
    const auto f = numerical_flux_k(ca, cb, kG, kDry);
    ASSERT_EQ(f.c, f.h * kC) << "pair " << k;
  }
  mini::MiniGrid<double> grid(10, 10, 1.0);
  grid.randomise(rng, 0.4, 0.15);
  grid.set_uniform_concentration(kC);
  for (int step = 0; step < 30; ++step) ASSERT_EQ(grid.step(kG, kDry, 0.45), kFaultNone);
  for (size_t c = 0; c < grid.u.size(); ++c) {
    if (grid.u[c].h <= 1e-3) continue;  // thin films: C = hC / h divides two round-off residues
    ASSERT_NEAR(grid.u[c].hc / grid.u[c].h, kC, 1e-12) << "cell " << c;
  }
}

TEST(SweTransport, ConcentrationStaysWithinItsNeighbourhoodBounds) {
  // With the CFL step a wet cell never sends out more water than it holds, and the new C is a
  // convex combination of its own and its upwind neighbours' C.
  std::mt19937 rng(8);
  mini::MiniGrid<double> grid(16, 16, 1.0);
  grid.randomise(rng, 0.0, 0.0);
  std::uniform_real_distribution<double> uni(0, 1);
  for (auto& s : grid.u) s.hc = s.h * uni(rng);
  for (int step = 0; step < 10; ++step) {
    const auto before = grid.u;
    ASSERT_EQ(grid.step(kG, kDry, 0.45), kFaultNone);
    for (int j = 0; j < grid.ny; ++j)
      for (int i = 0; i < grid.nx; ++i) {
        double lo = 1e300, hi = -1e300;
        for (auto [di, dj] : {std::pair{0, 0}, {-1, 0}, {1, 0}, {0, -1}, {0, 1}}) {
          const int ii = i + di, jj = j + dj;
          if (ii < 0 || jj < 0 || ii >= grid.nx || jj >= grid.ny) continue;
          const auto& b = before[grid.at(ii, jj)];
          lo = std::min(lo, b.hc / b.h);
          hi = std::max(hi, b.hc / b.h);
        }
        const auto& a = grid.u[grid.at(i, j)];
        const double c = a.hc / a.h;
        ASSERT_GE(c, lo - kRoundoff) << "cell " << i << "," << j << " step " << step;
        ASSERT_LE(c, hi + kRoundoff) << "cell " << i << "," << j << " step " << step;
      }
  }
}

TEST(SweBedSource, LakeAtRestStaysAtRestWithDryIslands) {
  // Surface at 1 m over a random bed whose bumps rise above it (dry islands, wet/dry edges and
  // bed steps): every momentum flux cancels exactly and the surface does not move.
  std::mt19937 rng(9);
  std::uniform_real_distribution<double> uni(0, 1);
  constexpr double kEta = 1.0;
  mini::MiniGrid<double> grid(20, 14, 0.5);
  for (int c = 0; c < grid.nx * grid.ny; ++c) {
    grid.z[c] = uni(rng) < 0.2 ? kEta + 0.5 * uni(rng) : 0.9 * kEta * uni(rng);
    grid.u[c] = CellState<double>{std::max(0.0, kEta - grid.z[c]), 0, 0, 0};
  }
  const auto h0 = grid.u;
  for (int step = 0; step < 200; ++step) ASSERT_EQ(grid.step(kG, kDry, 0.45), kFaultNone);
  double max_q = 0, max_dh = 0;
  for (size_t c = 0; c < h0.size(); ++c) {
    max_q = std::max({max_q, std::abs(grid.u[c].hu), std::abs(grid.u[c].hv)});
    max_dh = std::max(max_dh, std::abs(grid.u[c].h - h0[c].h));
  }
  // Depths are kEta - z rounded, so h + z differs between cells by an ulp of kEta; the Roe
  // dissipation turns that into discharges of that order.
  constexpr double kRestTolerance = 1e-14;
  EXPECT_LE(max_q, kRestTolerance);
  EXPECT_LE(max_dh, kRestTolerance);
}

TEST(SweBedSource, ReconstructionNeverDeepensAndSeesTheStep) {
  EXPECT_EQ(reconstructed_depth_k(1.0, 0.3), 0.7);
  EXPECT_EQ(reconstructed_depth_k(1.0, -0.3), 1.0);
  EXPECT_EQ(reconstructed_depth_k(0.2, 0.5), 0.0);
  // Water against a higher dry step feels its full pressure and nothing crosses.
  const NormalState<double> wet{0.4, 0, 0, 0}, dry{0, 0, 0, 0};
  const auto f = well_balanced_flux_k(wet, 0.0, dry, 1.0, kG, kDry);
  EXPECT_EQ(f.h, 0.0);
  EXPECT_EQ(f.un_left, 0.0);  // excludes the cell's own pressure, which balances it exactly
  EXPECT_EQ(f.un_right, 0.0);
}

TEST(SweBedSource, AFilmAboveItsNeighboursSurfaceFeelsTheSlope) {
  // A ~1 mm film on a cell 0.125 m above a neighbour holding 3 cm: the neighbour's surface lies
  // 0.094 m below the film's bed (binary fractions: no round-off in the reconstruction). The
  // hydrostatic reconstruction alone gives the film only its own pressure g h^2 / 2 toward the
  // drop; Chen and Noelle's edge bed adds g h (z - eta_low), the slope force of the step, to the
  // film's side only (the lower cell's flux is unchanged).
  const double hf = 1.0 / 1024, hl = 0.03125, dz = 0.125;
  const NormalState<double> film{hf, 0, 0, 0}, low{hl, 0, 0, 0};
  const auto right = well_balanced_flux_k(low, 0.0, film, dz, kG, kDry);  // film on the right
  const auto left = well_balanced_flux_k(film, dz, low, 0.0, kG, kDry);   // film on the left
  const double push = kG * hf * (dz - hl);
  // Without the push: the flux of the film against a dry state, less the film's own pressure.
  const Flux<double> f = numerical_flux_k(NormalState<double>{0, 0, 0, 0}, film, kG, kDry);
  EXPECT_NEAR(right.un_right, f.un - 0.5 * kG * hf * hf - push, 1e-15);
  EXPECT_EQ(right.un_left, f.un);                    // the lower cell's reconstructed depth is 0
  EXPECT_NEAR(left.un_left, right.un_right, 1e-15);  // mirror image (un is even, h odd)
  EXPECT_EQ(left.h, -right.h);
  // A surface at or above both beds (a lake at rest, a wet step) gets no push.
  const NormalState<double> deep{0.25, 0, 0, 0}, shallow{0.125, 0, 0, 0};
  const auto lake = well_balanced_flux_k(deep, 0.0, shallow, dz, kG, kDry);
  EXPECT_EQ(lake.un_left, 0.0);
  EXPECT_EQ(lake.un_right, 0.0);
}

TEST(SweWetDry, ThinFilmsCarryNoVelocity) {
  CellState<double> s{5e-7, 1e-3, -2e-3, 1e-7};
  EXPECT_EQ(normal_state_k(s, Dir::x, kDry).un, 0.0);
  dry_out_k(s, kDry);
  EXPECT_EQ(s.hu, 0.0);
  EXPECT_EQ(s.hv, 0.0);
  EXPECT_EQ(s.hc, 1e-7);  // the pollutant stays (mass conservation)
  double h = -1e-18;
  EXPECT_TRUE(clamp_depth_k(h, 1.0));
  EXPECT_EQ(h, 0.0);
  h = -1e-6;
  EXPECT_FALSE(clamp_depth_k(h, 1.0));
}

TEST(SweFriction, PointImplicitManningSlowsButNeverReverses) {
  const double h = 0.05, hu = 0.1, hv = -0.05, n = 0.05;
  for (double dt : {1e-4, 1e-2, 1.0, 1e3, 1e9}) {
    const double f = manning_factor_k(h, hu, hv, n, kG, dt);
    EXPECT_GT(f, 0.0) << "dt " << dt;
    EXPECT_LE(f, 1.0) << "dt " << dt;
  }
  // For a small step it matches the explicit rate g n^2 |u| u / h^(4/3).
  const double dt = 1e-6, speed = std::hypot(hu, hv) / h;
  const double explicit_rate = kG * n * n * speed * hu / std::pow(h, 4.0 / 3.0);
  const double implicit_rate = (1 - manning_factor_k(h, hu, hv, n, kG, dt)) * hu / dt;
  EXPECT_NEAR(implicit_rate, explicit_rate, 1e-4 * explicit_rate);
  EXPECT_EQ(manning_factor_k(h, hu, hv, 0.0, kG, 1.0), 1.0);
}

// Films left by a wetting front over dry cells reach depths where h^(4/3) underflows (float below
// ~1e-34 m, double below ~1e-243 m); a dry cell there has no discharge, and |u| / h^(4/3) was
// 0 / 0 = NaN (river_spill.json at t = 1250 s). The factor must stay finite for every depth.
template <class T>
void friction_factor_is_finite_on_vanishing_films() {
  const T n = T(0.06), g = T(9.81), dt = T(0.4);
  for (T h : {T(6.5e-36), std::numeric_limits<T>::denorm_min(), std::numeric_limits<T>::min(),
              T(1e-20), T(0)}) {
    EXPECT_EQ(manning_factor_k(h, T(0), T(0), n, g, dt), T(1)) << "h " << h;
    // With a discharge over an underflowed h^(4/3) the film stops: the limit of the factor, 0.
    const T f = manning_factor_k(h, T(1e-3), T(0), n, g, dt);
    EXPECT_TRUE(f >= T(0) && f <= T(1)) << "h " << h << " factor " << f;
    // A zero step (past an advance_to target) leaves the discharge alone.
    EXPECT_EQ(manning_factor_k(h, T(1e-3), T(0), n, g, T(0)), T(1)) << "h " << h;
  }
}
TEST(SweFriction, FactorIsFiniteOnVanishingFilmsFloat) {
  friction_factor_is_finite_on_vanishing_films<float>();
}
TEST(SweFriction, FactorIsFiniteOnVanishingFilmsDouble) {
  friction_factor_is_finite_on_vanishing_films<double>();
  EXPECT_EQ(manning_factor_k(1e-300, 0.0, 0.0, 0.06, kG, 0.4), 1.0);
}

TEST(SweBoundary, GhostStates) {
  const NormalState<double> in{0.8, 1.2, -0.4, 0.3};
  // Wall: nothing crosses, the momentum flux is the reflection's pressure rise only.
  for (bool left : {true, false}) {
    const auto w = boundary_edge_flux_k(kWall, in, 0.0, 0.0, 0.0, kG, kDry, left);
    EXPECT_EQ(w.h, 0.0);
    EXPECT_EQ(w.c, 0.0);
    EXPECT_EQ(w.ut, 0.0);
  }
  // A wall at rest exerts exactly the cell's own pressure (which the update leaves out).
  const NormalState<double> rest{0.8, 0, 0.5, 0};
  EXPECT_EQ(boundary_edge_flux_k(kWall, rest, 0.0, 0.0, 0.0, kG, kDry, false).un_left, 0.0);
  // Open: the interior's physical flux.
  const auto o = boundary_edge_flux_k(kOpen, in, 0.0, 0.0, 0.0, kG, kDry, false);
  const auto p = physical_flux_k(in, kG);
  EXPECT_NEAR(o.h, p.h, kRoundoff);
  EXPECT_NEAR(o.un_left, p.un - 0.5 * kG * in.h * in.h, kRoundoff);
  // Discharge: exactly q enters, with the boundary's concentration, on either side.
  const double q = 0.6, conc = 2.0;
  const auto dw =
      flow_boundary_flux_k(kDischarge, in, EdgeForcing<double>{q, 0, conc, 0}, kG, kDry, true);
  const auto de =
      flow_boundary_flux_k(kDischarge, in, EdgeForcing<double>{q, 0, conc, 0}, kG, kDry, false);
  EXPECT_EQ(dw.h, q);
  EXPECT_EQ(de.h, -q);
  EXPECT_EQ(dw.c, q * conc);
  EXPECT_EQ(de.c, -q * conc);
  // Into a dry cell at the critical depth: the momentum flux of (hc, q), pressure included.
  const NormalState<double> dry{0, 0, 0, 0};
  const auto dd =
      flow_boundary_flux_k(kDischarge, dry, EdgeForcing<double>{q, 0, conc, 0}, kG, kDry, true);
  const double hc = std::cbrt(q * q / kG);
  EXPECT_NEAR(dd.un_right, q * q / hc + 0.5 * kG * hc * hc, 1e-12);
  // Level equal to the interior surface, water at rest: nothing flows.
  const auto l = boundary_edge_flux_k(kLevel, rest, 0.2, 1.0, conc, kG, kDry, true);
  EXPECT_NEAR(l.h, 0.0, kRoundoff);
  EXPECT_NEAR(l.un_right, 0.0, kRoundoff);
  // A higher level pushes water in.
  const auto up = boundary_edge_flux_k(kLevel, rest, 0.2, 1.1, conc, kG, kDry, true);
  EXPECT_GT(up.h, 0.0);
  EXPECT_NEAR(up.c, up.h * conc, kRoundoff);
}

// The characteristic boundary states (characteristic_k.hpp): each steady uniform flow is its own
// boundary state, a lake at rest stays at rest beside every flow boundary, and the critical and
// supercritical limits are where the theory puts them.
TEST(SweBoundary, CharacteristicStates) {
  constexpr double kNewton = 1e-12;  // relative: Newton stops at round-off
  for (double fr : {0.0, 0.3, 0.9, 0.985}) {
    const double h = 0.8, c = std::sqrt(kG * h), u = fr * c, q = std::max(h * u, 1e-3);
    // Inflow: q / h_b - 2 sqrt(g h_b) = u - 2c has h_b = h when q = h u.
    if (fr > 0) {
      EXPECT_NEAR(inflow_depth_k(h, u, q, kG, kDry), h, kNewton * h) << fr;
    }
    // Outflow (subcritical): q / h_b + 2 sqrt(g h_b) = u + 2c likewise.
    const OutflowState<double> o = outflow_state_k(h, u, h * u, kG, kDry);
    EXPECT_NEAR(o.h, h, fr > 0.9 ? 1e-7 : kNewton) << fr;  // a near-double root near critical
    EXPECT_EQ(o.q, h * u);
  }
  const double q = 0.6, hc = std::cbrt(q * q / kG);
  EXPECT_NEAR(critical_depth_k(q, kG), hc, 1e-15);
  // Dry or supercritical interior: the water enters at the critical depth.
  EXPECT_EQ(inflow_depth_k(0.0, 0.0, q, kG, kDry), critical_depth_k(q, kG));
  EXPECT_EQ(inflow_depth_k(0.1, 3.0, q, kG, kDry), critical_depth_k(q, kG));
  // Critical outflow: c_b = (u + 2c) / 3, and a critical interior is its own edge state.
  const OutflowState<double> cr = outflow_state_k(hc, std::sqrt(kG * hc), 1e30, kG, kDry);
  EXPECT_NEAR(cr.h, hc, 1e-14);
  EXPECT_NEAR(cr.q, q, 1e-14);
  // A stage-discharge relation asking for more than the critical discharge is choked to it.
  const OutflowState<double> ch = outflow_state_k(0.5, 0.0, 10.0, kG, kDry);
  const double cb = 2 * std::sqrt(kG * 0.5) / 3;
  EXPECT_NEAR(ch.q, cb * cb * cb / kG, 1e-14);
  EXPECT_NEAR(ch.h, cb * cb / kG, 1e-14);

  // Lake at rest on a bed falling away from the edge (dz > 0): outflows at rest pass nothing
  // and exert exactly the pressure the hydrostatic reconstruction gives (zero net force).
  const NormalState<double> rest{1.0, 0.0, 0.0, 0.0};
  for (int code : {kNormalDepth, kRating, kDischarge})
    for (bool left : {true, false}) {
      const auto f =
          flow_boundary_flux_k(code, rest, EdgeForcing<double>{0.0, 0, 0, 0.05}, kG, kDry, left);
      EXPECT_EQ(f.h, 0.0) << code;
      EXPECT_NEAR(f.un_left, 0.0, kRoundoff) << code;
    }
  // Supercritical inflow: exactly (q, q^2 / h + g h^2 / 2) less the cell's reconstructed pressure.
  const NormalState<double> cell{0.5, 2.0, 0.1, 0.0};
  const auto s = flow_boundary_flux_k(kInflowDepth, cell, EdgeForcing<double>{2.0, 0.4, 3.0, 0.02},
                                      kG, kDry, true);
  EXPECT_EQ(s.h, 2.0);
  EXPECT_NEAR(s.un_right, 4.0 / 0.4 + 0.5 * kG * (0.16 - 0.48 * 0.48), kRoundoff);
  EXPECT_EQ(s.ut, 0.0);
  EXPECT_EQ(s.c, 6.0);
  const auto v = flow_boundary_flux_k(kInflowVelocity, cell,
                                      EdgeForcing<double>{2.0, 4.0, 3.0, 0.0}, kG, kDry, false);
  EXPECT_EQ(v.h, -2.0);
  EXPECT_NEAR(v.un_left, 2.0 * 4.0 + 0.5 * kG * (0.25 - 0.25), kRoundoff);
  // The CFL bound covers the imposed states.
  EXPECT_NEAR(inflow_speed_k(kInflowDepth, 2.0, 0.4, kG), 5.0 + std::sqrt(kG * 0.4), 1e-14);
  EXPECT_NEAR(inflow_speed_k(kDischarge, q, 0.0, kG), 2 * std::sqrt(kG * hc), 1e-14);
  // Over a step whose aux varies: bounds of every state in between.
  EXPECT_NEAR(inflow_speed_k(kInflowDepth, 2.0, 0.4, 0.9, kG), 5.0 + std::sqrt(kG * 0.9), 1e-14);
  EXPECT_NEAR(inflow_speed_k(kInflowVelocity, 2.0, 4.0, 5.0, kG), 5.0 + std::sqrt(kG * 0.5), 1e-14);
  // A source's column: Q dt / dx^2 deep.
  EXPECT_NEAR(source_speed_k(2.0, 8.0, 4.0, kG), std::sqrt(kG), 1e-15);
  EXPECT_EQ(source_speed_k(-2.0, 8.0, 4.0, kG), 0.0);
}

TEST(SweCfl, WaveSpeedAndStep) {
  EXPECT_NEAR(wave_speed_k(1.0, 2.0, -3.0, kG, kDry), 3.0 + std::sqrt(kG), 1e-15);
  EXPECT_EQ(wave_speed_k(0.0, 0.0, 0.0, kG, kDry), 0.0);
  EXPECT_NEAR(cfl_dt_k(10.0, 2.0, 0.45, 1e-3), 0.09, 1e-15);
  EXPECT_NEAR(cfl_dt_k(0.0, 2.0, 0.45, 0.01), 90.0, 1e-12);
}

// rain_column_step_k: the step keeps dt (speed + sqrt(g rain dt)) <= limit (to round-off, as
// cfl_dt_k's division), at it where the bound binds, and returns dt0 to the bit where it does not
// (or without rain).
TEST(SweCfl, RainColumnStep) {
  const double limit = 0.25 * 20.0;  // cfl dx, m
  const double mm_h = 1e-3 / 3600;
  constexpr double kRoundoff = 8 * std::numeric_limits<double>::epsilon();  // a few roundings
  EXPECT_EQ(rain_column_step_k(2.0, 0.0, kG, limit, 2.5 * (1 + 1e-15)), 2.5 * (1 + 1e-15));
  EXPECT_EQ(rain_column_step_k(2.0, 40 * mm_h, kG, limit, 1.0), 1.0);
  struct Case {
    double speed, rain, dt0;
  };
  // The dry plane of rain_plane.json (the speed floor sqrt(g 1e-5), a 505 s step before), a wet
  // cell under a cloudburst, a storm far below a deep flow's own bound.
  for (const Case c : {Case{std::sqrt(kG * 1e-5), 40 * mm_h, 504.8}, Case{0.0, 200 * mm_h, 1e6},
                       Case{0.5, 100 * mm_h, 10.0}, Case{3.0, 50 * mm_h, limit / 3.0}}) {
    const double dt = rain_column_step_k(c.speed, c.rain, kG, limit, c.dt0);
    const double courant = dt * (c.speed + std::sqrt(kG * c.rain * dt));
    EXPECT_LE(dt, c.dt0);
    EXPECT_LE(courant, limit * (1 + kRoundoff)) << "speed " << c.speed << " rain " << c.rain;
    if (c.dt0 * (c.speed + std::sqrt(kG * c.rain * c.dt0)) > limit)
      EXPECT_GE(courant, limit * (1 - kRoundoff)) << "speed " << c.speed << " rain " << c.rain;
    else
      EXPECT_EQ(dt, c.dt0);
  }
}

// wave_speed_k divides once (max(|hu|, |hv|) / h): the same bits as the two velocities' maximum,
// in both precisions, films, signs and ties included.
template <class T>
void wave_speed_is_the_velocity_maximum() {
  std::mt19937 rng(20);
  std::uniform_real_distribution<double> lh(-8.0, 1.0), q(-20.0, 20.0);
  const T dry = T(1e-5);
  for (int k = 0; k < 200000; ++k) {
    const T h = T(std::pow(10.0, lh(rng))), hu = T(q(rng)) * h, hv = k % 7 ? T(q(rng)) * h : -hu;
    const T u = math::abs(velocity_k(h, hu, dry)), v = math::abs(velocity_k(h, hv, dry));
    const T want = math::max(u, v) + math::sqrt(T(kG) * h);
    ASSERT_EQ(wave_speed_k(h, hu, hv, T(kG), dry), want)
        << "h " << h << " hu " << hu << " hv " << hv;
  }
}
TEST(SweCfl, WaveSpeedDividesOnceToTheBitFloat) {
  wave_speed_is_the_velocity_maximum<float>();
}
TEST(SweCfl, WaveSpeedDividesOnceToTheBitDouble) {
  wave_speed_is_the_velocity_maximum<double>();
}

// primitive_state_k (the tile kernel's staging, one division) is within two ulps of
// normal_state_k; films keep no velocity and divide for their concentration.
template <class T>
void primitive_state_within_two_ulps() {
  std::mt19937 rng(21);
  std::uniform_real_distribution<double> lh(-8.0, 1.0), q(-20.0, 20.0), c(0.0, 5.0);
  const T dry = T(1e-5), eps = std::numeric_limits<T>::epsilon();
  for (int k = 0; k < 200000; ++k) {
    const T h = T(std::pow(10.0, lh(rng)));
    const CellState<T> s{h, T(q(rng)) * h, T(q(rng)) * h, T(c(rng)) * h};
    const NormalState<T> got = primitive_state_k(s, dry), want = normal_state_k(s, Dir::x, dry);
    ASSERT_EQ(got.h, want.h);
    const T g[3] = {got.un, got.ut, got.c}, w[3] = {want.un, want.ut, want.c};
    for (int m = 0; m < 3; ++m)
      ASSERT_LE(math::abs(g[m] - w[m]), T(2) * eps * math::abs(w[m]))
          << "component " << m << " h " << h << ": " << g[m] << " vs " << w[m];
    if (!(h > dry)) {
      ASSERT_EQ(got.un, T(0));
      ASSERT_EQ(got.ut, T(0));
      ASSERT_EQ(got.c, want.c);
    }
  }
}
TEST(SweWetDry, PrimitiveStateWithinTwoUlpsFloat) {
  primitive_state_within_two_ulps<float>();
}
TEST(SweWetDry, PrimitiveStateWithinTwoUlpsDouble) {
  primitive_state_within_two_ulps<double>();
}

TEST(SweSeries, PiecewiseLinearHeldAtTheEnds) {
  const double t[] = {0.0, 10.0, 30.0};
  const double v[] = {1.0, 3.0, -1.0};
  EXPECT_EQ(series_value_k(t, v, 3, -5.0), 1.0);
  EXPECT_EQ(series_value_k(t, v, 3, 5.0), 2.0);
  EXPECT_EQ(series_value_k(t, v, 3, 20.0), 1.0);
  EXPECT_EQ(series_value_k(t, v, 3, 10.0), 3.0);
  EXPECT_EQ(series_value_k(t, v, 3, 99.0), -1.0);
  EXPECT_EQ(series_value_k(t, v, 0, 1.0), 0.0);
  EXPECT_EQ(series_value_k(t, v, 1, 7.0), 1.0);
}

// The range over a step: the ends, and the samples strictly inside (what the clock bounds the
// inflow's speed with, phases.cpp).
TEST(SweSeries, RangeOverAnIntervalSeesTheSamplesInside) {
  const double t[] = {0.0, 10.0, 30.0};
  const double v[] = {1.0, 3.0, -1.0};
  const auto r = [&](double a, double b) {
    return series_range_k(t, v, 3, a, b);
  };
  EXPECT_EQ(r(2.0, 4.0).lo, 1.4);
  EXPECT_EQ(r(2.0, 4.0).hi, 1.8);
  EXPECT_EQ(r(5.0, 20.0).lo, 1.0);  // rises to 3 at t = 10 and falls back
  EXPECT_EQ(r(5.0, 20.0).hi, 3.0);
  EXPECT_EQ(r(-5.0, 99.0).lo, -1.0);
  EXPECT_EQ(r(-5.0, 99.0).hi, 3.0);
  EXPECT_EQ(r(10.0, 10.0).hi, 3.0);  // an empty step: the value there
  EXPECT_EQ(r(40.0, 50.0).lo, -1.0);
  EXPECT_EQ(series_range_k(t, v, 0, 1.0, 2.0).hi, 0.0);
  EXPECT_EQ(series_after_k(t, 3, 10.0), 2);
  EXPECT_EQ(series_after_k(t, 3, -1.0), 0);
  EXPECT_EQ(series_after_k(t, 3, 30.0), 3);
}

TEST(InfiltrationKernel, GreenAmptStepSolvesTheMidpointRule) {
  // F1 - F0 = Ks dt (1 + P / ((F0 + F1) / 2)); from F0 = 0 close to the curve's start
  // sqrt(2 P Ks dt) for Ks dt << P.
  const double ks = 2e-6, p = 0.05;
  for (double f0 : {0.0, 1e-4, 0.02, 0.3})
    for (double dt : {0.1, 10.0, 600.0}) {
      const double d = green_ampt_increment_k(f0, ks, p, dt);
      EXPECT_NEAR(d, ks * dt * (1.0 + p / (f0 + 0.5 * d)), 1e-14 * d) << f0 << " " << dt;
    }
  EXPECT_NEAR(green_ampt_increment_k(0.0, ks, p, 0.1), std::sqrt(2 * p * ks * 0.1), 2e-6);
  EXPECT_EQ(green_ampt_increment_k(0.1, 0.0, p, 10.0), 0.0);
}

TEST(InfiltrationKernel, HortonStepFollowsTheClosedForm) {
  const double fc = 1e-6, f0 = 2e-5, k = 1e-3;
  for (double t : {0.0, 50.0, 3000.0}) {
    const double f = horton_cumulative_k(t, fc, f0, k);
    const double d = horton_increment_k(f, fc, f0, k, 30.0);
    const double exact = horton_cumulative_k(t + 30.0, fc, f0, k) - f;
    EXPECT_NEAR(d, exact, 1e-12 * exact) << t;
  }
  // fc = 0: the soil takes no more than f0 / k.
  EXPECT_EQ(horton_increment_k(f0 / k, 0.0, f0, k, 10.0), 0.0);
}

TEST(InfiltrationKernel, TakesAtMostTheWaterOfTheCell) {
  CellState<float> s{1e-3f, 2e-4f, -1e-4f, 5e-4f};
  double F = 0.0;
  const SoilCell<float> soil{1e-5f, 0.033f, 0.0f};
  const double taken = infiltrate_k(s, F, kGreenAmpt, soil, 10.0, 1e-5f);
  EXPECT_EQ(s.h, 0.0f);
  EXPECT_EQ(s.hu, 0.0f);
  EXPECT_EQ(s.hc, 0.0f);
  EXPECT_EQ(taken, double(1e-3f));
  EXPECT_EQ(F, double(1e-3f));
  // Deep water: h loses exactly what F gains, velocity and concentration kept.
  CellState<double> d{1.0, 0.5, 0.25, 0.1};
  double G = 0.01;
  const double t2 = infiltrate_k(d, G, kGreenAmpt, SoilCell<double>{1e-5, 0.033, 0.0}, 10.0, 1e-5);
  EXPECT_GT(t2, 0.0);
  EXPECT_DOUBLE_EQ(d.h + t2, 1.0);
  EXPECT_DOUBLE_EQ(G, 0.01 + t2);
  EXPECT_DOUBLE_EQ(d.hu / d.h, 0.5);
  EXPECT_DOUBLE_EQ(d.hc / d.h, 0.1);
}

}  // namespace
}  // namespace silt::swe
