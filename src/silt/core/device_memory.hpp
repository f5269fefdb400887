// A CUDA device's free memory, for callers that size their work by it (the ensemble's member
// pool: run/member_pool.cpp), defined in exec.cpp with the backend's device queries; and what the
// device block cache (block_cache.hpp) reused, defined in memory.cpp.
#pragma once

#include <cstddef>

namespace silt {

/// Free memory of CUDA device `device` now, in bytes: cudaMemGetInfo's, plus the blocks silt's
/// block cache holds there for reuse (block_cache.hpp); 0 without CUDA.
std::size_t cuda_free_bytes(int device);

/// Device blocks since the process started, on every CUDA device (all 0 without CUDA).
struct DeviceBlockStats {
  long long allocations = 0;     // DeviceBuffers and scratch blocks asked for
  long long reused = 0;          // ... of which freed blocks reused (no cudaMalloc, no cudaFree)
  long long released = 0;        // cached blocks freed to make room for a larger allocation
  std::size_t cached_bytes = 0;  // held for reuse now
};
DeviceBlockStats device_block_stats();

}  // namespace silt
