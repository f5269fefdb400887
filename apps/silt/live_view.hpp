// `silt run --view [HOST:]PORT`: the run's side of the live viewer (silt::view, docs/viewer.md):
// the frame loop's hooks (run/hooks.hpp) over a view::Viewer. Off (no --view) every call returns at
// once; in a build without civetweb, asking for it is an error that says so.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "silt/io/swe/scene_file.hpp"
#include "silt/mpm/particles_copy.hpp"
#include "silt/mpm/scene.hpp"
#include "silt/partition/world.hpp"
#include "silt/run/hooks.hpp"
#include "silt/run/progress.hpp"
#include "silt/swe/fields.hpp"

namespace silt::view {
class Replay;
class Viewer;
}  // namespace silt::view

namespace silt::app {

/// Checks a --view value before the run sets anything up: a build without the viewer, an address
/// that does not parse, an IPv6 host where civetweb has no IPv6 (silt::Error naming the option).
void check_view_option(const std::string& address);

class LiveView : public run::Hooks {
 public:
  /// address: the --view value (empty: off). Starts the server and logs its URL.
  LiveView(const std::string& address, const mpm::Scene& scene, const partition::World& world,
           run::Progress& progress);
  LiveView(const std::string& address, const io::SweJob& job, const partition::World& world,
           run::Progress& progress);
  /// `silt view DIR`: the viewer over a finished run's frames (the replay drives it, view_cmd.cpp).
  LiveView(const std::string& address, const view::Replay& replay, run::Progress& progress);
  ~LiveView() override;
  LiveView(const LiveView&) = delete;
  LiveView& operator=(const LiveView&) = delete;

  explicit operator bool() const { return bool(viewer_); }
  /// The viewer (only when on).
  view::Viewer& viewer() { return *viewer_; }

  /// The frame just shown, as what posts it again with every point: hold() sends it once while
  /// the run is paused, linger() once after its end. Any thread (a replay's seek).
  void shown(std::function<void()> again);

  /// MPM, after each frame: the status line, and a frame (decimated to the budget) when a browser
  /// waits for one; `download` queues the copy of the particles off the devices
  /// (Solver::particles_async) and is called only then; the viewer's encoder thread waits for it.
  void mpm_frame(const run::FrameInfo& at, std::int64_t particles,
                 const std::function<mpm::ParticlesCopy()>& download) override;
  /// Shallow water, after each advance: the same with the mapped field.
  void swe_frame(const run::FrameInfo& at, const std::function<swe::Fields()>& download) override;
  /// Shallow water: one gauge sample (depth per gauge).
  void gauge(double time, const std::vector<swe::Probe>& probes) override;
  /// Shallow water: the simulated time to advance to next, at most `target`, so that a browser
  /// gets a frame about every 1/20 s of wall time (target itself when nobody watches).
  double next_time(double time, double target) override;
  /// Between frames: waits while a browser holds the run paused (sending one frame of every
  /// particle first); returns at once when running, after one frame when a step was asked for,
  /// or when a stop signal arrives.
  void hold() override;
  /// After the last frame: the final state stays on the page until SIGINT / SIGTERM.
  void linger();

 private:
  void post_mpm(bool every_particle);
  std::unique_ptr<view::Viewer> viewer_;
  run::Progress* progress_ = nullptr;
  const mpm::Scene* mpm_ = nullptr;
  const io::SweJob* swe_ = nullptr;
  long frame_ = 0;
  double time_ = 0;
  long long steps_ = 0;
  std::size_t mpm_particles_ = 0;  // at the last frame: the wire's pacing
  std::function<mpm::ParticlesCopy()> mpm_download_;
  std::function<void()> again() const;
  mutable std::mutex again_mutex_;
  std::function<void()> again_;  // the frame last shown, again with every point
  double chunk_ = 0;             // simulated s per viewer frame (shallow water), adapted
  double chunk_wall_start_ = 0;
  std::size_t swe_cells_ = 0;  // cells of the image sent
};

}  // namespace silt::app
