#include "silt/io/frame_queue.hpp"

#include <omp.h>

#include <algorithm>
#include <utility>

#include "silt/core/error.hpp"

namespace silt::io {

namespace {
double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}
}  // namespace

std::size_t FrameQueue::default_threads() {
  const unsigned hw = std::thread::hardware_concurrency();
  return std::clamp<std::size_t>(hw > 1 ? hw - 1 : 1, 1, 4);
}

FrameQueue::FrameQueue(std::size_t capacity, std::size_t threads)
    : capacity_(std::max<std::size_t>(capacity, 1)), omp_threads_(omp_get_max_threads()) {
  const std::size_t n = std::max<std::size_t>(threads, 1);
  for (std::size_t k = 0; k < n; ++k) encoders_.emplace_back([this] { encode_loop(); });
  committer_ = std::thread([this] { commit_loop(); });
}

FrameQueue::~FrameQueue() {
  shut();
}

void FrameQueue::shut() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    closing_ = true;
  }
  changed_.notify_all();
  for (std::thread& t : encoders_)
    if (t.joinable()) t.join();
  if (committer_.joinable()) committer_.join();
}

void FrameQueue::job_started() {
  if (running_++ == 0) active_since_ = Clock::now();
}

void FrameQueue::job_ended(Clock::time_point t0) {
  busy_s_ += seconds_since(t0);
  if (--running_ == 0) active_s_ += seconds_since(active_since_);
}

// Under the lock: moves next_ past the entries a pool thread has nothing to do for (taken, or
// pushed whole); true when entries_[next_] waits for one and the pool may start it.
bool FrameQueue::next_to_encode() {
  while (next_ < entries_.size() && entries_[next_].state != State::waiting) ++next_;
  return next_ < entries_.size() && !halted_ && !error_;
}

void FrameQueue::encode_loop() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    changed_.wait(lock, [&] { return next_to_encode() || closing_; });
    if (!next_to_encode()) return;  // closing, and nothing left to start
    // References into a deque stay valid while other entries are added and removed; the commit
    // thread leaves an entry being encoded alone.
    Entry& e = entries_[next_++];
    e.state = State::encoding;
    Encode encode = std::move(e.encode);
    job_started();
    // A share of the OpenMP threads (an ESRI ASCII raster's rows, a map's pixels): all of them
    // for a frame encoding alone (the last one, which the run waits for), a part when several
    // encode at once, so that they do not each start a team of every core.
    const int omp_share = std::max(1, omp_threads_ / int(++encoding_));
    lock.unlock();
    omp_set_num_threads(omp_share);
    const Clock::time_point t0 = Clock::now();
    Encoded done;
    std::exception_ptr failed;
    try {
      done = encode();
    } catch (...) {
      failed = std::current_exception();
    }
    encode = nullptr;  // free the frame's data before taking the next
    lock.lock();
    job_ended(t0);
    --encoding_;
    if (failed) {
      e.error = failed;
      e.state = State::failed;
      halted_ = true;  // what comes after it will not be committed: start nothing more
    } else {
      e.encoded = std::move(done);
      e.state = State::encoded;
    }
    changed_.notify_all();
  }
}

void FrameQueue::commit_loop() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    changed_.wait(lock, [&] {
      if (entries_.empty()) return closing_;
      const State s = entries_.front().state;
      return s == State::encoded || s == State::failed || (s == State::waiting && error_);
    });
    if (entries_.empty()) return;
    Entry e = std::move(entries_.front());
    if (error_ || e.state == State::failed) {
      // After the first failure: frames encoded meanwhile are removed, the rest never starts.
      if (!error_) error_ = e.error;
      pop_front();
      changed_.notify_all();
      if (!e.encoded.discard) continue;
      lock.unlock();
      try {
        e.encoded.discard();  // removes files
      } catch (...) {         // the error being reported names the frame that failed
      }
      e = Entry{};
      lock.lock();
      continue;
    }
    // Committed while still counted in the queue's bound, so that the frames in flight (and the
    // copy slots they hold) stay at most capacity + threads.
    job_started();
    lock.unlock();
    const Clock::time_point t0 = Clock::now();
    std::exception_ptr failed;
    try {
      e.encoded.commit();
    } catch (...) {
      failed = std::current_exception();
    }
    e = Entry{};
    lock.lock();
    job_ended(t0);
    pop_front();
    if (failed)
      error_ = failed;
    else
      ++done_;
    changed_.notify_all();
  }
}

void FrameQueue::pop_front() {
  --(entries_.front().row ? rows_ : frames_);
  entries_.pop_front();
  if (next_ > 0) --next_;
}

void FrameQueue::push_entry(Entry e) {
  std::unique_lock<std::mutex> lock(mutex_);
  SILT_REQUIRE(!closing_, "FrameQueue::push after close()");
  const Clock::time_point t0 = Clock::now();
  changed_.wait(lock, [&] {
    return (e.row ? rows_ < kRowsInFlight : frames_ < capacity_ + encoders_.size()) || error_;
  });
  waited_s_ += seconds_since(t0);
  if (error_) std::rethrow_exception(error_);
  ++(e.row ? rows_ : frames_);
  entries_.push_back(std::move(e));
  lock.unlock();
  changed_.notify_all();
}

void FrameQueue::push_frame(Encode encode) {
  Entry e;
  e.encode = std::move(encode);
  push_entry(std::move(e));
}

void FrameQueue::push(Job job) {
  Entry e;
  e.encoded.commit = std::move(job);
  e.state = State::encoded;
  push_entry(std::move(e));
}

void FrameQueue::push_row(Job job) {
  Entry e;
  e.encoded.commit = std::move(job);
  e.state = State::encoded;
  e.row = true;
  push_entry(std::move(e));
}

void FrameQueue::close() {
  shut();
  std::lock_guard<std::mutex> lock(mutex_);
  if (error_) std::rethrow_exception(error_);
}

double FrameQueue::busy_seconds() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return busy_s_;
}

double FrameQueue::active_seconds() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return active_s_;
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
