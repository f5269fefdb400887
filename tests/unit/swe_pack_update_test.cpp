// The shallow-water cell update on FloatPack lanes (float_pack.hpp) must give, in every lane, the
// bits of the scalar update of that lane's cell (update_cell_k with Manning friction, the wet/dry
// thresholds, the CFL speed), in float and double, for 2 to 16 lanes, and so must the row step's
// pack loop (row_update.hpp: SSE2, AVX2 and AVX-512F, each where the CPU has it): the row step
// matches the plain phases bit for
// bit only so. The cells mix, within every pack, the cases whose branches the kernels take per
// lane: flowing water with and without friction, still water, dry cells and films, a depth
// clamped from round-off below zero, pollutant clamped to zero, signed zeros and friction that
// nearly stops the flow; now and then a NaN or a depth negative beyond round-off (a fault: the pack
// is left to the scalar pass).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "silt/core/math/float_pack.hpp"
#include "silt/swe/kernels/cell_update_k.hpp"
#include "silt/swe/kernels/cfl_k.hpp"
#include "silt/swe/row_update.hpp"

namespace silt::swe {
namespace {

template <class T>
std::uint64_t bits(T x) {
  if constexpr (sizeof(T) == 4) {
    std::uint32_t b;
    std::memcpy(&b, &x, sizeof b);
    return b;
  } else {
    std::uint64_t b;
    std::memcpy(&b, &x, sizeof b);
    return b;
  }
}

constexpr double kG = 9.81, kDry = 1e-4, kDtDx = 0.05, kDt = 0.05;

/// One cell with its four edge fluxes (west, east, south, north) and Manning n.
template <class T>
struct Cell {
  CellState<T> s;
  EdgeFlux<T> w, e, so, n;
  T manning;
};

/// Cells whose kinds cycle with a period prime to every pack width; faults at sparse places of
/// their own, so that most packs have none.
template <class T>
std::vector<Cell<T>> test_cells() {
  std::mt19937 rng(2027);
  std::uniform_real_distribution<double> u(-1, 1), depth(0.05, 3);
  const auto flux = [&](double a) {
    return EdgeFlux<T>{T(a * u(rng)), T(a * u(rng)), T(a * u(rng)), T(a * u(rng)),
                       T(0.1 * a * u(rng))};
  };
  const EdgeFlux<T> none{T(0), T(0), T(0), T(0), T(0)};
  std::vector<Cell<T>> cs;
  for (int i = 0; i < 7 * 11 * 13 * 3; ++i) {
    Cell<T> c{};
    const double h = depth(rng);
    c.s = CellState<T>{T(h), T(h * u(rng)), T(h * u(rng)), T(h * std::abs(u(rng)))};
    c.w = flux(0.5), c.e = flux(0.5), c.so = flux(0.5), c.n = flux(0.5);
    c.manning = T(0.03);
    switch (i % 11) {
      case 0:  // flowing, with friction
      case 1:
        break;
      case 2:  // still water: nothing to slow
        c.s.hu = c.s.hv = T(0);
        c.w = c.e = c.so = c.n = none;
        break;
      case 3:  // dry and staying dry: h == 0 holds no pollutant
        c.s = CellState<T>{T(0), T(0), T(0), T(0)};
        c.w = c.e = c.so = c.n = none;
        break;
      case 4:  // a film fed by a trickle
        c.s = CellState<T>{T(0.3 * kDry), T(0), T(0), T(0)};
        c.w = c.e = c.so = c.n = none;
        c.w.h = T(1e-4);
        break;
      case 5: {  // drained to round-off below zero: clamped to 0
        c.s = CellState<T>{T(0.01), T(0), T(0), T(0.001)};
        c.w = c.e = c.so = c.n = none;
        c.e.h = T(0.01 / kDtDx) * (T(1) + std::numeric_limits<T>::epsilon());
        c.e.c = T(0.001 / kDtDx) * T(1.5);
        break;
      }
      case 6:  // frictionless
        c.manning = T(0);
        break;
      case 7:  // signed zeros
        c.s.hu = T(-0.0);
        c.s.hv = T(0.0);
        c.w = c.e = c.so = c.n = none;
        c.e.ut = T(-0.0);
        break;
      case 8:  // a thin fast film: friction nearly stops it
        c.s = CellState<T>{T(20 * kDry), T(0.05), T(-0.02), T(0)};
        c.w = c.e = c.so = c.n = none;
        c.manning = T(0.2);
        break;
      case 9:  // pollutant flushed out: round-off below zero is clamped
        c.s.hc = T(1e-3);
        c.e.c = T(1e-3 / kDtDx) + c.w.c + c.n.c - c.so.c;
        break;
      case 10:  // deep and fast
        c.s = CellState<T>{T(5 * h), T(20 * h * u(rng)), T(20 * h * u(rng)), T(0)};
        break;
    }
    if (i % 97 == 13) c.n.un_left = std::numeric_limits<T>::quiet_NaN();  // fault: NaN
    if (i % 89 == 41) {                                                   // fault: drained
      c.s = CellState<T>{T(0.01), T(0), T(0), T(0)};
      c.w = c.e = c.so = c.n = none;
      c.e.h = T(0.02 / kDtDx);
    }
    cs.push_back(c);
  }
  return cs;
}

template <class T>
CellUpdateParams<T> params(const T& manning) {
  return CellUpdateParams<T>{T(kDtDx), T(kDt), T(0), T(kG), T(kDry), manning};
}

/// The scalar update of one cell: its code, new state and CFL speed.
template <class T>
int scalar_update(const Cell<T>& c, CellState<T>& s, T& speed) {
  s = c.s;
  const int code = update_cell_k(s, c.w, c.e, c.so, c.n, params(c.manning));
  speed = wave_speed_k(s.h, s.hu, s.hv, T(kG), T(kDry));
  return code;
}

/// update_cell_k and wave_speed_k on W-lane packs against the scalar functions lane by lane; a pack
/// reports a fault exactly when one of its lanes does, and is then unchanged.
template <class T, int W>
void check_lanes() {
  using P = FloatPack<W, void, T>;
  const std::vector<Cell<T>> cs = test_cells<T>();
  int checked = 0, faulted = 0;
  for (size_t k = 0; k + W <= cs.size(); k += W) {
    CellState<P> s;
    EdgeFlux<P> f[4];
    P manning;
    for (int l = 0; l < W; ++l) {
      const Cell<T>& c = cs[k + l];
      s.h.set(l, c.s.h), s.hu.set(l, c.s.hu), s.hv.set(l, c.s.hv), s.hc.set(l, c.s.hc);
      const EdgeFlux<T>* cf[4] = {&c.w, &c.e, &c.so, &c.n};
      for (int q = 0; q < 4; ++q) {
        f[q].h.set(l, cf[q]->h), f[q].un_left.set(l, cf[q]->un_left);
        f[q].un_right.set(l, cf[q]->un_right), f[q].ut.set(l, cf[q]->ut), f[q].c.set(l, cf[q]->c);
      }
      manning.set(l, c.manning);
    }
    const CellState<P> before = s;
    const int code = update_cell_k(s, f[0], f[1], f[2], f[3], params<P>(manning));
    const P speed = wave_speed_k(s.h, s.hu, s.hv, P(T(kG)), P(T(kDry)));
    bool any_fault = false;
    for (int l = 0; l < W; ++l) {
      CellState<T> want;
      T want_speed;
      any_fault |= scalar_update(cs[k + l], want, want_speed) != kFaultNone;
      if (code != kFaultNone) continue;
      const T got[5] = {s.h[l], s.hu[l], s.hv[l], s.hc[l], speed[l]};
      const T wanted[5] = {want.h, want.hu, want.hv, want.hc, want_speed};
      for (int q = 0; q < 5; ++q)
        ASSERT_EQ(bits(got[q]), bits(wanted[q]))
            << "cell " << k + l << " (kind " << (k + l) % 11 << "), lane " << l << " of " << W
            << ", field " << q << ": pack " << got[q] << ", scalar " << wanted[q];
      ++checked;
    }
    ASSERT_EQ(code != kFaultNone, any_fault) << "pack at " << k;
    if (code != kFaultNone) {
      ++faulted;
      for (int l = 0; l < W; ++l)
        ASSERT_EQ(bits(s.h[l]), bits(before.h[l])) << "a faulted pack changed, cell " << k + l;
    }
  }
  EXPECT_GE(checked, 2000);
  EXPECT_GE(faulted, 10);
}

TEST(SwePackUpdate, FloatFourLanesGiveTheScalarBits) {
  check_lanes<float, 4>();
}
TEST(SwePackUpdate, FloatEightLanesGiveTheScalarBits) {
  check_lanes<float, 8>();
}
TEST(SwePackUpdate, FloatSixteenLanesGiveTheScalarBits) {
  check_lanes<float, 16>();
}
TEST(SwePackUpdate, DoubleTwoLanesGiveTheScalarBits) {
  check_lanes<double, 2>();
}
TEST(SwePackUpdate, DoubleFourLanesGiveTheScalarBits) {
  check_lanes<double, 4>();
}
TEST(SwePackUpdate, DoubleEightLanesGiveTheScalarBits) {
  check_lanes<double, 8>();
}

/// The packs a row loop takes over `count` cells: packs of w from 0, and for AVX-512F one more of
/// w / 2 where that many cells remain.
std::vector<std::pair<Index, Index>> row_packs(Index count, Index w, bool half) {
  std::vector<std::pair<Index, Index>> packs;
  Index k = 0;
  for (; k + w <= count; k += w) packs.push_back({k, w});
  if (half && k + w / 2 <= count) packs.push_back({k, w / 2});
  return packs;
}

/// The row step's pack loop (row_update.hpp), each width the CPU has, over a row of these cells
/// with some inactive: every cell of a pack whose cells are all active and none faults gets the
/// scalar bits, its maximum depth and a cleared flag; every other cell is left alone; the speed
/// returned is the largest of the updated cells'. Two row lengths, so that the AVX-512F half pack
/// runs in float (3003 = 187 x 16 + 11) and in double (2999 = 374 x 8 + 7).
template <class T>
void check_packed_row(bool with_manning) {
  const std::vector<Cell<T>> cs = test_cells<T>();
  const Index n = Index(cs.size());
  std::vector<T> h(n), hu(n), hv(n), hc(n), manning(n), md(n);
  std::vector<unsigned char> active(n);
  std::vector<T> x[5], s[5], no[5];
  for (int q = 0; q < 5; ++q) x[q].resize(n + 1), s[q].resize(n), no[q].resize(n);
  const auto put = [](std::vector<T>* f, Index k, const EdgeFlux<T>& e) {
    f[0][k] = e.h, f[1][k] = e.un_left, f[2][k] = e.un_right, f[3][k] = e.ut, f[4][k] = e.c;
  };
  std::vector<Cell<T>> ref(cs);
  for (Index k = 0; k < n; ++k) {
    Cell<T>& c = ref[k];
    if (!with_manning) c.manning = T(0);
    if (k > 0) c.w = ref[k - 1].e;  // a row's cells share their x edges
    h[k] = c.s.h, hu[k] = c.s.hu, hv[k] = c.s.hv, hc[k] = c.s.hc, manning[k] = c.manning;
    md[k] = (k % 3 == 0) ? T(0.5) : T(0);  // the maximum depth both rises and stays
    put(x, k, c.w);
    put(x, k + 1, c.e);
    put(s, k, c.so);
    put(no, k, c.n);
    active[k] = !(k % 37 == 5 || (k >= 64 && k < 72));
  }
  ASSERT_EQ(n, 3003);
  const T marker = T(-12345);
  for (const char* unit : {"SSE2", "AVX2", "AVX-512F"}) {
    const std::string u = unit;
    if (u == "AVX2" && !__builtin_cpu_supports("avx2")) continue;
    if (u == "AVX-512F" && !__builtin_cpu_supports("avx512f")) continue;
    for (const Index count : {n, n - 4}) {
      std::vector<T> out[4], max_depth(md);
      for (auto& o : out) o.assign(size_t(n), marker);
      std::vector<unsigned char> left(size_t(n), 1);
      const detail::CellRow<T> c{h.data(),         hu.data(),
                                 hv.data(),        hc.data(),
                                 out[0].data(),    out[1].data(),
                                 out[2].data(),    out[3].data(),
                                 max_depth.data(), with_manning ? manning.data() : nullptr,
                                 active.data()};
      const auto row = [](std::vector<T>* f) {
        return detail::FluxRow<T>{f[0].data(), f[1].data(), f[2].data(), f[3].data(), f[4].data()};
      };
      const CellUpdateParams<T> p = params(T(0));
      const detail::FluxRow<T> xr = row(x), sr = row(s), nr = row(no);
      const T speed =
          u == "AVX-512F"
              ? detail::avx512::packed_cell_updates(c, xr, sr, nr, count, p, left.data())
          : u == "AVX2" ? detail::avx2::packed_cell_updates(c, xr, sr, nr, count, p, left.data())
                        : detail::sse2::packed_cell_updates(c, xr, sr, nr, count, p, left.data());
      const Index w = u == "SSE2" ? Index(16 / sizeof(T)) : Index(32 / sizeof(T));
      const auto packs =
          u == "AVX-512F" ? row_packs(count, 2 * w, true) : row_packs(count, w, false);
      std::vector<char> done(size_t(n), 0);  // cells the loop must have updated
      T want_speed = T(0);
      int updated = 0;
      std::vector<CellState<T>> want(static_cast<size_t>(n));
      std::vector<T> speeds(static_cast<size_t>(n));
      for (const auto& [k0, pw] : packs) {
        bool fits = true;
        for (Index k = k0; k < k0 + pw; ++k)
          fits = fits && active[k] && scalar_update(ref[k], want[k], speeds[k]) == kFaultNone;
        for (Index k = k0; k < k0 + pw && fits; ++k) done[k] = 1;
      }
      for (Index k = 0; k < n; ++k) {
        ASSERT_EQ(left[k], done[k] ? 0 : 1) << unit << " cell " << k << " of " << count;
        if (!done[k]) {
          ASSERT_EQ(out[0][k], marker)
              << unit << " cell " << k << " of " << count << " was updated";
          ASSERT_EQ(bits(max_depth[k]), bits(md[k])) << unit << " cell " << k;
          continue;
        }
        const CellState<T>& ws = want[k];
        const T got[5] = {out[0][k], out[1][k], out[2][k], out[3][k], max_depth[k]};
        const T wanted[5] = {ws.h, ws.hu, ws.hv, ws.hc, ws.h > md[k] ? ws.h : md[k]};
        for (int q = 0; q < 5; ++q)
          ASSERT_EQ(bits(got[q]), bits(wanted[q]))
              << unit << " cell " << k << " of " << count << " (kind " << k % 11 << "), field " << q
              << ": pack " << got[q] << ", scalar " << wanted[q];
        want_speed = std::max(want_speed, speeds[k]);
        ++updated;
      }
      EXPECT_EQ(bits(speed), bits(want_speed)) << unit << ", " << count << " cells";
      EXPECT_GE(updated, int(n) / 3);  // 16-lane packs: a fault or an inactive cell skips 16
    }
  }
}

TEST(SwePackUpdate, RowPacksGiveTheScalarBitsFloat) {
  check_packed_row<float>(true);
  check_packed_row<float>(false);
}
TEST(SwePackUpdate, RowPacksGiveTheScalarBitsDouble) {
  check_packed_row<double>(true);
  check_packed_row<double>(false);
}

/// The cases the test means to mix do occur: each branch is taken by some cell and not by others.
TEST(SwePackUpdate, TheCellsTakeEveryBranch) {
  const std::vector<Cell<double>> cs = test_cells<double>();
  int nan = 0, negative = 0, clamped = 0, dry = 0, slowed = 0, still = 0, hc_clamped = 0;
  for (const Cell<double>& c : cs) {
    CellState<double> s = c.s;
    const int code = update_cell_k(s, c.w, c.e, c.so, c.n, params(c.manning));
    nan += code == kFaultNaN;
    negative += code == kFaultNegativeDepth;
    if (code != kFaultNone) continue;
    const double k = kDtDx;
    const double h = c.s.h - k * ((c.e.h - c.w.h) + (c.n.h - c.so.h));
    const double hc = c.s.hc - k * ((c.e.c - c.w.c) + (c.n.c - c.so.c));
    clamped += h < 0;
    hc_clamped += hc < 0 && h > 0;
    dry += !(s.h > kDry);
    const double q = std::hypot(s.hu, s.hv);
    if (s.h > kDry && c.manning > 0) (q > 0 ? slowed : still) += 1;
  }
  EXPECT_GT(nan, 10);
  EXPECT_GT(negative, 10);
  EXPECT_GT(clamped, 50);
  EXPECT_GT(hc_clamped, 50);
  EXPECT_GT(dry, 100);
  EXPECT_GT(slowed, 500);
  EXPECT_GT(still, 100);
}

}  // namespace
}  // namespace silt::swe
