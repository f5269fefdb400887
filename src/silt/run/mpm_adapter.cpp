#include "silt/run/mpm_adapter.hpp"

#include <fmt/format.h>

#include <chrono>

#include "silt/io/atomic_file.hpp"
#include "silt/io/mpm/checkpoint.hpp"
#include "silt/io/resolved_scene.hpp"
#include "silt/run/devices.hpp"
#include "silt/run/frame_loop.hpp"

namespace silt::run {

MpmAdapter::MpmAdapter(const io::MpmJob& job, mpm::Solver& solver, long first,
                       const std::string& out, bool writes)
    : job_(job),
      solver_(solver),
      first_(first),
      attributes_(out.empty() ? 0u : io::particle_attributes_of(job.outputs)),
      frame_(first > 0 ? first - 1 : 0) {
  if (writes && !out.empty())
    writer_ = std::make_unique<io::MpmFrameWriter>(job, out, first > 0 ? first : -1);
}

MpmAdapter::~MpmAdapter() = default;

// The particles leave the devices only for a frame that writes them, and only the attributes its
// files read (collective: every rank reads the same outputs). The copies are queued behind the
// steps; a pool thread waits for them and sorts into id order.
void MpmAdapter::emit(Context& c, long f, double t) {
  auto p = std::make_shared<mpm::ParticlesCopy>();
  if (attributes_) *p = solver_.particles_async(attributes_);
  if (writer_ && c.queue)
    c.queue->push_frame(frame_job(
        [&w = *writer_, p, f, t] { return w.encode(p->get(), f, t); },
        [&w = *writer_, f, t](std::vector<std::string>&& written) { w.commit(written, f, t); },
        [](const std::vector<std::string>& written) { io::remove_files(written); }));
}

// The viewer's frames carry every attribute the run writes (stress and the plastic measure with
// outputs.with_stress), so that the page can colour by them.
std::function<mpm::ParticlesCopy()> MpmAdapter::download() {
  return [this] {
    const unsigned extra =
        job_.outputs.with_stress ? mpm::attributes::stress | mpm::attributes::plastic : 0u;
    return solver_.particles_async(mpm::attributes::motion | extra, false);
  };
}

void MpmAdapter::start(Context& c) {
  if (first_ == 0) emit(c, 0, solver_.time());
  c.hooks.mpm_frame({frame_, solver_.time(), 0}, solver_.particle_count(), download());
}

void MpmAdapter::advance(Context& c) {
  const mpm::FrameStats s = solver_.advance_frame();
  const long f = ++frame_;
  steps_ += s.steps;
  const auto handed = std::chrono::steady_clock::now();
  emit(c, f, s.time);
  handoff_ms_ +=
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - handed).count();
  host_.emit_ms += s.host.emit_ms;
  host_.prepare_ms += s.host.prepare_ms;
  host_.record_ms += s.host.record_ms;
  host_.recordings += s.host.recordings;
  host_.graph_updates += s.host.graph_updates;
  host_.finish_ms += s.host.finish_ms;
  c.progress.log(fmt::format(
      "frame {:4} t = {:8.4f} s  particles {:9}  steps {:4}  {:.3f} ms/step  "
      "blocks {:7}  rebuilds {}  rms speed {:.3g} m/s",
      f, s.time, s.particles, s.steps, s.ms_per_step, s.active_blocks, s.rebuilds, s.rms_speed));
  c.hooks.mpm_frame({f, s.time, steps_}, s.particles, download());
  if (on_frame) on_frame(s);
  if (job_.run.rest_speed > 0 && s.rms_speed < job_.run.rest_speed) {
    c.progress.log(
        fmt::format("silt run: at rest at frame {} (t = {:.4f} s): rms speed {:.3g} m/s is below "
                    "run.rest_speed = {:.3g} m/s",
                    f, s.time, s.rms_speed, job_.run.rest_speed));
    at_rest_ = true;
  }
}

// Collective: rank 0 gathers every part's state.
io::FrameQueue::Job MpmAdapter::checkpoint(const std::string& path) {
  return [&job = job_, st = solver_.state(), path] {
    io::save_mpm_checkpoint(path, job, st, build_id());
  };
}

std::vector<std::string> MpmAdapter::drained_lines(double drain_s) {
  return {fmt::format(
      "host time beyond the steps: emission {:.3f} s, grids {:.3f} s, graph recording {:.3f} s "
      "({} times, {} part graphs updated in place), read-back {:.3f} s, frames to the writer "
      "{:.3f} s, writer drained in {:.3f} s",
      host_.emit_ms / 1e3, host_.prepare_ms / 1e3, host_.record_ms / 1e3, host_.recordings,
      host_.graph_updates, host_.finish_ms / 1e3, handoff_ms_ / 1e3, drain_s)};
}

void write_resolved_scene(const io::MpmJob& job, const std::string& out, const std::string& backend,
                          const std::vector<std::string>& overrides) {
  io::write_resolved_scene(job.resolved, job.path, out, build_id(), backend, overrides);
}

}  // namespace silt::run
