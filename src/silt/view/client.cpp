#include "silt/view/client.hpp"

#include <civetweb.h>

#include <utility>

namespace silt::view {

Client::Client(mg_connection* conn) : conn_(conn), thread_([this] { work(); }) {}

Client::~Client() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  thread_.join();
}

void Client::send_frame(std::shared_ptr<const std::string> frame) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (frame_) ++dropped_;
    frame_ = std::move(frame);
  }
  changed_.notify_all();
}

void Client::send_queued(std::string msg, bool binary) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (queued_.size() >= kMaxQueued) queued_.pop_front();
    queued_.emplace_back(std::move(msg), binary);
  }
  changed_.notify_all();
}

void Client::frame_shown() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (in_flight_ == 0) return;
    --in_flight_;
  }
  changed_.notify_all();
}

bool Client::ready_for_frame() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return alive_ && !frame_ && in_flight_ < kFramesInFlight;
}

void Client::follow(bool on) {
  std::lock_guard<std::mutex> lock(mutex_);
  following_ = on;
}

bool Client::following() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return following_;
}

std::size_t Client::dropped() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return dropped_;
}

bool Client::alive() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return alive_;
}

void Client::work() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    changed_.wait(lock, [&] {
      return stopping_ ||
             (alive_ && (!queued_.empty() || (frame_ && in_flight_ < kFramesInFlight)));
    });
    if (stopping_) return;
    // Queued messages first: the terrain or a status line comes before the frame after it.
    int opcode = MG_WEBSOCKET_OPCODE_TEXT;
    std::shared_ptr<const std::string> frame;
    std::string text;
    if (!queued_.empty()) {
      text = std::move(queued_.front().first);
      if (queued_.front().second) opcode = MG_WEBSOCKET_OPCODE_BINARY;
      queued_.pop_front();
    } else {
      frame = std::move(frame_);
      frame_.reset();
      ++in_flight_;
      opcode = MG_WEBSOCKET_OPCODE_BINARY;
    }
    lock.unlock();
    const std::string& msg = frame ? *frame : text;
    // civetweb serialises writes to one connection (its connection lock), so this thread and the
    // server's own control frames (pong, close) do not interleave.
    const int written = mg_websocket_write(conn_, opcode, msg.data(), msg.size());
    lock.lock();
    if (written <= 0) alive_ = false;
  }
}

}  // namespace silt::view
