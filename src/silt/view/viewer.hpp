// The live viewer of one run (DESIGN.md §7, "Frames stream"; docs/viewer.md): a Server, the run's
// pause state, and one encoder thread. The run asks wants_frame() after a frame; only then does it
// copy the frame off the device and post() it, and the quantising and encoding happen on the
// encoder thread, so watching costs the stepping thread that copy and nothing else. Frames are
// paced to what the wire should carry (points per second) and to the pages, which acknowledge
// each (Client), and dropped, never queued, for a client that is slower; several browsers may
// watch one run. Every frame made is also kept (FrameHistory) for the page's time slider: a page
// may go back to any of them while the run goes on, and return to live; a replay (`silt view`)
// moves its own position instead (set_replay).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "silt/view/address.hpp"
#include "silt/view/history.hpp"
#include "silt/view/run_control.hpp"
#include "silt/view/server.hpp"

namespace silt::view {

struct ViewerOptions {
  std::size_t points_per_frame = 250000;  // MPM: particles sent per frame at most while running
  double points_per_second = 2.0e6;       // on the wire, over all frames
  double max_fps = 30;                    // frames per second at most
  std::size_t history_bytes = std::size_t(512) << 20;  // frames kept for the time slider
  std::function<void(const std::string&)> log;
};

class Viewer {
 public:
  /// Starts the server; `scene` is what the page draws around the frames (describe_mpm,
  /// describe_swe). Errors name the address.
  Viewer(const Address& address, nlohmann::json scene, ViewerOptions options = {});
  /// Stops the encoder and the server (every connection closed).
  ~Viewer();
  Viewer(const Viewer&) = delete;
  Viewer& operator=(const Viewer&) = delete;

  std::string url() const { return server_->url(); }
  const ViewerOptions& options() const { return options_; }
  std::size_t clients() const { return server_->clients(); }
  /// Browsers that follow the run (not gone back to an earlier frame on the slider).
  std::size_t followers() const { return server_->followers(); }

  /// True when a browser could take a frame now (connected, its previous ones acknowledged: a
  /// frame nobody can take is not even copied off the device), the encoder is free and the
  /// pacing allows a frame now.
  bool wants_frame() const;
  /// True when a browser watches and the encoder is free (a paused run's full frame).
  bool idle() const;
  /// Waits until the encoder is free (a frame kept for the slider while nobody watches).
  void wait_encoder();
  /// Encodes (on the encoder thread) and sends a frame of `points` points or cells.
  void post(std::function<std::string()> encode, std::size_t points);
  /// A binary message every client gets once on connecting, after the scene (the terrain).
  void set_static(std::string message);

  /// The run's simulated time (s) and steps so far, for the status line (cheap; call often).
  void progress(double time, long long steps);
  /// One gauge sample (shallow water): time, s, and a value per gauge of the scene.
  void gauge(double time, const std::vector<double>& values);
  /// The run has ended: the page says so; the server goes on serving the last frame.
  void finish();

  /// A replay: the page's slider spans `times` (s), and a seek calls `seek(time)` (the replay
  /// moves there for every page) instead of showing a kept frame to that page alone.
  void set_replay(std::vector<double> times, std::function<void(double)> seek);
  /// The times of the frames a page may go back to (replay: the folder's).
  std::vector<double> frame_times() const;

  RunControl& control() { return control_; }

 private:
  void work();
  void on_connect(Client& c);
  void on_message(Client& c, const std::string& text);
  void on_disconnect();
  nlohmann::json status() const;  // under mutex_
  void seek(Client& c, Command cmd, double time);
  void send_frame_times();

  ViewerOptions options_;
  nlohmann::json scene_;
  RunControl control_;
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::function<std::string()> job_;
  std::size_t job_points_ = 0;
  bool busy_ = false;
  bool stopping_ = false;
  bool finished_ = false;
  std::chrono::steady_clock::time_point next_frame_;
  std::shared_ptr<const std::string> latest_;
  std::string static_;
  std::vector<nlohmann::json> gauge_rows_;
  FrameHistory history_;
  long history_sent_ = -1;                   // history_.version() the pages were last told
  std::vector<double> replay_times_;         // set_replay
  std::function<void(double)> replay_seek_;  // set_replay
  double time_ = 0;
  long long steps_ = 0;
  long frames_sent_ = 0;
  // steps per second between the last two progress() calls that moved on
  std::chrono::steady_clock::time_point rate_wall_;
  long long rate_steps_ = -1;
  double steps_per_s_ = 0;
  bool status_due_ = false;         // a command changed the state: send the status now
  std::unique_ptr<Server> server_;  // after the state its handlers use
  std::thread thread_;              // last
};

}  // namespace silt::view
