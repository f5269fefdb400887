#include "silt/run/ensemble_stats.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "silt/core/error.hpp"

namespace silt::run {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Member values of cell c that are not NaN, in member order.
void gather(const MemberColumns& values, std::size_t c, std::vector<double>& out) {
  out.clear();
  for (const double* m : values.member)
    if (!std::isnan(m[c])) out.push_back(m[c]);
}

}  // namespace

double percentile_linear(const std::vector<double>& sorted, double p) {
  // numpy/lib/function_base.py: virtual index (n - 1) q, q = p / 100; gamma its fraction; _lerp
  // takes a + (b - a) gamma below gamma 0.5 and b - (b - a)(1 - gamma) from it (monotone and
  // exact at the ends).
  const double q = p / 100.0;
  const double virtual_index = double(sorted.size() - 1) * q;
  const double below = std::floor(virtual_index);
  const std::size_t lo = std::size_t(std::max(below, 0.0));
  const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  const double gamma = virtual_index - below;
  const double a = sorted[lo], b = sorted[hi];
  const double diff = b - a;
  return gamma >= 0.5 ? b - diff * (1.0 - gamma) : a + diff * gamma;
}

MemberColumns columns_of(const MemberValues& values) {
  MemberColumns c;
  c.cells = values.empty() ? 0 : values.front().size();
  for (std::size_t m = 0; m < values.size(); ++m) {
    if (values[m].size() != c.cells)
      throw Error(fmt::format("ensemble statistics: member {} has {} values, member 0 has {}", m,
                              values[m].size(), c.cells));
    c.member.push_back(values[m].data());
  }
  return c;
}

CellStats cell_stats(const MemberValues& values, bool mean, bool std,
                     const std::vector<int>& percentiles) {
  return cell_stats(columns_of(values), mean, std, percentiles);
}

std::vector<std::vector<double>> exceedance(const MemberValues& values,
                                            const std::vector<double>& thresholds) {
  return exceedance(columns_of(values), thresholds);
}

CellStats cell_stats(const MemberColumns& values, bool mean, bool std,
                     const std::vector<int>& percentiles) {
  CellStats s;
  const std::size_t n = values.cells;
  if (mean) s.mean.assign(n, kNaN);
  if (std) s.std.assign(n, kNaN);
  s.percentiles.assign(percentiles.size(), std::vector<double>(n, kNaN));
#pragma omp parallel
  {
    std::vector<double> v;
#pragma omp for schedule(static)
    for (std::size_t c = 0; c < n; ++c) {
      gather(values, c, v);
      if (v.empty()) continue;
      // Two passes, as NumPy: the mean, then the mean of the squared deviations from it.
      double sum = 0;
      for (double x : v) sum += x;
      const double mu = sum / double(v.size());
      if (mean) s.mean[c] = mu;
      if (std) {
        double dev = 0;
        for (double x : v) dev += (x - mu) * (x - mu);
        s.std[c] = std::sqrt(dev / double(v.size()));
      }
      std::sort(v.begin(), v.end());
      for (std::size_t k = 0; k < percentiles.size(); ++k)
        s.percentiles[k][c] = percentile_linear(v, percentiles[k]);
    }
  }
  return s;
}

std::vector<std::vector<double>> exceedance(const MemberColumns& values,
                                            const std::vector<double>& thresholds) {
  const std::size_t n = values.cells;
  std::vector<std::vector<double>> p(thresholds.size(), std::vector<double>(n, kNaN));
#pragma omp parallel for schedule(static)
  for (std::size_t c = 0; c < n; ++c)
    for (std::size_t k = 0; k < thresholds.size(); ++k) {
      std::size_t with = 0, above = 0;
      for (const double* m : values.member)
        if (!std::isnan(m[c])) {
          ++with;
          above += m[c] > thresholds[k];
        }
      if (with > 0) p[k][c] = double(above) / double(with);
    }
  return p;
}

}  // namespace silt::run
