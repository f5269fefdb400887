#include "live_view.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <thread>

#include "silt/core/error.hpp"
#include "stop_signal.hpp"

#ifdef SILT_WITH_VIEW
#include "silt/view/address.hpp"
#include "silt/view/mpm_message.hpp"
#include "silt/view/replay.hpp"
#include "silt/view/swe_message.hpp"
#include "silt/view/viewer.hpp"
#else
namespace silt::view {
class Viewer {};  // never made: a build without the viewer refuses --view
}  // namespace silt::view
#endif

namespace silt::app {

namespace {

void check_can_view(const std::string& address, const partition::World& world) {
  if (address.empty()) return;
#ifndef SILT_WITH_VIEW
  throw Error(fmt::format(
      "--view {}: this build has no live viewer (civetweb was not found when it was configured; "
      "install libcivetweb-dev and rebuild)",
      address));
#endif
  if (world.distributed())
    throw Error(
        fmt::format("--view {}: a run over several MPI ranks cannot be watched yet; watch a "
                    "run of one rank (it may drive several GPUs with --devices)",
                    address));
}

}  // namespace

void check_view_option(const std::string& address) {
  if (address.empty()) return;
#ifdef SILT_WITH_VIEW
  (void)view::parse_address(address);
#else
  throw Error(fmt::format(
      "--view {}: this build has no live viewer (civetweb was not found when it was configured; "
      "install libcivetweb-dev and rebuild)",
      address));
#endif
}

#ifdef SILT_WITH_VIEW

namespace {

// Wall time between shallow-water viewer frames that the chunks of simulated time aim at.
constexpr double kSweFrameWall = 1.0 / 20;

double wall_now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::unique_ptr<view::Viewer> start(const std::string& address, nlohmann::json scene,
                                    run::Progress& progress) {
  view::ViewerOptions o;
  o.log = [](const std::string& line) {
    fmt::print(stderr, "silt: {}\n", line);
    std::fflush(stderr);
  };
  auto v = std::make_unique<view::Viewer>(view::parse_address(address), std::move(scene), o);
  progress.log(fmt::format("viewer: {} (pause, resume and step there; docs/viewer.md)", v->url()));
  return v;
}

}  // namespace

LiveView::LiveView(const std::string& address, const mpm::Scene& scene,
                   const partition::World& world, run::Progress& progress)
    : progress_(&progress), mpm_(&scene) {
  check_can_view(address, world);
  if (!address.empty()) viewer_ = start(address, view::describe_mpm(scene), progress);
}

LiveView::LiveView(const std::string& address, const io::SweJob& job, const partition::World& world,
                   run::Progress& progress)
    : progress_(&progress), swe_(&job) {
  check_can_view(address, world);
  if (address.empty()) return;
  viewer_ = start(address, view::describe_swe(job), progress);
  viewer_->set_static(view::encode_terrain(job));
  chunk_ = std::max(job.run.end_time, 1e-6) / 1000;
  const int k = view::swe_stride(job.scene.grid);
  swe_cells_ = std::size_t(((job.scene.grid.nx + k - 1) / k) * ((job.scene.grid.ny + k - 1) / k));
}

LiveView::LiveView(const std::string& address, const view::Replay& replay, run::Progress& progress)
    : progress_(&progress) {
  viewer_ = start(address, replay.scene(), progress);
  viewer_->set_static(replay.static_message());
  for (const auto& row : replay.gauge_rows())
    viewer_->gauge(row.front(), std::vector<double>(row.begin() + 1, row.end()));
}

LiveView::~LiveView() = default;

void LiveView::shown(std::function<void()> again) {
  std::lock_guard<std::mutex> lock(again_mutex_);
  again_ = std::move(again);
}

std::function<void()> LiveView::again() const {
  std::lock_guard<std::mutex> lock(again_mutex_);
  return again_;
}

void LiveView::mpm_frame(const run::FrameInfo& at, std::int64_t particles,
                         const std::function<mpm::ParticlesCopy()>& download) {
  if (!viewer_) return;
  frame_ = at.frame;
  time_ = at.time;
  steps_ = at.steps;
  mpm_particles_ = std::size_t(particles);
  mpm_download_ = download;
  shown([this] { post_mpm(true); });
  viewer_->progress(at.time, at.steps);
  if (viewer_->followers() == 0) {  // nobody follows: kept for the slider
    viewer_->wait_encoder();
    post_mpm(false);
    return;
  }
  if (!viewer_->wants_frame()) return;
  post_mpm(false);
}

// The stepping thread only queues the copy off the devices behind its steps; the encoder thread
// waits for it to land and reads it out (ParticlesCopy::get), as the writer thread does for files.
void LiveView::post_mpm(bool every_particle) {
  auto copy = std::make_shared<mpm::ParticlesCopy>(mpm_download_());
  const view::FrameInfo info{frame_, time_, steps_};
  const std::size_t cap = viewer_->options().points_per_frame;
  viewer_->post(
      [copy, s = mpm_, info, cap, every_particle] {
        const mpm::ParticleFrame p = copy->get();
        return view::encode_mpm(p, *s, info, every_particle ? p.count() : cap);
      },
      every_particle ? mpm_particles_ : std::min(mpm_particles_, cap));
}

void LiveView::swe_frame(const run::FrameInfo& at, const std::function<swe::Fields()>& download) {
  if (!viewer_) return;
  if (chunk_wall_start_ > 0) {
    // Adapt the simulated time per frame to the wall time the last one took (at most 2x a frame).
    const double wall = wall_now() - chunk_wall_start_;
    if (wall > 0) chunk_ *= std::clamp(kSweFrameWall / wall, 0.5, 2.0);
    chunk_wall_start_ = 0;
  }
  frame_ = at.frame;
  time_ = at.time;
  steps_ = at.steps;
  const view::FrameInfo info{at.frame, at.time, at.steps};
  shown([this, download, info] {
    viewer_->post([f = download(), j = swe_, info] { return view::encode_swe(f, *j, info); }, 0);
  });
  viewer_->progress(at.time, at.steps);
  if (viewer_->followers() == 0)  // nobody follows: kept for the slider
    viewer_->wait_encoder();
  else if (!viewer_->wants_frame())
    return;
  viewer_->post([f = download(), j = swe_, info] { return view::encode_swe(f, *j, info); },
                swe_cells_);
}

void LiveView::gauge(double time, const std::vector<swe::Probe>& probes) {
  if (!viewer_) return;
  std::vector<double> h;
  for (const auto& p : probes) h.push_back(p.h);
  viewer_->gauge(time, h);
}

double LiveView::next_time(double time, double target) {
  if (!viewer_ || viewer_->clients() == 0) return target;
  chunk_wall_start_ = wall_now();
  return std::min(target, time + chunk_);
}

void LiveView::hold() {
  if (!viewer_) return;
  bool announced = false, full_sent = false;
  while (!viewer_->control().wait_for_go(std::chrono::milliseconds(100))) {
    if (StopSignals::received()) return;
    if (!announced) {
      progress_->log(fmt::format("viewer: paused at t = {:.4f} s", time_));
      announced = true;
    }
    // Paused: every particle once (no decimation), for a close look.
    if (!full_sent && again() && viewer_->idle()) {
      again()();
      full_sent = true;
    }
  }
  if (announced) progress_->log("viewer: resumed");
}

void LiveView::linger() {
  if (!viewer_) return;
  viewer_->finish();
  progress_->log(fmt::format("viewer: the run is complete; {} shows its last frame until Ctrl-C",
                             viewer_->url()));
  bool full_sent = false;
  while (!StopSignals::received()) {
    if (!full_sent && again() && viewer_->idle()) {
      again()();
      full_sent = true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

#else

LiveView::LiveView(const std::string& address, const mpm::Scene&, const partition::World& world,
                   run::Progress&) {
  check_can_view(address, world);
}
LiveView::LiveView(const std::string& address, const io::SweJob&, const partition::World& world,
                   run::Progress&) {
  check_can_view(address, world);
}
LiveView::LiveView(const std::string&, const view::Replay&, run::Progress&) {}
LiveView::~LiveView() = default;
void LiveView::shown(std::function<void()>) {}
std::function<void()> LiveView::again() const {
  return {};
}
void LiveView::mpm_frame(const run::FrameInfo&, std::int64_t,
                         const std::function<mpm::ParticlesCopy()>&) {}
void LiveView::swe_frame(const run::FrameInfo&, const std::function<swe::Fields()>&) {}
void LiveView::gauge(double, const std::vector<swe::Probe>&) {}
double LiveView::next_time(double, double target) {
  return target;
}
void LiveView::hold() {}
void LiveView::linger() {}

#endif

}  // namespace silt::app
