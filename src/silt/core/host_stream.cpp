#include "silt/core/host_stream.hpp"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <memory>

namespace silt {

HostStream measure_host_stream(std::size_t array_bytes, int passes) {
  const std::ptrdiff_t n = std::ptrdiff_t(array_bytes / sizeof(double));
  std::unique_ptr<double[]> a(new double[size_t(n)]), b(new double[size_t(n)]);
  // First touch by the threads that copy (pages land near them on a NUMA machine).
#pragma omp parallel for schedule(static)
  for (std::ptrdiff_t i = 0; i < n; ++i) {
    a[size_t(i)] = 1.0 + double(i % 7);
    b[size_t(i)] = 0.0;
  }
  double best = 0;
  for (int p = 0; p < passes; ++p) {
    const auto t0 = std::chrono::steady_clock::now();
#pragma omp parallel for schedule(static)
    for (std::ptrdiff_t i = 0; i < n; ++i) b[size_t(i)] = a[size_t(i)];
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (s > 0) best = std::max(best, 2.0 * double(n) * sizeof(double) / s);
  }
  // Keep the copies observable.
  volatile double sink = b[size_t(n / 2)];
  (void)sink;
  return HostStream{best, omp_get_max_threads(), size_t(n) * sizeof(double)};
}

}  // namespace silt
