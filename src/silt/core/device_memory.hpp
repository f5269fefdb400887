// A CUDA device's free memory, for callers that size their work by it (the ensemble's member
// pool: run/member_pool.cpp). Defined in exec.cpp, the backend's device queries.
#pragma once

#include <cstddef>

namespace silt {

/// Free memory of CUDA device `device` now, in bytes (cudaMemGetInfo; 0 without CUDA).
std::size_t cuda_free_bytes(int device);

}  // namespace silt
