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
  int halo = 0;      // split runs: halo layers, exchanged every `halo` steps (0: halo_layers())
  std::string view;  // --view [HOST:]PORT: serve the live viewer there (empty: off)
  // Checkpoints (docs/checkpoints.md): the interval (checkpoint_policy.hpp; empty: only on a
  // signal), the checkpoint to continue from, and whether a non-empty output folder is replaced.
  std::string checkpoint_every;
  std::string restart;
  bool overwrite = false;
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
  bool plain = false;  // swe: the plain parallel_for phases instead of the fused tile kernel
  int halo = 0;        // swe split: halo layers (0: halo_layers())
};

/// Exec::cuda(d), or an error naming --devices when device d does not exist.
Exec cuda_device(int d);
/// Shallow water: one subdomain per listed device (on the CPU backend, as many CPU partitions as
/// devices listed). Under mpirun with several ranks: a rank listing several devices drives them
/// all (one rank per machine); a rank listing one device d takes device (d + local rank) modulo
/// the devices it sees (one rank per GPU). repeats: a device may be listed several times (MPM:
/// several parts on one GPU; `silt bench swe`: the split path's own cost on one GPU).
std::vector<Exec> choose_execs(const std::string& backend, const std::vector<int>& devices,
                               const partition::World& world, bool repeats = false);
/// Halo layers of a split run (ghost cell expansion: exchanged every k steps): from_cli (--halo)
/// when positive, else kCudaHalo on CUDA subdomains and 1 on CPU partitions.
int halo_layers(int from_cli, bool cuda);
/// The default halo of split runs on GPUs: 4 layers exchanged every 4 steps measured best on two
/// H200s (docs/NOTES.md, "Several devices"); on CPU partitions the recomputed overlap costs more
/// than it saves.
constexpr int kCudaHalo = 4;

int cmd_info();
int cmd_validate(const std::string& scene_path, const std::vector<std::string>& overrides);
int cmd_run(const RunOptions& options);
/// `silt view DIR`: replays a finished output folder in the live viewer on `address`.
int cmd_view(const std::string& dir, const std::string& address);
int cmd_bench(const BenchOptions& options);

/// Build identification written next to outputs ("0.1.0 (abc1234, Release, CUDA 90)").
std::string build_id();

}  // namespace silt::app
