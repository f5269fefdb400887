// Unit tests of the second-order scheme's reconstruction (src/silt/swe/kernels/muscl_k.hpp) on a
// small host grid built from the kernel functions alone: minmod slopes and face states, the lake
// at rest with emerged bumps, zero slopes against two first-order steps (to the bit), positivity
// at a wet/dry front; and the MUSCL-Hancock predictor's friction (kernels/muscl_hancock_k.hpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <utility>
#include <vector>

#include "silt/swe/kernels/muscl_hancock_k.hpp"
#include "silt/swe/kernels/muscl_k.hpp"
#include "swe_mini_grid.hpp"

namespace silt::swe {
namespace {

constexpr double kG = 9.81;
constexpr double kDry = 1e-6;

/// MiniGrid stepped by the second-order scheme: slopes from the three cells along each direction
/// (a neighbour beyond the grid is dry), muscl_flux_k between wet neighbours, the first-order wall
/// flux at the grid's edge, two first-order stages and Heun's average.
template <class T>
struct MusclGrid : mini::MiniGrid<T> {
  using Base = mini::MiniGrid<T>;
  using Base::at;
  using Base::nx;
  using Base::ny;
  using Base::u;
  using Base::z;
  bool zero_slopes = false;  // the oracle: stages with zero slopes

  MusclGrid(int nx_, int ny_, T dx_) : Base(nx_, ny_, dx_) {}

  NormalState<T> state(const std::vector<CellState<T>>& s, int i, int j, Dir d, T dry) const {
    if (i < 0 || j < 0 || i >= nx || j >= ny) return NormalState<T>{T(0), T(0), T(0), T(0)};
    return normal_state_k(s[at(i, j)], d, dry);
  }
  T bed(int i, int j) const { return i < 0 || j < 0 || i >= nx || j >= ny ? T(0) : z[at(i, j)]; }
  Slopes<T> slopes(const std::vector<CellState<T>>& s, int i, int j, Dir d, T dry) const {
    if (zero_slopes) return Slopes<T>{T(0), T(0), T(0), T(0), T(0)};
    const int di = d == Dir::x ? 1 : 0, dj = 1 - di;
    return muscl_slopes_k(state(s, i - di, j - dj, d, dry), bed(i - di, j - dj),
                          state(s, i, j, d, dry), bed(i, j), state(s, i + di, j + dj, d, dry),
                          bed(i + di, j + dj), dry);
  }
  EdgeFlux<T> edge(const std::vector<CellState<T>>& s, int i, int j, Dir d, T g, T dry) const {
    const int il = d == Dir::x ? i - 1 : i, jl = d == Dir::y ? j - 1 : j;
    const bool has_l = il >= 0 && jl >= 0, has_r = i < nx && j < ny;
    if (has_l && has_r)
      return muscl_flux_k(state(s, il, jl, d, dry), z[at(il, jl)], slopes(s, il, jl, d, dry),
                          state(s, i, j, d, dry), z[at(i, j)], slopes(s, i, j, d, dry), g, dry);
    const int c = has_r ? at(i, j) : at(il, jl);
    return boundary_edge_flux_k(kWall, normal_state_k(s[c], d, dry), z[c], T(0), T(0), g, dry,
                                /*ghost_left=*/has_r);
  }
  /// One first-order update of every cell from the reconstructed states of s.
  int stage(const std::vector<CellState<T>>& s, std::vector<CellState<T>>& out, T dt, T g,
            T dry) const {
    int fault = kFaultNone;
    out.resize(s.size());
    for (int j = 0; j < ny; ++j)
      for (int i = 0; i < nx; ++i) {
        CellState<T> c = s[at(i, j)];
        const int code =
            update_cell_k(c, edge(s, i, j, Dir::x, g, dry), edge(s, i + 1, j, Dir::x, g, dry),
                          edge(s, i, j, Dir::y, g, dry), edge(s, i, j + 1, Dir::y, g, dry),
                          CellUpdateParams<T>{dt / this->dx, dt, T(0), g, dry, T(0)});
        if (code != kFaultNone && fault == kFaultNone) fault = code;
        out[at(i, j)] = c;
      }
    return fault;
  }
  T cfl_dt(T g, T dry, T cfl) const {
    T smax = 0;
    for (const auto& s : u) smax = std::max(smax, wave_speed_k(s.h, s.hu, s.hv, g, dry));
    return T(cfl_dt_k(smax, this->dx, cfl, 1e-3));
  }
  int muscl_step(T dt, T g, T dry) {
    std::vector<CellState<T>> star, second;
    const int f1 = stage(u, star, dt, g, dry);
    const int f2 = stage(star, second, dt, g, dry);
    for (size_t c = 0; c < u.size(); ++c) u[c] = heun_average_k(u[c], second[c], dry);
    return f1 != kFaultNone ? f1 : f2;
  }
};

TEST(SweMuscl, MinmodSlopesAndFaceStates) {
  EXPECT_EQ(minmod_k(1.0, 2.0), 1.0);
  EXPECT_EQ(minmod_k(-3.0, -2.0), -2.0);
  EXPECT_EQ(minmod_k(1.0, -2.0), 0.0);
  EXPECT_EQ(minmod_k(0.0, 2.0), 0.0);
  // Linear data are reconstructed exactly: a surface rising 0.25 m per cell over a bed rising
  // 0.125 m, velocities and concentration linear too (binary fractions: no round-off).
  const NormalState<double> l{1.0, 0.5, -1.0, 2.0}, c{1.125, 0.75, -1.5, 2.5},
      r{1.25, 1.0, -2.0, 3.0};
  const Slopes<double> s = muscl_slopes_k(l, 0.0, c, 0.125, r, 0.25, kDry);
  EXPECT_EQ(s.h, 0.125);
  EXPECT_EQ(s.z, 0.125);
  EXPECT_EQ(s.un, 0.25);
  EXPECT_EQ(s.ut, -0.5);
  EXPECT_EQ(s.c, 0.5);
  const FaceState<double> e = face_state_k(c, 0.125, s, true), w = face_state_k(c, 0.125, s, false);
  EXPECT_EQ(e.s.h, 1.1875);
  EXPECT_EQ(w.s.h, 1.0625);
  EXPECT_EQ(e.z, 0.1875);
  EXPECT_EQ(w.z, 0.0625);
  EXPECT_EQ(e.s.un, 0.875);
  // An extremum, and a dry neighbour, give zero slopes.
  const Slopes<double> peak = muscl_slopes_k(l, 0.0, r, 0.0, l, 0.0, kDry);
  EXPECT_EQ(peak.h, 0.0);
  EXPECT_EQ(peak.un, 0.0);
  const Slopes<double> front =
      muscl_slopes_k(NormalState<double>{0, 0, 0, 0}, 0.0, c, 0.0, r, 0.0, kDry);
  EXPECT_EQ(front.h, 0.0);
  EXPECT_EQ(front.z, 0.0);
}

// The limiters as their textbook definitions, branch by branch (van Leer 1977, 1979): the kernels
// compute them with selects and must give the same bits, signed zeros and ties included.
template <class T>
T minmod_reference(T a, T b) {
  if (a > T(0) && b > T(0)) return a < b ? a : b;
  if (a < T(0) && b < T(0)) return a > b ? a : b;
  return T(0);
}
template <class T>
T monotonized_central_reference(T a, T b) {
  if (!((a > T(0) && b > T(0)) || (a < T(0) && b < T(0)))) return T(0);
  const T c = T(0.5) * (a + b), m = minmod_reference(T(2) * a, T(2) * b);
  return c > T(0) ? std::min(c, m) : std::max(c, m);
}
template <class T>
void expect_limiters_match_their_definitions() {
  std::vector<T> v{T(0),
                   -T(0),
                   T(1),
                   -T(1),
                   T(2),
                   -T(2),
                   T(0.5),
                   T(3),
                   -T(3),
                   std::numeric_limits<T>::denorm_min(),
                   -std::numeric_limits<T>::denorm_min(),
                   std::numeric_limits<T>::max() / T(4),
                   T(1e-30)};
  std::mt19937 rng(7);
  std::uniform_real_distribution<T> d(T(-4), T(4));
  for (int k = 0; k < 2000; ++k) v.push_back(d(rng));
  const auto bits = [](T x) {
    return std::signbit(x) ? -1 : 1;
  };
  for (T a : v)
    for (size_t k = 0; k < 60; ++k) {
      const T b = v[(k * 37 + size_t(std::fabs(a) * 1e3)) % v.size()];
      for (const auto& [x, y] : {std::pair<T, T>{a, b}, {b, a}, {a, a}, {a, -a}}) {
        const T m = minmod_k(x, y), mr = minmod_reference(x, y);
        ASSERT_EQ(m, mr) << x << " " << y;
        if (mr != T(0)) {
          ASSERT_EQ(bits(m), bits(mr)) << x << " " << y;
        }
        ASSERT_EQ(monotonized_central_k(x, y), monotonized_central_reference(x, y))
            << x << " " << y;
      }
    }
}

TEST(SweMuscl, LimitersMatchTheirDefinitions) {
  expect_limiters_match_their_definitions<double>();
  expect_limiters_match_their_definitions<float>();
}

TEST(SweMuscl, FaceDepthsStayWithinHalfAndThreeHalvesOfTheCell) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> uni(0, 1);
  for (int k = 0; k < 10000; ++k) {
    const NormalState<double> l{3 * uni(rng), 0, 0, 0}, c{1e-5 + 3 * uni(rng), 0, 0, 0},
        r{3 * uni(rng), 0, 0, 0};
    const Slopes<double> s = muscl_slopes_k(l, uni(rng), c, uni(rng), r, uni(rng), kDry);
    for (bool east : {false, true}) {
      const double h = face_state_k(c, 0.0, s, east).s.h;
      ASSERT_GE(h, 0.5 * c.h) << "sample " << k;
      ASSERT_LE(h, 1.5 * c.h) << "sample " << k;
    }
  }
}

TEST(SweMuscl, ZeroSlopesGiveTheFirstOrderFluxToTheBit) {
  std::mt19937 rng(12);
  std::uniform_real_distribution<double> uni(0, 1), vel(-3, 3);
  const Slopes<double> zero{0, 0, 0, 0, 0};
  for (int k = 0; k < 10000; ++k) {
    const double hl = uni(rng) < 0.2 ? 0.0 : 2 * uni(rng), hr = uni(rng) < 0.2 ? 0.0 : uni(rng);
    const NormalState<double> L{hl, hl > kDry ? vel(rng) : 0, hl > kDry ? vel(rng) : 0, uni(rng)},
        R{hr, hr > kDry ? vel(rng) : 0, hr > kDry ? vel(rng) : 0, uni(rng)};
    const double zl = uni(rng), zr = uni(rng);
    const EdgeFlux<double> a = muscl_flux_k(L, zl, zero, R, zr, zero, kG, kDry);
    const EdgeFlux<double> b = well_balanced_flux_k(L, zl, R, zr, kG, kDry);
    ASSERT_EQ(a.h, b.h) << "pair " << k;
    ASSERT_EQ(a.un_left, b.un_left) << "pair " << k;
    ASSERT_EQ(a.un_right, b.un_right) << "pair " << k;
    ASSERT_EQ(a.ut, b.ut) << "pair " << k;
    ASSERT_EQ(a.c, b.c) << "pair " << k;
  }
}

TEST(SweMuscl, ZeroSlopesGiveTheAverageOfTwoFirstOrderStepsToTheBit) {
  // The oracle of the two-stage scheme: with its slopes forced to zero a step is (U^n + FO(FO(U^n)))
  // / 2, FO the first-order update of MiniGrid with the same dt, to the bit.
  std::mt19937 rng(13);
  MusclGrid<double> m(12, 9, 0.5);
  m.randomise(rng, 0.5, 0.2);
  for (auto& s : m.u) dry_out_k(s, kDry);
  m.zero_slopes = true;
  mini::MiniGrid<double> fo = m;
  for (int step = 0; step < 10; ++step) {
    const double dt = m.cfl_dt(kG, kDry, 0.25);
    const auto before = fo.u;
    std::vector<CellState<double>> one, two;
    ASSERT_EQ(m.stage(before, one, dt, kG, kDry), kFaultNone);
    ASSERT_EQ(m.stage(one, two, dt, kG, kDry), kFaultNone);
    // MiniGrid::edge (the first-order fluxes) on the same states.
    auto first_order = [&](const std::vector<CellState<double>>& s) {
      mini::MiniGrid<double> g = fo;
      g.u = s;
      std::vector<CellState<double>> out(s.size());
      for (int j = 0; j < g.ny; ++j)
        for (int i = 0; i < g.nx; ++i) {
          CellState<double> c = s[g.at(i, j)];
          update_cell_k(c, g.edge(i, j, Dir::x, kG, kDry), g.edge(i + 1, j, Dir::x, kG, kDry),
                        g.edge(i, j, Dir::y, kG, kDry), g.edge(i, j + 1, Dir::y, kG, kDry),
                        CellUpdateParams<double>{dt / g.dx, dt, 0, kG, kDry, 0});
          out[g.at(i, j)] = c;
        }
      return out;
    };
    const auto fo2 = first_order(first_order(before));
    ASSERT_EQ(m.muscl_step(dt, kG, kDry), kFaultNone);
    for (size_t c = 0; c < m.u.size(); ++c) {
      const CellState<double> want = heun_average_k(before[c], fo2[c], kDry);
      ASSERT_EQ(m.u[c].h, want.h) << "cell " << c << " step " << step;
      ASSERT_EQ(m.u[c].hu, want.hu) << "cell " << c << " step " << step;
      ASSERT_EQ(m.u[c].hv, want.hv) << "cell " << c << " step " << step;
      ASSERT_EQ(m.u[c].hc, want.hc) << "cell " << c << " step " << step;
    }
    fo.u = m.u;
  }
}

template <class T>
void lake_at_rest_with_emerged_bumps(T tolerance) {
  // Surface at 1 m over a smooth bed (so the slopes are not zero) with bumps rising above it (dry
  // islands, where the slopes next to them are): the lake stays at rest to round-off.
  std::mt19937 rng(14);
  std::uniform_real_distribution<double> uni(0, 1);
  constexpr double kEta = 1.0;
  MusclGrid<T> grid(24, 16, T(0.5));
  for (int j = 0; j < grid.ny; ++j)
    for (int i = 0; i < grid.nx; ++i) {
      const int c = grid.at(i, j);
      const double smooth = 0.4 + 0.3 * std::sin(0.4 * i) * std::cos(0.3 * j);
      grid.z[c] = T(uni(rng) < 0.1 ? kEta + 0.5 * uni(rng) : smooth);
      grid.u[c] = CellState<T>{T(std::max(0.0, kEta - double(grid.z[c]))), 0, 0, 0};
    }
  const auto h0 = grid.u;
  for (int step = 0; step < 200; ++step) {
    const T dt = grid.cfl_dt(T(kG), T(kDry), T(0.25));
    ASSERT_EQ(grid.muscl_step(dt, T(kG), T(kDry)), kFaultNone) << "step " << step;
  }
  double max_q = 0, max_dh = 0;
  for (size_t c = 0; c < h0.size(); ++c) {
    max_q = std::max({max_q, std::abs(double(grid.u[c].hu)), std::abs(double(grid.u[c].hv))});
    max_dh = std::max(max_dh, std::abs(double(grid.u[c].h - h0[c].h)));
  }
  EXPECT_LE(max_q, double(tolerance));
  EXPECT_LE(max_dh, double(tolerance));
}
// Depths are kEta - z rounded, so the surface slopes are round-off (an ulp of kEta), which the
// Roe dissipation turns into discharges of that order; float32 carries 2^-24 ~ 6e-8 per ulp.
TEST(SweMuscl, LakeAtRestWithEmergedBumpsStaysAtRestDouble) {
  lake_at_rest_with_emerged_bumps<double>(1e-13);
}
TEST(SweMuscl, LakeAtRestWithEmergedBumpsStaysAtRestFloat) {
  lake_at_rest_with_emerged_bumps<float>(2e-5f);
}

template <class T>
void positive_on_a_wet_dry_front(unsigned seed) {
  // A dam break onto a dry bed with bumps, random velocities and thin films: at the scheme's
  // cfl 0.25 no depth goes negative beyond round-off (no fault) and the water is conserved.
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> uni(0, 1), vel(-2, 2);
  MusclGrid<T> grid(30, 12, T(1));
  for (int j = 0; j < grid.ny; ++j)
    for (int i = 0; i < grid.nx; ++i) {
      const int c = grid.at(i, j);
      grid.z[c] = T(0.05 * i + 0.3 * uni(rng) * uni(rng));
      const T h = i < 10 ? T(1.5 + uni(rng)) : uni(rng) < 0.2 ? T(1e-4 * uni(rng)) : T(0);
      grid.u[c] = CellState<T>{h, T(h * vel(rng)), T(h * vel(rng)), T(h * uni(rng))};
      dry_out_k(grid.u[c], T(kDry));
    }
  const double v0 = double(grid.total_h()), m0 = double(grid.total_hc());
  for (int step = 0; step < 300; ++step) {
    const T dt = grid.cfl_dt(T(kG), T(kDry), T(0.25));
    ASSERT_EQ(grid.muscl_step(dt, T(kG), T(kDry)), kFaultNone) << "step " << step;
    for (size_t c = 0; c < grid.u.size(); ++c) {
      ASSERT_GE(grid.u[c].h, T(0)) << "cell " << c << " step " << step;
      ASSERT_GE(grid.u[c].hc, T(0)) << "cell " << c << " step " << step;
    }
  }
  const double tol = sizeof(T) == 4 ? 1e-5 : 1e-12;  // relative: sums of ~400 cells' updates
  EXPECT_NEAR(double(grid.total_h()) / v0, 1.0, tol);
  EXPECT_NEAR(double(grid.total_hc()) / m0, 1.0, tol);
}
TEST(SweMuscl, DepthsStayNonNegativeAtAWetDryFrontDouble) {
  positive_on_a_wet_dry_front<double>(15);
}
TEST(SweMuscl, DepthsStayNonNegativeAtAWetDryFrontFloat) {
  positive_on_a_wet_dry_front<float>(16);
}

// The predictor's friction is the update's fully implicit Manning factor over half the step, of
// the flow's speed |(u, v)| in any direction: the predictor takes it from its velocities
// (manning_implicit_speed_factor_k), the update from its discharges (manning_implicit_factor_k).
// A cell without slopes or flux differences keeps its depth and only slows by that factor.
template <class T>
void predictor_friction_is_the_updates(T tol) {
  const Slopes<T> s0{T(0), T(0), T(0), T(0), T(0)};
  const FluxDifference<T> f0{T(0), T(0), T(0), T(0)};
  const T h = T(0.1), speed = T(1.7), n = T(0.05), half_dt = T(0.5);
  const HancockParams<T> p{T(kG), T(0.01), T(1000), half_dt, T(0), n, T(kDry)};
  for (const double deg : {0.0, 30.0, 45.0, 90.0, 135.0, 200.0, 300.0}) {
    const double a = deg * 3.141592653589793 / 180.0;
    const T u = speed * T(std::cos(a)), v = speed * T(std::sin(a));
    const NormalState<T> q = hancock_predict_k(NormalState<T>{h, u, v, T(0.5)}, s0, s0, f0, f0, p);
    const T f = manning_implicit_factor_k(h, h * u, h * v, n, T(kG), half_dt);
    ASSERT_LT(f, T(0.8)) << "the friction must matter here";
    EXPECT_EQ(q.h, h) << deg;
    EXPECT_NEAR(q.un, u * f, tol * speed) << deg;
    EXPECT_NEAR(q.ut, v * f, tol * speed) << deg;
    EXPECT_EQ(q.c, T(0.5)) << deg;
  }
}
TEST(SweHancockPredictor, FrictionIsTheUpdatesOverHalfTheStepInAnyDirectionDouble) {
  predictor_friction_is_the_updates<double>(1e-14);
}
TEST(SweHancockPredictor, FrictionIsTheUpdatesOverHalfTheStepInAnyDirectionFloat) {
  predictor_friction_is_the_updates<float>(1e-6f);
}

}  // namespace
}  // namespace silt::swe
