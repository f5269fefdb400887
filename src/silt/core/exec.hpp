// Where work runs: the host (OpenMP threads) or one CUDA device and stream. An Exec is a small
// value passed to every parallel_for and every buffer allocation; memory lives where its Exec runs.
#pragma once

#include <string>
#include <string_view>

struct CUstream_st;  // cudaStream_t without including the CUDA headers in host-only code

namespace silt {

enum class Backend { cpu, cuda };

struct Exec {
  Backend backend = Backend::cpu;
  int device = 0;                 // CUDA device ordinal (cuda only)
  CUstream_st* stream = nullptr;  // CUDA stream; nullptr is the legacy default stream

  static Exec host() { return Exec{}; }
  static Exec cuda(int device = 0, CUstream_st* stream = nullptr) {
    return Exec{Backend::cuda, device, stream};
  }
  bool is_cuda() const { return backend == Backend::cuda; }
  bool operator==(const Exec& o) const {
    return backend == o.backend && (backend == Backend::cpu || device == o.device);
  }
};

/// "cpu" or "cuda" (also "auto": cuda when a device is present, else cpu). Throws silt::Error
/// naming the string otherwise, or when cuda is asked for and this build has no CUDA backend.
Backend backend_from_string(std::string_view name);
std::string to_string(Backend b);

/// True when silt was built with the CUDA backend.
bool cuda_compiled();
/// Number of CUDA devices visible (0 when built without CUDA or when no driver/device is present).
int cuda_device_count();
/// One-line description of a device ("NVIDIA H200, cc 9.0, 132 SMs, 139.8 GiB").
std::string cuda_device_name(int device);
/// Host threads used by the CPU backend.
int host_thread_count();

/// Blocks until all work queued on exec has finished (no-op on the host backend).
void fence(const Exec& exec);

/// Makes exec's device current for the calling host thread (no-op on the host backend).
void activate(const Exec& exec);

}  // namespace silt
