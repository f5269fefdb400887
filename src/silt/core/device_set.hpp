// The devices of one process: CUDA streams, events, peer access, pinned host buffers and copies
// between any two spaces. A split run's parts compute on streams of their own and move halos or
// shared sums on others, so exchanges overlap interior work (paper 001, paper 000 §5). On the host
// backend every operation here is a no-op or a plain copy, so the same driver code runs on CPU
// partitions. With core/launch.hpp, core/loop_graph.hpp and core/peer_barrier.hpp, the backend's
// one home.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "silt/core/exec.hpp"

struct CUevent_st;

namespace silt {

/// A CUDA stream of its own on exec's device (non-blocking with respect to the legacy stream);
/// on the host, exec itself.
class Stream {
 public:
  Stream() = default;
  explicit Stream(const Exec& exec);
  ~Stream();
  Stream(Stream&& o) noexcept;
  Stream& operator=(Stream&& o) noexcept;
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  const Exec& exec() const { return exec_; }
  /// exec's own stream (a caller's), not owned: left alone when this object goes.
  static Stream borrowed(const Exec& exec) {
    Stream s;
    s.exec_ = exec;
    return s;
  }

 private:
  Exec exec_{};
  bool owned_ = false;
};

/// A CUDA event (timing disabled) on one device; no-op on the host.
class Event {
 public:
  Event() = default;
  explicit Event(const Exec& exec);
  ~Event();
  Event(Event&& o) noexcept;
  Event& operator=(Event&& o) noexcept;
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  /// Marks the work queued so far on `on` (same device as the event).
  void record(const Exec& on);
  /// Work queued on `by` from now on (any device) waits for the last record.
  void wait(const Exec& by) const;
  /// The calling host thread (any) waits until the work of the last record has run.
  void synchronize() const;

 private:
  Exec exec_{};
  CUevent_st* ev_ = nullptr;
};

/// Enables peer access between every pair of the given CUDA devices that supports it; returns
/// the number of ordered pairs enabled (copies between the others are staged by the driver).
int enable_peer_access(const std::vector<int>& devices);

/// Host memory for asynchronous copies with CUDA devices: page-aligned and a whole number of
/// pages (two buffers never share a page, which cudaHostRegister cannot lock twice), page-locked
/// when CUDA devices are present. Plain host memory otherwise.
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  PinnedBuffer(std::size_t bytes, bool pin);
  ~PinnedBuffer();
  PinnedBuffer(PinnedBuffer&& o) noexcept;
  PinnedBuffer& operator=(PinnedBuffer&& o) noexcept;
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  char* data() { return p_; }
  std::size_t size() const { return bytes_; }

 private:
  char* p_ = nullptr;
  std::size_t bytes_ = 0;
  bool pinned_ = false;
};

/// Copies a height x width_bytes block of rows between any two spaces (host or device; the
/// devices may differ), queued on `on`'s stream (the host copies at once).
void copy_rows_async(void* dst, std::size_t dst_pitch, const Exec& dst_exec, const void* src,
                     std::size_t src_pitch, const Exec& src_exec, std::size_t width_bytes,
                     std::size_t height, const Exec& on);

}  // namespace silt
