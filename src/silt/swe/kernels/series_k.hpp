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

}  // namespace silt::swe
