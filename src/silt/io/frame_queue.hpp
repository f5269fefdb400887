// Frames written off the stepping thread (DESIGN.md §7, "Frames stream"): a small pool of writer
// threads encodes and writes frames in parallel, each frame's own files, and one commit thread
// then finishes the jobs strictly in push order: the frames.csv row, an append to a file the
// frames share, a gauge row, a checkpoint. So frames.csv lists exactly the complete frames, in
// order, however the pool's frames finish. The queue is bounded: a push waits while `capacity`
// jobs wait beyond those the threads hold, so a slow disk slows the simulation and no frame asked
// for is dropped (gauge rows are bounded apart). The first job that throws (in push order) stops the writing: no job after it
// is committed, the frames already encoded after it are discarded (their files removed), and its
// error (naming the file) is rethrown on the producer's thread at the next push() or close().
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace silt::io {

class FrameQueue {
 public:
  using Job = std::function<void()>;
  /// What is left of a frame once its files are written: `commit` runs on the commit thread after
  /// the commits of every job pushed before it (and, when it throws, leaves the frame absent);
  /// `discard` (may be empty) removes the frame's files when it will not be committed because an
  /// earlier job failed.
  struct Encoded {
    Job commit;
    Job discard;
  };
  using Encode = std::function<Encoded()>;

  /// The pool's size for this machine: hardware threads - 1 (one is the stepping thread's), at
  /// most 4, at least 1.
  static std::size_t default_threads();

  /// capacity: frames waiting at most (>= 1) beyond the `threads` (>= 1) that the pool may hold,
  /// so at most capacity + threads frames (and jobs pushed whole) are pushed and not yet
  /// committed. A frame's OpenMP regions run on a share of the OpenMP threads: all of them when
  /// it encodes alone, a part when several frames encode at once.
  FrameQueue(std::size_t capacity, std::size_t threads);
  /// Runs what is still queued (every file complete) and joins; an error is not rethrown here
  /// (call close() to see it).
  ~FrameQueue();
  FrameQueue(const FrameQueue&) = delete;
  FrameQueue& operator=(const FrameQueue&) = delete;

  /// Queues a frame: `encode` runs on a pool thread, perhaps beside other frames' encodes, then
  /// what it returns is committed in order. Waits while the queue is full; rethrows the error of
  /// a job that failed.
  void push_frame(Encode encode);
  /// Queues a job that runs whole on the commit thread, in order (a checkpoint); it counts
  /// against the bound as a frame does.
  void push(Job job);
  /// Queues a small job that runs whole on the commit thread, in order (a gauge row). Rows are
  /// bounded apart from the frames (kRowsInFlight), so that the rows sampled while a frame is
  /// written do not fill the queue and hold the steps.
  void push_row(Job job);
  static constexpr std::size_t kRowsInFlight = 4096;
  /// Waits until every queued job has run and joins the threads; rethrows the error of a job that
  /// failed. push() after close() is an error.
  void close();

  /// Pool threads (besides the commit thread).
  std::size_t threads() const { return encoders_.size(); }
  /// Jobs committed so far.
  std::size_t done() const;
  /// Seconds in jobs summed over the threads (encodes and commits), the wall seconds in which at
  /// least one thread was in a job, and the seconds the producer waited in push() for room (the
  /// back-pressure a slow writer puts on the simulation): where a run's frames went.
  double busy_seconds() const;
  double active_seconds() const;
  double waited_seconds() const;

 private:
  enum class State { waiting, encoding, encoded, failed };
  struct Entry {
    Encode encode;  // empty for a job pushed whole, and once it has run
    Encoded encoded;
    State state = State::waiting;
    bool row = false;
    std::exception_ptr error;
  };
  using Clock = std::chrono::steady_clock;

  void push_entry(Entry e);
  void pop_front();
  void encode_loop();
  void commit_loop();
  bool next_to_encode();
  void job_started();
  void job_ended(Clock::time_point t0);
  void shut();

  const std::size_t capacity_;
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Entry> entries_;  // pushed and not yet committed or discarded, in push order
  std::size_t next_ = 0;       // entries_[next_]: the next a pool thread looks at
  std::exception_ptr error_;   // the first failure in push order: the rest is discarded
  bool halted_ = false;        // an encode failed: the pool starts nothing more
  bool closing_ = false;
  const int omp_threads_;              // OpenMP threads of the thread that made the queue
  std::size_t frames_ = 0, rows_ = 0;  // entries_ that are rows, and the others
  std::size_t encoding_ = 0;           // frames being encoded
  std::size_t done_ = 0, running_ = 0;
  Clock::time_point active_since_;
  double busy_s_ = 0, active_s_ = 0, waited_s_ = 0;
  std::vector<std::thread> encoders_;  // last: start once the members above exist
  std::thread committer_;
};

}  // namespace silt::io
