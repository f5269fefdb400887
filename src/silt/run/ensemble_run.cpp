#include "silt/run/ensemble_run.hpp"

#include <fmt/format.h>

#include <omp.h>

#include <chrono>
#include <filesystem>

#include "silt/core/error.hpp"
#include "silt/io/atomic_file.hpp"
#include "silt/io/swe/scene_file.hpp"
#include "silt/partition/world.hpp"
#include "silt/run/checkpoint_policy.hpp"
#include "silt/run/devices.hpp"
#include "silt/run/ensemble.hpp"
#include "silt/run/ensemble_checkpoint.hpp"
#include "silt/run/ensemble_ranks.hpp"
#include "silt/run/ensemble_report.hpp"
#include "silt/run/output_dir.hpp"
#include "silt/run/progress.hpp"
#if SILT_RUN_WITH_MPM
#include "silt/run/mpm_ensemble.hpp"
#include "silt/run/mpm_ensemble_report.hpp"
#endif

namespace silt::run {

namespace fs = std::filesystem;

namespace {

void write_resolved_ensemble(const io::Ensemble& e, const EnsembleScene& scene,
                             const std::string& backend, const std::string& out) {
  io::Json doc = e.resolved;
  io::Json members = io::Json::array();
  for (const io::EnsembleMember& m : e.members)
    members.push_back({{"name", m.name}, {"settings", m.settings}, {"set", m.overrides}});
  doc["provenance"] = {{"build", build_id()},
                       {"backend", backend},
                       {"scene", fs::absolute(scene.path).lexically_normal().string()},
                       {"set", scene.overrides},
                       {"members", members}};
  io::write_text_atomically((fs::path(out) / "resolved_ensemble.json").string(),
                            doc.dump(2) + "\n");
}

// The ensemble as this rank runs it: the ranks, the scene, the ensemble file, the options.
struct Prepared {
  const partition::World* world = nullptr;  // the ranks the members spread over
  EnsembleScene scene;
  io::Ensemble e;
  EnsembleOptions o;
};

// The scene, the ensemble, this rank's devices and the output folder's name: alike on every rank.
io::Ensemble load_request_ensemble(const EnsembleRequest& q, const EnsembleScene& scene) {
  return q.ensemble_text.empty()
             ? io::load_ensemble(q.ensemble, scene.tree, scene.source)
             : io::parse_ensemble(q.ensemble_text, q.ensemble, scene.tree, scene.source);
}

std::string describe_job(const io::SweJob& j) {
  return fmt::format("shallow water '{}', {} x {} cells of {} m", j.scene.name, j.scene.grid.nx,
                     j.scene.grid.ny, j.scene.grid.dx);
}

void prepare(Prepared& p, const EnsembleRequest& q) {
  p.scene = load_ensemble_scene(q.scene, q.overrides);
  p.e = load_request_ensemble(q, p.scene);
  if (q.at_once > 0) {
    p.e.at_once = q.at_once;
    p.e.resolved["run"]["members_at_once"] = q.at_once;
  }
  if (!q.batch.empty()) {
    if (q.batch != "on" && q.batch != "off")
      throw Error(fmt::format("--batch-members '{}': on or off", q.batch));
    p.e.batch = q.batch == "on" ? io::EnsembleBatch::on : io::EnsembleBatch::off;
    p.e.resolved["run"]["batch_members"] = q.batch == "on";
  }
  p.o.execs = choose_execs({q.backend, q.devices, true}, *p.world);
  if (!p.o.execs.front().is_cuda() && p.o.execs.size() > 1)
    throw Error(fmt::format(
        "--devices lists {} devices on the CPU backend: on the CPU members run on threads "
        "(run.parallel, run.members_at_once in '{}'); list GPUs with --backend cuda",
        p.o.execs.size(), q.ensemble));
  p.o.backend = describe_execs(p.o.execs, *p.world);
  p.o.out = !q.out.empty()       ? q.out
            : !q.restart.empty() ? fs::path(q.restart).parent_path().string()
            : !q.ensemble_text.empty()
                ? std::string("silt-out/ensemble")
                : (fs::path("silt-out") / fs::path(q.ensemble).stem()).string();
  p.o.checkpoint = ensemble_checkpoint_dir(p.o.out);
  p.o.restart = !q.restart.empty();
  CheckpointPolicy(q.checkpoint_every, q.checkpoint_option);  // a bad interval: before anything
  p.o.checkpoint_every = q.checkpoint_every;
  p.o.checkpoint_option = q.checkpoint_option;
  p.o.stop = q.stop;
  p.o.rank = p.world->rank();
  p.o.ranks = p.world->size();
}

// Rank 0 claims the output folder and the checkpoint: a fresh run claims the folder (with
// overwrite: an earlier run's checkpoint goes too) and starts the checkpoint; a restart checks
// that the checkpoint is this ensemble's.
void claim_out(const Prepared& p, const EnsembleRequest& q) {
  const std::string key = ensemble_key(p.scene, p.e);
  if (p.o.restart) {
    std::error_code ec;
    if (fs::weakly_canonical(q.restart, ec) != fs::weakly_canonical(p.o.checkpoint, ec))
      throw Error(fmt::format(
          "--restart '{}': an ensemble continues in the folder of its checkpoint ('{}'), not "
          "in --out '{}'",
          q.restart, fs::path(q.restart).parent_path().string(), p.o.out));
    claim_ensemble_dir(p.o.out, OutputMode::restart);
    check_ensemble_checkpoint(p.o.checkpoint, key);
    remove_stale_checkpoint_temporaries(p.o.checkpoint);  // a killed run's, half written
    std::error_code gone;
    fs::remove(failed_mark(p.o.checkpoint), gone);  // of the run that stopped
    return;
  }
  if (q.overwrite) remove_ensemble_checkpoint(p.o.checkpoint);
  claim_ensemble_dir(p.o.out, q.overwrite ? OutputMode::overwrite : OutputMode::fresh);
  io::prepare_output_dir(p.o.out);
  start_ensemble_checkpoint(p.o.checkpoint, key);
}

// The other ranks write their members' files and checkpoints into the folder rank 0 claimed:
// each must see it.
void check_shared_out(const Prepared& p) {
  std::error_code ec;
  const fs::path key = fs::path(p.o.checkpoint) / "key.json";
  if (fs::is_regular_file(key, ec)) return;
  throw Error(fmt::format(
      "this rank does not see the output folder '{}' that rank 0 claimed (no '{}'): the ranks "
      "of an ensemble write their members' files into one folder, so --out must be on a file "
      "system that every rank sees",
      p.o.out, key.string()));
}

// The output folder, the checkpoint and resolved_ensemble.json (rank 0), then every rank sees
// them.
void open_out(Prepared& p, const EnsembleRequest& q) {
  const partition::World& w = *p.world;
  on_every_rank(w, [&] {
    if (!w.is_root()) return;
    claim_out(p, q);
    write_resolved_ensemble(p.e, p.scene, p.o.backend, p.o.out);
  });
  on_every_rank(w, [&] {
    if (!w.is_root()) check_shared_out(p);
  });
}

// "3 members at once, one thread each", "up to 16 members at once on 2 listed GPUs, 4 more built
// ahead", "one member after another", after "member m on rank m mod 2, on each: " under MPI: the
// log's words for the pool (the GPUs' memory may lower it).
std::string how_members_run(const Prepared& p) {
  const std::string ranks =
      p.o.ranks > 1 ? fmt::format("over {} MPI ranks (member m on rank m mod {}), on each ",
                                  p.o.ranks, p.o.ranks)
                    : std::string();
  const MemberPlan plan = member_plan(p.e, p.o);
  const std::size_t k = plan.device.size();
  if (k <= 1) return ranks + "one member after another";
  if (!p.o.execs.front().is_cuda())
    return ranks + fmt::format("{} members at once, one thread each", k);
  const std::string ahead =
      plan.ahead.empty() ? std::string() : fmt::format(", {} more built ahead", plan.ahead.size());
  return ranks + fmt::format("up to {} members at once on {} listed GPU{}{}", k, p.o.execs.size(),
                             p.o.execs.size() > 1 ? "s" : "", ahead);
}

// This rank's members, then the meeting: the stop agreed (the largest signal) and the finished
// members' results gathered on rank 0 in member order (the report's input, as one process has
// it).
template <class Result, class RunMembers>
void run_share(const Prepared& p, Progress& progress, EnsembleOutcome& r,
               std::vector<Result>& results, RunMembers run) {
  const partition::World& w = *p.world;
  results.assign(p.e.members.size(), Result{});
  EnsembleOptions o = p.o;
  int signal = 0;
  on_every_rank(w, [&] {
    signal = run_members_on_ranks(w, o.checkpoint, o.stop,
                                  [&] { return run(p.scene, p.e, o, progress, results); });
  });
  r.signal = agree_on_signal(w, signal);
  r.done = gather_members(
      w, results.size(), [&](std::size_t m) { return results[m].done; },
      [&](std::size_t m) { return result_bytes(results[m]).bytes(); },
      [&](std::size_t m, std::string bytes) {
        MemberBytes b(std::move(bytes));
        read_result(b, results[m]);
      });
}

// The wall seconds of an ensemble's phases (logged: bench/ensemble_swe_gpu.sh splits the
// process's wall with them).
struct PhaseTimes {
  std::chrono::steady_clock::time_point at = std::chrono::steady_clock::now();
  double checked = 0, opened = 0, members = 0, report = 0;
  // Seconds since the last lap.
  double lap() {
    const auto now = std::chrono::steady_clock::now();
    const double s = std::chrono::duration<double>(now - at).count();
    at = now;
    return s;
  }
};

// An ensemble of either solver over the ranks: every member checked (`check`, alike on every
// rank, before anything runs; it returns the first member's job), the output folder opened, this
// rank's members run, their results gathered and the report written by rank 0 (`report`); each
// phase ends at a meeting of the ranks, so an error anywhere reaches every rank.
template <class Job, class Result, class Check, class Describe, class RunMembers, class Report>
void run_over_ranks(Prepared& p, const EnsembleRequest& q, Progress& progress, EnsembleOutcome& r,
                    Check check, Describe describe, RunMembers run, Report report) {
  Job first;
  const std::size_t in_flight = member_plan(p.e, p.o).device.size();
  PhaseTimes t;
  on_every_rank(*p.world, [&] {
    first = check(p.scene, p.e, in_flight);
    // An interval too short for the run, as a solo run refuses it (each member checks its own).
    CheckpointPolicy(p.o.checkpoint_every, p.o.checkpoint_option)
        .check_run(0.0, first.run.end_time);
  });
  t.checked = t.lap();
  open_out(p, q);
  const bool root = p.world->is_root();
  if (root) {
    progress.log(fmt::format("silt run: ensemble '{}' of {} members of {}, {}, on {}", p.e.path,
                             p.e.members.size(), describe(first), how_members_run(p), p.o.backend));
    for (const std::string& w : first.warnings) progress.log("warning: " + w);
  }
  std::vector<Result> results;
  t.opened = t.lap();
  run_share(p, progress, r, results, run);
  t.members = t.lap();
  on_every_rank(*p.world, [&] {
    if (root) report(first, results);
  });
  t.report = t.lap();
  if (root)
    progress.log(fmt::format(
        "ensemble phases: members checked {:.2f} s, output folder {:.2f} s, members {:.2f} s, "
        "report {:.2f} s",
        t.checked, t.opened, t.members, t.report));
}

void run_swe(Prepared& p, const EnsembleRequest& q, Progress& progress, EnsembleOutcome& r) {
  const auto describe = [](const io::SweJob& j) {
    return describe_job(j);
  };
  const auto report = [&](const io::SweJob& first, const std::vector<MemberResult>& results) {
    if (r.signal) return write_members_csv(p.e, results, p.o.out);
    r.files = write_ensemble_report(first, p.e, results, p.o.out);
    remove_ensemble_checkpoint(p.o.checkpoint);
    progress.log(fmt::format("ensemble: {} files of statistics in '{}'", r.files.size(), p.o.out));
  };
  run_over_ranks<io::SweJob, MemberResult>(p, q, progress, r, check_members, describe, run_members,
                                           report);
}

#if SILT_RUN_WITH_MPM
std::string describe_job(const io::MpmJob& j) {
  return fmt::format("MPM '{}', dx = {} m", j.scene.name, j.scene.dx);
}

void run_mpm(Prepared& p, const EnsembleRequest& q, Progress& progress, EnsembleOutcome& r) {
  const auto describe = [](const io::MpmJob& j) {
    return describe_job(j);
  };
  const auto report = [&](const io::MpmJob&, const std::vector<MpmMemberResult>& results) {
    r.files = write_mpm_ensemble_report(p.e, results, p.o.out, r.signal == 0);
    if (r.signal) return;
    remove_ensemble_checkpoint(p.o.checkpoint);
    progress.log(fmt::format("ensemble: {} files of measures in '{}'", r.files.size(), p.o.out));
  };
  run_over_ranks<io::MpmJob, MpmMemberResult>(p, q, progress, r, check_mpm_members, describe,
                                              run_mpm_members, report);
}
#endif

}  // namespace

std::string validate_ensemble(const EnsembleRequest& q) {
  const EnsembleScene scene = load_ensemble_scene(q.scene, q.overrides);
  const io::Ensemble e = load_request_ensemble(q, scene);
  // At least as many members at once as a run on the CPU would have in flight.
  const std::size_t in_flight =
      plan_members(e.members.size(), e.at_once, e.parallel == io::EnsembleParallel::members, false,
                   1, omp_get_max_threads())
          .device.size();
  std::string first, warnings;
  const auto lines = [&warnings](const std::vector<std::string>& w) {
    for (const std::string& line : w) warnings += "\nwarning: " + line;
  };
  if (!e.mpm) {
    const io::SweJob job = check_members(scene, e, in_flight);
    first = describe_job(job);
    lines(job.warnings);
  } else {
#if SILT_RUN_WITH_MPM
    const io::MpmJob job = check_mpm_members(scene, e, in_flight);
    first = describe_job(job);
    lines(job.warnings);
#else
    throw Error(fmt::format("{}: an MPM scene, and this build of silt has no MPM solver", q.scene));
#endif
  }
  return fmt::format("ensemble '{}' of {} members of {}: every member checked{}", e.path,
                     e.members.size(), first, warnings);
}

EnsembleOutcome run_ensemble(const EnsembleRequest& q) {
  Prepared p;
  p.world = q.world ? q.world : &partition::World::self();
  on_every_rank(*p.world, [&] { prepare(p, q); });
  EnsembleOutcome r;
  r.out = p.o.out;
  r.checkpoint = p.o.checkpoint;
  r.members = p.e.members.size();
  Progress progress(1.0, q.quiet);
  if (!p.e.mpm) {
    run_swe(p, q, progress, r);
    return r;
  }
#if SILT_RUN_WITH_MPM
  run_mpm(p, q, progress, r);
  return r;
#else
  throw Error(fmt::format("{}: an MPM scene, and this build of silt has no MPM solver", q.scene));
#endif
}

}  // namespace silt::run
