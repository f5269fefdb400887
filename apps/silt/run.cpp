// `silt run` and `silt validate`: load a scene (file or the embedded default), pick the backend,
// build the solver (or restore it from a checkpoint), and hand it to the run layer's frame loop
// (silt/run/frame_loop.hpp, docs/run-layer.md) through its shallow-water or MPM adapter. What is
// left here is the command line's own: the output folder, the set-up lines, SIGINT / SIGTERM
// (stop_signal.hpp), the live viewer (--view), the line that says how to continue a stopped run,
// and the way every MPI rank ends alike.
#include <fmt/format.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>

#include "commands.hpp"
#include "live_view.hpp"
#include "run_checkpoint.hpp"
#include "silt/core/error.hpp"
#include "silt/core/exec.hpp"
#include "silt/core/stop_check.hpp"
#include "silt/io/swe/checkpoint.hpp"
#include "silt/io/swe/output.hpp"
#include "silt/io/swe/scene_file.hpp"
#include "silt/partition/world.hpp"
#include "silt/run/checkpoint_policy.hpp"
#include "silt/run/devices.hpp"
#include "silt/run/ensemble_run.hpp"
#include "silt/run/frame_loop.hpp"
#include "silt/run/output_dir.hpp"
#include "silt/run/progress.hpp"
#include "silt/run/swe_adapter.hpp"
#include "silt/swe/solver.hpp"
#include "stop_signal.hpp"

#ifdef SILT_WITH_MPM
#include "silt/io/mpm/checkpoint.hpp"
#include "silt/io/mpm/scene_file.hpp"
#include "silt/mpm/solver.hpp"
#include "silt/run/mpm_adapter.hpp"
#endif

namespace silt::app {

extern const char* const kDefaultSceneName;
extern const char* const kDefaultSceneText;

namespace fs = std::filesystem;

namespace {

std::string default_out_dir(const std::string& scene_name) {
  return (fs::path("silt-out") / (scene_name.empty() ? "scene" : scene_name)).string();
}

// The end of a run stopped by a signal: what was queued is written (close() waits for it, the
// checkpoint last), one line says where the run stopped and how to continue it, and the exit code
// is 128 + the signal (130 SIGINT, 143 SIGTERM).
int stopped(int sig, long last_frame, double t, const std::string& out, const std::string& restart,
            run::Progress& progress, bool root) {
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
    using run::OutputMode;
    const OutputMode mode = !o.restart.empty() ? OutputMode::restart
                            : o.overwrite      ? OutputMode::overwrite
                                               : OutputMode::fresh;
    if (root || mode == OutputMode::fresh) run::claim_output_dir(out, mode);
  }

  const std::chrono::steady_clock::time_point started;  // when the command began
  const partition::World& world;
  const std::vector<Exec> execs;
  const bool split;
  const bool root;
  const std::string out;
  run::Progress progress;
  const std::string backend;
};

// The frame loop over `job`, and how the command ends: 0, or on a stop the line that says how to
// continue and 128 + the signal; a finished run with --view serves its last frame until Ctrl-C.
int run_frames(run::Job& job, RunSetup& r, const RunOptions& o, LiveView& view) {
  run::LoopOptions lo;
  lo.checkpoint_every = o.checkpoint_every;
  lo.checkpoint_path = checkpoint_path(r.out);
  lo.stop = [] {
    return StopSignals::received();
  };
  lo.writes = r.root;
  const run::Outcome end = run::run_frames(job, r.world, lo, view, r.progress);
  if (end.signal)
    return stopped(end.signal, end.last_frame, end.time, r.out, restart_command(o, r.out, r.world),
                   r.progress, r.root);
  view.linger();
  return 0;
}

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
    for (const auto& w : job.warnings) r.progress.log("warning: " + w);
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
    run::SweAdapter frames(job, solver, from.get(), r.out, r.root,
                           int(o.devices.size()) * r.world.size());
    return run_frames(frames, r, o, view);
  });
}

#ifdef SILT_WITH_MPM
// A run stopped by a signal before its first step: nothing ran, nothing to continue from.
int stopped_in_setup(int sig, const std::string& what, run::Progress& progress, bool root) {
  if (root) {
    progress.clear();
    fmt::print(stderr, "silt: {} by {}; nothing was run\n", what, StopSignals::name(sig));
  }
  std::fflush(stderr);
  return 128 + (sig ? sig : SIGTERM);
}

// The solver over this rank's parts; Stopped when SIGINT / SIGTERM stopped its set-up (a mesh
// collider's distance field can take minutes) at the library's next poll.
void make_mpm_solver(const io::MpmJob& job, RunSetup& r, std::optional<mpm::Solver>& made) {
  // A split run's warnings (a fixed dt above the CFL limit, a paused frame) and its rebalancing
  // lines arrive through the log, once (rank 0 prints).
  mpm::SolverOptions so;
  so.log = [&r](const std::string& m) {
    r.progress.log(m);
  };
  so.stop = [] {
    return StopSignals::received() != 0;
  };
  made.emplace(job.scene, r.execs, so, r.world);
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
  return run_on_ranks<mpm::PartFault>(r.world, r.out, [&] {
    for (const auto& w : job.warnings) r.progress.log("warning: " + w);
    if (r.root) run::write_resolved_scene(job, r.out, r.backend, o.overrides);
    std::optional<mpm::Solver> made;
    try {
      make_mpm_solver(job, r, made);
    } catch (const Stopped& e) {
      return stopped_in_setup(run::agreed_stop(r.world, StopSignals::received), e.what(),
                              r.progress, r.root);
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
    LiveView view(o.view, job.scene, r.world, r.progress);
    run::MpmAdapter frames(job, solver, from ? long(from->frame) + 1 : 0, r.out, r.root);
    if (o.hash) {
      // The state it starts from too: frame 0's sampling, or the checkpoint's frame (a restart
      // prints the hash its first run printed there).
      print_state_hash(solver, from ? long(from->frame) : 0, r.root);
      frames.on_frame = [&](const mpm::FrameStats&) {
        print_state_hash(solver, frames.last_frame(), r.root);
      };
    }
    const int rc = run_frames(frames, r, o, view);
    // Where the cuts went (rebalances, cut moves): a split's cost is in its shared blocks.
    if (r.split) r.progress.log("split at the end: " + solver.layout());
    return rc;
  });
}
#endif

}  // namespace

int cmd_run(const RunOptions& o) {
  const StopSignals signals;
  // A bad --checkpoint-every or --view fails before anything is written.
  const run::CheckpointPolicy checked(o.checkpoint_every);
  check_view_option(o.view);
  // The devices' contexts made while the scene is read (run/devices.hpp).
  const run::DeviceStart devices({o.backend, o.devices, true}, partition::World::get());
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

int cmd_validate(const std::string& path, const std::vector<std::string>& overrides,
                 const std::string& ensemble) {
  if (!ensemble.empty()) {
    run::EnsembleRequest q;
    q.scene = path;
    q.ensemble = ensemble;
    q.overrides = overrides;
    fmt::print("{}\n{}: ok\n", run::validate_ensemble(q), ensemble);
    return 0;
  }
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
