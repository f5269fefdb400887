// The output folder of a run (`silt run`, Python's run(out); docs/checkpoints.md): a run writes
// into an empty or new folder; one that already holds files is refused unless --overwrite (the
// earlier run's files are removed first, so that no frame of two runs mixes) or --restart (the run
// continues the outputs there).
// What a run that failed before its first frame leaves (resolved_scene.json, frames.csv and
// gauges.csv without rows) does not count.
#pragma once

#include <string>

namespace silt::run {

enum class OutputMode { fresh, overwrite, restart };

/// Checks dir for a run in the given mode; with overwrite removes the files silt writes
/// (frames.csv, gauges.csv, resolved_scene.json, particles.pvd, checkpoint.silt and
/// <name>_<frame>.<asc|tif|nc|png|ply|vtp|vdb>), never anything else; with overwrite and restart
/// also the temporary files of a run that was killed before it renamed them (.NAME.partPID,
/// NAME.tmpPID of a process that is gone). silt::Error naming the folder and the way out when it
/// refuses.
void claim_output_dir(const std::string& dir, OutputMode mode);

/// The same for an ensemble's folder (ensemble.hpp): its own files, and with overwrite also the
/// members' folders members/<name>/ (each as claim_output_dir; removed once empty). Restart
/// (a stopped ensemble continued from OUT/ensemble_checkpoint) keeps everything.
void claim_ensemble_dir(const std::string& dir, OutputMode mode);
/// Removes from an ensemble's checkpoint folder (ensemble_checkpoint.hpp) the temporary files of
/// a run killed before it renamed them (.member_<m>.silt.partPID, ... of a process that is gone:
/// a member's periodic checkpoint half written); a restart and --overwrite call it.
void remove_stale_checkpoint_temporaries(const std::string& dir);

}  // namespace silt::run
