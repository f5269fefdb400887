// `silt run` and `silt validate`: load a scene (file or the embedded default), pick the backend,
// step the solver frame by frame, and stream the frames asked for to a small writer pool
// (io/frame_queue.hpp) that encodes and writes them while the next frames step, and commits them
// (frames.csv, appends to shared files, checkpoints) in order; nothing leaves the devices unless
// an output asks for it. An error mid-run stops the run with a message naming the
// cell, particle or file and step; SIGINT / SIGTERM stop it between frames (stop_signal.hpp). Either
// way the frames queued before are written completely and frames.csv lists exactly them.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <memory>
#include <optional>

#include "checkpoint_policy.hpp"
#include "commands.hpp"
#include "live_view.hpp"
#include "output_dir.hpp"
#include "progress.hpp"
#include "run_checkpoint.hpp"
#include "silt/core/error.hpp"
#include "silt/core/exec.hpp"
#include "silt/core/stop_check.hpp"
#include "silt/io/frame_queue.hpp"
#include "silt/io/swe_checkpoint.hpp"
#include "silt/io/swe_output.hpp"
#include "silt/io/swe_scene.hpp"
#include "silt/partition/world.hpp"
#include "silt/run/devices.hpp"
#include "silt/swe/solver.hpp"
#include "stop_signal.hpp"

#ifdef SILT_WITH_MPM
#include "silt/io/atomic_file.hpp"
#include "silt/io/mpm_checkpoint.hpp"
#include "silt/io/mpm_scene.hpp"
#include "silt/io/particles_output.hpp"
#include "silt/mpm/solver.hpp"
#endif

namespace silt::app {

extern const char* const kDefaultSceneName;
extern const char* const kDefaultSceneText;

namespace fs = std::filesystem;

namespace {

std::string default_out_dir(const std::string& scene_name) {
  return (fs::path("silt-out") / (scene_name.empty() ? "scene" : scene_name)).string();
}

// Frames waiting for the writer pool at most, beyond one a pool thread: enough to ride out a slow
// write, few enough to bound the memory (a 1.33M-particle PLY frame is ~43 MB, a 16.8M-cell depth
// raster 134 MB in float64). The pinned copy slots (swe/engine_output.cpp, mpm/frame_copy.cpp)
// follow: one per frame in flight, kQueuedFrames + the pool's threads, and one being filled.
constexpr std::size_t kQueuedFrames = 2;

// The signal a stop was asked with (0: none), agreed over the ranks so that all stop at the same
// frame (collective under MPI).
int stop_signal(const partition::World& world) {
  double sig = StopSignals::received();
  if (world.distributed()) world.allreduce_max_sum(&sig, 1, 1);
  return int(sig);
}

// The end of a run stopped by a signal: what was queued is written (close() waits for it, the
// checkpoint last), one line says where the run stopped and how to continue it, and the exit code
// is 128 + the signal (130 SIGINT, 143 SIGTERM).
int stopped(int sig, long last_frame, double t, const std::string& out, const std::string& restart,
            Progress& progress, bool root) {
  if (root) {
    progress.clear();
    const std::string where =
        last_frame < 0 ? fmt::format("before the first frame, at t = {:.6g} s", t)
                       : fmt::format(
                             "after frame {} at t = {:.6g} s; frames 0 to {} are complete "
                             "in '{}' (frames.csv)",
                             last_frame, t, last_frame, out);
    fmt::print(stderr, "silt: stopped by {} {}; continue with: {}\n", StopSignals::name(sig), where,
               restart);
  }
  std::fflush(stderr);
  return 128 + sig;
}

// The line that ends the set-up: the seconds from the command's start (the scene read, the devices
// started, the particles sampled or the grid built, a checkpoint read) to the first step, which
// bench/frame_rate.py separates from the cost per frame, and each phase's share of them.
class SetupClock {
 public:
  using Clock = std::chrono::steady_clock;
  explicit SetupClock(Clock::time_point started) : started_(started), last_(started) {}
  /// The phase that ends now.
  void mark(const char* phase) {
    const Clock::time_point now = Clock::now();
    phases_ +=
        fmt::format("{}{} {:.2f} s", phases_.empty() ? "" : ", ", phase, seconds(now - last_));
    last_ = now;
  }
  std::string line() const {
    return fmt::format("set up in {:.2f} s ({})", seconds(Clock::now() - started_), phases_);
  }

 private:
  static double seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }
  Clock::time_point started_, last_;
  std::string phases_;
};

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

// Where the frames' time went in the writer pool: the seconds of its jobs summed over its threads
// (encodes and commits) and the wall seconds in which any of them was busy, what the stepping
// thread waited for room in its queue (the back-pressure a slow writer puts on the run), and how
// long it took to finish after the last step.
std::string writer_line(const io::FrameQueue& q, std::chrono::steady_clock::duration drain) {
  return fmt::format(
      "writer: {} jobs in {:.3f} s summed over {} threads and a commit thread ({:.3f} s of wall "
      "time busy), the steps waited {:.3f} s for room in its queue, drained in {:.3f} s",
      q.done(), q.busy_seconds(), q.threads(), q.active_seconds(), q.waited_seconds(),
      std::chrono::duration<double>(drain).count());
}

// A frame for the writer pool: `encode` writes its own files on a pool thread and returns what
// it leaves to commit; `commit` finishes it in frame order (frames.csv last), and `discard`
// removes its files when an earlier frame failed.
template <class Encode, class Commit, class Discard>
io::FrameQueue::Encode frame_job(Encode encode, Commit commit, Discard discard) {
  return [encode = std::move(encode), commit = std::move(commit), discard = std::move(discard)] {
    auto e = std::make_shared<decltype(encode())>(encode());
    return io::FrameQueue::Encoded{[commit, e] { commit(std::move(*e)); },
                                   [discard, e] {
                                     discard(*e);
                                   }};
  };
}

// The time loop: outputs at their times. Every call on the solver is collective under MPI (all
// ranks take the same path); rank 0 queues what it writes, the checkpoints after the frames they
// follow. from: the checkpoint a restart continues (null: a fresh run). Returns 0, or the exit
// code of a stop.
int step_and_write(const io::SweJob& job, swe::Solver& solver, const partition::World& world,
                   const std::string& out, Progress& progress, LiveView& view, const RunOptions& o,
                   const io::SweCheckpoint* from) {
  const bool root = world.is_root();
  const swe::Totals at_start = solver.totals();
  const double t_start = solver.time();
  std::unique_ptr<io::SweOutputWriter> writer;
  if (root) writer = std::make_unique<io::SweOutputWriter>(job, out, from ? from->next_frame : -1);
  std::unique_ptr<io::GaugeCsvWriter> gauges;
  const std::vector<Index> gauge_cells = job.gauge_cells();
  if (root && !gauge_cells.empty())
    gauges = std::make_unique<io::GaugeCsvWriter>(job, out, from ? from->gauge_rows : -1);
  // hydrograph.csv and mass_balance.csv: a row per frame.
  std::unique_ptr<io::FlowTables> flows;
  if (root) flows = std::make_unique<io::FlowTables>(job, out, from ? from->next_frame : -1);
  // Declared after the writers: destroyed first, it drains into them.
  std::unique_ptr<io::FrameQueue> queue;
  if (root)
    queue = std::make_unique<io::FrameQueue>(kQueuedFrames, io::FrameQueue::default_threads());
  const bool wants_fields = io::wants_fields(job.outputs);
  // Every time at which something is written: output frames and gauge samples.
  const auto& frames = job.run.output_times;
  size_t next_frame = from ? size_t(from->next_frame) : 0;
  double next_gauge = gauge_cells.empty() ? std::numeric_limits<double>::infinity() : 0.0;
  if (from) next_gauge = from->next_gauge;
  long gauge_rows = from ? from->gauge_rows : 0;
  const double gauge_dt = job.outputs.gauge_interval;
  const double t_end = job.run.end_time;
  CheckpointPolicy policy(o.checkpoint_every);
  policy.start_at(solver.time());
  // The state on the stepping thread; the file on the writer's commit thread, after the frames
  // before it.
  const auto checkpoint = [&] {
    io::SweCheckpoint c;
    c.state = solver.state();
    c.next_frame = long(next_frame);
    c.next_gauge = next_gauge;
    c.gauge_rows = gauge_rows;
    c.parts = int(o.devices.size()) * world.size();
    policy.taken(c.state.time);
    if (root)
      queue->push([&job, c = std::move(c), path = checkpoint_path(out)] {
        io::save_swe_checkpoint(path, job, c, run::build_id());
      });
  };
  long long frame_steps = solver.steps();  // steps at the previous frame
  double stepping_ms = 0;                  // wall time in advance_to() since the previous frame
  for (;;) {
    const double t = solver.time();
    if (next_frame < frames.size() && frames[next_frame] <= t) {
      // Queued behind the steps; a pool thread waits for the copies and converts them.
      auto fields = std::make_shared<swe::FieldsCopy>();
      if (wants_fields) *fields = solver.fields_async(io::field_arrays_of(job.outputs));
      const swe::Totals tot = solver.totals();
      if (root) {
        const int k = static_cast<int>(next_frame);
        queue->push_frame(frame_job(
            [&w = *writer, fields, t, k] { return w.encode_frame(fields->get(), t, k); },
            [&w = *writer, t, k](io::SweOutputWriter::EncodedFrame&& e) {
              w.commit_frame(std::move(e), t, k);
            },
            [](const io::SweOutputWriter::EncodedFrame& e) { io::SweOutputWriter::discard(e); }));
        queue->push_row([&f = *flows, tot, t, k] { f.write(k, t, tot); });
        if (gauges) queue->push_row([&g = *gauges] { g.write_points(); });
        // ms/step: the wall time of the steps since the previous frame (stepping alone, what
        // bench/frame_rate.py compares the run's wall time with).
        const long long steps = solver.steps() - frame_steps;
        progress.log(fmt::format(
            "frame {:4} t = {:10.4f} s  steps {:8}  {:.3f} ms/step  volume {:.6g} m^3  pollutant "
            "{:.6g} kg  ({} files)",
            next_frame, t, solver.steps(), steps > 0 ? stepping_ms / double(steps) : 0.0,
            tot.volume, tot.pollutant_mass, io::files_per_frame(job.outputs)));
      }
      frame_steps = solver.steps();
      stepping_ms = 0;
      ++next_frame;
      continue;
    }
    if (next_gauge <= t) {
      // Sampled at the end of the step that reached the sample time, stamped with its time: no
      // step is shortened for a gauge. A step longer than the interval passes several sample
      // times; it gives one row.
      std::vector<swe::Probe> probes = solver.probe(gauge_cells);
      view.gauge(t, io::pick_gauges(job, probes));
      if (gauges) queue->push_row([&g = *gauges, p = std::move(probes), t] { g.write(t, p); });
      if (!(gauge_dt > 0)) next_gauge = std::numeric_limits<double>::infinity();
      while (next_gauge <= t) next_gauge += gauge_dt;
      ++gauge_rows;
      continue;
    }
    if (!(t < t_end)) break;
    view.hold();
    // Checkpoints only where the run stops anyway (a frame or gauge time), so that a restart
    // takes the same steps as the run it continues.
    const int sig = stop_signal(world);
    if (sig || any_rank(world, policy.due(t))) checkpoint();
    if (sig) {
      if (queue) queue->close();
      return stopped(sig, long(next_frame) - 1, t, out, restart_command(o, out, world), progress,
                     root);
    }
    double target = t_end;
    if (next_frame < frames.size()) target = std::min(target, frames[next_frame]);
    target = view.next_time(t, target);
    const auto t0 = std::chrono::steady_clock::now();
    solver.advance_to(target, {}, next_gauge);  // lands on frames, passes gauge times
    stepping_ms +=
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    progress.update(solver.time(), solver.steps());
    view.swe_frame(long(next_frame), solver.time(), solver.steps(),
                   [&] { return solver.fields(swe::arrays::depth | swe::arrays::pollutant); });
  }
  // The hazard rasters of the whole run, after its last frame (collective: fields()).
  if (!job.outputs.hazard.empty()) {
    swe::Fields fields = solver.fields(io::kHazardArrays);
    if (root)
      queue->push(
          [&w = *writer, f = std::move(fields), t = solver.time()] { w.write_hazard(f, t); });
  }
  if (gauges) queue->push_row([&g = *gauges] { g.write_points(); });
  if (policy.enabled()) checkpoint();
  const swe::Totals at_end = solver.totals();
  if (root) progress.log(mass_balance_line(at_start, at_end, t_start, solver.time()));
  if (queue) {
    const auto drain = std::chrono::steady_clock::now();
    queue->close();
    progress.log(writer_line(*queue, std::chrono::steady_clock::now() - drain));
  }
  return 0;
}

// Runs the body of a run on this rank and ends it the way every rank must agree on: a fault that
// every rank throws alike (Fault) is reported by rank 0 while the others end quietly; an error of
// this rank alone (a file it cannot write, a device it cannot use) ends every rank (MPI_Abort), as
// the others may be waiting for it in a collective. The body returns 0, or the exit code of a run
// stopped by a signal; on success rank 0 prints the output path.
template <class Fault, class Body>
int run_on_ranks(const partition::World& world, const std::string& out, Body body) {
  try {
    if (const int code = body()) return code;
  } catch (const Fault&) {
    if (world.is_root()) throw;
    return 1;
  } catch (const std::exception& e) {
    if (!world.distributed()) throw;
    fmt::print(stderr, "silt: error on rank {} of {}: {}\n", world.rank(), world.size(), e.what());
    std::fflush(stderr);
    world.abort(1);
  }
  if (world.is_root()) fmt::print("{}\n", fs::absolute(out).lexically_normal().string());
  return 0;
}

// What every run sets up alike before it starts: this rank's devices (split: the scene runs in
// several parts, on this process or over MPI ranks), the output folder, the progress line and the
// devices described for the log.
struct RunSetup {
  RunSetup(const RunOptions& o, const std::string& scene_name, double end_time,
           bool repeats = false)
      : started(o.started),
        world(partition::World::get()),
        execs(run::choose_execs({o.backend, o.devices, repeats}, world)),
        split(execs.size() > 1 || world.distributed()),
        root(world.is_root()),
        out(o.out_dir.empty() ? default_out_dir(scene_name) : o.out_dir),
        progress(end_time, o.quiet || !root),
        backend(run::describe_execs(execs, world)) {
    // Every rank looks (each refuses alike, nobody waits in a collective); rank 0 removes.
    const OutputMode mode = !o.restart.empty() ? OutputMode::restart
                            : o.overwrite      ? OutputMode::overwrite
                                               : OutputMode::fresh;
    if (root || mode == OutputMode::fresh) claim_output_dir(out, mode);
  }

  const std::chrono::steady_clock::time_point started;  // when the command began
  const partition::World& world;
  const std::vector<Exec> execs;
  const bool split;
  const bool root;
  const std::string out;
  Progress progress;
  const std::string backend;
};

int run_swe(const io::SweJob& job, const RunOptions& o) {
  SetupClock setup(o.started);
  setup.mark("scene read");
  RunSetup r(o, job.scene.name, job.run.end_time);
  setup.mark("devices");
  // Every rank reads the checkpoint (the state is the global grid's, whatever the split).
  std::unique_ptr<io::SweCheckpoint> from;
  if (!o.restart.empty())
    from = std::make_unique<io::SweCheckpoint>(io::load_swe_checkpoint(o.restart, job));
  return run_on_ranks<swe::SplitFault>(r.world, r.out, [&] {
    r.progress.log(
        fmt::format("silt run: shallow water '{}', {} x {} cells of {} m, {}, on {}",
                    job.scene.name, job.scene.grid.nx, job.scene.grid.ny, job.scene.grid.dx,
                    job.scene.precision == swe::Precision::f32 ? "float32" : "float64", r.backend));
    if (r.root) io::write_resolved_scene(job, r.out, run::build_id(), r.backend, o.overrides);
    swe::Split s;
    s.execs = r.execs;
    s.halo = run::halo_layers(o.halo, r.execs.front().is_cuda());
    swe::Solver solver(job.scene, s);
    setup.mark("grid built");
    if (r.split) r.progress.log("split: " + solver.layout());
    if (from) {
      solver.restore(from->state);
      r.progress.log(fmt::format("restart: t = {} s, step {}, frame {} next, from '{}' ({} parts)",
                                 from->state.time, from->state.steps, from->next_frame, o.restart,
                                 from->parts));
      setup.mark("checkpoint restored");
    }
    r.progress.log(setup.line());
    LiveView view(o.view, job, r.world, r.progress);
    if (const int code =
            step_and_write(job, solver, r.world, r.out, r.progress, view, o, from.get()))
      return code;
    r.progress.done(solver.time(), solver.steps());
    view.linger();
    return 0;
  });
}

#ifdef SILT_WITH_MPM
/// The host work of a run's frames beyond their steps, summed (mpm::FrameHostTime), and the time
/// the stepping thread spent handing frames to the writer (downloads, waits on a full queue).
struct HostTimes {
  mpm::FrameHostTime sum;
  double handoff_ms = 0;
  void add(const mpm::FrameStats& s, std::chrono::steady_clock::duration handoff) {
    sum.emit_ms += s.host.emit_ms;
    sum.prepare_ms += s.host.prepare_ms;
    sum.record_ms += s.host.record_ms;
    sum.recordings += s.host.recordings;
    sum.graph_updates += s.host.graph_updates;
    sum.finish_ms += s.host.finish_ms;
    handoff_ms += std::chrono::duration<double, std::milli>(handoff).count();
  }
  std::string line(std::chrono::steady_clock::duration drain) const {
    return fmt::format(
        "host time beyond the steps: emission {:.3f} s, grids {:.3f} s, graph recording {:.3f} s "
        "({} times, {} part graphs updated in place), read-back {:.3f} s, frames to the writer "
        "{:.3f} s, writer drained in {:.3f} s",
        sum.emit_ms / 1e3, sum.prepare_ms / 1e3, sum.record_ms / 1e3, sum.recordings,
        sum.graph_updates, sum.finish_ms / 1e3, handoff_ms / 1e3,
        std::chrono::duration<double>(drain).count());
  }
};

// A run stopped by a signal before its first step: nothing ran, nothing to continue from.
int stopped_in_setup(int sig, const std::string& what, Progress& progress, bool root) {
  if (root) {
    progress.clear();
    fmt::print(stderr, "silt: {} by {}; nothing was run\n", what, StopSignals::name(sig));
  }
  std::fflush(stderr);
  return 128 + (sig ? sig : SIGTERM);
}

/// `--hash`: the frame's state hash on stdout (collective; rank 0 prints), for comparing runs.
void print_state_hash(const mpm::Solver& solver, long frame, bool root) {
  const std::uint64_t h = solver.state_hash();
  if (root) fmt::print("frame {} t = {:.9g} s state_hash {:016x}\n", frame, solver.time(), h);
  if (root) std::fflush(stdout);
}

// One solver over the parts of the run: one device, or several parts (--devices 0,1 on CUDA,
// --devices 0,0 for two parts on one GPU; --backend cpu --devices 0,1,2 for CPU partitions; one
// part per rank under mpirun). Frames come in stable id order, so the files of a split run line up
// with those of one device; rank 0 writes.
int run_mpm(const io::MpmJob& job, const RunOptions& o) {
  SetupClock setup(o.started);
  setup.mark("scene read");
  RunSetup r(o, job.scene.name, job.run.end_time, true);
  setup.mark("devices");
  // Every rank reads the checkpoint; each part takes its own particles.
  std::unique_ptr<mpm::RestartState> from;
  if (!o.restart.empty())
    from = std::make_unique<mpm::RestartState>(io::load_mpm_checkpoint(o.restart, job));
  const long first = from ? long(from->frame) + 1 : 0;  // the first frame this run writes
  return run_on_ranks<mpm::PartFault>(r.world, r.out, [&] {
    for (const auto& w : job.warnings) r.progress.log("warning: " + w);
    std::unique_ptr<io::MpmFrameWriter> writer;
    std::unique_ptr<io::FrameQueue> queue;  // after the writer: destroyed first, it drains into it
    if (r.root) {
      io::prepare_output_dir(r.out);
      nlohmann::json doc = job.resolved;
      doc["provenance"] = {{"build", run::build_id()},
                           {"backend", r.backend},
                           {"scene_file", job.path},
                           {"overrides", o.overrides}};
      io::write_text_atomically((fs::path(r.out) / "resolved_scene.json").string(),
                                doc.dump(2) + "\n");
      writer = std::make_unique<io::MpmFrameWriter>(job, r.out, from ? first : -1);
      queue = std::make_unique<io::FrameQueue>(kQueuedFrames, io::FrameQueue::default_threads());
    }
    // A split run's warnings (a fixed dt above the CFL limit, a paused frame) and its rebalancing
    // lines arrive through the log, once (rank 0 prints).
    mpm::SolverOptions so;
    so.log = [&r](const std::string& m) {
      r.progress.log(m);
    };
    // SIGINT / SIGTERM during set-up (a mesh collider's distance field can take minutes) stop it
    // at the library's next poll.
    so.stop = [] {
      return StopSignals::received() != 0;
    };
    std::optional<mpm::Solver> made;
    try {
      made.emplace(job.scene, r.execs, so, r.world);
    } catch (const Stopped& e) {
      return stopped_in_setup(stop_signal(r.world), e.what(), r.progress, r.root);
    }
    mpm::Solver& solver = *made;
    setup.mark("particles and grid built");
    if (from) {
      solver.restore(*from);
      r.progress.log(fmt::format("restart: t = {} s after frame {}, from '{}' ({} parts)",
                                 solver.time(), from->frame, o.restart, from->parts.size()));
      setup.mark("checkpoint restored");
    }
    r.progress.log(fmt::format("silt run: MPM '{}', {} particles, dx = {} m, on {}", job.scene.name,
                               solver.particle_count(), job.scene.dx, r.backend));
    if (r.split) r.progress.log("split: " + solver.layout());
    r.progress.log(setup.line());
    // The particles leave the devices only for a frame that writes them, and only the attributes
    // its files read (collective: every rank reads the same outputs). The copies are queued
    // behind the steps; a pool thread waits for them and sorts into id order.
    const unsigned attributes = io::particle_attributes_of(job.outputs);
    const auto emit = [&](long f, double t) {
      auto p = std::make_shared<mpm::ParticlesCopy>();
      if (attributes) *p = solver.particles_async(attributes);
      if (queue)
        queue->push_frame(frame_job(
            [&w = *writer, p, f, t] { return w.encode(p->get(), f, t); },
            [&w = *writer, f, t](std::vector<std::string>&& written) { w.commit(written, f, t); },
            [](const std::vector<std::string>& written) { io::remove_files(written); }));
    };
    // Checkpoints between frames, written after the frames before them (collective: rank 0
    // gathers every part's state).
    CheckpointPolicy policy(o.checkpoint_every);
    policy.start_at(solver.time());
    const auto checkpoint = [&] {
      mpm::RestartState st = solver.state();
      policy.taken(solver.time());
      if (queue)
        queue->push([&job, st = std::move(st), path = checkpoint_path(r.out)] {
          io::save_mpm_checkpoint(path, job, st, run::build_id());
        });
    };
    LiveView view(o.view, job.scene, r.world, r.progress);
    const auto download = [&] {
      return solver.particles_async(mpm::attributes::motion, false);
    };
    if (!from) emit(0, solver.time());
    view.mpm_frame(first > 0 ? first - 1 : 0, solver.time(), 0, solver.particle_count(), download);
    long long steps = 0;
    HostTimes host;  // where the frames' time went beyond their steps
    for (int f = int(first > 0 ? first : 1); f <= job.run.frames; ++f) {
      view.hold();
      const int sig = stop_signal(r.world);
      if (sig || any_rank(r.world, policy.due(solver.time()))) checkpoint();
      if (sig) {
        if (queue) queue->close();
        return stopped(sig, f - 1, solver.time(), r.out, restart_command(o, r.out, r.world),
                       r.progress, r.root);
      }
      const mpm::FrameStats s = solver.advance_frame();
      steps += s.steps;
      const auto handed = std::chrono::steady_clock::now();
      emit(f, s.time);
      host.add(s, std::chrono::steady_clock::now() - handed);
      r.progress.log(
          fmt::format("frame {:4} t = {:8.4f} s  particles {:9}  steps {:4}  {:.3f} ms/step  "
                      "blocks {:7}  rebuilds {}  rms speed {:.3g} m/s",
                      f, s.time, s.particles, s.steps, s.ms_per_step, s.active_blocks, s.rebuilds,
                      s.rms_speed));
      if (o.hash) print_state_hash(solver, f, r.root);
      r.progress.update(s.time, steps);
      view.mpm_frame(f, s.time, steps, s.particles, download);
      if (job.run.rest_speed > 0 && s.rms_speed < job.run.rest_speed) {
        r.progress.log(
            fmt::format("silt run: at rest at frame {} (t = {:.4f} s): rms speed {:.3g} "
                        "m/s is below run.rest_speed = {:.3g} m/s",
                        f, s.time, s.rms_speed, job.run.rest_speed));
        break;
      }
    }
    if (policy.enabled()) checkpoint();
    const auto drain = std::chrono::steady_clock::now();
    if (queue) queue->close();
    const auto drained = std::chrono::steady_clock::now() - drain;
    r.progress.done(solver.time(), steps);
    r.progress.log(host.line(drained));
    if (queue) r.progress.log(writer_line(*queue, drained));
    view.linger();
    return 0;
  });
}
#endif

}  // namespace

int cmd_run(const RunOptions& o) {
  const StopSignals signals;
  // A bad --checkpoint-every or --view fails before anything is written.
  const CheckpointPolicy checked(o.checkpoint_every);
  check_view_option(o.view);
  if (o.scene_path.empty()) {
    const io::SweJob job = io::parse_swe_job(kDefaultSceneText, kDefaultSceneName, "", o.overrides);
    checked.check_run(0.0, job.run.end_time);
    return run_swe(job, o);
  }
  const std::string solver = io::scene_solver(o.scene_path);
  if (solver == "swe") {
    const io::SweJob job = io::load_swe_job(o.scene_path, o.overrides);
    checked.check_run(0.0, job.run.end_time);
    return run_swe(job, o);
  }
#ifdef SILT_WITH_MPM
  if (solver == "mpm") {
    const io::MpmJob job = io::load_mpm_job(o.scene_path, o.overrides);
    checked.check_run(0.0, job.run.end_time);
    return run_mpm(job, o);
  }
#endif
  throw Error(fmt::format("{}: 'solver' is '{}'; this build runs 'swe'{}", o.scene_path, solver,
#ifdef SILT_WITH_MPM
                          " and 'mpm'"
#else
                          ""
#endif
                          ));
}

int cmd_validate(const std::string& path, const std::vector<std::string>& overrides) {
  const std::string solver = io::scene_solver(path);
  if (solver == "swe") {
    fmt::print("{}\n{}: ok\n", io::describe(io::load_swe_job(path, overrides)), path);
    return 0;
  }
#ifdef SILT_WITH_MPM
  if (solver == "mpm") {
    const io::MpmJob job = io::load_mpm_job(path, overrides);
    fmt::print("{}\n{}: ok\n", io::describe(job), path);
    return 0;
  }
#endif
  throw Error(fmt::format("{}: unknown solver '{}'", path, solver));
}

int cmd_bench_swe(const BenchOptions& o);

int cmd_bench(const BenchOptions& o) {
  if (o.what == "swe") return cmd_bench_swe(o);
  throw Error("silt bench mpm: run the mpm_bench program (bench/mpm_bench) for the MPM benchmark");
}

}  // namespace silt::app
