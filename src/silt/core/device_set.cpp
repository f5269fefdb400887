#include "silt/core/device_set.hpp"

#include <fmt/format.h>

#include <cstring>
#include <new>
#include <utility>

#include "silt/core/block_cache.hpp"
#include "silt/core/config.hpp"
#include "silt/core/error.hpp"
#include "silt/core/parallel_for.hpp"

#if SILT_HAS_CUDA
#include <cuda_runtime.h>
#endif

namespace silt {

Stream::Stream(const Exec& exec) : exec_(exec) {
#if SILT_HAS_CUDA
  if (!exec.is_cuda()) return;
  activate(exec);
  cudaStream_t s = nullptr;
  SILT_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  exec_.stream = s;
  owned_ = true;
#endif
}

Stream::~Stream() {
#if SILT_HAS_CUDA
  if (owned_) {
    cudaSetDevice(exec_.device);
    cudaStreamDestroy(exec_.stream);
  }
#endif
}

Stream::Stream(Stream&& o) noexcept : exec_(o.exec_), owned_(o.owned_) {
  o.owned_ = false;
}

Stream& Stream::operator=(Stream&& o) noexcept {
  if (this != &o) {
    std::swap(exec_, o.exec_);
    std::swap(owned_, o.owned_);
  }
  return *this;
}

Event::Event(const Exec& exec) : exec_(exec) {
#if SILT_HAS_CUDA
  if (!exec.is_cuda()) return;
  activate(exec);
  cudaEvent_t e = nullptr;
  SILT_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  ev_ = e;
#endif
}

Event::~Event() {
#if SILT_HAS_CUDA
  if (ev_) {
    cudaSetDevice(exec_.device);
    cudaEventDestroy(ev_);
  }
#endif
}

Event::Event(Event&& o) noexcept : exec_(o.exec_), ev_(o.ev_) {
  o.ev_ = nullptr;
}

Event& Event::operator=(Event&& o) noexcept {
  if (this != &o) {
    std::swap(exec_, o.exec_);
    std::swap(ev_, o.ev_);
  }
  return *this;
}

void Event::record(const Exec& on) {
#if SILT_HAS_CUDA
  if (!ev_) return;
  activate(on);
  SILT_CUDA_CHECK(cudaEventRecord(ev_, on.stream));
#else
  (void)on;
#endif
}

void Event::wait(const Exec& by) const {
#if SILT_HAS_CUDA
  if (!ev_ || !by.is_cuda()) return;
  activate(by);
  SILT_CUDA_CHECK(cudaStreamWaitEvent(by.stream, ev_, 0));
#else
  (void)by;
#endif
}

void Event::synchronize() const {
#if SILT_HAS_CUDA
  if (!ev_) return;
  SILT_CUDA_CHECK(cudaSetDevice(exec_.device));  // the calling thread's device (a writer's)
  SILT_CUDA_CHECK(cudaEventSynchronize(ev_));
#endif
}

int enable_peer_access(const std::vector<int>& devices) {
  int enabled = 0;
#if SILT_HAS_CUDA
  for (const int a : devices)
    for (const int b : devices) {
      if (a == b) continue;
      int can = 0;
      SILT_CUDA_CHECK(cudaDeviceCanAccessPeer(&can, a, b));
      if (!can) continue;
      SILT_CUDA_CHECK(cudaSetDevice(a));
      const cudaError_t e = cudaDeviceEnablePeerAccess(b, 0);
      if (e == cudaErrorPeerAccessAlreadyEnabled || e == cudaSuccess) {
        (void)cudaGetLastError();
        ++enabled;
      } else {
        SILT_CUDA_CHECK(e);
      }
    }
#else
  (void)devices;
#endif
  return enabled;
}

namespace {
constexpr std::size_t kPage = 4096;

#if SILT_HAS_CUDA
constexpr int kHost = -1;  // the pinned blocks' "device" in the cache

// Page-locked host blocks (cudaHostRegister) kept for reuse like device blocks (block_cache.hpp):
// a solver's frame staging pinned once per process rather than once per solver (an ensemble's
// members). No marks: a PinnedBuffer's owner waits for the copies into it before it goes
// (StagedFrame::release, the halo exchange's and fields()' fences), as before.
class PinnedBlocks final : public detail::BlockBackend {
 public:
  void* allocate(int, std::size_t bytes) override {
    void* p = ::operator new(bytes, std::align_val_t(kPage), std::nothrow);
    if (!p) return nullptr;
    if (cudaHostRegister(p, bytes, cudaHostRegisterDefault) == cudaSuccess) return p;
    (void)cudaGetLastError();
    ::operator delete(p, std::align_val_t(kPage));
    return nullptr;
  }
  void free(int, void* p) override {
    cudaHostUnregister(p);
    (void)cudaGetLastError();
    ::operator delete(p, std::align_val_t(kPage));
  }
  void* mark(int, void*) override { return nullptr; }
  void wait_and_drop(int, void*) override {}
};

// Never destroyed, as the device blocks' cache (memory.cpp).
detail::BlockCache& pinned_blocks() {
  static detail::BlockCache* const cache = new detail::BlockCache(*new PinnedBlocks);
  return *cache;
}
#endif
}  // namespace

PinnedBuffer::PinnedBuffer(std::size_t bytes, bool pin) : bytes_(bytes) {
  if (bytes == 0) return;
  const std::size_t rounded = (bytes + kPage - 1) / kPage * kPage;
#if SILT_HAS_CUDA
  if (pin && cuda_device_count() > 0) {
    p_ = static_cast<char*>(pinned_blocks().allocate(kHost, rounded));
    if (!p_)
      throw Error(
          fmt::format("cannot page-lock {} bytes of host memory for copies with the GPU", rounded));
    pinned_ = true;
    return;
  }
#else
  (void)pin;
#endif
  p_ = static_cast<char*>(::operator new(rounded, std::align_val_t(kPage)));
}

PinnedBuffer::~PinnedBuffer() {
  if (!p_) return;
#if SILT_HAS_CUDA
  if (pinned_) {
    try {
      pinned_blocks().keep(kHost, p_);
    } catch (...) {  // no room to note the block: unpinned and freed at once
      cudaHostUnregister(p_);
      ::operator delete(p_, std::align_val_t(kPage));
    }
    return;
  }
#endif
  ::operator delete(p_, std::align_val_t(kPage));
}

PinnedBuffer::PinnedBuffer(PinnedBuffer&& o) noexcept
    : p_(o.p_), bytes_(o.bytes_), pinned_(o.pinned_) {
  o.p_ = nullptr;
  o.bytes_ = 0;
  o.pinned_ = false;
}

PinnedBuffer& PinnedBuffer::operator=(PinnedBuffer&& o) noexcept {
  std::swap(p_, o.p_);
  std::swap(bytes_, o.bytes_);
  std::swap(pinned_, o.pinned_);
  return *this;
}

void copy_rows_async(void* dst, std::size_t dst_pitch, const Exec& dst_exec, const void* src,
                     std::size_t src_pitch, const Exec& src_exec, std::size_t width_bytes,
                     std::size_t height, const Exec& on) {
  if (width_bytes == 0 || height == 0) return;
  if (!dst_exec.is_cuda() && !src_exec.is_cuda()) {
    for (std::size_t r = 0; r < height; ++r)
      std::memcpy(static_cast<char*>(dst) + r * dst_pitch,
                  static_cast<const char*>(src) + r * src_pitch, width_bytes);
    return;
  }
#if SILT_HAS_CUDA
  activate(on);
  // Unified addressing: the driver routes device-to-device copies between two GPUs over the peer
  // link (NVLink) when peer access is enabled.
  SILT_CUDA_CHECK(cudaMemcpy2DAsync(dst, dst_pitch, src, src_pitch, width_bytes, height,
                                    cudaMemcpyDefault, on.stream));
#else
  (void)on;
  throw Error("copy_rows_async: a CUDA buffer in a build without the CUDA backend");
#endif
}

}  // namespace silt
