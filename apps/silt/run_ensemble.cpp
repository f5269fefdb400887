// `silt run scene.json --ensemble ensemble.json` (docs/ensembles.md): a shallow-water ensemble or
// an MPM sweep run by the library's run::run_ensemble (silt/run/ensemble_run.hpp, which Python's
// silt.Ensemble runs too), over the MPI ranks of an mpirun. What is here is the command line's
// own: the options an ensemble refuses, the stop and its message, rank 0 speaking for the ranks.
#include <fmt/format.h>

#include <cstdio>
#include <filesystem>

#include "commands.hpp"
#include "silt/core/error.hpp"
#include "silt/core/host_memory.hpp"
#include "silt/partition/world.hpp"
#include "silt/run/devices.hpp"
#include "silt/run/ensemble_ranks.hpp"
#include "silt/run/ensemble_run.hpp"
#include "stop_signal.hpp"

namespace silt::app {

namespace fs = std::filesystem;

namespace {

// What a run of one scene offers and an ensemble does not (yet): refused before anything runs.
void check_ensemble_options(const RunOptions& o) {
  const auto refuse = [](const char* what) {
    throw Error(fmt::format("--ensemble: {} (docs/ensembles.md, \"Not done yet\")", what));
  };
  if (o.scene_path.empty()) refuse("give the scene file the members vary");
  if (!o.view.empty()) refuse("the live viewer watches one run (--view)");
}

// A rank that exits with an error code has mpirun end the others: every rank waits until rank 0
// has said why.
int end_on_ranks(const partition::World& world, int code) {
  std::fflush(stderr);
  world.barrier();
  return code;
}

}  // namespace

int cmd_run_ensemble(const RunOptions& o) {
  const StopSignals signals;
  check_ensemble_options(o);
  // The members' grids are built and freed in turn on several threads: their pages kept for the
  // next member instead of faulted in afresh (the flood ensemble 8.48 -> 8.37 s, medians on two
  // H100s, bench/results/ensemble-host-memory-2026-12-07g-h100.md).
  keep_freed_host_blocks();
  // Under mpirun member m runs on rank m mod R and rank 0 writes the report.
  const partition::World& world = partition::World::get();
  // CUDA's own number of hardware queues (CUDA_DEVICE_MAX_CONNECTIONS, 8) serves the members in
  // flight best: 32 made each process's context ~330 more driver objects, which its start and
  // its end pay (the flood ensemble 8.43 s at 8 against 9.02 s at 32 on an H100,
  // bench/results/ensemble-connections-2026-12-07d-h100.md).
  // The devices' contexts made while the scene and the members are read and checked.
  const run::DeviceStart devices({o.backend, o.devices, true}, world);
  run::EnsembleRequest q;
  q.scene = o.scene_path;
  q.ensemble = o.ensemble;
  q.overrides = o.overrides;
  q.out = o.out_dir;
  q.backend = o.backend;
  q.devices = o.devices;
  q.at_once = o.members_at_once;
  q.batch = o.batch_members;
  q.overwrite = o.overwrite;
  q.restart = o.restart;
  q.checkpoint_every = o.checkpoint_every;  // each running member's
  q.quiet = o.quiet;
  q.stop = [] {
    return StopSignals::received();
  };
  q.world = &world;
  run::EnsembleOutcome r;
  try {
    r = run::run_ensemble(q);
  } catch (const run::RanksError& e) {  // thrown on every rank alike: rank 0 reports it
    if (!world.distributed()) throw;
    if (world.is_root()) fmt::print(stderr, "silt: error: {}\n", e.what());
    return end_on_ranks(world, 1);
  }
  if (r.signal) {
    if (world.is_root())
      fmt::print(stderr,
                 "silt: stopped by {} with {} of {} members done (saved in '{}'); no statistics "
                 "were written yet. Continue with the same command and --restart {}\n",
                 StopSignals::name(r.signal), r.done, r.members, r.checkpoint, r.checkpoint);
    return end_on_ranks(world, 128 + r.signal);
  }
  if (world.is_root()) fmt::print("{}\n", fs::absolute(r.out).lexically_normal().string());
  return 0;
}

}  // namespace silt::app
