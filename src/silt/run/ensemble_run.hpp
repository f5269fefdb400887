// An ensemble run as the CLI (`silt run scene --ensemble ens.json`) and Python (silt.Ensemble)
// start it (docs/ensembles.md): the scene and the ensemble file read, every member checked before
// anything runs, the output folder claimed, resolved_ensemble.json, the members run
// (ensemble.hpp for shallow water, mpm_ensemble.hpp for MPM) and the report written
// (ensemble_report.hpp, mpm_ensemble_report.hpp).
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace silt::partition {
class World;
}

namespace silt::run {

struct EnsembleRequest {
  std::string scene;          // the scene file the members vary
  std::string ensemble;       // the ensemble file (with ensemble_text: its name in messages)
  std::string ensemble_text;  // non-empty: the ensemble's JSON itself (Python's dict)
  std::vector<std::string> overrides;  // --set, applied before each member's values
  std::string out;                     // "": silt-out/<ensemble file's stem>
  std::string backend = "auto";        // cpu, cuda or auto
  /// The devices (--devices): on CUDA members spread over them, several in flight on each; a
  /// GPU listed twice takes twice the members. One on the CPU.
  std::vector<int> devices{0};
  int at_once = 0;  // members in flight (0: the ensemble file's run.members_at_once)
  /// Shallow-water members of one device stepping together (--batch-members; "": the ensemble
  /// file's run.batch_members): "on" or "off".
  std::string batch;
  bool overwrite = false;
  /// The checkpoint of a stopped run of this ensemble (OUT/ensemble_checkpoint,
  /// ensemble_checkpoint.hpp): its finished members are read back, the others run; out defaults
  /// to its folder.
  std::string restart;
  /// Each running member's solver checkpoint interval, as a solo run's (checkpoint_policy.hpp:
  /// "600s", "10min", "2h", "sim:2.5"; "": only on a stop), and the option's name for errors.
  std::string checkpoint_every;
  std::string checkpoint_option = "--checkpoint-every";
  bool quiet = false;
  std::function<int()> stop;  // SIGINT / SIGTERM, Ctrl-C (0: none)
  /// The MPI ranks the members spread over (the CLI under mpirun: World::get()); null: this
  /// process alone. Every rank calls run_ensemble with the same request; rank 0 writes the
  /// report (docs/ensembles.md, "Members over MPI ranks").
  const partition::World* world = nullptr;
};

struct EnsembleOutcome {
  int signal = 0;  // the stop's signal (0: every member ran and the report is written)
  std::size_t members = 0, done = 0;
  std::string out;                 // the output folder
  std::vector<std::string> files;  // the report's files
  std::string checkpoint;          // what --restart takes to continue a stopped run
};

/// Runs the ensemble; errors name the ensemble file, the member and the key. Over several ranks
/// an error of any rank before the report is thrown on every rank alike (RanksError,
/// ensemble_ranks.hpp); the report's files are rank 0's (`files` is empty on the others).
EnsembleOutcome run_ensemble(const EnsembleRequest& request);

/// Reads the scene and the ensemble and checks every member as run_ensemble does before anything
/// runs (`silt validate scene.json --ensemble ens.json`), without running, devices or files.
/// Returns one line that sums it up; errors name the ensemble file, the member and the key.
std::string validate_ensemble(const EnsembleRequest& request);

}  // namespace silt::run
