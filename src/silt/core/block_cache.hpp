// Device blocks kept for reuse instead of freed (issue 37): cudaFree waits for the whole device,
// every stream of every host thread, so an ensemble member that tore its solver down (a few dozen
// buffers) waited once per buffer for the other members in flight, and the next member's
// cudaMalloc calls followed. A freed block goes into this cache with a mark recorded behind the
// work its owner's stream had queued; an allocation of the same size takes it back after waiting
// for that mark (at once when the stream is idle: solvers fence their streams before their
// buffers go). Identical members, a reduction's scratch and a solver rebuilt at the same size
// reuse blocks; nothing is freed until an allocation fails (then the device's cache is emptied
// and the allocation retried) or the process ends (the CUDA cache lives as long as the process).
//
// The device side is a BlockBackend (the CUDA one in memory.cpp; pinned host staging in
// device_set.cpp, kept from member to member too; tests give a fake one), so the bookkeeping is
// tested on the CPU (core_block_cache_test).
//
// What a block's owner guarantees, as with cudaFree before: work on streams other than its own
// that touched the block is complete (fenced) when the block is freed. New: its own stream is
// still alive then (the mark is recorded on it), so a DeviceBuffer must not outlive the Stream
// of its Exec: the owners declare their streams before their buffers (swe Engine `compute_`,
// mpm Solver::Impl `streams`). A block whose stream is the
// legacy default stream is not cached (the caller frees it at once): a mark there does not follow
// the non-blocking streams that may have used it.
#pragma once

#include <cstddef>
#include <deque>
#include <map>
#include <mutex>
#include <unordered_map>

namespace silt::detail {

/// What the cache needs of a device (one implementation per backend; a fake in tests).
class BlockBackend {
 public:
  virtual ~BlockBackend() = default;
  /// A new block of `bytes` on `device`, or nullptr when the device has no room.
  virtual void* allocate(int device, std::size_t bytes) = 0;
  virtual void free(int device, void* p) = 0;
  /// A mark recorded behind the work queued so far on `stream` of `device`; nullptr when none
  /// can be recorded (the block is then freed at once).
  virtual void* mark(int device, void* stream) = 0;
  /// Waits until the mark's work is done, then forgets the mark.
  virtual void wait_and_drop(int device, void* mark) = 0;
};

/// Counts since the process started (all devices).
struct BlockCacheStats {
  long long allocations = 0;  // blocks asked for
  long long reused = 0;       // ... of which the cache gave back
  long long frees = 0;        // blocks given back by their owners
  long long released = 0;     // cached blocks freed to make room (after a failed allocation)
  std::size_t cached_bytes = 0;
};

class BlockCache {
 public:
  explicit BlockCache(BlockBackend& backend) : backend_(backend) {}
  ~BlockCache();
  BlockCache(const BlockCache&) = delete;
  BlockCache& operator=(const BlockCache&) = delete;

  /// A block of `bytes` on `device`: a cached one of the same size (its mark waited for), else a
  /// new one; when the device is full, the device's cached blocks are freed and the allocation
  /// tried again. nullptr when it still fails.
  void* allocate(int device, std::size_t bytes);
  /// Takes back block p (from allocate()), last used on `stream` of `device`: cached, unless the
  /// stream is the legacy default stream (nullptr), then freed at once. Unknown pointers are freed.
  void free(int device, void* p, void* stream);
  /// Takes back block p with no mark: its owner has waited for everything that used it (pinned
  /// host staging, whose copies its owner waits for). Unknown pointers are freed.
  void keep(int device, void* p);
  /// Frees every cached block of `device`; returns how many.
  long long release(int device);
  BlockCacheStats stats() const;
  /// Bytes cached on `device` now (free for the next allocations of their sizes).
  std::size_t cached_bytes(int device) const;

 private:
  struct Cached {
    void* p;
    void* mark;  // nullptr: nothing to wait for (keep())
  };
  using Key = std::pair<int, std::size_t>;  // device, bytes
  /// p's bytes, no longer live (0: not from allocate()).
  std::size_t forget(void* p);
  void hold(int device, void* p, std::size_t bytes, void* mark);
  BlockBackend& backend_;
  mutable std::mutex m_;
  std::map<Key, std::deque<Cached>> cached_;     // the oldest first (its mark most likely done)
  std::unordered_map<void*, std::size_t> live_;  // block -> bytes
  BlockCacheStats stats_;
};

/// Bytes the process's CUDA block cache holds on `device` (0 without CUDA): free to silt,
/// though cudaMemGetInfo counts them as used (exec.cpp's cuda_free_bytes adds them back).
std::size_t cached_device_bytes(int device);

}  // namespace silt::detail
