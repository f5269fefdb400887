// One browser watching: its own sender thread writes to its WebSocket, so a slow or stalled client
// holds up only itself. Frames are droppable: a new frame replaces one not yet sent. They are also
// paced by the page: at most kFramesInFlight go out before the page says it has handled one
// ({"cmd": "shown"}), so a page that draws slowly, or a slow link, sees the latest state a frame
// or two late instead of a backlog that grows in the socket buffers and the browser's queue. Text
// messages (status, gauges) are not paced; they queue up to a bound, beyond which the oldest are
// dropped. No call ever waits for the network.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>

struct mg_connection;

namespace silt::view {

class Client {
 public:
  explicit Client(mg_connection* conn);
  /// Stops the sender (a write in progress finishes or fails first) and joins it.
  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  /// Sends `frame` (a binary message) next, replacing an unsent one, which is dropped.
  void send_frame(std::shared_ptr<const std::string> frame);
  /// Queues a message that is not dropped for a newer one: text (status, gauges) or binary (the
  /// terrain). kMaxQueued wait at most; beyond, the oldest is dropped (a client that stopped
  /// reading).
  void send_text(std::string text) { send_queued(std::move(text), false); }
  void send_queued(std::string msg, bool binary);

  /// The page has handled a frame: one more may go out. One with no frame outstanding is ignored.
  void frame_shown();

  /// True when a frame given now would go out at once: connected, none waiting, and fewer than
  /// kFramesInFlight unacknowledged (the run need not copy a frame off the device for this client
  /// otherwise).
  bool ready_for_frame() const;

  /// Whether the run's frames go to this client (Server::broadcast_frame): not while its page
  /// shows an earlier frame of a live run (the time slider), until it asks for live again.
  void follow(bool on);
  bool following() const;

  /// Frames replaced before they were sent.
  std::size_t dropped() const;
  /// False once a write failed (the client went away; the server's close handler removes it).
  bool alive() const;

  static constexpr std::size_t kMaxQueued = 1024;
  /// Frames sent and not yet acknowledged, at most: two keep the link busy while the page handles
  /// one.
  static constexpr int kFramesInFlight = 2;

 private:
  void work();

  mg_connection* conn_;
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::shared_ptr<const std::string> frame_;
  std::deque<std::pair<std::string, bool>> queued_;  // message, binary
  std::size_t dropped_ = 0;
  int in_flight_ = 0;  // frames sent, not yet acknowledged
  bool stopping_ = false;
  bool alive_ = true;
  bool following_ = true;
  std::thread thread_;  // last: starts once the members above exist
};

}  // namespace silt::view
