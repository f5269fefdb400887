// A shallow-water run's checkpoint (docs/checkpoints.md): the solver's state (swe::RestartState:
// the global grid's fields and the clock) and where the run's outputs stand (the next frame, the
// next gauge sample and the rows gauges.csv holds, the peak discharges of a step so far), in the container of checkpoint_file.hpp.
#pragma once

#include <cstdint>
#include <string>

#include "silt/io/swe/scene_file.hpp"
#include "silt/swe/restart_state.hpp"
#include "silt/swe/step_peaks.hpp"

namespace silt::io {

struct SweCheckpoint {
  swe::RestartState state;
  long next_frame = 0;    // output frames written: 0 .. next_frame - 1
  double next_gauge = 0;  // s, time of the next gauge sample (+inf: none)
  long gauge_rows = 0;    // rows of gauges.csv written
  int parts = 1;          // subdomains of the run that wrote it
  swe::StepPeaks peaks;   // Solver::step_peaks() (empty: not tracked)
};

/// The hash a checkpoint is tied to: the resolved scene without run.end_time (a restart may run
/// further) and without provenance.
std::uint64_t swe_scene_hash(const SweJob& job);

void save_swe_checkpoint(const std::string& path, const SweJob& job, const SweCheckpoint& c,
                         const std::string& build);
/// CheckpointError naming path and the problem: unreadable, not a checkpoint, truncated, corrupt,
/// another format version, another solver or scene (the grid size included).
SweCheckpoint load_swe_checkpoint(const std::string& path, const SweJob& job);

}  // namespace silt::io
