// The host's memory bandwidth as STREAM measures it (McCalpin, "Memory Bandwidth and Machine
// Balance in Current High Performance Computers", 1995): the copy kernel b[i] = a[i] over arrays
// far larger than the caches, on the CPU backend's OpenMP threads, best of several passes, in bytes
// read plus bytes written per second (write-allocate traffic not counted, as in STREAM). The
// roofline that the CPU benchmarks print their throughput against.
#pragma once

#include <cstddef>

namespace silt {

struct HostStream {
  double bytes_per_s = 0;  // copy: read + written, B/s
  int threads = 0;         // OpenMP threads that ran it
  std::size_t array_bytes = 0;
};

/// Runs the copy over two arrays of array_bytes each, passes times (the first also faults the
/// pages in), and returns the best pass.
HostStream measure_host_stream(std::size_t array_bytes = std::size_t(256) << 20, int passes = 6);

}  // namespace silt
