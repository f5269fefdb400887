#include "silt/io/frame_queue.hpp"

#include <chrono>
#include <utility>

#include "silt/core/error.hpp"

namespace silt::io {

namespace {
double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}
}  // namespace

FrameQueue::FrameQueue(std::size_t capacity)
    : capacity_(capacity > 0 ? capacity : 1), thread_([this] { work(); }) {}

FrameQueue::~FrameQueue() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    closing_ = true;
  }
  changed_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void FrameQueue::work() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    changed_.wait(lock, [&] { return !jobs_.empty() || closing_; });
    if (jobs_.empty()) return;  // closing, and nothing left
    std::function<void()> job = std::move(jobs_.front());
    lock.unlock();
    const auto t0 = std::chrono::steady_clock::now();
    std::exception_ptr failed;
    try {
      job();
    } catch (...) {
      failed = std::current_exception();
    }
    job = nullptr;  // free the frame's data before waiting for the next
    const double took = seconds_since(t0);
    lock.lock();
    busy_s_ += took;
    jobs_.pop_front();
    if (failed) {
      error_ = failed;
      jobs_.clear();  // nothing after a failed frame is written: the files end at the last good one
    } else {
      ++done_;
    }
    changed_.notify_all();
  }
}

void FrameQueue::rethrow_error() {
  if (error_) std::rethrow_exception(error_);
}

void FrameQueue::push(std::function<void()> job) {
  std::unique_lock<std::mutex> lock(mutex_);
  SILT_REQUIRE(!closing_, "FrameQueue::push after close()");
  // The job being written stays at the front until it is done, hence capacity + 1.
  const auto t0 = std::chrono::steady_clock::now();
  changed_.wait(lock, [&] { return jobs_.size() < capacity_ + 1 || error_; });
  waited_s_ += seconds_since(t0);
  rethrow_error();
  jobs_.push_back(std::move(job));
  lock.unlock();
  changed_.notify_all();
}

void FrameQueue::close() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    closing_ = true;
  }
  changed_.notify_all();
  if (thread_.joinable()) thread_.join();
  std::lock_guard<std::mutex> lock(mutex_);
  rethrow_error();
}

double FrameQueue::busy_seconds() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return busy_s_;
}

double FrameQueue::waited_seconds() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return waited_s_;
}

std::size_t FrameQueue::done() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return done_;
}

}  // namespace silt::io
