// An MPM run's checkpoint (docs/checkpoints.md): the solver's state (mpm::RestartState: every
// part's particles in store order with their binning, the step control values that carry over,
// the emitters' progress and the split) in the container of checkpoint_file.hpp. The frame it
// was taken after is the header's step; the run continues with the next frame.
#pragma once

#include <cstdint>
#include <string>

#include "silt/io/mpm/scene_file.hpp"
#include "silt/mpm/restart_state.hpp"

namespace silt::io {

/// The hash a checkpoint is tied to: the resolved scene without run.frames and run.end_time (a
/// restart may run further) and without provenance.
std::uint64_t mpm_scene_hash(const MpmJob& job);

void save_mpm_checkpoint(const std::string& path, const MpmJob& job, const mpm::RestartState& s,
                         const std::string& build);
/// CheckpointError naming path and the problem (checkpoint_file.hpp).
mpm::RestartState load_mpm_checkpoint(const std::string& path, const MpmJob& job);

}  // namespace silt::io
