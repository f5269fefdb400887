// The frames a live run's viewer has made, kept for the page's time slider (docs/viewer.md): the
// encoded messages as they went to the browsers, so that going back to one costs no copy off the
// device and no encoding. Bounded in memory and in count (the page's slider and the list of times
// sent to it): over either, every other frame is dropped (the first and the newest stay), so the
// frames kept stay spread over the whole run.
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace silt::view {

/// The index of the time in `times` (increasing, not empty) nearest `t`.
std::size_t nearest_index(const std::vector<double>& times, double t);

class FrameHistory {
 public:
  explicit FrameHistory(std::size_t max_bytes, std::size_t max_frames = 2048)
      : max_bytes_(max_bytes), max_frames_(max_frames) {}

  /// Keeps `frame` of simulated time `time` (s). A frame at the time of the newest one replaces
  /// it (a paused run's frame sent again with every particle); one earlier than it (a replay
  /// started again) is not kept.
  void record(double time, std::shared_ptr<const std::string> frame);
  /// The times of the frames kept, increasing.
  std::vector<double> times() const;
  /// The kept frame nearest `time` (null when none is kept).
  std::shared_ptr<const std::string> nearest(double time) const;
  /// Changes whenever the list of frames does.
  long version() const;
  std::size_t bytes() const;

 private:
  void thin();  // under mutex_

  std::size_t max_bytes_;
  std::size_t max_frames_;
  mutable std::mutex mutex_;
  std::vector<double> times_;
  std::vector<std::shared_ptr<const std::string>> frames_;
  std::size_t bytes_ = 0;
  long version_ = 0;
};

}  // namespace silt::view
