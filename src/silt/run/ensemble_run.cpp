#include "silt/run/ensemble_run.hpp"

#include <fmt/format.h>

#include <filesystem>

#include "silt/core/error.hpp"
#include "silt/io/atomic_file.hpp"
#include "silt/io/swe/scene_file.hpp"
#include "silt/partition/world.hpp"
#include "silt/run/devices.hpp"
#include "silt/run/ensemble.hpp"
#include "silt/run/ensemble_checkpoint.hpp"
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

template <class Result>
std::size_t count_done(const std::vector<Result>& results) {
  std::size_t done = 0;
  for (const Result& r : results) done += r.done;
  return done;
}

// What runs differ in by solver: the check of every member, the log line, the members' run and
// the report.
struct Prepared {
  EnsembleScene scene;
  io::Ensemble e;
  EnsembleOptions o;
};

// The output folder and the checkpoint: a fresh run claims the folder (with overwrite: an earlier
// run's checkpoint goes too) and starts the checkpoint; a restart checks that the checkpoint is
// this ensemble's.
void open_out(Prepared& p, const EnsembleRequest& q) {
  const std::string key = ensemble_key(p.scene, p.e);
  p.o.checkpoint = ensemble_checkpoint_dir(p.o.out);
  if (!q.restart.empty()) {
    std::error_code ec;
    if (fs::weakly_canonical(q.restart, ec) != fs::weakly_canonical(p.o.checkpoint, ec))
      throw Error(fmt::format(
          "--restart '{}': an ensemble continues in the folder of its checkpoint ('{}'), not "
          "in --out '{}'",
          q.restart, fs::path(q.restart).parent_path().string(), p.o.out));
    claim_ensemble_dir(p.o.out, OutputMode::restart);
    check_ensemble_checkpoint(p.o.checkpoint, key);
    p.o.restart = true;
    return;
  }
  if (q.overwrite) remove_ensemble_checkpoint(p.o.checkpoint);
  claim_ensemble_dir(p.o.out, q.overwrite ? OutputMode::overwrite : OutputMode::fresh);
  io::prepare_output_dir(p.o.out);
  start_ensemble_checkpoint(p.o.checkpoint, key);
}

// "3 members at once, one thread each", "up to 16 members at once on 2 listed GPUs", "one
// member after another": the log's words for the pool (the GPUs' memory may lower it).
std::string how_members_run(const Prepared& p) {
  const std::size_t k = member_plan(p.e, p.o).device.size();
  if (k <= 1) return "one member after another";
  if (!p.o.execs.front().is_cuda()) return fmt::format("{} members at once, one thread each", k);
  return fmt::format("up to {} members at once on {} listed GPU{}", k, p.o.execs.size(),
                     p.o.execs.size() > 1 ? "s" : "");
}

void run_swe(Prepared& p, const EnsembleRequest& q, Progress& progress, EnsembleOutcome& r) {
  const io::SweJob first = check_members(p.scene, p.e);  // every member, before anything runs
  open_out(p, q);
  progress.log(fmt::format(
      "silt run: ensemble '{}' of {} members of shallow water '{}', {} x {} cells of {} m, {}, on "
      "{}",
      p.e.path, p.e.members.size(), first.scene.name, first.scene.grid.nx, first.scene.grid.ny,
      first.scene.grid.dx, how_members_run(p), p.o.backend));
  write_resolved_ensemble(p.e, p.scene, p.o.backend, p.o.out);
  std::vector<MemberResult> results;
  r.signal = run_members(p.scene, p.e, p.o, progress, results);
  r.done = count_done(results);
  if (r.signal) {
    write_members_csv(p.e, results, p.o.out);
    return;
  }
  r.files = write_ensemble_report(first, p.e, results, p.o.out);
  remove_ensemble_checkpoint(p.o.checkpoint);
  progress.log(fmt::format("ensemble: {} files of statistics in '{}'", r.files.size(), p.o.out));
}

#if SILT_RUN_WITH_MPM
void run_mpm(Prepared& p, const EnsembleRequest& q, Progress& progress, EnsembleOutcome& r) {
  const io::MpmJob first = check_mpm_members(p.scene, p.e);
  open_out(p, q);
  progress.log(fmt::format(
      "silt run: ensemble '{}' of {} members of MPM '{}', dx = {} m, {}, on {}", p.e.path,
      p.e.members.size(), first.scene.name, first.scene.dx, how_members_run(p), p.o.backend));
  write_resolved_ensemble(p.e, p.scene, p.o.backend, p.o.out);
  std::vector<MpmMemberResult> results;
  r.signal = run_mpm_members(p.scene, p.e, p.o, progress, results);
  r.done = count_done(results);
  r.files = write_mpm_ensemble_report(p.e, results, p.o.out, r.signal == 0);
  if (r.signal) return;
  remove_ensemble_checkpoint(p.o.checkpoint);
  progress.log(fmt::format("ensemble: {} files of measures in '{}'", r.files.size(), p.o.out));
}
#endif

}  // namespace

EnsembleOutcome run_ensemble(const EnsembleRequest& q) {
  const partition::World& world = partition::World::self();
  Prepared p{load_ensemble_scene(q.scene, q.overrides), {}, {}};
  p.e = q.ensemble_text.empty()
            ? io::load_ensemble(q.ensemble, p.scene.tree, p.scene.source)
            : io::parse_ensemble(q.ensemble_text, q.ensemble, p.scene.tree, p.scene.source);
  if (q.at_once > 0) {
    p.e.at_once = q.at_once;
    p.e.resolved["run"]["members_at_once"] = q.at_once;
  }
  p.o.execs = choose_execs({q.backend, q.devices, true}, world);
  if (!p.o.execs.front().is_cuda() && p.o.execs.size() > 1)
    throw Error(fmt::format(
        "--devices lists {} devices on the CPU backend: on the CPU members run on threads "
        "(run.parallel, run.members_at_once in '{}'); list GPUs with --backend cuda",
        p.o.execs.size(), q.ensemble));
  p.o.backend = describe_execs(p.o.execs, world);
  p.o.out = !q.out.empty()       ? q.out
            : !q.restart.empty() ? fs::path(q.restart).parent_path().string()
            : !q.ensemble_text.empty()
                ? std::string("silt-out/ensemble")
                : (fs::path("silt-out") / fs::path(q.ensemble).stem()).string();
  p.o.stop = q.stop;
  EnsembleOutcome r;
  r.out = p.o.out;
  r.checkpoint = ensemble_checkpoint_dir(p.o.out);
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
