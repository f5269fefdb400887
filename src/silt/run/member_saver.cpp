#include "silt/run/member_saver.hpp"

#include <utility>

namespace silt::run {

MemberSaver::MemberSaver(std::function<void(std::size_t)> save) : save_(std::move(save)) {
  if (save_) thread_ = std::thread([this] { loop(); });
}

MemberSaver::~MemberSaver() {
  finish();
}

void MemberSaver::push(std::size_t m) {
  if (!save_) return;
  {
    const std::lock_guard<std::mutex> lock(m_);
    if (!closed_) {
      queue_.push_back(m);
      cv_.notify_one();
      return;
    }
  }
  try {
    save_(m);
  } catch (...) {
    const std::lock_guard<std::mutex> lock(m_);
    if (!error_) error_ = std::current_exception();
  }
}

std::exception_ptr MemberSaver::finish() {
  {
    const std::lock_guard<std::mutex> lock(m_);
    closed_ = true;
  }
  cv_.notify_one();
  if (thread_.joinable()) thread_.join();
  const std::lock_guard<std::mutex> lock(m_);
  return error_;
}

void MemberSaver::loop() {
  std::unique_lock<std::mutex> lock(m_);
  for (;;) {
    cv_.wait(lock, [this] { return closed_ || !queue_.empty(); });
    if (queue_.empty()) return;  // closed, and every member pushed is saved
    const std::size_t m = queue_.front();
    queue_.pop_front();
    lock.unlock();
    try {
      save_(m);
    } catch (...) {
      lock.lock();
      if (!error_) error_ = std::current_exception();
      continue;
    }
    lock.lock();
  }
}

}  // namespace silt::run
