// What an MPM ensemble member has gathered beside its solver checkpoint (docs/ensembles.md,
// "Checkpoints"): member_<m>.partial in the ensemble's checkpoint folder holds the extent the
// member started from and, for each frame it has run, the steps taken by then and the frame's
// time, kinetic energy and rms speed (its measures need them; the solver checkpoint
// member_<m>.silt holds neither).
//
// The pair must match: a restart that read a partial of another frame than its .silt would give
// the member other measures than an uninterrupted run. Both files are written atomically, the
// partial first (the frame loop's before_checkpoint, on the stepping thread, before the .silt is
// queued), and a partial only grows, a frame at a time. So a partial on disk covers at least the
// frames of the .silt beside it: a kill between the two writes leaves the new partial beside the
// old .silt, never an old partial beside a new .silt. The restart keeps the partial's first
// `frame` frames, `frame` being the one the .silt was taken after. This needs no second file
// format, no change to the solver checkpoint and no way to rename two files at once.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "silt/run/mpm_measures.hpp"

namespace silt::run {

struct MemberPartial {
  ParticleExtent start;
  std::vector<double> steps;  // the member's steps by the end of each frame (frame 1 first)
  EnergySeries energy;        // of each frame, as steps

  /// After each frame: its steps and energies.
  void add(const mpm::FrameStats& s);
  /// The steps by the last frame (0 before the first).
  long long steps_done() const;
};

/// member_<m>.partial in dir, written atomically.
void save_member_partial(const std::string& dir, std::size_t m, const std::string& name,
                         const MemberPartial& p);
/// The partial of member m for its solver checkpoint taken after frame `frame`, cut to that
/// frame's (false: there is none). silt::Error naming the file when it is not this member's or
/// holds fewer frames than `frame`.
bool load_member_partial(const std::string& dir, std::size_t m, const std::string& name,
                         long long frame, MemberPartial& p);

}  // namespace silt::run
