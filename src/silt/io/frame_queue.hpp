// Frames written off the stepping thread (DESIGN.md §7, "Frames stream"): one writer thread runs
// the queued jobs (encode and write one frame, or one gauge row) in order. The queue is bounded:
// a push waits while it is full, so a slow disk slows the simulation and no frame asked for is
// dropped. The first job that throws stops the writing: the jobs queued after it do not run, and
// its error (naming the file) is rethrown on the producer's thread at the next push() or close().
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>

namespace silt::io {

class FrameQueue {
 public:
  /// capacity: jobs waiting at most (>= 1), not counting the one being written.
  explicit FrameQueue(std::size_t capacity);
  /// Runs what is still queued (every file complete) and joins; an error is not rethrown here
  /// (call close() to see it).
  ~FrameQueue();
  FrameQueue(const FrameQueue&) = delete;
  FrameQueue& operator=(const FrameQueue&) = delete;

  /// Queues job; waits while `capacity` jobs are waiting. Rethrows the error of a job that failed.
  void push(std::function<void()> job);
  /// Waits until every queued job has run and joins the thread; rethrows the error of a job that
  /// failed. push() after close() is an error.
  void close();

  /// Jobs run so far (that returned normally).
  std::size_t done() const;
  /// Seconds the writer thread spent in jobs, and the producer in push() waiting for room (the
  /// back-pressure a slow writer puts on the simulation): where a run's frames went.
  double busy_seconds() const;
  double waited_seconds() const;

 private:
  void work();
  void rethrow_error();

  const std::size_t capacity_;
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::function<void()>> jobs_;
  std::exception_ptr error_;
  std::size_t done_ = 0;
  double busy_s_ = 0, waited_s_ = 0;
  bool closing_ = false;
  std::thread thread_;  // last: starts once the members above exist
};

}  // namespace silt::io
