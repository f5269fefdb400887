#include "silt/view/viewer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "silt/core/error.hpp"
#include "silt/view/message.hpp"

namespace silt::view {

namespace {

using Clock = std::chrono::steady_clock;

// How often the status line (time, steps/s, paused) goes to the browsers.
constexpr auto kStatusEvery = std::chrono::milliseconds(250);

// Gauge samples kept for a browser that connects late (at 0.1 s sampling: 10^4 s of a run).
constexpr std::size_t kMaxGaugeRows = 100000;

}  // namespace

Viewer::Viewer(const Address& address, nlohmann::json scene, ViewerOptions options)
    : options_(std::move(options)), scene_(std::move(scene)), history_(options_.history_bytes) {
  rate_wall_ = Clock::now();
  next_frame_ = rate_wall_;
  Handlers h;
  h.connected = [this](Client& c) {
    on_connect(c);
  };
  h.message = [this](Client& c, const std::string& text) {
    on_message(c, text);
  };
  h.disconnected = [this] {
    on_disconnect();
  };
  h.log = options_.log;
  server_ = std::make_unique<Server>(address, Assets(), std::move(h));
  thread_ = std::thread([this] { work(); });
}

Viewer::~Viewer() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  thread_.join();
  server_.reset();
}

bool Viewer::idle() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return !busy_ && !job_ && server_->clients() > 0;
}

void Viewer::wait_encoder() {
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait(lock, [&] { return stopping_ || (!busy_ && !job_); });
}

void Viewer::set_replay(std::vector<double> times, std::function<void(double)> seek) {
  std::lock_guard<std::mutex> lock(mutex_);
  replay_times_ = std::move(times);
  replay_seek_ = std::move(seek);
}

std::vector<double> Viewer::frame_times() const {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (replay_seek_) return replay_times_;
  }
  return history_.times();
}

bool Viewer::wants_frame() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return !busy_ && !job_ && Clock::now() >= next_frame_ && server_->any_ready_for_frame();
}

void Viewer::post(std::function<std::string()> encode, std::size_t points) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    job_ = std::move(encode);
    job_points_ = points;
  }
  changed_.notify_all();
}

void Viewer::set_static(std::string message) {
  std::lock_guard<std::mutex> lock(mutex_);
  static_ = std::move(message);
}

void Viewer::progress(double time, long long steps) {
  std::lock_guard<std::mutex> lock(mutex_);
  // Steps per second between the last two calls that moved on (an MPM frame may take longer than
  // the status interval, so a rate per interval would read 0 between frames).
  const auto now = Clock::now();
  if (steps > steps_) {
    const double wall = std::chrono::duration<double>(now - rate_wall_).count();
    if (wall > 0 && rate_steps_ >= 0) steps_per_s_ = double(steps - rate_steps_) / wall;
    rate_wall_ = now;
    rate_steps_ = steps;
  }
  time_ = time;
  steps_ = steps;
}

void Viewer::gauge(double time, const std::vector<double>& values) {
  nlohmann::json row = nlohmann::json::array({time});
  for (const double v : values) row.push_back(v);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (gauge_rows_.size() < kMaxGaugeRows) gauge_rows_.push_back(row);
  }
  server_->broadcast_text(to_text(nlohmann::json{{"type", "gauge"}, {"row", row}}));
}

void Viewer::finish() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    finished_ = true;
  }
  changed_.notify_all();
}

nlohmann::json Viewer::status() const {
  return {{"type", "status"},
          {"time", time_},
          {"steps", steps_},
          {"steps_per_s", control_.paused() ? 0.0 : steps_per_s_},
          {"paused", control_.paused()},
          {"finished", finished_},
          {"frames_sent", frames_sent_},
          {"clients", server_->clients()}};
}

void Viewer::on_connect(Client& c) {
  std::lock_guard<std::mutex> lock(mutex_);
  c.send_text(to_text(nlohmann::json{{"type", "hello"},
                                     {"scene", scene_},
                                     {"points_per_frame", options_.points_per_frame},
                                     {"replay", bool(replay_seek_)}}));
  c.send_text(to_text(nlohmann::json{{"type", "frames"},
                                     {"times", replay_seek_ ? replay_times_ : history_.times()}}));
  if (!static_.empty()) c.send_queued(static_, true);
  if (!gauge_rows_.empty())
    c.send_text(to_text(nlohmann::json{{"type", "gauge_history"}, {"rows", gauge_rows_}}));
  c.send_text(to_text(status()));
  if (latest_) c.send_frame(latest_);
}

void Viewer::on_message(Client& c, const std::string& text) {
  Command cmd;
  double time = 0;
  try {
    cmd = parse_command(text, &time);
    if (cmd == Command::shown) {
      c.frame_shown();
      return;
    }
    if (cmd == Command::seek || cmd == Command::live) return seek(c, cmd, time);
    control_.apply(cmd);
  } catch (const Error& e) {
    // A browser's mistake is that browser's business: it gets the reason, the run goes on.
    c.send_text(to_text(nlohmann::json{{"type", "error"}, {"message", e.what()}}));
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    status_due_ = true;                           // the pages say so at once
    if (cmd != Command::pause) rate_steps_ = -1;  // the pause is not stepping time
  }
  changed_.notify_all();
}

// A replay moves for every page; a live run's page alone shows a kept frame, and stops receiving
// the run's until it asks for live again.
void Viewer::seek(Client& c, Command cmd, double time) {
  std::function<void(double)> replay;
  std::shared_ptr<const std::string> latest;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    replay = replay_seek_;
    latest = latest_;
  }
  if (replay) {
    if (cmd == Command::seek) replay(time);
    return;
  }
  if (cmd == Command::live) {
    c.follow(true);
    if (latest) c.send_frame(latest);
    return;
  }
  c.follow(false);
  if (auto frame = history_.nearest(time)) c.send_frame(frame);
}

void Viewer::on_disconnect() {
  // A run paused by a browser that is gone would hold its devices for nobody: the last browser
  // leaving resumes it. (Not while the server stops: its close handlers run then.)
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_) return;
  }
  if (server_->clients() > 0 || !control_.paused()) return;
  control_.apply(Command::resume);
  if (options_.log) options_.log("viewer: the last browser left; the run goes on");
}

void Viewer::work() {
  std::unique_lock<std::mutex> lock(mutex_);
  auto next_status = Clock::now();
  for (;;) {
    changed_.wait_until(lock, next_status, [&] { return stopping_ || bool(job_) || status_due_; });
    if (stopping_) return;
    if (job_) {
      std::function<std::string()> job = std::move(job_);
      job_ = nullptr;
      const std::size_t points = job_points_;
      const bool keep = !replay_seek_;  // a replay's frames are in its folder
      busy_ = true;
      lock.unlock();
      std::shared_ptr<const std::string> msg;
      try {
        msg = std::make_shared<const std::string>(job());
      } catch (const std::exception& e) {
        if (options_.log) options_.log(fmt::format("viewer: a frame was not sent: {}", e.what()));
      }
      if (msg && keep) {
        try {
          history_.record(read_header(*msg)["time"].get<double>(), msg);
        } catch (const std::exception& e) {
          if (options_.log) options_.log(fmt::format("viewer: a frame was not kept: {}", e.what()));
        }
      }
      if (msg) server_->broadcast_frame(msg);
      lock.lock();
      busy_ = false;
      changed_.notify_all();  // wait_encoder()
      if (msg) {
        latest_ = msg;
        ++frames_sent_;
      }
      // The wire's budget: the next frame no sooner than this one's points allow.
      const double gap =
          std::max(1.0 / options_.max_fps, double(points) / options_.points_per_second);
      next_frame_ = Clock::now() +
                    std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(gap));
    }
    const auto now = Clock::now();
    if (now >= next_status || status_due_) {
      status_due_ = false;
      server_->broadcast_text(to_text(status()));
      if (!replay_seek_ && history_.version() != history_sent_) {
        history_sent_ = history_.version();
        server_->broadcast_text(
            to_text(nlohmann::json{{"type", "frames"}, {"times", history_.times()}}));
      }
      next_status = now + kStatusEvery;
    }
  }
}

}  // namespace silt::view
