// Pinned staging for frames copied to the host behind the steps (../shared/DESIGN.md §7, "Frames
// stream"): the one pool both solvers' frame copies use (mpm/frame_copy.cpp, swe/engine_output.cpp).
// A slot is a pinned buffer and one event per part; take() hands out a free slot (reused from
// frame to frame, grown when too small) as a StagedFrame. The solver queues each part's copies
// into it and records that part's event behind them; the writer's thread calls get(), which waits
// for the events. The slot is free again when the handle is destroyed, and a handle dropped
// unread (a run stopped before the writer took the frame) first waits for its copies, which
// still land in the slot. Frames in flight are bounded by the writer's queue, so the pool stays
// small.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "silt/core/device_set.hpp"
#include "silt/core/exec.hpp"

namespace silt {

namespace detail {
struct StagingSlot;
}

/// One frame's slot, taken: see the file comment.
class StagedFrame {
 public:
  StagedFrame() = default;
  explicit StagedFrame(std::shared_ptr<detail::StagingSlot> slot);
  /// Waits for the copies not yet waited for (errors ignored: a destructor), then frees the slot.
  ~StagedFrame();
  StagedFrame(StagedFrame&&) noexcept = default;
  StagedFrame& operator=(StagedFrame&& o) noexcept;
  StagedFrame(const StagedFrame&) = delete;
  StagedFrame& operator=(const StagedFrame&) = delete;

  /// Where the copies go (at least the bytes asked of take()).
  char* data();
  /// Part q's event: record it on the stream that queued part q's copies, after them.
  Event& done(std::size_t part);
  /// Waits for every part's copies and returns the staged bytes (valid while this handle lives).
  const char* get();

 private:
  void release() noexcept;
  std::shared_ptr<detail::StagingSlot> slot_;
};

class StagingPool {
 public:
  StagingPool();
  ~StagingPool();
  StagingPool(const StagingPool&) = delete;
  StagingPool& operator=(const StagingPool&) = delete;

  /// A free slot of at least `bytes`: the first free one large enough, else a free one grown to
  /// `reserve` bytes (>= bytes: headroom for counts that grow), else a new one of `reserve`
  /// bytes with one event per part. pin: page-locked (CUDA parts copy into it asynchronously).
  StagedFrame take(std::size_t bytes, std::size_t reserve, const std::vector<Exec>& parts,
                   bool pin);
  /// Slots made so far (tests: reuse keeps this at the frames in flight).
  std::size_t slots() const { return slots_.size(); }

 private:
  std::vector<std::shared_ptr<detail::StagingSlot>> slots_;
};

}  // namespace silt
