#include "silt/partition/streams.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <cstring>
#include <new>
#include <utility>

#include "silt/core/config.hpp"
#include "silt/core/error.hpp"
#include "silt/core/parallel_for.hpp"

#if SILT_HAS_CUDA
#include <cuda_runtime.h>
#endif

namespace silt::partition {

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

#if SILT_HAS_CUDA
struct StreamGraph::Impl {
  Exec origin;
  std::vector<Exec> joined;
  std::vector<Event> fork, join;  // fork[0] on origin; join[k] on joined[k]
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t instance = nullptr;
  ~Impl() {
    if (instance) cudaGraphExecDestroy(instance);
    if (graph) cudaGraphDestroy(graph);
  }
  // Every joined stream waits for what origin has queued (inside a capture: joins the capture).
  void fork_all() {
    fork[0].record(origin);
    for (const Exec& e : joined) fork[0].wait(e);
  }
  // Origin waits for what every joined stream has queued (inside a capture: rejoins them).
  void join_all() {
    for (size_t k = 0; k < joined.size(); ++k) {
      join[k].record(joined[k]);
      join[k].wait(origin);
    }
  }
};

StreamGraph::StreamGraph(const Exec& origin, const std::vector<Exec>& joined,
                         const std::function<void()>& body)
    : impl_(std::make_unique<Impl>()) {
  SILT_REQUIRE(origin.is_cuda() && origin.stream != nullptr,
               std::string("StreamGraph needs a CUDA exec with its own stream"));
  Impl& m = *impl_;
  m.origin = origin;
  for (const Exec& e : joined)
    if (!(e.is_cuda() && e.stream == origin.stream && e.device == origin.device)) {
      SILT_REQUIRE(e.is_cuda() && e.stream != nullptr,
                   std::string("StreamGraph: every joined exec needs a CUDA stream of its own"));
      m.joined.push_back(e);
    }
  m.fork.emplace_back(origin);
  for (const Exec& e : m.joined) m.join.emplace_back(e);
  const auto s = static_cast<cudaStream_t>(origin.stream);
  SILT_CUDA_CHECK(cudaSetDevice(origin.device));
  SILT_CUDA_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  cudaError_t err = cudaSuccess;
  std::string what;
  try {
    m.fork_all();
    body();
    m.join_all();
  } catch (const std::exception& e) {
    what = e.what();
    err = cudaErrorStreamCaptureInvalidated;
  }
  cudaSetDevice(origin.device);
  cudaGraph_t g = nullptr;
  const cudaError_t end = cudaStreamEndCapture(s, &g);
  if (err == cudaSuccess) err = end;
  if (err == cudaSuccess) err = cudaGraphInstantiate(&m.instance, g, 0);
  if (err != cudaSuccess) {
    if (g) cudaGraphDestroy(g);
    m.instance = nullptr;
    (void)cudaGetLastError();
    throw Error(fmt::format("StreamGraph: recording the graph failed: {}",
                            what.empty() ? cudaGetErrorString(err) : what));
  }
  m.graph = g;
}

StreamGraph::~StreamGraph() = default;

void StreamGraph::launch() {
  Impl& m = *impl_;
  m.join_all();  // the replay starts after every stream's queued work
  SILT_CUDA_CHECK(cudaSetDevice(m.origin.device));
  SILT_CUDA_CHECK(cudaGraphLaunch(m.instance, static_cast<cudaStream_t>(m.origin.stream)));
  m.fork_all();  // and every stream's later work starts after the replay
}

bool StreamGraph::supported() {
  return true;
}
#else
struct StreamGraph::Impl {};
StreamGraph::StreamGraph(const Exec&, const std::vector<Exec>&, const std::function<void()>&) {
  throw Error("StreamGraph: this build has no CUDA backend");
}
StreamGraph::~StreamGraph() = default;
void StreamGraph::launch() {}
bool StreamGraph::supported() {
  return false;
}
#endif

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
}

PinnedBuffer::PinnedBuffer(std::size_t bytes, bool pin) : bytes_(bytes) {
  if (bytes == 0) return;
  const std::size_t rounded = (bytes + kPage - 1) / kPage * kPage;
  p_ = static_cast<char*>(::operator new(rounded, std::align_val_t(kPage)));
#if SILT_HAS_CUDA
  if (pin && cuda_device_count() > 0) {
    SILT_CUDA_CHECK(cudaHostRegister(p_, rounded, cudaHostRegisterDefault));
    pinned_ = true;
  }
#else
  (void)pin;
#endif
}

PinnedBuffer::~PinnedBuffer() {
  if (!p_) return;
#if SILT_HAS_CUDA
  if (pinned_) cudaHostUnregister(p_);
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

void copy_rows_kernel_async(void* dst, std::size_t dst_pitch, const void* src,
                            std::size_t src_pitch, std::size_t width_bytes, std::size_t height,
                            const Exec& on) {
  if (width_bytes == 0 || height == 0) return;
  SILT_REQUIRE(on.is_cuda(), std::string("copy_rows_kernel_async needs a CUDA exec"));
  SILT_REQUIRE((width_bytes | dst_pitch | src_pitch | reinterpret_cast<std::uintptr_t>(dst) |
                reinterpret_cast<std::uintptr_t>(src)) %
                       4 ==
                   0,
               std::string("copy_rows_kernel_async: rows must be 4-byte aligned"));
  const Index words = Index(width_bytes / 4);
  const Index dst_w = Index(dst_pitch / 4), src_w = Index(src_pitch / 4);
  auto* d = static_cast<std::uint32_t*>(dst);
  const auto* s = static_cast<const std::uint32_t*>(src);
  activate(on);
  parallel_for(
      on, "halo.peer_rows", words * Index(height), SILT_LAMBDA(Index k) {
        const Index r = k / words, w = k - r * words;
        d[r * dst_w + w] = s[r * src_w + w];
      });
}

}  // namespace silt::partition
