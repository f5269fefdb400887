#include "silt/run/swe_adapter.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

#include "silt/run/devices.hpp"
#include "silt/run/frame_loop.hpp"

namespace silt::run {

namespace {

constexpr double kNever = std::numeric_limits<double>::infinity();

// Wall time after which an advance with device gauges returns at the end of a batch, short of its
// target: the frame loop then looks at signals, the viewer and the progress line as often as it
// did when every gauge sample ended an advance. The steps are the same wherever a batch ends.
constexpr std::chrono::milliseconds kAdvanceWall{100};

// The water balance of a shallow-water run since `a` (this run's start): what the rain brought,
// what infiltrated, what came in through boundaries and sources (negative: went out), the change
// of the water stored, and what is left over (round-off of the sums, or a solver defect).
std::string mass_balance_line(const swe::Totals& a, const swe::Totals& b, double t0, double t1) {
  const double rain = b.rain_volume - a.rain_volume;
  const double infiltrated = b.infiltrated_volume - a.infiltrated_volume;
  const double boundaries = (b.net_inflow_volume - a.net_inflow_volume) - rain;
  const double stored = b.volume - a.volume;
  const double residual = stored - (rain + boundaries - infiltrated);
  const double scale = std::max({std::abs(rain), std::abs(infiltrated), std::abs(boundaries),
                                 std::abs(a.volume), std::abs(b.volume)});
  return fmt::format(
      "mass balance t = {:.6g} .. {:.6g} s: rain in {:.9g} m^3, infiltrated {:.9g} m^3, "
      "boundaries and sources net in {:.9g} m^3, stored {:.9g} -> {:.9g} m^3 (change {:.9g}), "
      "residual {:.3g} m^3 ({:.2g} of the largest term)",
      t0, t1, rain, infiltrated, boundaries, a.volume, b.volume, stored, residual,
      scale > 0 ? std::abs(residual) / scale : 0.0);
}

}  // namespace

SweAdapter::SweAdapter(const io::SweJob& job, swe::Solver& solver, const io::SweCheckpoint* from,
                       const std::string& out, bool writes, int parts)
    : job_(job),
      solver_(solver),
      parts_(parts),
      at_start_(solver.totals()),
      t_start_(solver.time()),
      gauge_cells_(job.gauge_cells()),
      outputs_(!out.empty()),
      wants_fields_(outputs_ && io::wants_fields(job.outputs)),
      next_frame_(from ? std::size_t(from->next_frame) : 0),
      next_gauge_(from                   ? from->next_gauge
                  : gauge_cells_.empty() ? kNever
                                         : 0.0),
      gauge_rows_(from ? from->gauge_rows : 0),
      frame_steps_(solver.steps()) {
  if (from) from_peaks_ = from->peaks;
  if (!writes || !outputs_) return;
  writer_ = std::make_unique<io::SweOutputWriter>(job, out, from ? from->next_frame : -1);
  if (!gauge_cells_.empty())
    gauges_ = std::make_unique<io::GaugeCsvWriter>(job, out, from ? from->gauge_rows : -1);
  flows_ = std::make_unique<io::FlowTables>(job, out, from ? from->next_frame : -1);
}

SweAdapter::~SweAdapter() = default;

// The frames and gauge samples due now, frames first.
void SweAdapter::write_due(Context& c) {
  const auto& frames = job_.run.output_times;
  for (;;) {
    const double t = solver_.time();
    if (next_frame_ < frames.size() && frames[next_frame_] <= t)
      write_frame(c);
    else if (next_gauge_ <= t)
      write_gauges(c);
    else
      return;
  }
}

// Queued behind the steps; a pool thread waits for the copies and converts them.
void SweAdapter::write_frame(Context& c) {
  const double t = solver_.time();
  auto fields = std::make_shared<swe::FieldsCopy>();
  if (wants_fields_) *fields = solver_.fields_async(io::field_arrays_of(job_.outputs));
  const swe::Totals tot = solver_.totals();
  if (writer_ && c.queue) {
    const int k = static_cast<int>(next_frame_);
    c.queue->push_frame(frame_job(
        [&w = *writer_, fields, t, k] { return w.encode_frame(fields->get(), t, k); },
        [&w = *writer_, t, k](io::SweOutputWriter::EncodedFrame&& e) {
          w.commit_frame(std::move(e), t, k);
        },
        [](const io::SweOutputWriter::EncodedFrame& e) { io::SweOutputWriter::discard(e); }));
    c.queue->push_row([&f = *flows_, tot, t, k] { f.write(k, t, tot); });
    if (gauges_) c.queue->push_row([&g = *gauges_] { g.write_points(); });
    // ms/step: the wall time of the steps since the previous frame (stepping alone, what
    // bench/frame_rate.py compares the run's wall time with).
    const long long steps = solver_.steps() - frame_steps_;
    c.progress.log(fmt::format(
        "frame {:4} t = {:10.4f} s  steps {:8}  {:.3f} ms/step  volume {:.6g} m^3  pollutant "
        "{:.6g} kg  ({} files)",
        next_frame_, t, solver_.steps(), steps > 0 ? stepping_ms_ / double(steps) : 0.0, tot.volume,
        tot.pollutant_mass, io::files_per_frame(job_.outputs)));
  }
  frame_steps_ = solver_.steps();
  stepping_ms_ = 0;
  ++next_frame_;
}

// Sampled at the end of the step that reached the sample time, stamped with its time: no step is
// shortened for a gauge. A step longer than the interval passes several sample times; it gives
// one row.
void SweAdapter::write_gauges(Context& c) {
  const double t = solver_.time();
  record_gauges(c, t, solver_.probe(gauge_cells_));
  const double dt = job_.outputs.gauge_interval;
  if (!(dt > 0)) next_gauge_ = kNever;
  while (next_gauge_ <= t) next_gauge_ += dt;  // as phase_gauge_sample on the devices
}

void SweAdapter::record_gauges(Context& c, double t, std::vector<swe::Probe> probes) {
  c.hooks.gauge(t, io::pick_gauges(job_, probes));
  if (gauges_ && c.queue)
    c.queue->push_row([&g = *gauges_, p = std::move(probes), t] { g.write(t, p); });
  ++gauge_rows_;
}

void SweAdapter::take_device_gauges(Context& c) {
  if (!device_gauges_) return;
  for (swe::GaugeRow& r : solver_.take_gauge_rows()) record_gauges(c, r.time, std::move(r.probes));
  next_gauge_ = solver_.next_gauge();
}

// To the next frame time (landing on it), passing gauge times; shorter while somebody watches.
void SweAdapter::advance(Context& c) {
  const auto& frames = job_.run.output_times;
  const double t = solver_.time();
  double target = job_.run.end_time;
  if (next_frame_ < frames.size()) target = std::min(target, frames[next_frame_]);
  target = c.hooks.next_time(t, target);
  // The devices sample the gauges from the next sample time on (again when a sample taken here,
  // at the start, moved it); where they cannot, the steps stop at each sample time.
  if (!gauge_cells_.empty() && next_gauge_ < kNever &&
      (!device_gauges_ || next_gauge_ != solver_.next_gauge()))
    device_gauges_ = solver_.sample_gauges(gauge_cells_, next_gauge_, job_.outputs.gauge_interval);
  const auto t0 = std::chrono::steady_clock::now();
  // Only with device gauges, which never run under MPI: every rank must answer a stop alike.
  const auto stop = [&] {
    return (stop_check_ && stop_check_()) ||
           (device_gauges_ && std::chrono::steady_clock::now() - t0 > kAdvanceWall);
  };
  try {
    const double after = device_gauges_ ? kNever : next_gauge_;
    if (advance_)
      advance_(target, stop, after);
    else
      solver_.advance_to(target, stop, after);
  } catch (...) {
    take_device_gauges(c);  // the rows of the batches before a fault, as a probe took them
    throw;
  }
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  stepping_ms_ += ms;
  stepping_total_ms_ += ms;
  take_device_gauges(c);
  show(c);
}

bool SweAdapter::track_step_peaks() {
  return solver_.track_step_peaks(from_peaks_);
}

// Every stored array the scene has: the viewer shows any field (depth, level, speed, ...).
void SweAdapter::show(Context& c) {
  c.hooks.swe_frame({long(next_frame_), solver_.time(), solver_.steps()},
                    [this] { return solver_.fields(swe::arrays::all); });
}

io::FrameQueue::Job SweAdapter::checkpoint(const std::string& path) {
  io::SweCheckpoint cp;
  cp.state = solver_.state();
  cp.next_frame = long(next_frame_);
  cp.next_gauge = next_gauge_;
  cp.gauge_rows = gauge_rows_;
  cp.parts = parts_;
  cp.peaks = solver_.step_peaks();  // empty when not tracked
  return [&job = job_, cp = std::move(cp), path] {
    io::save_swe_checkpoint(path, job, cp, build_id());
  };
}

// The hazard rasters of the whole run, after its last frame (collective: fields()), and the
// gauges' arrivals and maxima.
void SweAdapter::finish(Context& c) {
  if (outputs_ && !job_.outputs.hazard.empty()) {
    swe::Fields fields = solver_.fields(io::kHazardArrays);
    if (writer_ && c.queue)
      c.queue->push(
          [&w = *writer_, f = std::move(fields), t = solver_.time()] { w.write_hazard(f, t); });
  }
  if (gauges_ && c.queue) c.queue->push_row([&g = *gauges_] { g.write_points(); });
}

std::vector<std::string> SweAdapter::closing_lines() {
  const swe::Totals at_end = solver_.totals();  // collective
  return {mass_balance_line(at_start_, at_end, t_start_, solver_.time())};
}

}  // namespace silt::run
