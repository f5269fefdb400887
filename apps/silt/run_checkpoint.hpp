// What `silt run` needs around checkpoints besides the file formats (io/*_checkpoint.hpp): where
// the checkpoint lives and the command that continues a run.
#pragma once

#include <string>

#include "commands.hpp"
#include "silt/partition/world.hpp"

namespace silt::app {

/// "<out>/checkpoint.silt": one per output folder, replaced atomically by each new checkpoint.
std::string checkpoint_path(const std::string& out);
/// The `silt run ...` command line that continues this run from its checkpoint in out (the scene,
/// overrides, backend, devices and halo as given, and --restart), after `mpirun -np N` when the
/// run is one over N MPI ranks.
std::string restart_command(const RunOptions& o, const std::string& out,
                            const partition::World& world);

}  // namespace silt::app
