// `silt view DIR [--view [HOST:]PORT]`: replays a finished output folder in the live viewer
// (docs/viewer.md), at the run's simulated pace (one simulated second per second, 30 frames per
// second at most, a frame a second at least), from the first frame when a browser connects to a
// replay nobody watched, and from the start again after the last frame; the page's time slider
// moves it to any frame. The replay is a job of the run layer's frame loop
// (silt/run/frame_loop.hpp) whose frames come from the folder instead of a solver, watched through
// the same hooks as a live run (live_view.hpp): pause, resume and step work as there; paused, a
// frame is sent again with every particle. Ctrl-C ends it (exit 0).
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <thread>

#include "commands.hpp"
#include "live_view.hpp"
#include "silt/core/error.hpp"
#include "silt/partition/world.hpp"
#include "silt/run/frame_loop.hpp"
#include "silt/run/job.hpp"
#include "silt/run/progress.hpp"
#include "stop_signal.hpp"

#ifdef SILT_WITH_VIEW
#include "silt/view/history.hpp"
#include "silt/view/replay.hpp"
#include "silt/view/viewer.hpp"
#endif

namespace silt::app {

#ifdef SILT_WITH_VIEW

namespace {

using Clock = std::chrono::steady_clock;

// The pause between the last frame and the first again, s.
constexpr double kLoopPause = 2.0;

// A frame stays on screen at least this long and at most kLongestGap (a run that wrote a frame a
// minute replays a frame a second), s.
constexpr double kShortestGap = 1.0 / 30;
constexpr double kLongestGap = 1.0;

// The folder's frames, one an advance, paced to their simulated times; it never finishes (Ctrl-C
// ends the loop) and writes nothing. The page's slider moves it (seek(), on a viewer thread): the
// frame sought is shown at once, paused or not, and playing goes on from there.
class ReplayJob : public run::Job {
 public:
  ReplayJob(const view::Replay& replay, LiveView& live)
      : replay_(replay), live_(live), times_(replay.times()) {}

  double time() const override { return times_[shown_]; }
  long long steps() const override { return 0; }
  long last_frame() const override { return long(shown_); }
  bool finished() const override { return false; }
  io::FrameQueue::Job checkpoint(const std::string&) override { return {}; }

  void seek(double t) {
    std::lock_guard<std::mutex> lock(mutex_);
    show(view::nearest_index(times_, t));
  }

  void advance(run::Context&) override {
    view::Viewer& viewer = live_.viewer();
    if (viewer.clients() == 0) {  // nobody watches: start from the first frame when one does
      std::lock_guard<std::mutex> lock(mutex_);
      next_ = 0;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      return;
    }
    // Paused here is a step: at once. Playing, the frame waits for its time (a seek meanwhile
    // moves it), and a pause meanwhile holds it (the loop's hold()).
    const bool step = viewer.control().paused();
    for (;;) {
      {
        std::lock_guard<std::mutex> lock(mutex_);
        if (step || Clock::now() >= due_) break;
      }
      if (StopSignals::received() || viewer.control().paused()) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    while (!viewer.idle() && !StopSignals::received())
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    std::lock_guard<std::mutex> lock(mutex_);
    show(next_);
  }

 private:
  // Posts frame k (under mutex_); the next frame follows it after its gap.
  void show(std::size_t k) {
    view::Viewer& viewer = live_.viewer();
    const std::size_t budget = viewer.options().points_per_frame;
    viewer.progress(times_[k], 0);
    viewer.post([&r = replay_, k, budget] { return r.frame(k, budget); },
                replay_.points(k, budget));
    const double gap = k + 1 < times_.size()
                           ? std::clamp(times_[k + 1] - times_[k], kShortestGap, kLongestGap)
                           : kLoopPause;
    due_ = Clock::now() +
           std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(gap));
    shown_ = k;
    next_ = (k + 1) % times_.size();
    // Paused, the frame on the page goes again with every particle (LiveView::hold).
    live_.shown([&viewer, &r = replay_, k] {
      viewer.post([&r, k] { return r.frame(k, std::size_t(-1)); }, 0);
    });
  }

  const view::Replay& replay_;
  LiveView& live_;
  const std::vector<double>& times_;
  std::mutex mutex_;
  std::atomic<std::size_t> shown_{0};  // the frame shown last (read by the loop unlocked)
  std::size_t next_ = 0;               // the frame shown next
  Clock::time_point due_ = Clock::now();
};

}  // namespace

int cmd_view(const std::string& dir, const std::string& address) {
  const StopSignals signals;
  const view::Replay replay(dir);
  run::Progress quiet(0, true);
  LiveView live(address, replay, quiet);
  const auto& times = replay.times();
  fmt::print(stderr, "silt view: {} frames of '{}' ({} to {} s) at {}; Ctrl-C ends\n", times.size(),
             replay.scene()["name"].get<std::string>(), times.front(), times.back(),
             live.viewer().url());
  std::fflush(stderr);
  ReplayJob job(replay, live);
  live.viewer().set_replay(times, [&job](double t) { job.seek(t); });
  run::LoopOptions o;
  o.stop = [] {
    return StopSignals::received();
  };
  o.writes = false;
  run::run_frames(job, partition::World::self(), o, live, quiet);
  return 0;
}

#else

int cmd_view(const std::string& dir, const std::string& address) {
  throw Error(fmt::format(
      "silt view {} --view {}: this build has no live viewer (civetweb was not found when it was "
      "configured; install libcivetweb-dev and rebuild)",
      dir, address));
}

#endif

}  // namespace silt::app
