// silt: fast GPU simulation of shallow water with pollutants, and MPM.
//   silt run [scene.json] [--backend cpu|cuda|auto] [--devices 0] [--out DIR] [--set k=v]...
//            [--checkpoint-every 10min|sim:2.5] [--restart DIR/checkpoint.silt] [--overwrite]
//            [--deterministic] [--hash] [--ensemble ensemble.json [--members-at-once K]
//            [--batch-members on|off]]
//   silt validate scene.json [--set k=v]... [--ensemble ens.json]
//   silt view DIR [--view [HOST:]PORT]
//   silt info
//   silt bench swe|mpm [--backend ...] [--devices 0,1] [--sizes ...] [--precision ...]
#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <exception>
#include <string>
#include <utility>

#include "commands.hpp"
#include "silt/core/error.hpp"
#include "silt/run/devices.hpp"

namespace {

using namespace silt::app;

// `silt run`'s options into `run`.
CLI::App* add_run_command(CLI::App& app, RunOptions& run) {
  CLI::App* run_cmd = app.add_subcommand("run", "Run a scene (no scene: the embedded dam break)");
  run_cmd->add_option("scene", run.scene_path, "Scene file (JSON, comments allowed)");
  run_cmd->add_option("--backend", run.backend, "cpu, cuda or auto (GPU when present)")
      ->check(CLI::IsMember({"cpu", "cuda", "auto"}));
  run_cmd->add_option("--devices", run.devices, "CUDA device ordinals, e.g. 0 or 0,1")
      ->delimiter(',');
  run_cmd->add_option("--out", run.out_dir, "Output directory (default silt-out/<scene name>)");
  run_cmd->add_option("--set", run.overrides, "Override a scene value: path=value (repeatable)");
  run_cmd->add_flag("--quiet,-q", run.quiet, "No progress output");
  run_cmd
      ->add_option(
          "--halo", run.halo,
          "Split runs: halo layers, exchanged every that many steps (default 4 on GPUs, 1 on "
          "CPU partitions)")
      ->check(CLI::PositiveNumber);
  run_cmd->add_option("--view", run.view,
                      "Watch the run in a browser: serve the live viewer on [HOST:]PORT (host "
                      "127.0.0.1 unless given; docs/viewer.md)");
  run_cmd->add_option("--checkpoint-every", run.checkpoint_every,
                      "Checkpoint interval: wall clock (600s, 10min, 2h) or simulated time "
                      "(sim:2.5); also at the end and on SIGINT/SIGTERM (docs/checkpoints.md); "
                      "with --ensemble: each running member's, in OUT/ensemble_checkpoint "
                      "(docs/ensembles.md)");
  run_cmd->add_option("--restart", run.restart,
                      "Continue the run from this checkpoint, appending to its outputs");
  run_cmd->add_flag("--overwrite", run.overwrite,
                    "Replace the files of an earlier run in a non-empty --out folder");
  run_cmd->add_flag("--deterministic", run.deterministic,
                    "MPM: the same bits run after run (performance.deterministic=true)");
  run_cmd->add_option(
      "--ensemble", run.ensemble,
      "Run the members of this ensemble file (shallow water or MPM; docs/ensembles.md)");
  run_cmd
      ->add_option("--members-at-once", run.members_at_once,
                   "With --ensemble: members in flight at once (the ensemble file's "
                   "run.members_at_once; on CUDA spread over --devices)")
      ->check(CLI::Range(1, 4096));
  run_cmd
      ->add_option("--batch-members", run.batch_members,
                   "With --ensemble: shallow-water members in flight on one GPU step together, "
                   "one launch for all (on; off, the default: each alone; the ensemble file's "
                   "run.batch_members; on the CPU only for tests)")
      ->check(CLI::IsMember({"on", "off"}));
  run_cmd->add_flag(
      "--hash", run.hash,
      "MPM: print a hash of every particle attribute at the start and after each frame");
  return run_cmd;
}

// `silt bench`'s options into `bench`.
CLI::App* add_bench_command(CLI::App& app, BenchOptions& bench) {
  CLI::App* bench_cmd = app.add_subcommand("bench", "Benchmarks (print numbers; never assert)");
  bench_cmd->add_option("what", bench.what, "swe or mpm")
      ->required()
      ->check(CLI::IsMember({"swe", "mpm"}));
  bench_cmd->add_option("--backend", bench.backend, "cpu, cuda or auto")
      ->check(CLI::IsMember({"cpu", "cuda", "auto"}));
  bench_cmd->add_option("--sizes", bench.sizes, "Problem sizes, e.g. 1M,16M,64M")->delimiter(',');
  bench_cmd->add_option("--precision", bench.precisions, "float32,float64")->delimiter(',');
  bench_cmd->add_option("--steps", bench.steps, "Timed steps per case");
  bench_cmd
      ->add_option("--devices", bench.devices,
                   "CUDA device ordinals; several: swe split over them (scaling)")
      ->delimiter(',');
  bench_cmd->add_option("--csv", bench.csv, "Also write the results as CSV to this file");
  bench_cmd->add_flag("--plain", bench.plain,
                      "swe: time the plain parallel_for phases instead of the fused tile kernel "
                      "(CUDA) or the row step (CPU) (with --devices: on one subdomain and split)");
  bench_cmd->add_flag("--muscl", bench.muscl,
                      "swe: the second-order scheme (physics.scheme = \"muscl\", cfl 0.25) on "
                      "one device, by its tiles (CUDA kernels or host tiles; --plain: the plain "
                      "phases); a step is its two stages");
  bench_cmd->add_flag("--muscl-hancock", bench.hancock,
                      "swe: the one-stage MUSCL-Hancock step (physics.scheme = \"muscl_hancock\", "
                      "cfl 0.25) on one device, by its tiles");
  bench_cmd->add_option(
      "--halo", bench.halo,
      "swe split: halo layers, exchanged every that many steps (default 4 on GPUs, 1 "
      "on CPU partitions)");
  bench_cmd
      ->add_option("--batch", bench.batch,
                   "swe: K members of each size stepped together by one swe::Batch (on CUDA one "
                   "tile-kernel launch for all); prints the total cell-updates/s")
      ->check(CLI::Range(1, 4096));
  return bench_cmd;
}

// Given but empty ('--view ""' from a script whose variable was unset) is a mistake, not "no
// viewer": the run would go on without what was asked for and say nothing.
void check_given(const CLI::App& run_cmd, const RunOptions& run) {
  const std::pair<const char*, const std::string*> given[] = {
      {"--view", &run.view},
      {"--checkpoint-every", &run.checkpoint_every},
      {"--restart", &run.restart},
      {"--out", &run.out_dir},
      {"--ensemble", &run.ensemble}};
  for (const auto& [name, value] : given)
    if (run_cmd.count(name) > 0 && value->empty())
      throw silt::Error(
          fmt::format("{} '': the value is empty (leave the option out for none)", name));
  if (run_cmd.count("--members-at-once") > 0 && run.ensemble.empty())
    throw silt::Error("--members-at-once: members are an ensemble's (give --ensemble FILE)");
  if (run_cmd.count("--batch-members") > 0 && run.ensemble.empty())
    throw silt::Error("--batch-members: members are an ensemble's (give --ensemble FILE)");
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "silt: fast GPU simulation of shallow-water floods with pollutant transport, and "
      "of sand, snow, water and elastic solids with MPM"};
  app.require_subcommand(1);
  app.set_version_flag("--version", silt::run::build_id());

  RunOptions run;
  CLI::App* run_cmd = add_run_command(app, run);

  std::string validate_path;
  std::vector<std::string> validate_overrides;
  auto* validate_cmd = app.add_subcommand("validate", "Check a scene file and print a summary");
  validate_cmd->add_option("scene", validate_path, "Scene file")->required();
  validate_cmd->add_option("--set", validate_overrides, "Override a scene value: path=value");
  std::string validate_ensemble;
  validate_cmd->add_option(
      "--ensemble", validate_ensemble,
      "Check every member of this ensemble file over the scene (nothing runs)");

  std::string view_dir, view_address = "8080";
  auto* view_cmd = app.add_subcommand("view", "Replay a finished output folder in the browser");
  view_cmd->add_option("dir", view_dir, "Output folder of a run (resolved_scene.json, frames.csv)")
      ->required();
  view_cmd->add_option("--view", view_address,
                       "Serve the viewer on [HOST:]PORT (default 8080 on 127.0.0.1)");

  auto* info_cmd = app.add_subcommand("info", "Build, backends and devices");

  BenchOptions bench;
  CLI::App* bench_cmd = add_bench_command(app, bench);

  CLI11_PARSE(app, argc, argv);
  if (run.deterministic) run.overrides.push_back("performance.deterministic=true");
  try {
    if (*run_cmd) {
      check_given(*run_cmd, run);
      return run.ensemble.empty() ? cmd_run(run) : cmd_run_ensemble(run);
    }
    if (*validate_cmd) return cmd_validate(validate_path, validate_overrides, validate_ensemble);
    if (*view_cmd) return cmd_view(view_dir, view_address);
    if (*info_cmd) return cmd_info();
    if (*bench_cmd) return cmd_bench(bench);
  } catch (const silt::Error& e) {
    fmt::print(stderr, "silt: error: {}\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    fmt::print(stderr, "silt: internal error: {}\n", e.what());
    return 3;
  }
  return 0;
}
