// Piecewise-linear time series evaluated on the device: the samples of every series live in one
// table in device memory (times and values, double), each series being a range [begin, end) of it.
#pragma once

#include "silt/core/config.hpp"

namespace silt::swe {

/// Value at time `time` (s) of the series with samples t[0..n), v[0..n): linear between samples,
/// the end values outside [t[0], t[n-1]], 0 for an empty series. t strictly increasing.
SILT_HD inline double series_value_k(const double* t, const double* v, int n, double time) {
  if (n <= 0) return 0.0;
  if (!(time > t[0])) return v[0];
  if (!(time < t[n - 1])) return v[n - 1];
  int lo = 0, hi = n - 1;  // t[lo] <= time < t[hi]
  while (hi - lo > 1) {
    const int mid = (lo + hi) / 2;
    if (t[mid] <= time)
      lo = mid;
    else
      hi = mid;
  }
  const double w = (time - t[lo]) / (t[hi] - t[lo]);
  return v[lo] + w * (v[hi] - v[lo]);
}

/// First sample index k with t[k] > time (n when none).
SILT_HD inline int series_after_k(const double* t, int n, double time) {
  int lo = 0, hi = n;  // t[k] <= time for k < lo, t[k] > time for k >= hi
  while (lo < hi) {
    const int mid = (lo + hi) / 2;
    if (t[mid] > time)
      hi = mid;
    else
      lo = mid + 1;
  }
  return lo;
}

/// Range of the same series over the times [t0, t1] (t0 <= t1): a piecewise-linear series takes
/// its extremes at the ends of the interval or at samples inside it. {0, 0} for an empty series.
struct SeriesRange {
  double lo, hi;
};
SILT_HD inline SeriesRange series_range_k(const double* t, const double* v, int n, double t0,
                                          double t1) {
  if (n <= 0) return SeriesRange{0.0, 0.0};
  const double a = series_value_k(t, v, n, t0), b = series_value_k(t, v, n, t1);
  SeriesRange r{a < b ? a : b, a < b ? b : a};
  for (int k = series_after_k(t, n, t0); k < n && t[k] < t1; ++k) {
    if (v[k] < r.lo) r.lo = v[k];
    if (v[k] > r.hi) r.hi = v[k];
  }
  return r;
}

}  // namespace silt::swe
