#include "silt/core/staging.hpp"

#include <algorithm>
#include <atomic>

namespace silt {

namespace detail {

// Busy from take() until its StagedFrame is destroyed (the writer's thread frees it).
struct StagingSlot {
  PinnedBuffer staging;
  std::vector<Event> done;  // one per part
  std::atomic<bool> busy{false};
};

}  // namespace detail

StagedFrame::StagedFrame(std::shared_ptr<detail::StagingSlot> slot) : slot_(std::move(slot)) {}

StagedFrame::~StagedFrame() {
  release();
}

StagedFrame& StagedFrame::operator=(StagedFrame&& o) noexcept {
  if (this != &o) {
    release();
    slot_ = std::move(o.slot_);
  }
  return *this;
}

void StagedFrame::release() noexcept {
  if (!slot_) return;
  try {
    for (const Event& e : slot_->done) e.synchronize();
  } catch (...) {
  }
  slot_->busy.store(false, std::memory_order_release);
  slot_.reset();
}

char* StagedFrame::data() {
  return slot_->staging.data();
}

Event& StagedFrame::done(std::size_t part) {
  return slot_->done[part];
}

const char* StagedFrame::get() {
  for (const Event& e : slot_->done) e.synchronize();
  return slot_->staging.data();
}

StagingPool::StagingPool() = default;
StagingPool::~StagingPool() = default;

StagedFrame StagingPool::take(std::size_t bytes, std::size_t reserve,
                              const std::vector<Exec>& parts, bool pin) {
  reserve = std::max(reserve, bytes);
  std::shared_ptr<detail::StagingSlot> slot;
  for (const auto& s : slots_) {
    if (s->busy.load(std::memory_order_acquire)) continue;
    if (!slot || s->staging.size() >= bytes) slot = s;
    if (slot->staging.size() >= bytes) break;
  }
  if (!slot) {
    slot = std::make_shared<detail::StagingSlot>();
    for (const Exec& p : parts) slot->done.emplace_back(p);
    slots_.push_back(slot);
  }
  if (slot->staging.size() < bytes) slot->staging = PinnedBuffer(reserve, pin);
  slot->busy.store(true, std::memory_order_relaxed);
  return StagedFrame(std::move(slot));
}

}  // namespace silt
