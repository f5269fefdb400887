// `silt view DIR [--view [HOST:]PORT]`: replays a finished output folder in the live viewer
// (docs/viewer.md), at the run's simulated pace (one simulated second per second, 30 frames per
// second at most), from the first frame when a browser connects to a replay nobody watched, and
// from the start again after the last frame. Pause, resume and step work as
// in a live run; paused, MPM frames are sent with every particle. Ctrl-C ends it (exit 0).
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <thread>

#include "commands.hpp"
#include "silt/core/error.hpp"
#include "stop_signal.hpp"

#ifdef SILT_WITH_VIEW
#include "silt/view/replay.hpp"
#include "silt/view/viewer.hpp"
#endif

namespace silt::app {

#ifdef SILT_WITH_VIEW

namespace {

using Clock = std::chrono::steady_clock;

// The pause between the last frame and the first again, s.
constexpr double kLoopPause = 2.0;

}  // namespace

int cmd_view(const std::string& dir, const std::string& address) {
  const StopSignals signals;
  const view::Replay replay(dir);
  view::ViewerOptions o;
  o.log = [](const std::string& line) {
    fmt::print(stderr, "silt: {}\n", line);
    std::fflush(stderr);
  };
  view::Viewer viewer(view::parse_address(address), replay.scene(), o);
  viewer.set_static(replay.static_message());
  for (const auto& row : replay.gauge_rows())
    viewer.gauge(row.front(), std::vector<double>(row.begin() + 1, row.end()));
  const auto& times = replay.times();
  fmt::print(stderr, "silt view: {} frames of '{}' ({} to {} s) at {}; Ctrl-C ends\n", times.size(),
             replay.scene()["name"].get<std::string>(), times.front(), times.back(), viewer.url());
  std::fflush(stderr);
  const std::size_t budget = o.points_per_frame;
  std::size_t k = 0;
  bool shown_paused = false;
  auto due = Clock::now();
  while (!StopSignals::received()) {
    const bool go = viewer.control().wait_for_go(std::chrono::milliseconds(100));
    if (!go) {
      // Paused: frame k-1 again with every particle, once.
      if (!shown_paused && k > 0 && viewer.idle()) {
        viewer.post([&replay, f = k - 1] { return replay.frame(f, std::size_t(-1)); }, 0);
        shown_paused = true;
      }
      due = Clock::now();
      continue;
    }
    shown_paused = false;
    if (viewer.clients() == 0) {  // nobody watches: start from the first frame when one does
      k = 0;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      continue;
    }
    std::this_thread::sleep_until(due);
    while (!viewer.idle() && !StopSignals::received())
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    viewer.progress(times[k], 0);
    viewer.post([&replay, k, budget] { return replay.frame(k, budget); }, replay.points(k, budget));
    const double gap = k + 1 < times.size() ? times[k + 1] - times[k] : kLoopPause;
    due = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                             std::chrono::duration<double>(std::max(gap, 1.0 / 30)));
    k = (k + 1) % times.size();
  }
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
