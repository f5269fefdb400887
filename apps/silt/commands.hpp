// The subcommands of the `silt` command line. Each returns the process exit code and reports
// errors by throwing silt::Error (main prints them).
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "silt/core/exec.hpp"
#include "silt/partition/world.hpp"

namespace silt::app {

struct RunOptions {
  std::string scene_path;  // empty: the embedded default scene
  std::string backend = "auto";
  std::vector<int> devices{0};
  std::string out_dir;  // empty: silt-out/<scene name>
  std::vector<std::string> overrides;
  bool quiet = false;
  int halo = 0;  // split runs: halo layers, exchanged every `halo` steps (0: run::halo_layers())
  std::string view;  // --view [HOST:]PORT: serve the live viewer there (empty: off)
  // Checkpoints (docs/checkpoints.md): the interval (checkpoint_policy.hpp; empty: only on a
  // signal), the checkpoint to continue from, and whether a non-empty output folder is replaced.
  std::string checkpoint_every;
  std::string restart;
  bool overwrite = false;
  bool deterministic = false;  // --deterministic: adds performance.deterministic=true
  std::string ensemble;        // --ensemble FILE: run the scene's members (docs/ensembles.md)
  int members_at_once = 0;  // --members-at-once K: the ensemble's run.members_at_once (0: its own)
  // --batch-members on|off: the ensemble's run.batch_members ("": its own)
  std::string batch_members;
  bool hash = false;  // --hash: print each MPM frame's state hash (mpm/state_hash.hpp) on stdout
  // When the command began (made with the options, as the process starts): the set-up time that
  // `silt run` prints counts from here.
  std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
};

struct BenchOptions {
  std::string what;  // "swe" or "mpm"
  std::string backend = "auto";
  std::vector<std::string> sizes;
  std::vector<std::string> precisions;
  int steps = 0;                // 0: the benchmark's default
  std::vector<int> devices{0};  // several: the split run on all of them against one
  std::string csv;
  bool plain = false;    // swe: the plain parallel_for phases instead of the fused tile kernel
  bool muscl = false;    // swe: physics.scheme = "muscl" (a step: Heun's two stages)
  bool hancock = false;  // swe: physics.scheme = "muscl_hancock" (a step: one tile launch)
  int halo = 0;          // swe split: halo layers (0: run::halo_layers())
  int batch = 0;         // swe: members of each size stepped together by swe::Batch (0: one solver)
};

int cmd_info();
int cmd_validate(const std::string& scene_path, const std::vector<std::string>& overrides,
                 const std::string& ensemble);
int cmd_run(const RunOptions& options);
/// `silt run scene.json --ensemble ensemble.json` (run_ensemble.cpp).
int cmd_run_ensemble(const RunOptions& options);
/// `silt view DIR`: replays a finished output folder in the live viewer on `address`.
int cmd_view(const std::string& dir, const std::string& address);
int cmd_bench(const BenchOptions& options);

}  // namespace silt::app
