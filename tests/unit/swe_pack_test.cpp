// The shallow-water edge flux on FloatPack lanes (float_pack.hpp) must give, in every lane, the
// bits of the scalar flux of that lane's edge, in float and double, for 2 to 16 lanes, and so
// must the row step's pack loops (row_fluxes.hpp: SSE2, AVX2 and AVX-512F, each where the CPU has
// it): the row step matches the plain
// phases bit for bit only so. The edges mix, within every pack, the cases whose branches the
// kernels take per lane: wet Roe edges with and without a transonic rarefaction, Roe's
// intermediate depth not positive (HLLE), films and dry sides (HLLE), both sides dry (no flux), bed
// steps that cut a side's depth (its own roots) and the Chen-Noelle push of a dry-stepped side, NaN
// and signed zeros.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "silt/core/math/float_pack.hpp"
#include "silt/swe/kernels/bed_source_k.hpp"
#include "silt/swe/row_fluxes.hpp"

namespace silt::swe {
namespace {

template <class T>
struct Edge {
  NormalState<T> l, r;
  T zl, zr;
};

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

constexpr double kG = 9.81, kDry = 1e-4;

/// Edges whose kinds cycle with a period prime to every pack width, so that every pack mixes them.
template <class T>
std::vector<Edge<T>> test_edges() {
  std::mt19937 rng(2026);
  std::uniform_real_distribution<double> u(-1, 1), depth(0.05, 3), bed(-0.5, 0.5);
  std::vector<Edge<T>> es;
  const auto state = [&](double h, double un) {
    return NormalState<T>{T(h), T(h > kDry ? un : 0.0), T(h > kDry ? u(rng) : 0.0),
                          T(h > 0 ? std::abs(u(rng)) : 0.0)};
  };
  for (int i = 0; i < 7 * 11 * 13 * 3; ++i) {
    Edge<T> e{};
    switch (i % 11) {
      case 0:  // wet, subcritical
      case 1:
        e = {state(depth(rng), u(rng)), state(depth(rng), u(rng)), T(0), T(0)};
        break;
      case 2: {  // transonic rarefaction: flow leaving the edge fast on both sides
        const double h = depth(rng);
        e = {state(h, -2.5 * std::sqrt(kG * h)), state(h * 0.8, 1.5 * std::sqrt(kG * h)), T(0),
             T(0)};
        break;
      }
      case 3: {  // strong expansion: Roe's intermediate depth not positive
        const double h = 0.01 + 0.05 * std::abs(u(rng));
        e = {state(h, -20.0), state(h, 20.0), T(0), T(0)};
        break;
      }
      case 4:  // a film beside a wet cell, either way
        e = (i % 2) ? Edge<T>{state(0.5 * kDry, 0), state(depth(rng), u(rng)), T(0), T(0)}
                    : Edge<T>{state(depth(rng), u(rng)), state(0.3 * kDry, 0), T(0), T(0)};
        break;
      case 5:  // dry beside wet
        e = (i % 2) ? Edge<T>{state(0, 0), state(depth(rng), u(rng)), T(0), T(0)}
                    : Edge<T>{state(depth(rng), u(rng)), state(0, 0), T(0), T(0)};
        break;
      case 6:  // both dry
        e = {state(0, 0), state(0, 0), T(bed(rng)), T(bed(rng))};
        break;
      case 7:  // beds differ by less than the depths
        e = {state(depth(rng), u(rng)), state(depth(rng), u(rng)), T(bed(rng)), T(bed(rng))};
        break;
      case 8: {  // a step higher than the low side's water: the Chen-Noelle push, either side
        const double hl = 0.1 * depth(rng), hr = depth(rng), dz = 0.5 + hl;
        e = (i % 2) ? Edge<T>{state(hl, u(rng)), state(hr, u(rng)), T(0), T(dz)}
                    : Edge<T>{state(hr, u(rng)), state(hl, u(rng)), T(dz), T(0)};
        break;
      }
      case 9:  // a lake at rest over a step, and signed zeros
        e = {NormalState<T>{T(1.0), T(-0.0), T(0.0), T(0)},
             NormalState<T>{T(0.75), T(0.0), T(-0.0), T(0)}, T(0), T(0.25)};
        break;
      case 10:  // NaN stays in its lane
        e = {state(depth(rng), u(rng)), state(depth(rng), u(rng)), T(0), T(0)};
        e.l.un = std::numeric_limits<T>::quiet_NaN();
        break;
    }
    es.push_back(e);
  }
  return es;
}

/// Every lane of well_balanced_flux_k on W-lane packs against the scalar flux of its edge, with
/// the roots both staged (the row step's form) and computed by the flux.
template <class T, int W>
void check_lanes() {
  using P = FloatPack<W, void, T>;
  const std::vector<Edge<T>> es = test_edges<T>();
  const T g = T(kG), dry = T(kDry);
  int checked = 0;
  for (size_t k = 0; k + W <= es.size(); k += W) {
    NormalState<P> L, R;
    P zl, zr;
    DepthRoots<P> rl, rr;
    for (int l = 0; l < W; ++l) {
      const Edge<T>& e = es[k + l];
      L.h.set(l, e.l.h), L.un.set(l, e.l.un), L.ut.set(l, e.l.ut), L.c.set(l, e.l.c);
      R.h.set(l, e.r.h), R.un.set(l, e.r.un), R.ut.set(l, e.r.ut), R.c.set(l, e.r.c);
      zl.set(l, e.zl), zr.set(l, e.zr);
      const DepthRoots<T> a = depth_roots_k(e.l.h, g), b = depth_roots_k(e.r.h, g);
      rl.sqrt_h.set(l, a.sqrt_h), rl.celerity.set(l, a.celerity);
      rr.sqrt_h.set(l, b.sqrt_h), rr.celerity.set(l, b.celerity);
    }
    const EdgeFlux<P> staged = well_balanced_flux_k(L, zl, R, zr, rl, rr, P(g), P(dry));
    const EdgeFlux<P> plain = well_balanced_flux_k(L, zl, R, zr, P(g), P(dry));
    for (int l = 0; l < W; ++l) {
      const Edge<T>& e = es[k + l];
      const EdgeFlux<T> s = well_balanced_flux_k(e.l, e.zl, e.r, e.zr, g, dry);
      const T want[5] = {s.h, s.un_left, s.un_right, s.ut, s.c};
      for (const EdgeFlux<P>* f : {&staged, &plain}) {
        const T got[5] = {f->h[l], f->un_left[l], f->un_right[l], f->ut[l], f->c[l]};
        for (int q = 0; q < 5; ++q)
          ASSERT_EQ(bits(got[q]), bits(want[q]))
              << "edge " << k + l << " (kind " << (k + l) % 11 << "), lane " << l << " of " << W
              << ", field " << q << ": pack " << got[q] << ", scalar " << want[q];
      }
      ++checked;
    }
  }
  EXPECT_GE(checked, 2900);
}

TEST(SwePackFlux, FloatFourLanesGiveTheScalarBits) {
  check_lanes<float, 4>();
}
TEST(SwePackFlux, FloatEightLanesGiveTheScalarBits) {
  check_lanes<float, 8>();
}
TEST(SwePackFlux, FloatSixteenLanesGiveTheScalarBits) {
  check_lanes<float, 16>();
}
TEST(SwePackFlux, DoubleTwoLanesGiveTheScalarBits) {
  check_lanes<double, 2>();
}
TEST(SwePackFlux, DoubleFourLanesGiveTheScalarBits) {
  check_lanes<double, 4>();
}
TEST(SwePackFlux, DoubleEightLanesGiveTheScalarBits) {
  check_lanes<double, 8>();
}

/// The row step's pack loops (row_fluxes.hpp), each width the CPU has, over runs of these edges
/// with some sides inactive: every edge with both sides active gets the scalar bits, a pack without
/// an active pair is left alone, and the count returned is the whole packs (AVX-512F: packs of 16 /
/// 8 lanes, then one of half that width, so the same count as AVX2's). Two run lengths, so that
/// the AVX-512F half pack runs in float (3003 = 187 x 16 + 11) and in double (2999 = 374 x 8 + 7).
template <class T>
void check_packed_rows() {
  const std::vector<Edge<T>> es = test_edges<T>();
  const Index n = Index(es.size());
  const T g = T(kG), dry = T(kDry);
  struct Side {
    std::vector<T> h, un, ut, c, z, sqrt_h, celerity;
    std::vector<unsigned char> active;
    detail::EdgeSide<T> view() const {
      return {h.data(), un.data(),     ut.data(),       c.data(),
              z.data(), sqrt_h.data(), celerity.data(), active.data()};
    }
  } a, b;
  for (Side* s : {&a, &b}) {
    for (auto* v : {&s->h, &s->un, &s->ut, &s->c, &s->z, &s->sqrt_h, &s->celerity}) v->resize(n);
    s->active.resize(n);
  }
  for (Index k = 0; k < n; ++k) {
    const Edge<T>& e = es[k];
    const DepthRoots<T> rl = depth_roots_k(e.l.h, g), rr = depth_roots_k(e.r.h, g);
    a.h[k] = e.l.h, a.un[k] = e.l.un, a.ut[k] = e.l.ut, a.c[k] = e.l.c, a.z[k] = e.zl;
    a.sqrt_h[k] = rl.sqrt_h, a.celerity[k] = rl.celerity;
    b.h[k] = e.r.h, b.un[k] = e.r.un, b.ut[k] = e.r.ut, b.c[k] = e.r.c, b.z[k] = e.zr;
    b.sqrt_h[k] = rr.sqrt_h, b.celerity[k] = rr.celerity;
    // Inactive sides now and then, and 16 edges (a whole pack of every width) without an active
    // pair.
    a.active[k] = !(k % 13 == 5 || (k >= 64 && k < 80));
    b.active[k] = !(k % 17 == 3);
  }
  ASSERT_EQ(n, 3003);
  const T marker = T(-12345);
  int widths = 0;
  for (const char* unit : {"SSE2", "AVX2", "AVX-512F"}) {
    const std::string u = unit;
    if (u == "AVX2" && !__builtin_cpu_supports("avx2")) continue;
    if (u == "AVX-512F" && !__builtin_cpu_supports("avx512f")) continue;
    ++widths;
    for (const Index count : {n, n - 4}) {
      std::vector<T> out[5];
      for (auto& o : out) o.assign(size_t(n), marker);
      const detail::FluxRow<T> f{out[0].data(), out[1].data(), out[2].data(), out[3].data(),
                                 out[4].data()};
      const Index m =
          u == "AVX-512F" ? detail::avx512::packed_edge_fluxes(a.view(), b.view(), count, g, dry, f)
          : u == "AVX2"   ? detail::avx2::packed_edge_fluxes(a.view(), b.view(), count, g, dry, f)
                          : detail::sse2::packed_edge_fluxes(a.view(), b.view(), count, g, dry, f);
      const Index w = u == "SSE2" ? Index(16 / sizeof(T)) : Index(32 / sizeof(T));
      ASSERT_EQ(m, count - count % w) << unit << ", " << count << " edges";
      for (Index k = 0; k < n; ++k) {
        if (k >= m || (k >= 64 && k < 80)) {
          ASSERT_EQ(out[0][k], marker)
              << unit << " edge " << k << " of " << count << ": outside the packs, or in a pack"
              << " without an active pair, but computed";
          continue;
        }
        if (!(a.active[k] && b.active[k])) continue;
        const Edge<T>& e = es[k];
        const EdgeFlux<T> s = well_balanced_flux_k(e.l, e.zl, e.r, e.zr, g, dry);
        const T want[5] = {s.h, s.un_left, s.un_right, s.ut, s.c};
        for (int q = 0; q < 5; ++q)
          ASSERT_EQ(bits(out[q][k]), bits(want[q]))
              << unit << " edge " << k << " of " << count << " (kind " << k % 11 << "), field " << q
              << ": pack " << out[q][k] << ", scalar " << want[q];
      }
    }
  }
  std::printf("row packs checked on %d widths\n", widths);
}

TEST(SwePackFlux, RowPacksGiveTheScalarBitsFloat) {
  check_packed_rows<float>();
}
TEST(SwePackFlux, RowPacksGiveTheScalarBitsDouble) {
  check_packed_rows<double>();
}

/// The cases the test means to mix do occur: each branch is taken by some edge and not by others.
TEST(SwePackFlux, TheEdgesTakeEveryBranch) {
  const std::vector<Edge<double>> es = test_edges<double>();
  int roe = 0, hlle = 0, transonic = 0, push = 0, none = 0;
  for (const Edge<double>& e : es) {
    const double dz = e.zr - e.zl;
    const double hl = reconstructed_depth_k(e.l.h, dz), hr = reconstructed_depth_k(e.r.h, -dz);
    if (!(hl > 0) && !(hr > 0)) ++none;
    if ((!(hl > 0) && dz > 0) || (!(hr > 0) && dz < 0)) ++push;
    NormalState<double> l = e.l, r = e.r;
    l.h = hl, r.h = hr;
    Flux<double> f;
    if (hl > kDry && hr > kDry && roe_flux_k(l, r, kG, &f)) {
      ++roe;
      const RoeAverage<double> a = roe_average_k(l, r, kG);
      if (l.un - std::sqrt(kG * hl) < 0 && a.u - a.c > l.un - std::sqrt(kG * hl)) ++transonic;
    } else if (hl > 0 || hr > 0) {
      ++hlle;
    }
  }
  EXPECT_GT(roe, 500);
  EXPECT_GT(hlle, 300);
  EXPECT_GT(transonic, 50);
  EXPECT_GT(push, 50);
  EXPECT_GT(none, 50);
}

}  // namespace
}  // namespace silt::swe
