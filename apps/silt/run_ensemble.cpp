// `silt run scene.json --ensemble ensemble.json` (docs/ensembles.md): every member of a
// shallow-water ensemble validated before anything runs, run through the run layer's frame loop
// (silt/run/ensemble.hpp), and the ensemble's statistics written from their maxima
// (silt/run/ensemble_report.hpp). What is here is the command line's own: the options an
// ensemble refuses, the output folder, the log lines and the stop.
#include <fmt/format.h>

#include <cstdio>
#include <filesystem>

#include "commands.hpp"
#include "silt/core/error.hpp"
#include "silt/io/atomic_file.hpp"
#include "silt/io/swe_scene.hpp"
#include "silt/partition/world.hpp"
#include "silt/run/devices.hpp"
#include "silt/run/ensemble.hpp"
#include "silt/run/ensemble_report.hpp"
#include "silt/run/output_dir.hpp"
#include "silt/run/progress.hpp"
#include "stop_signal.hpp"

namespace silt::app {

namespace fs = std::filesystem;

namespace {

// What a run of one scene offers and an ensemble does not (yet): refused before anything runs.
void check_ensemble_options(const RunOptions& o, const partition::World& world) {
  const auto refuse = [](const char* what) {
    throw Error(fmt::format("--ensemble: {} (docs/ensembles.md, \"Not done yet\")", what));
  };
  if (o.scene_path.empty()) refuse("give the scene file the members vary");
  if (!o.restart.empty() || !o.checkpoint_every.empty())
    refuse("an ensemble has no checkpoints yet (--restart, --checkpoint-every)");
  if (!o.view.empty()) refuse("the live viewer watches one run (--view)");
  if (o.devices.size() != 1) refuse("members run on one device (--devices lists one)");
  if (world.distributed()) refuse("members are not spread over MPI ranks yet (run one process)");
  if (io::scene_solver(o.scene_path) != "swe")
    refuse("ensembles vary shallow-water scenes (\"solver\": \"swe\"); MPM sweeps are not done");
}

void write_resolved_ensemble(const io::Ensemble& e, const run::EnsembleScene& scene,
                             const std::string& backend, const std::string& out) {
  io::Json doc = e.resolved;
  io::Json members = io::Json::array();
  for (const io::EnsembleMember& m : e.members)
    members.push_back({{"name", m.name}, {"settings", m.settings}, {"set", m.overrides}});
  doc["provenance"] = {{"build", run::build_id()},
                       {"backend", backend},
                       {"scene", fs::absolute(scene.path).lexically_normal().string()},
                       {"set", scene.overrides},
                       {"members", members}};
  io::write_text_atomically((fs::path(out) / "resolved_ensemble.json").string(),
                            doc.dump(2) + "\n");
}

}  // namespace

int cmd_run_ensemble(const RunOptions& o) {
  const StopSignals signals;
  const partition::World& world = partition::World::get();
  check_ensemble_options(o, world);
  const run::EnsembleScene scene = run::load_ensemble_scene(o.scene_path, o.overrides);
  const io::Ensemble e = io::load_ensemble(o.ensemble, scene.tree, scene.source);
  const io::SweJob first = run::check_members(scene, e);  // every member, before anything runs

  run::EnsembleOptions eo;
  eo.exec = run::choose_execs({o.backend, o.devices, false}, world).front();
  eo.backend = run::describe_execs({eo.exec}, world);
  eo.out =
      o.out_dir.empty() ? (fs::path("silt-out") / fs::path(o.ensemble).stem()).string() : o.out_dir;
  eo.stop = [] {
    return StopSignals::received();
  };
  run::claim_ensemble_dir(eo.out,
                          o.overwrite ? run::OutputMode::overwrite : run::OutputMode::fresh);
  io::prepare_output_dir(eo.out);
  run::Progress progress(1.0, o.quiet);
  const bool at_once = e.parallel == io::EnsembleParallel::members && !eo.exec.is_cuda();
  progress.log(fmt::format(
      "silt run: ensemble '{}' of {} members of shallow water '{}', {} x {} cells of {} m, {}, on "
      "{}",
      o.ensemble, e.members.size(), first.scene.name, first.scene.grid.nx, first.scene.grid.ny,
      first.scene.grid.dx,
      at_once ? "several members at once, one thread each" : "one member after another",
      eo.backend));
  write_resolved_ensemble(e, scene, eo.backend, eo.out);
  std::vector<run::MemberResult> results;
  if (const int sig = run::run_members(scene, e, eo, progress, results)) {
    run::write_members_csv(e, results, eo.out);
    std::size_t done = 0;
    for (const run::MemberResult& r : results) done += r.done;
    fmt::print(stderr,
               "silt: stopped by {} after {} of {} members; no statistics were written (an "
               "ensemble has no checkpoints yet: run it again with --overwrite)\n",
               StopSignals::name(sig), done, e.members.size());
    std::fflush(stderr);
    return 128 + sig;
  }
  const std::vector<std::string> files = run::write_ensemble_report(first, e, results, eo.out);
  progress.log(fmt::format("ensemble: {} files of statistics in '{}'", files.size(), eo.out));
  fmt::print("{}\n", fs::absolute(eo.out).lexically_normal().string());
  return 0;
}

}  // namespace silt::app
