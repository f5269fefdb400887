#include "silt/view/history.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

namespace silt::view {

std::size_t nearest_index(const std::vector<double>& times, double t) {
  const auto it = std::lower_bound(times.begin(), times.end(), t);
  std::size_t k = std::size_t(it - times.begin());
  if (k == times.size() || (k > 0 && t - times[k - 1] < times[k] - t)) --k;
  return k;
}

void FrameHistory::record(double time, std::shared_ptr<const std::string> frame) {
  if (!frame) return;
  std::lock_guard<std::mutex> lock(mutex_);
  if (!times_.empty() && time < times_.back()) return;
  if (!times_.empty() && time == times_.back()) {
    bytes_ -= frames_.back()->size();
    frames_.pop_back();
    times_.pop_back();
  }
  bytes_ += frame->size();
  times_.push_back(time);
  frames_.push_back(std::move(frame));
  ++version_;
  while ((bytes_ > max_bytes_ || frames_.size() > max_frames_) && frames_.size() > 2) thin();
}

// Drops frames 1, 3, 5, ... of those before the newest.
void FrameHistory::thin() {
  std::size_t kept = 0;
  const std::size_t last = frames_.size() - 1;
  for (std::size_t k = 0; k <= last; ++k) {
    if (k % 2 == 1 && k != last) {
      bytes_ -= frames_[k]->size();
      continue;
    }
    times_[kept] = times_[k];
    frames_[kept] = std::move(frames_[k]);
    ++kept;
  }
  times_.resize(kept);
  frames_.resize(kept);
}

std::vector<double> FrameHistory::times() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return times_;
}

std::shared_ptr<const std::string> FrameHistory::nearest(double time) const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (times_.empty()) return nullptr;
  return frames_[nearest_index(times_, time)];
}

long FrameHistory::version() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return version_;
}

std::size_t FrameHistory::bytes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return bytes_;
}

}  // namespace silt::view
