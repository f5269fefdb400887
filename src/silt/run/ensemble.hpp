// A shallow-water ensemble as one run (docs/ensembles.md): every member is the scene with its
// values applied (io/ensemble_file.hpp), validated before anything runs, and run through the same
// frame loop as a solo run (frame_loop.hpp, SweAdapter), its own outputs on request in
// OUT/members/<name>/; the end-of-run maxima of every member then give the ensemble's statistics
// (ensemble_report.hpp). On the CPU members run several at once, one thread each, or one after
// another on every thread (Ensemble::parallel); on GPUs several at once per GPU, each with its
// own solver (member_pool.cpp, member_plan.hpp).
#pragma once

#include <fmt/format.h>

#include <cstddef>
#include <exception>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "silt/core/error.hpp"
#include "silt/core/exec.hpp"
#include "silt/io/ensemble_file.hpp"
#include "silt/io/raster/field_cache.hpp"
#include "silt/io/swe/scene_file.hpp"
#include "silt/run/ensemble_stats.hpp"
#include "silt/run/member_plan.hpp"
#include "silt/run/member_times.hpp"
#include "silt/run/progress.hpp"

namespace silt::run {

/// The scene an ensemble varies: its file, the command line's --set (applied before each
/// member's values), and its JSON with them applied (what `scale` multiplies).
struct EnsembleScene {
  std::string path;
  std::vector<std::string> overrides;
  io::Json tree;
  io::SceneSource source;
  io::Json parsed;  // the file's JSON as read, before any value is set: each member's job's start
  /// The fields and rasters the members' jobs share (member_job: their checks and their runs;
  /// emptied when run_members is done).
  std::shared_ptr<io::FieldCache> fields;
};
EnsembleScene load_ensemble_scene(const std::string& path,
                                  const std::vector<std::string>& overrides);

/// "ensemble 'ens.json', member 'm03'", for errors.
std::string member_where(const io::Ensemble& e, std::size_t m);
/// f() for member m: an error it throws comes back named with member_where.
template <class F>
auto as_member(const io::Ensemble& e, std::size_t m, F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const std::exception& err) {
    throw Error(fmt::format("{}: {}", member_where(e, m), err.what()));
  }
}
/// The command line's --set, then member m's values: the overrides of its scene (labels: where
/// each came from, for errors; may be null).
std::vector<std::string> member_overrides(const EnsembleScene& scene, const io::Ensemble& e,
                                          std::size_t m, std::vector<std::string>* labels);

/// Member m's scene, parsed and validated; errors name the ensemble file, the member and the key.
io::SweJob member_job(const EnsembleScene& scene, const io::Ensemble& e, std::size_t m);
/// Every member's scene, before anything runs: each parses, and every grid is the first's (the
/// statistics are per cell), as are its gauges and its hydrograph's series (measures.csv's
/// columns). Returns the first member's job (the grid and output settings of the
/// ensemble's rasters), its warnings those of every member (member_warnings()). The first member
/// is built alone, then the others several at once (member_checks.hpp, check_workers: at least
/// `in_flight`, the members the run has in flight); the error is the one a check in member order
/// meets first.
io::SweJob check_members(const EnsembleScene& scene, const io::Ensemble& e,
                         std::size_t in_flight = 1);
/// The scene warnings of the members (warnings[m]: member m's), each distinct one once, with the
/// members that gave it: "... (every member)" or "... (members 'm01', 'm03')", at most a few
/// names and the count.
std::vector<std::string> member_warnings(const io::Ensemble& e,
                                         const std::vector<std::vector<std::string>>& warnings);

/// Whether the members accumulate the hazard fields (the ensemble asks for max_speed or hazard
/// classes): they add the gauges' speed and arrival to the measures (swe_measures.hpp).
bool members_track_hazard(const io::EnsembleOutputs& o);

/// What a member's run left: where it ended and its maxima (one array per outputs.fields, NaN
/// where a field has no value), its hazard classes when the ensemble reports them, and its
/// measures (swe_measures.hpp: the gauges' and the water balance).
struct MemberResult {
  bool done = false;
  bool restored = false;  // read back from the ensemble's checkpoint (ensemble_checkpoint.hpp)
  double time = 0, wall_s = 0;
  long long steps = 0;
  MemberValues maxima;
  std::vector<double> hazard_class;
  std::vector<double> measures;  // in the order of swe_measure_names()
  MemberTimes times;             // not in the checkpoint: for its log line
};

struct EnsembleOptions {
  std::vector<Exec> execs;    // the listed devices (one on the CPU); a member runs on one
  std::string out;            // the ensemble's output folder
  std::string backend;        // the ensemble's, as described next to its outputs
  std::function<int()> stop;  // SIGINT / SIGTERM (0: none)
  /// The ensemble's checkpoint folder ("": none): each finished member's result is saved there,
  /// and each running member's solver checkpoint; with `restart` the members saved there are read
  /// back instead of run, those with a solver checkpoint continue from it (their own folders,
  /// outputs.members, as a solo restart continues its folder), and the others' own folders are
  /// cleared before they run again.
  std::string checkpoint;
  bool restart = false;
  /// Each running member's solver checkpoint interval (checkpoint_policy.hpp; "": only on a
  /// stop) and the option that gave it (for errors): a killed run loses at most an interval of
  /// each running member.
  std::string checkpoint_every;
  std::string checkpoint_option = "--checkpoint-every";
  /// The MPI ranks the members spread over: this process runs members_of_rank(members, rank,
  /// ranks) (member_plan.hpp; ensemble_ranks.hpp gathers their results).
  int rank = 0, ranks = 1;
};

class MemberBatch;
class StepTurns;

/// Where a member runs and what it tells the pool.
struct MemberSlot {
  Exec exec;                  // its device (the host on the CPU)
  std::function<int()> stop;  // polled between frames: the command's signal, another's failure
  /// The members of its device that step together (member_batch.hpp; null: it steps alone).
  MemberBatch* batch = nullptr;
  /// Called once its solver holds its device memory (may be empty): the first member's size
  /// says how many members fit on a GPU.
  std::function<void()> built;
  /// Its device's turns to step (member_turns.hpp): a member built, it steps holding one, taken
  /// with StepTurn(turns, exec.device). Null: it steps at once.
  StepTurns* turns = nullptr;
};
/// One member's run: returns the signal that stopped it (0: it ran to its end); its errors name
/// the member.
using MemberRun = std::function<int(std::size_t m, const MemberSlot& slot)>;
/// The pool for this ensemble and these devices (member_plan.hpp): the ensemble's
/// run.parallel and run.members_at_once, this rank's share of the members, the listed devices,
/// OpenMP's threads.
MemberPlan member_plan(const io::Ensemble& e, const EnsembleOptions& o);
/// Runs `one` for every member of this rank's share (member_pool.cpp): with parallel = members several at once (on
/// the CPU one OpenMP thread each; on CUDA several per listed GPU, as many as fit), else one
/// after another; after each, `line(m)` is logged and, when `one` returned 0, `save(m)` is called
/// on a thread beside the members (member_saver.hpp; may be empty), every save done before this
/// returns. Returns the signal of a stop (0: every member ran); the first error (of a member or
/// a save) ends the others at their next frame and is thrown.
int for_each_member(const io::Ensemble& e, const EnsembleOptions& o, Progress& progress,
                    const MemberRun& one, const std::function<std::string(std::size_t)>& line,
                    const std::function<void(std::size_t)>& save = {});

/// Runs every member (members' outputs in out/members/<name>/ when asked for); returns the
/// signal a stop was asked with (0: every member ran). Errors name the member.
int run_members(const EnsembleScene& scene, const io::Ensemble& e, const EnsembleOptions& o,
                Progress& progress, std::vector<MemberResult>& results);

}  // namespace silt::run
