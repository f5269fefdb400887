#include "silt/core/exec.hpp"

#include <fmt/format.h>
#include <omp.h>

#include <cstdlib>

#include "silt/core/block_cache.hpp"
#include "silt/core/buffer.hpp"
#include "silt/core/device_memory.hpp"
#include "silt/core/error.hpp"
#include "silt/core/parallel_for.hpp"

#if SILT_HAS_CUDA
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>
#endif

namespace silt {

bool cuda_compiled() {
  return SILT_HAS_CUDA != 0;
}

int cuda_device_count() {
#if SILT_HAS_CUDA
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    (void)cudaGetLastError();  // no driver or no device: not an error for the caller
    return 0;
  }
  return n;
#else
  return 0;
#endif
}

std::string cuda_device_name(int device) {
#if SILT_HAS_CUDA
  cudaDeviceProp p{};
  SILT_CUDA_CHECK(cudaGetDeviceProperties(&p, device));
  return fmt::format("{}, cc {}.{}, {} SMs, {:.1f} GiB, L2 {} MiB", p.name, p.major, p.minor,
                     p.multiProcessorCount, p.totalGlobalMem / 1073741824.0, p.l2CacheSize >> 20);
#else
  (void)device;
  throw Error("this build of silt has no CUDA backend");
#endif
}

std::size_t cuda_free_bytes(int device) {
#if SILT_HAS_CUDA
  SILT_CUDA_CHECK(cudaSetDevice(device));
  std::size_t free_b = 0, total_b = 0;
  SILT_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
  return free_b + detail::cached_device_bytes(device);
#else
  (void)device;
  return 0;
#endif
}

int host_thread_count() {
  return omp_get_max_threads();
}

Backend backend_from_string(std::string_view name) {
  if (name == "cpu") return Backend::cpu;
  if (name == "cuda") {
    if (!cuda_compiled())
      throw Error(
          "backend 'cuda' asked for, but this build of silt has no CUDA backend "
          "(rebuild with nvcc present and SILT_ENABLE_CUDA=ON)");
    if (cuda_device_count() == 0)
      throw Error("backend 'cuda' asked for, but no CUDA device is visible");
    return Backend::cuda;
  }
  if (name == "auto") return cuda_device_count() > 0 ? Backend::cuda : Backend::cpu;
  throw Error(fmt::format("unknown backend '{}' (expected cpu, cuda or auto)", name));
}

std::string to_string(Backend b) {
  return b == Backend::cuda ? "cuda" : "cpu";
}

void fence(const Exec& exec) {
#if SILT_HAS_CUDA
  if (exec.is_cuda()) {
    SILT_CUDA_CHECK(cudaSetDevice(exec.device));
    SILT_CUDA_CHECK(cudaStreamSynchronize(exec.stream));
  }
#else
  (void)exec;
#endif
}

void activate(const Exec& exec) {
#if SILT_HAS_CUDA
  if (exec.is_cuda()) SILT_CUDA_CHECK(cudaSetDevice(exec.device));
#else
  (void)exec;
#endif
}

namespace detail {

void throw_no_cuda_in_unit(const char* label) {
  throw Error(
      fmt::format("kernel '{}' was asked to run on CUDA from code compiled without nvcc", label));
}

#if SILT_HAS_CUDA
namespace {
bool sync_launches() {
#ifndef NDEBUG
  return true;
#else
  static const bool on = [] {
    const char* v = std::getenv("SILT_SYNC_LAUNCHES");
    return v && v[0] == '1';
  }();
  return on;
#endif
}
}  // namespace
#endif

void check_launch(const Exec& exec, const char* label) {
#if SILT_HAS_CUDA
  cudaError_t e = cudaGetLastError();
  // A launch being recorded into a graph is not run yet: waiting for it would end the recording
  // (a failed capture), so SILT_SYNC_LAUNCHES checks plain launches only.
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  if (e == cudaSuccess && sync_launches() &&
      cudaStreamIsCapturing(exec.stream, &capture) == cudaSuccess &&
      capture == cudaStreamCaptureStatusNone)
    e = cudaStreamSynchronize(exec.stream);
  if (e != cudaSuccess)
    throw Error(fmt::format("kernel '{}' failed on CUDA device {}: {}", label, exec.device,
                            cudaGetErrorString(e)));
#else
  (void)exec;
  (void)label;
#endif
}

void range_push(const char* label) {
#if SILT_HAS_CUDA
  nvtxRangePushA(label);
#else
  (void)label;
#endif
}

void range_pop() {
#if SILT_HAS_CUDA
  nvtxRangePop();
#endif
}

}  // namespace detail
}  // namespace silt
