// Verification of the flow boundaries (src/silt/swe/kernels/boundary_k.hpp, characteristic_k.hpp)
// against steady analytic flows in straight channels (swe_channel.hpp), float64: supercritical
// inflow (discharge and depth) on a flat channel and on a steep one at normal depth (the Froude
// 1.59 inflow of issue 21), subcritical inflow by the outgoing characteristic at Froude 0.985,
// normal-depth, rating-curve and critical outflows. Errors, orders and the first cell's depth are
// printed as Markdown rows (docs/verification-swe.md).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "silt/swe/solver.hpp"
#include "swe_analytic.hpp"
#include "swe_channel.hpp"
#include "test_support.hpp"

namespace silt::swe {
namespace {

using channel::CompoundChannel;
using channel::kG;

constexpr double kQ = 2.0;         // m^2/s: the supercritical inflow ...
constexpr double kHSuper = 0.544;  // m: ... at Froude 2 / (0.544 sqrt(9.81 * 0.544)) = 1.59

struct Profile {
  std::vector<double> h, q;  // first row, west to east
  double first = 0, last = 0;
  double l1_rel = 0, linf_rel = 0;  // against the exact depth, relative
};

Profile profile(const Solver& solver, Index nx, double exact) {
  const Fields f = solver.fields();
  Profile p;
  for (Index i = 0; i < nx; ++i) {
    const size_t k = size_t(nx + i);  // the middle row
    p.h.push_back(f.h[k]);
    p.q.push_back(f.hu[k]);
    const double e = std::abs(f.h[k] - exact) / exact;
    p.l1_rel += e / double(nx);
    p.linf_rel = std::max(p.linf_rel, e);
  }
  p.first = p.h.front();
  p.last = p.h.back();
  return p;
}

double width_of(const Scene& s) {
  return double(channel::kChannelRows) * s.grid.dx;
}

// A supercritical inflow with both the discharge and the depth imposed, on a flat frictionless
// channel: every state (h, q) is steady there, so the channel must fill with exactly the imposed
// one (to round-off), from dry.
TEST(SweBoundaries, SupercriticalInflowFillsAFlatChannelWithTheImposedState) {
  const Index nx = 100;
  Scene s = channel::make_channel("flat_super", nx, 50.0, 0.0, 0.0, Precision::f64);
  Boundary in = channel::side("in", Side::west, BoundaryKind::inflow_depth,
                              scenes::constant_series(kQ * width_of(s)));
  in.aux = scenes::constant_series(kHSuper);
  s.boundaries = {in, channel::side("out", Side::east, BoundaryKind::open)};
  Solver solver(s, test::exec());
  // The dry bed fills through a rarefaction whose tail moves at u - c = 1.36 m/s: gone after 37 s,
  // and what is left of it decays to round-off by 90 s.
  solver.advance_to(90.0);
  const Profile p = profile(solver, nx, kHSuper);
  double q_err = 0;
  for (double q : p.q) q_err = std::max(q_err, std::abs(q - kQ));
  std::printf(
      "| supercritical inflow, flat | %lld steps | max |h - %.3f| / h %.2e | max |q - 2| "
      "%.2e m^2/s |\n",
      solver.steps(), kHSuper, p.linf_rel, q_err);
  constexpr double kRoundoff = 1e-10;  // ~1000 steps of O(1) sums in double
  EXPECT_LT(p.linf_rel, kRoundoff);
  EXPECT_LT(q_err, kRoundoff);
}

// The Froude 1.59 inflow entering a steep channel whose normal depth is the inflow depth: uniform
// flow at h_n = 0.544 m from the first cell on. At first order the discrete uniform state differs
// from h_n by the hydrostatic reconstruction's bed force g (h - dz / 2) S per cell instead of g h S:
// (3 / 10) (S dx / 2 h) relative, 0.34 % at dx = 1 m here; the first cell has no extra error (its
// inflow edge carries the same bed force as an interior edge). Observed order 1 under refinement.
TEST(SweBoundaries, SupercriticalInflowOnASteepChannelHoldsNormalDepth) {
  const double n = 0.02, slope = channel::slope_for(kQ, n, kHSuper);  // S = 0.0122
  std::vector<verify::Row> rows;
  std::vector<double> first;
  for (Index nx : {100, 200, 400}) {
    Scene s = channel::make_channel("steep_super", nx, 100.0, slope, n, Precision::f64);
    Boundary in = channel::side("in", Side::west, BoundaryKind::inflow_depth,
                                scenes::constant_series(kQ * width_of(s)));
    in.aux = scenes::constant_series(kHSuper);
    Boundary out = channel::side("out", Side::east, BoundaryKind::normal_depth);
    out.slope = slope;
    s.boundaries = {in, out};
    Solver solver(s, test::exec());
    solver.advance_to(80.0);
    const Profile p = profile(solver, nx, kHSuper);
    rows.push_back(verify::Row{"supercritical inflow, steep (relative L1 of h)", int(nx), s.grid.dx,
                               p.l1_rel, -1, NAN, NAN});
    first.push_back((p.first - kHSuper) / kHSuper);
    std::printf("| steep, %d cells | first cell %.5f m (%+.3e) | L1 %.3e | Linf %.3e |\n", int(nx),
                p.first, first.back(), p.l1_rel, p.linf_rel);
    // First order: (3 / 10) (S dx / 2 h) = 0.34 % at dx = 1 m; twice that as the bound.
    const double bound = 2 * 0.3 * slope * s.grid.dx / (2 * kHSuper);
    EXPECT_LT(p.linf_rel, bound) << nx << " cells";
    EXPECT_LT(std::abs(first.back()), bound) << nx << " cells (first cell)";
  }
  verify::fill_orders(rows);
  verify::print_rows(rows);
  for (size_t k = 1; k < rows.size(); ++k) {
    EXPECT_GT(rows[k].order_h, 0.8);
    EXPECT_LT(rows[k].order_h, 1.2);
  }
}

// Subcritical inflow at Froude 0.985 (q only: the depth from the outgoing invariant) on a mild
// channel at normal depth 1 m, with a normal-depth outflow: the uniform flow must stay uniform,
// the first cell included. Without the bed force at the inflow edge the first cell lacks
// g h S dx of momentum, which near critical flow is amplified by 1 / (1 - Fr^2): the first cell
// then stands 3.9 % too deep at dx = 1 m (the former treatment, hb = max(h, hc): 4.0 %;
// docs/verification-swe.md), against 0.07 % here.
TEST(SweBoundaries, SubcriticalInflowNearCriticalKeepsTheFirstCell) {
  const double hn = 1.0, fr = 0.985, n = 0.02;
  const double un = fr * std::sqrt(kG * hn), q = hn * un;
  const double slope = channel::slope_for(q, n, hn);
  for (Index nx : {100, 200}) {
    Scene s = channel::make_channel("near_critical", nx, 100.0, slope, n, Precision::f64, hn, un);
    Boundary out = channel::side("out", Side::east, BoundaryKind::normal_depth);
    out.slope = slope;
    s.boundaries = {channel::side("in", Side::west, BoundaryKind::discharge,
                                  scenes::constant_series(q * width_of(s))),
                    out};
    Solver solver(s, test::exec());
    solver.advance_to(100.0);
    const Profile p = profile(solver, nx, hn);
    std::printf(
        "| Fr 0.985 inflow, %d cells | first cell %.5f m (%+.3e) | L1 %.3e | Linf %.3e "
        "|\n",
        int(nx), p.first, (p.first - hn) / hn, p.l1_rel, p.linf_rel);
    const double bound = 0.3 * slope * s.grid.dx / hn;  // first order, not 1 / (1 - Fr^2)
    EXPECT_LT(std::abs(p.first - hn) / hn, bound) << nx << " cells";
    EXPECT_LT(p.linf_rel, bound) << nx << " cells";
  }
}

// A normal-depth outflow under a subcritical flow: from still water, the channel must settle to
// the uniform flow at Manning's normal depth (an open, zero-gradient outflow leaves the depth
// undetermined).
TEST(SweBoundaries, NormalDepthOutflowSettlesToUniformFlow) {
  const double n = 0.03, slope = 0.001, q = 1.0;
  const double hn = channel::normal_depth(q, n, slope);  // 1.12 m, Froude 0.27
  const Index nx = 100;
  Scene s = channel::make_channel("normal_depth", nx, 200.0, slope, n, Precision::f64, 0.5);
  Boundary out = channel::side("out", Side::east, BoundaryKind::normal_depth);
  out.slope = slope;
  s.boundaries = {channel::side("in", Side::west, BoundaryKind::discharge,
                                scenes::constant_series(q * width_of(s))),
                  out};
  Solver solver(s, test::exec());
  solver.advance_to(1500.0);
  const Profile p = profile(solver, nx, hn);
  std::printf("| normal-depth outflow | hn %.4f m | first %.5f last %.5f | L1 %.3e | Linf %.3e |\n",
              hn, p.first, p.last, p.l1_rel, p.linf_rel);
  const double bound = 0.3 * slope * s.grid.dx / hn + 1e-3;  // first order + what is left of the
                                                             // transient after 1500 s
  EXPECT_LT(p.linf_rel, bound);
}

// A rating-curve outflow on a flat frictionless channel: steady flow is uniform, so the whole
// channel must stand at the stage the table gives for the inflow.
TEST(SweBoundaries, RatingCurveOutflowHoldsItsStage) {
  const Index nx = 50;
  Scene s = channel::make_channel("rating", nx, 50.0, 0.0, 0.0, Precision::f64, 0.3);
  const double width = width_of(s), q = 0.5;
  Boundary out = channel::side("out", Side::east, BoundaryKind::rating);
  // Q = 0 at stage 0.2 m rising to 3 m^3/s at 1.2 m, then 9 m^3/s at 2.2 m.
  out.rating = Series{{0.2, 1.2, 2.2}, {0.0, 3.0, 9.0}};
  s.boundaries = {
      channel::side("in", Side::west, BoundaryKind::discharge, scenes::constant_series(q * width)),
      out};
  Solver solver(s, test::exec());
  solver.advance_to(600.0);
  const double stage = 0.2 + (q * width) / 3.0;  // on the first segment of the table: 0.7 m
  const Profile p = profile(solver, nx, stage);
  std::printf("| rating outflow | stage %.4f m | first %.6f last %.6f | Linf %.3e |\n", stage,
              p.first, p.last, p.linf_rel);
  constexpr double kSettled = 1e-4;  // relative: the transient decays through both boundaries
  EXPECT_LT(p.linf_rel, kSettled);
}

// A rating-curve outflow across an uneven section (swe_channel.hpp's compound channel: a main
// channel 0.5 m below a rougher floodplain): the table's Q must be shared by conveyance
// K = h^(5/3) / n so that each strip passes its own uniform flow and the uniform state stays
// steady up to the edge. Shared equally (the former treatment), the channel passes 41 % too little
// and the floodplain 3.3 times too much: the channel backs up and water crosses to the floodplain.
TEST(SweBoundaries, RatingCurveSharesItsDischargeByConveyance) {
  const CompoundChannel c = channel::compound_channel(50, Precision::f64);
  const Scene& s = c.scene;
  Solver solver(s, test::exec());
  solver.advance_to(600.0);
  const Fields f = solver.fields();
  const Index nx = s.grid.nx;
  double dh_main = 0, dh_plain = 0, v_max = 0;
  for (Index j = 0; j < 4; ++j)
    for (Index i = 0; i < nx; ++i) {
      const size_t k = size_t(j * nx + i);
      const bool main = j < 2;
      const double h = main ? c.h_main : c.h_plain;
      double& dh = main ? dh_main : dh_plain;
      dh = std::max(dh, std::abs(f.h[k] - h) / h);
      v_max = std::max(v_max, std::abs(f.hv[k]));
    }
  const size_t last_main = size_t(nx - 1), last_plain = size_t(3 * nx + nx - 1);
  std::printf(
      "| rating by conveyance | channel h %.4f q %.4f, floodplain h %.4f q %.4f | last column h "
      "%.5f, %.5f | max relative error of h: channel %.2e, floodplain %.2e | max |hv| %.2e "
      "m^2/s |\n",
      c.h_main, c.q_main, c.h_plain, c.q_plain, f.h[last_main], f.h[last_plain], dh_main, dh_plain,
      v_max);
  // First order: the discrete uniform depth differs by (3 / 10) (S dx / 2 h) relative (see the
  // steep supercritical test), 5e-4 on the floodplain here; twice that, plus the table's linear
  // interpolation (~4e-5 of Q between rows 1 cm apart).
  const double bound = 2 * 0.3 * CompoundChannel::kSlope * s.grid.dx / (2 * c.h_plain) + 1e-4;
  EXPECT_LT(dh_main, bound);
  EXPECT_LT(dh_plain, bound);
  // The strips' discrete levels differ by such first-order amounts (the bias depends on h), which
  // drives a transverse flow of the order of bound x q_plain (measured 3.1e-4 m^2/s at the edge, 0.8 of it);
  // a share that does not match the strips' flows drives water across the section.
  EXPECT_LT(v_max, 2 * bound * c.q_plain);
}

// A critical outflow (free overfall) at the end of a mild channel: the flow leaves at Froude 1, so
// the depth at the edge, from the last cell's outgoing invariant ((u + 2c) / 3)^2 / g, is the
// critical depth of the discharge, and the water surface draws down toward it (an M2 profile).
TEST(SweBoundaries, CriticalOutflowAtAFreeOverfall) {
  const double n = 0.03, slope = 0.001, q = 1.0;
  const double hn = channel::normal_depth(q, n, slope), hc = channel::critical_depth(q);
  const Index nx = 100;
  Scene s = channel::make_channel("overfall", nx, 200.0, slope, n, Precision::f64, hn, q / hn);
  s.boundaries = {channel::side("in", Side::west, BoundaryKind::discharge,
                                scenes::constant_series(q * width_of(s))),
                  channel::side("out", Side::east, BoundaryKind::critical)};
  Solver solver(s, test::exec());
  solver.advance_to(1400.0);
  const double v0 = solver.totals().volume, in0 = solver.totals().net_inflow_volume;
  solver.advance_to(1500.0);
  // Steady: the volume that entered in the last 100 s has left (net inflow is in minus out).
  const double net = solver.totals().net_inflow_volume - in0;
  const double stored = solver.totals().volume - v0;
  const double passed = q * width_of(s) * 100.0;  // m^3 that entered
  const Profile p = profile(solver, nx, hn);
  const double h = p.last, u = p.q.back() / h, c = std::sqrt(kG * h);
  const double edge = (u + 2 * c) * (u + 2 * c) / (9 * kG);
  std::printf(
      "| critical outflow | hc %.4f hn %.4f | last cell %.4f | edge depth %.5f (%+.2e) | "
      "stored in the last 100 s %.2e of the inflow |\n",
      hc, hn, h, edge, (edge - hc) / hc, stored / passed);
  constexpr double kSettled = 1e-3;  // relative, after 1500 s
  EXPECT_NEAR(edge, hc, kSettled * hc);
  EXPECT_LT(std::abs(stored) / passed, kSettled);
  EXPECT_NEAR(net, stored, 1e-9 * passed);  // the inflow counter sees the outflow too
  EXPECT_LT(p.last, 0.95 * hn);             // drawn down toward the brink
  for (size_t k = 1; k < p.h.size(); ++k) EXPECT_LE(p.h[k], p.h[k - 1] + 1e-9) << k;
}

// The flow boundaries hold no state of their own (their values come from the scene's series at
// each step's mid-time), so a run restored from a checkpoint continues bit for bit.
TEST(SweBoundaries, RestartContinuesBitForBit) {
  const Scene s = channel::flow_boundaries_basin(Precision::f64);
  Solver whole(s, test::exec());
  whole.advance_to(3.0);  // the same step sizes as the run that stops there
  whole.advance_to(6.0);
  Solver first(s, test::exec());
  first.advance_to(3.0);
  const RestartState st = first.state();
  Solver second(s, test::exec());
  second.restore(st);
  second.advance_to(6.0);
  EXPECT_EQ(second.steps(), whole.steps());
  const Fields a = second.fields(), b = whole.fields();
  EXPECT_TRUE(test::all_near(a.h, b.h, 0.0));
  EXPECT_TRUE(test::all_near(a.hu, b.hu, 0.0));
  EXPECT_TRUE(test::all_near(a.hv, b.hv, 0.0));
  EXPECT_TRUE(test::all_near(a.hc, b.hc, 0.0));
  // The inflow counter is summed by atomics on CUDA (in any order): round-off of the sum.
  EXPECT_NEAR(second.totals().net_inflow_volume, whole.totals().net_inflow_volume,
              1e-12 * std::abs(whole.totals().net_inflow_volume));
}

// The solver's own checks (a scene built in code, or a series replaced by set_series) name the
// scene, the boundary and what is wrong.
TEST(SweBoundaries, BadBoundariesNameTheSegment) {
  auto fails = [](const Scene& s, std::vector<std::string> parts) {
    parts.insert(parts.begin(), "swe scene 'bad'");
    return test::throws_with([&] { Solver solver(s, Exec::host()); }, parts);
  };
  auto scene = [] {
    return channel::make_channel("bad", 10, 10.0, 0.01, 0.03, Precision::f64, 0.3);
  };
  Scene s = scene();
  Boundary in =
      channel::side("steep", Side::west, BoundaryKind::inflow_depth, scenes::constant_series(1.0));
  s.boundaries = {in};
  EXPECT_TRUE(fails(s, {"boundary 'steep' (west side, cells 0..2)", "needs a depth series"}));
  s.boundaries[0].aux = Series{{0, 5}, {0.3, 0.0}};
  EXPECT_TRUE(fails(s, {"'steep'", "depth sample 1 (t = 5 s) is 0 (must be > 0)"}));
  s.boundaries[0].aux = scenes::constant_series(0.3);
  s.boundaries[0].series = Series{{0, 5}, {1.0, -1.0}};
  EXPECT_TRUE(fails(s, {"'steep'", "discharge sample 1 (t = 5 s) is -1"}));
  s = scene();
  s.boundaries = {channel::side("reach", Side::east, BoundaryKind::normal_depth)};
  EXPECT_TRUE(fails(s, {"boundary 'reach' (east side", "slope 0 (must be > 0)"}));
  s.boundaries[0].slope = 0.01;
  s.manning.clear();
  EXPECT_TRUE(fails(s, {"'reach'", "normal depth needs Manning n > 0, cell (9, 0)"}));
  s = scene();
  s.boundaries = {channel::side("gauge", Side::east, BoundaryKind::rating)};
  s.boundaries[0].rating = Series{{1.0, 0.5}, {0.0, 2.0}};
  EXPECT_TRUE(fails(s, {"'gauge'", "rating row 1 (stage 0.5 m", "stages must increase strictly"}));
  s.boundaries[0].rating = Series{{0.5, 1.0}, {2.0, 1.0}};
  s.boundaries[0].rating.value = {2.0, 1.0};
  EXPECT_TRUE(fails(s, {"'gauge'", "rating row 1", "must not decrease"}));
  s.boundaries[0].rating = Series{{0.5}, {2.0}};
  EXPECT_TRUE(fails(s, {"'gauge'", "at least 2 rows, has 1"}));
  // Shared by conveyance h^(5/3) / n: friction in some of its cells and none in others is refused.
  s.boundaries[0].rating = Series{{0.5, 1.0}, {0.0, 2.0}};
  s.manning[size_t(2 * 10 + 9)] = 0.0;  // cell (9, 2): the third along the east side
  EXPECT_TRUE(fails(s, {"'gauge'", "n must be > 0 in every cell of the segment or 0 in all",
                        "cell 1 along the side has n > 0, cell 2 has 0"}));
}

}  // namespace
}  // namespace silt::swe
