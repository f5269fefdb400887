#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <new>

#include "silt/core/block_cache.hpp"
#include "silt/core/buffer.hpp"
#include "silt/core/device_memory.hpp"
#include "silt/core/error.hpp"
#include "silt/core/parallel_for.hpp"

#if SILT_HAS_CUDA
#include <cuda_runtime.h>
#endif

namespace silt::detail {

namespace {
constexpr std::size_t kHostAlignment = 64;  // one cache line; also enough for 16-byte vectors

std::string human_bytes(double b) {
  const char* unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (b >= 1024.0 && u < 4) {
    b /= 1024.0;
    ++u;
  }
  return fmt::format("{:.1f} {}", b, unit[u]);
}
// memcpy in slices on the host's threads when large: a new buffer's pages are then faulted in by
// the threads whose static loops will use them (first touch), and a 16.8M-cell grid's set-up
// copies its state in a fraction of the serial time.
void host_copy(void* dst, const void* src, std::size_t bytes) {
  constexpr std::size_t kSlice = std::size_t(4) << 20;
  if (bytes < 2 * kSlice) {
    std::memcpy(dst, src, bytes);
    return;
  }
  const auto slices = static_cast<std::int64_t>((bytes + kSlice - 1) / kSlice);
#pragma omp parallel for schedule(static)
  for (std::int64_t k = 0; k < slices; ++k) {
    const std::size_t at = std::size_t(k) * kSlice;
    std::memcpy(static_cast<char*>(dst) + at, static_cast<const char*>(src) + at,
                std::min(kSlice, bytes - at));
  }
}
#if SILT_HAS_CUDA
// The CUDA side of the block cache (block_cache.hpp). Errors of a free, a mark or a wait are not
// thrown (they run in destructors); a block whose mark cannot be recorded is freed at once.
class CudaBlocks final : public BlockBackend {
 public:
  void* allocate(int device, std::size_t bytes) override {
    cudaSetDevice(device);
    void* p = nullptr;
    if (cudaMalloc(&p, bytes) == cudaSuccess) return p;
    (void)cudaGetLastError();
    return nullptr;
  }
  void free(int device, void* p) override {
    cudaSetDevice(device);
    cudaFree(p);
  }
  void* mark(int device, void* stream) override {
    cudaSetDevice(device);
    const auto s = static_cast<cudaStream_t>(stream);
    // A stream being recorded into a graph runs nothing now: no mark there (freed at once).
    cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
    if (cudaStreamIsCapturing(s, &capture) != cudaSuccess ||
        capture != cudaStreamCaptureStatusNone) {
      (void)cudaGetLastError();
      return nullptr;
    }
    cudaEvent_t e = nullptr;
    if (cudaEventCreateWithFlags(&e, cudaEventDisableTiming) == cudaSuccess &&
        cudaEventRecord(e, s) == cudaSuccess)
      return e;
    (void)cudaGetLastError();
    if (e) cudaEventDestroy(e);
    return nullptr;
  }
  void wait_and_drop(int device, void* mark) override {
    if (!mark) return;
    cudaSetDevice(device);
    const auto e = static_cast<cudaEvent_t>(mark);
    cudaEventSynchronize(e);
    cudaEventDestroy(e);
    (void)cudaGetLastError();
  }
};

// One cache for the process, never destroyed: a buffer that outlives the static destructors (a
// solver freed late at exit) still finds it; what it holds then goes with the process.
BlockCache& device_blocks() {
  static BlockCache* const cache = new BlockCache(*new CudaBlocks);
  return *cache;
}
#endif

}  // namespace

std::size_t cached_device_bytes(int device) {
#if SILT_HAS_CUDA
  return device_blocks().cached_bytes(device);
#else
  (void)device;
  return 0;
#endif
}

void* allocate(const Exec& exec, std::size_t bytes, const std::string& label) {
  if (bytes == 0) return nullptr;
  if (exec.is_cuda()) {
#if SILT_HAS_CUDA
    SILT_CUDA_CHECK(cudaSetDevice(exec.device));
    void* p = device_blocks().allocate(exec.device, bytes);
    if (!p) {
      std::size_t free_b = 0, total_b = 0;
      cudaMemGetInfo(&free_b, &total_b);
      throw Error(
          fmt::format("out of device memory on CUDA device {}: '{}' needs {}, {} of {} free",
                      exec.device, label, human_bytes(double(bytes)), human_bytes(double(free_b)),
                      human_bytes(double(total_b))));
    }
    return p;
#else
    throw_no_cuda_in_unit(label.c_str());
#endif
  }
  void* p = ::operator new(bytes, std::align_val_t(kHostAlignment), std::nothrow);
  if (!p)
    throw Error(
        fmt::format("out of host memory: '{}' needs {}", label, human_bytes(double(bytes))));
  return p;
}

void deallocate(const Exec& exec, void* p) noexcept {
  if (!p) return;
  if (exec.is_cuda()) {
#if SILT_HAS_CUDA
    cudaSetDevice(exec.device);
    try {
      device_blocks().free(exec.device, p, exec.stream);
    } catch (...) {  // no room to note the block: freed at once
      cudaFree(p);
    }
#endif
    return;
  }
  ::operator delete(p, std::align_val_t(kHostAlignment));
}

void copy_bytes(void* dst, const Exec& dst_exec, const void* src, const Exec& src_exec,
                std::size_t bytes) {
  if (bytes == 0) return;
  if (!dst_exec.is_cuda() && !src_exec.is_cuda()) {
    host_copy(dst, src, bytes);
    return;
  }
#if SILT_HAS_CUDA
  const Exec& dev = dst_exec.is_cuda() ? dst_exec : src_exec;
  SILT_CUDA_CHECK(cudaSetDevice(dev.device));
  if (dst_exec.is_cuda() && src_exec.is_cuda() && dst_exec.device != src_exec.device) {
    SILT_CUDA_CHECK(
        cudaMemcpyPeerAsync(dst, dst_exec.device, src, src_exec.device, bytes, dev.stream));
  } else {
    // A copy to or from pageable host memory goes through the driver's staging path, which one
    // such copy holds while it waits for its stream's earlier work (a frame's whole graph): the
    // other host threads' copies, on their own streams, queue behind it (issue 37: members in
    // flight, whose set-up and read-backs waited 0.3 s each for the others' frames). So wait for
    // the stream first: the copy then holds that path only while it moves the bytes.
    if (!dst_exec.is_cuda() || !src_exec.is_cuda())
      SILT_CUDA_CHECK(cudaStreamSynchronize(dev.stream));
    SILT_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, dev.stream));
  }
  SILT_CUDA_CHECK(cudaStreamSynchronize(dev.stream));
#else
  throw_no_cuda_in_unit("copy");
#endif
}

void zero_bytes(void* dst, const Exec& exec, std::size_t bytes) {
  if (exec.is_cuda()) {
#if SILT_HAS_CUDA
    SILT_CUDA_CHECK(cudaSetDevice(exec.device));
    SILT_CUDA_CHECK(cudaMemsetAsync(dst, 0, bytes, exec.stream));
    return;
#else
    throw_no_cuda_in_unit("zero");
#endif
  }
  std::memset(dst, 0, bytes);
}

// Scratch for reductions that return to the host.
template <class T>
ReduceScratch<T>::ReduceScratch(const Exec& exec)
    : exec_(exec), ptr_(static_cast<T*>(allocate(exec, sizeof(T), "reduce scratch"))) {}
template <class T>
ReduceScratch<T>::~ReduceScratch() {
  deallocate(exec_, ptr_);
}
template <class T>
T* ReduceScratch<T>::ptr() {
  return ptr_;
}
template <class T>
void ReduceScratch<T>::set(T v) {
  copy_bytes(ptr_, exec_, &v, Exec::host(), sizeof(T));
}
template <class T>
T ReduceScratch<T>::get() {
  T v;
  copy_bytes(&v, Exec::host(), ptr_, exec_, sizeof(T));
  return v;
}
template struct ReduceScratch<float>;
template struct ReduceScratch<double>;
template struct ReduceScratch<int>;
template struct ReduceScratch<long long>;

}  // namespace silt::detail

namespace silt {

DeviceBlockStats device_block_stats() {
  DeviceBlockStats r;
#if SILT_HAS_CUDA
  const detail::BlockCacheStats s = detail::device_blocks().stats();
  r.allocations = s.allocations;
  r.reused = s.reused;
  r.released = s.released;
  r.cached_bytes = s.cached_bytes;
#endif
  return r;
}

}  // namespace silt
