#include "silt/run/mpm_ensemble.hpp"

#include <fmt/format.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>

#include "silt/core/error.hpp"
#include "silt/core/stop_check.hpp"
#include "silt/io/mpm/checkpoint.hpp"
#include "silt/mpm/solver.hpp"
#include "silt/partition/world.hpp"
#include "silt/run/checkpoint_policy.hpp"
#include "silt/run/devices.hpp"
#include "silt/run/ensemble_checkpoint.hpp"
#include "silt/run/frame_loop.hpp"
#include "silt/run/hooks.hpp"
#include "silt/run/member_checks.hpp"
#include "silt/run/member_turns.hpp"
#include "silt/run/mpm_adapter.hpp"
#include "silt/run/mpm_member_partial.hpp"
#include "silt/run/output_dir.hpp"

namespace silt::run {

namespace fs = std::filesystem;

namespace {

// The rest speed of the time at rest: the ensemble's, else the member's run.rest_speed, else
// 0.01 m/s.
double rest_speed_of(const io::Ensemble& e, const io::MpmJob& job) {
  if (e.measures.rest_speed > 0) return e.measures.rest_speed;
  return job.run.rest_speed > 0 ? job.run.rest_speed : 0.01;
}

// A member's solver checkpoint and the partial beside it (mpm_member_partial.hpp), when a
// restart finds them (null: the member runs from its start).
std::unique_ptr<mpm::RestartState> restore_member(const io::MpmJob& job, const io::Ensemble& e,
                                                  std::size_t m, const EnsembleOptions& o,
                                                  MemberPartial& p) {
  const std::string ckpt = member_solver_checkpoint(o.checkpoint, m);
  std::error_code ec;
  if (!o.restart || ckpt.empty() || !fs::is_regular_file(ckpt, ec)) return nullptr;
  auto from = std::make_unique<mpm::RestartState>(io::load_mpm_checkpoint(ckpt, job));
  if (!load_member_partial(o.checkpoint, m, e.members[m].name, from->frame, p))
    throw Error(fmt::format(
        "--restart: '{}' has no '{}' beside it (what the member gathered before its checkpoint, "
        "written before it); start the ensemble afresh with --overwrite",
        ckpt, member_file(o.checkpoint, m, "partial")));
  return from;
}

// The frame loop's options for a member: its checkpoint at the interval and on a stop, each after
// the partial it needs (mpm_member_partial.hpp), none at its end (its result is saved instead).
LoopOptions member_loop(const EnsembleOptions& o, const std::string& ckpt,
                        const std::function<int()>& stop, std::function<void()> save_partial) {
  LoopOptions lo;
  lo.stop = stop;
  lo.checkpoint_every = o.checkpoint_every;
  lo.checkpoint_option = o.checkpoint_option;
  lo.checkpoint_path = ckpt;
  lo.checkpoint_at_end = false;
  lo.before_checkpoint = std::move(save_partial);
  return lo;
}

// One member through the frame loop as `silt run` runs it alone: the same solver, adapter and
// files in `dir` ("": none); with a restart, from the member's own checkpoint when a stop or
// the checkpoint interval left one. Returns the signal that stopped it (0: none).
int run_member(const io::MpmJob& job, const EnsembleScene& scene, const io::Ensemble& e,
               std::size_t m, const EnsembleOptions& o, const MemberSlot& slot,
               MpmMemberResult& r) {
  const auto t0 = std::chrono::steady_clock::now();
  CheckpointPolicy(o.checkpoint_every, o.checkpoint_option).check_run(0.0, job.run.end_time);
  const std::string ckpt = member_solver_checkpoint(o.checkpoint, m);
  MemberPartial p;
  const std::unique_ptr<mpm::RestartState> from = restore_member(job, e, m, o, p);
  std::string dir;
  if (e.outputs.members) {
    dir = (fs::path(o.out) / "members" / e.members[m].name).string();
    // What a stopped or killed run left: continued from the checkpoint, or cleared.
    claim_output_dir(dir, from ? OutputMode::restart : OutputMode::overwrite);
    write_resolved_scene(job, dir, describe_execs({slot.exec}, partition::World::self()),
                         member_overrides(scene, e, m, nullptr));
  }
  mpm::SolverOptions so;
  so.log = [](const std::string&) {
  };  // a member's warnings: its solo run shows them
  const std::function<int()>& stop = slot.stop;
  so.stop = [&stop] {
    return stop() != 0;
  };
  std::optional<mpm::Solver> solver;
  try {
    solver.emplace(job.scene, std::vector<Exec>{slot.exec}, so);
  } catch (const Stopped&) {
    const int sig = stop();
    return sig ? sig : 15;
  }
  const std::array<double, 3>& d = e.measures.direction;
  if (from)
    solver->restore(*from);
  else
    p.start = extent_of(solver->particles(), d, job.scene);
  r.times.setup = seconds_since(t0);
  r.times.recordings = 0;
  if (slot.built) slot.built();
  MpmAdapter frames(job, *solver, from ? long(from->frame) + 1 : 0, dir, true);
  frames.on_frame = [&p, &r](const mpm::FrameStats& s) {
    p.add(s);
    r.times.stepping += s.ms_per_step * double(s.steps) / 1e3;
    r.times.recordings += s.host.recordings;
  };
  Progress quiet(job.run.end_time, true);
  Hooks hooks;
  const LoopOptions lo = member_loop(
      o, ckpt, stop, [&] { save_member_partial(o.checkpoint, m, e.members[m].name, p); });
  Outcome end;
  {
    const auto t1 = std::chrono::steady_clock::now();
    const StepTurn turn(slot.turns, slot.exec.device);  // built ahead: waits for a turn
    r.times.waiting = seconds_since(t1);
    end = run_frames(frames, partition::World::self(), lo, hooks, quiet);
  }
  if (end.signal) return end.signal;
  r.energy = std::move(p.energy);
  r.rest_speed = rest_speed_of(e, job);
  r.measures =
      measures_of(p.start, extent_of(solver->particles(), d, job.scene), r.energy, r.rest_speed);
  r.done = true;
  r.time = solver->time();
  r.steps = p.steps_done();
  r.particles = solver->particle_count();
  r.wall_s = seconds_since(t0);
  return 0;
}

void save(const std::string& dir, std::size_t m, const std::string& name,
          const MpmMemberResult& r) {
  save_member_bytes(dir, m, name, "mpm", result_bytes(r));
}

bool load(const std::string& dir, std::size_t m, const std::string& name, MpmMemberResult& r) {
  MemberBytes b;
  if (!load_member_bytes(dir, m, name, "mpm", b)) return false;
  try {
    read_result(b, r);
  } catch (const Error& e) {
    throw Error(fmt::format("--restart: member {} '{}' in '{}': {}", m, name, dir, e.what()));
  }
  r.restored = true;
  return true;
}

}  // namespace

MemberBytes result_bytes(const MpmMemberResult& r) {
  MemberBytes b;
  b.put(r.time);
  b.put(r.wall_s);
  b.put(std::int64_t(r.steps));
  b.put(std::int64_t(r.particles));
  b.put(r.rest_speed);
  b.put(r.measures);
  b.put(r.energy.time);
  b.put(r.energy.kinetic_energy);
  b.put(r.energy.rms_speed);
  return b;
}

void read_result(MemberBytes& b, MpmMemberResult& r) {
  r.time = b.number();
  r.wall_s = b.number();
  r.steps = b.integer();
  r.particles = b.integer();
  r.rest_speed = b.number();
  r.measures = b.numbers();
  r.energy.time = b.numbers();
  r.energy.kinetic_energy = b.numbers();
  r.energy.rms_speed = b.numbers();
  if (!b.at_end() || r.measures.size() != measure_names().size())
    throw Error("not the result this build writes");
  r.done = true;
}

io::MpmJob mpm_member_job(const EnsembleScene& scene, const io::Ensemble& e, std::size_t m) {
  // As io::load_mpm_job(scene.path, overrides, labels) reads it, from the file parsed once.
  io::SceneSource src = scene.source;
  src.overrides = member_overrides(scene, e, m, &src.override_labels);
  return as_member(e, m, [&] { return io::read_mpm_job(scene.parsed, src); });
}

io::MpmJob check_mpm_members(const EnsembleScene& scene, const io::Ensemble& e,
                             std::size_t in_flight) {
  const std::size_t n = e.members.size();
  const std::size_t workers = check_workers(in_flight, n);
  io::MpmJob first;
  std::vector<std::vector<std::string>> warnings(n);
  const std::vector<std::exception_ptr> errors = check_each_member(n, workers, [&](std::size_t m) {
    io::MpmJob job = mpm_member_job(scene, e, m);
    warnings[m] = std::move(job.warnings);
    if (m == 0) first = std::move(job);
  });
  for (const std::exception_ptr& error : errors)
    if (error) std::rethrow_exception(error);
  first.warnings = member_warnings(e, warnings);
  return first;
}

int run_mpm_members(const EnsembleScene& scene, const io::Ensemble& e, const EnsembleOptions& o,
                    Progress& progress, std::vector<MpmMemberResult>& results) {
  results.assign(e.members.size(), MpmMemberResult{});
  const MemberRun one = [&](std::size_t m, const MemberSlot& slot) {
    const std::string& name = e.members[m].name;
    if (o.restart && load(o.checkpoint, m, name, results[m])) return 0;
    const auto t0 = std::chrono::steady_clock::now();
    const io::MpmJob job = mpm_member_job(scene, e, m);  // its errors name the member
    MpmMemberResult& r = results[m];
    r.times.job = seconds_since(t0);
    const auto t1 = std::chrono::steady_clock::now();
    const int sig = as_member(e, m, [&] { return run_member(job, scene, e, m, o, slot, r); });
    r.times.end = seconds_since(t1) - r.wall_s;
    return sig;
  };
  // A finished member's result into the checkpoint, beside the members (not one read back).
  const auto saved = [&](std::size_t m) {
    if (results[m].restored) return;
    as_member(e, m, [&] { save(o.checkpoint, m, e.members[m].name, results[m]); });
    drop_member_checkpoint(o.checkpoint, m);
  };
  const auto line = [&](std::size_t m) {
    const MpmMemberResult& r = results[m];
    if (r.restored)
      return fmt::format(
          "t = {:.4g} s, {} steps, {} particles, runout {:.4g} m, {:.2f} s (from the "
          "checkpoint)",
          r.time, r.steps, r.particles, r.measures[2], r.wall_s);
    return fmt::format("t = {:.4g} s, {} steps, {} particles, runout {:.4g} m, {}", r.time, r.steps,
                       r.particles, r.measures[2], member_times_text(r.wall_s, r.times));
  };
  return for_each_member(e, o, progress, one, line,
                         o.checkpoint.empty() ? std::function<void(std::size_t)>() : saved);
}

}  // namespace silt::run
