// The thread that saves an ensemble's finished members into its checkpoint (ensemble_checkpoint.hpp)
// beside the members, so that a member's worker goes on to the next member at once: a 1M-cell
// flood member's result is 8 MB of maxima, 17 ms of copies and file writes that its worker spent
// outside the members (docs/NOTES.md, "The ensemble's wall outside its members").
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>

namespace silt::run {

class MemberSaver {
 public:
  /// `save(m)` saves member m (called on the saver's thread, members in the order pushed); its
  /// first error is kept (finish()). An empty `save` starts no thread and saves nothing.
  explicit MemberSaver(std::function<void(std::size_t)> save);
  ~MemberSaver();
  MemberSaver(const MemberSaver&) = delete;
  MemberSaver& operator=(const MemberSaver&) = delete;

  /// Member m has finished: save it.
  void push(std::size_t m);
  /// Waits until every member pushed is saved and ends the thread; returns the first error a
  /// save threw (null: none). Members pushed after it are saved in the caller's thread.
  std::exception_ptr finish();

 private:
  void loop();
  std::function<void(std::size_t)> save_;
  std::deque<std::size_t> queue_;
  std::exception_ptr error_;
  bool closed_ = false;
  std::mutex m_;
  std::condition_variable cv_;
  std::thread thread_;
};

}  // namespace silt::run
