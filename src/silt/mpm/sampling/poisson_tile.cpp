#include "silt/mpm/sampling/poisson_tile.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "silt/core/error.hpp"
#include "silt/mpm/splitmix.hpp"

namespace silt::mpm {

namespace {

// Darts per cell, and passes: cell c's dart j falls in a random pass of the j-th quarter of them
// (one dart of a cell per pass). Darts of one pass that meet are settled by their priorities, so
// the passes set only how many darts such meetings waste: 16 passes reach 0.574 n r^3 (64: 0.576,
// 8: 0.568), Bridson's (k = 30) was 0.575. Each pass is three parallel loops with a barrier after
// each, which a loaded machine pays for (bench/results/snow-setup-2026-12-02-cpu.md).
constexpr int kDarts = 4;
constexpr int kPasses = 16;
constexpr int kPassesPerDart = kPasses / kDarts;
// Cells per chunk when the darts are sorted into passes (a fixed size, so the order of the darts
// in a pass does not depend on the thread count).
constexpr long long kChunk = 16384;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// A dart of this pass that no point is within r of, or NaN; its priority among this pass's darts.
struct Proposal {
  Vec3d p;
  std::uint64_t priority;
};

class TileSampler {
 public:
  TileSampler(const double* L, double r, std::uint64_t seed) : r2_(r * r), seed_(seed) {
    for (int d = 0; d < 3; ++d) {
      L_[d] = L[d];
      // Cells at most r / sqrt(3) wide: their diagonal is at most r, so one point each.
      m_[d] = std::max(1LL, static_cast<long long>(std::ceil(L[d] * std::sqrt(3.0) / r)));
      s_[d] = L[d] / double(m_[d]);
      reach_[d] = static_cast<int>(std::ceil(r / s_[d]));
      // The cells, and `reach` cells around them holding copies of the cells across the torus's
      // faces (moved by L): a neighbour is then a fixed index offset away.
      dim_[d] = m_[d] + 2 * reach_[d];
    }
    SILT_REQUIRE(double(dim_[0]) * double(dim_[1]) * double(dim_[2]) < 2e9,
                 "Poisson-disk tile: too many cells");
    const auto n = std::size_t(dim_[0] * dim_[1] * dim_[2]);
    points_.assign(n, {kNaN, kNaN, kNaN});
    proposals_.assign(n, {{kNaN, kNaN, kNaN}, 0});
    // Neighbour offsets whose cell may hold a point within r of the own cell, nearest first.
    std::vector<std::pair<double, std::int64_t>> near;
    for (int k = -reach_[2]; k <= reach_[2]; ++k)
      for (int j = -reach_[1]; j <= reach_[1]; ++j)
        for (int i = -reach_[0]; i <= reach_[0]; ++i) {
          const double gap = sq_gap(i, s_[0]) + sq_gap(j, s_[1]) + sq_gap(k, s_[2]);
          if ((i || j || k) && gap < r2_) near.push_back({gap, (k * dim_[1] + j) * dim_[0] + i});
        }
    std::stable_sort(near.begin(), near.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    for (const auto& o : near) offsets_.push_back(o.second);
  }

  std::vector<Vec3d> run() {
    sort_darts();
    for (int pass = 0; pass < kPasses; ++pass) {
      const std::int32_t* begin = darts_.data() + first_[std::size_t(pass)];
      const auto n =
          static_cast<long long>(first_[std::size_t(pass) + 1] - first_[std::size_t(pass)]);
      const int j = pass / kPassesPerDart;
      // 1. Each dart of the pass into an empty cell, clear of every point: a proposal.
#pragma omp parallel for schedule(static, 1024)
      for (long long i = 0; i < n; ++i) {
        const std::int64_t b = begin[i];
        if (!std::isnan(points_[std::size_t(b)][0])) continue;
        const std::uint64_t h = dart_bits(b, j);
        long long x[3];
        coords(b, x);
        Vec3d p;
        for (int d = 0; d < 3; ++d)
          p[d] = (double(x[d]) + unit_from(mix64(h + 1 + std::uint64_t(d)))) * s_[d];
        if (!clear_of_points(b, p)) continue;
        // The priority: random high bits, the cell's own number below (so no two are equal).
        const std::uint64_t rank =
            (h & 0xffffffff00000000ULL) | std::uint64_t((x[2] * m_[1] + x[1]) * m_[0] + x[0]);
        put(proposals_, b, Proposal{p, rank});
      }
      // 2. A proposal is kept when it outranks every proposal within r (so no two kept ones are
      //    closer than r, whatever order the threads run in); 3. kept ones become points and
      //    every proposal is taken back.
      std::vector<std::uint8_t> keep(std::size_t(n), 0);
#pragma omp parallel for schedule(static, 1024)
      for (long long i = 0; i < n; ++i) {
        const std::int64_t b = begin[i];
        if (!std::isnan(proposals_[std::size_t(b)].p[0])) keep[std::size_t(i)] = outranks(b);
      }
#pragma omp parallel for schedule(static, 1024)
      for (long long i = 0; i < n; ++i) {
        const std::int64_t b = begin[i];
        if (std::isnan(proposals_[std::size_t(b)].p[0])) continue;
        if (keep[std::size_t(i)]) put(points_, b, proposals_[std::size_t(b)].p);
        put(proposals_, b, Proposal{{kNaN, kNaN, kNaN}, 0});
      }
    }
    std::vector<Vec3d> pts;
    for (long long z = 0; z < m_[2]; ++z)
      for (long long y = 0; y < m_[1]; ++y)
        for (long long x = 0; x < m_[0]; ++x) {
          const Vec3d& p = points_[std::size_t(index(x, y, z))];
          if (!std::isnan(p[0])) pts.push_back(p);
        }
    return pts;
  }

 private:
  static double sq_gap(int o, double s) {
    const double g = std::max(0, std::abs(o) - 1) * s;
    return g * g;
  }

  // Index of cell (x, y, z) of the torus (0 <= x < m), or of a copy around it.
  std::int64_t index(long long x, long long y, long long z) const {
    return ((z + reach_[2]) * dim_[1] + y + reach_[1]) * dim_[0] + x + reach_[0];
  }
  void coords(std::int64_t c, long long* x) const {
    x[0] = c % dim_[0] - reach_[0];
    x[1] = (c / dim_[0]) % dim_[1] - reach_[1];
    x[2] = c / (dim_[0] * dim_[1]) - reach_[2];
  }

  // The random bits of cell c's dart j (its position and priority).
  std::uint64_t dart_bits(std::int64_t c, int j) const {
    return mix64(mix64(seed_ ^ std::uint64_t(c)) + 4 * std::uint64_t(j));
  }
  int pass_of(std::int64_t c, int j) const {
    return j * kPassesPerDart + int(dart_bits(c, j) % kPassesPerDart);
  }

  // darts_[first_[pass] .. first_[pass + 1]): the cells with a dart in that pass, in cell order.
  void sort_darts() {
    std::vector<std::int32_t> cells;
    cells.reserve(std::size_t(m_[0] * m_[1] * m_[2]));
    for (long long z = 0; z < m_[2]; ++z)
      for (long long y = 0; y < m_[1]; ++y)
        for (long long x = 0; x < m_[0]; ++x) cells.push_back(std::int32_t(index(x, y, z)));
    const auto n = static_cast<long long>(cells.size()), chunks = (n + kChunk - 1) / kChunk;
    // Darts per chunk and pass, then where each chunk's darts of a pass go.
    std::vector<std::size_t> count(std::size_t(chunks * kPasses), 0);
#pragma omp parallel for schedule(dynamic, 1)
    for (long long k = 0; k < chunks; ++k)
      for (long long i = k * kChunk; i < std::min(n, (k + 1) * kChunk); ++i)
        for (int j = 0; j < kDarts; ++j)
          ++count[std::size_t(k * kPasses + pass_of(cells[std::size_t(i)], j))];
    first_.assign(kPasses + 1, 0);
    std::vector<std::size_t> at(count.size());
    std::size_t total = 0;
    for (int pass = 0; pass < kPasses; ++pass) {
      first_[std::size_t(pass)] = total;
      for (long long k = 0; k < chunks; ++k) {
        at[std::size_t(k * kPasses + pass)] = total;
        total += count[std::size_t(k * kPasses + pass)];
      }
    }
    first_[kPasses] = total;
    darts_.resize(total);
#pragma omp parallel for schedule(dynamic, 1)
    for (long long k = 0; k < chunks; ++k)
      for (long long i = k * kChunk; i < std::min(n, (k + 1) * kChunk); ++i)
        for (int j = 0; j < kDarts; ++j) {
          const std::int32_t c = cells[std::size_t(i)];
          darts_[at[std::size_t(k * kPasses + pass_of(c, j))]++] = c;
        }
  }

  // True when no point lies closer than r to p, a point in cell b.
  bool clear_of_points(std::int64_t b, const Vec3d& p) const {
    for (const std::int64_t o : offsets_) {
      const Vec3d& q = points_[std::size_t(b + o)];
      const double ex = q[0] - p[0], ey = q[1] - p[1], ez = q[2] - p[2];
      if (ex * ex + ey * ey + ez * ez < r2_) return false;  // an empty cell's NaN never is
    }
    return true;
  }

  // True when cell b's proposal outranks every other within r of it.
  bool outranks(std::int64_t b) const {
    const Proposal& me = proposals_[std::size_t(b)];
    for (const std::int64_t o : offsets_) {
      const Proposal& q = proposals_[std::size_t(b + o)];
      const double ex = q.p[0] - me.p[0], ey = q.p[1] - me.p[1], ez = q.p[2] - me.p[2];
      if (ex * ex + ey * ey + ez * ez < r2_ && q.priority > me.priority) return false;
    }
    return true;
  }

  // Value v into cell b of `grid` and into b's copies across the faces (moved by L when they hold
  // positions). Only b's dart writes these: no two threads write one cell.
  template <class T>
  void put(std::vector<T>& grid, std::int64_t b, T v) {
    long long x[3], lo[3], hi[3];
    coords(b, x);
    for (int d = 0; d < 3; ++d) {
      lo[d] = -((x[d] + reach_[d]) / m_[d]);  // copies at x + k m inside the padding
      hi[d] = (m_[d] + reach_[d] - 1 - x[d]) / m_[d];
    }
    for (long long k = lo[2]; k <= hi[2]; ++k)
      for (long long j = lo[1]; j <= hi[1]; ++j)
        for (long long i = lo[0]; i <= hi[0]; ++i) {
          T w = v;
          Vec3d& p = position(w);
          p[0] += double(i) * L_[0], p[1] += double(j) * L_[1], p[2] += double(k) * L_[2];
          grid[std::size_t(index(x[0] + i * m_[0], x[1] + j * m_[1], x[2] + k * m_[2]))] = w;
        }
  }
  static Vec3d& position(Vec3d& v) {
    return v;
  }
  static Vec3d& position(Proposal& v) {
    return v.p;
  }

  double r2_, L_[3], s_[3];
  std::uint64_t seed_;
  long long m_[3], dim_[3];
  int reach_[3];
  std::vector<Vec3d> points_;        // per cell and copy: its point, NaN when it has none
  std::vector<Proposal> proposals_;  // per cell and copy: this pass's proposal, NaN when none
  std::vector<std::int64_t> offsets_;
  std::vector<std::int32_t> darts_;
  std::vector<std::size_t> first_;
};

}  // namespace

std::vector<Vec3d> periodic_poisson_tile(const double L[3], double r, std::uint64_t seed) {
  return TileSampler(L, r, seed).run();
}

}  // namespace silt::mpm
