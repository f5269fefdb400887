// An MPM parameter sweep as one run (docs/ensembles.md, "MPM sweeps"): every member is the scene
// with its values applied (material parameters, initial velocities, source positions, seeds: any
// scene key), validated before anything runs, and run through the same frame loop and adapter as
// a solo `silt run` (MpmAdapter), its own files on request in OUT/members/<name>/. Each member
// gives its measures (mpm_measures.hpp); the ensemble writes them and their statistics
// (mpm_ensemble_report.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "silt/io/mpm/scene_file.hpp"
#include "silt/run/ensemble.hpp"
#include "silt/run/ensemble_checkpoint.hpp"
#include "silt/run/member_times.hpp"
#include "silt/run/mpm_measures.hpp"

namespace silt::run {

/// Member m's MPM scene, parsed and validated; errors name the ensemble file, the member and the
/// key (the override labelled "set by ensemble member 'x'").
io::MpmJob mpm_member_job(const EnsembleScene& scene, const io::Ensemble& e, std::size_t m);
/// Every member's scene, before anything runs, as many at once as the run has members in flight
/// (member_checks.hpp); returns the first member's job, its warnings those of every member.
io::MpmJob check_mpm_members(const EnsembleScene& scene, const io::Ensemble& e,
                             std::size_t in_flight = 1);

struct MpmMemberResult {
  bool done = false;
  bool restored = false;  // read back from the ensemble's checkpoint
  double time = 0, wall_s = 0;
  MemberTimes times;  // not in the bytes: for its log line
  long long steps = 0;
  std::int64_t particles = 0;
  double rest_speed = 0;         // m/s, the one time_at_rest used
  std::vector<double> measures;  // in the order of measure_names()
  EnergySeries energy;
};

/// A member's result as bytes: what its checkpoint file member_<m>.bin holds after the header,
/// and what a rank sends rank 0 (ensemble_ranks.hpp). read_result sets r.done; silt::Error when
/// the bytes are not a result this build writes.
MemberBytes result_bytes(const MpmMemberResult& r);
void read_result(MemberBytes& b, MpmMemberResult& r);

/// Runs every member; returns the signal a stop was asked with (0: every member ran).
int run_mpm_members(const EnsembleScene& scene, const io::Ensemble& e, const EnsembleOptions& o,
                    Progress& progress, std::vector<MpmMemberResult>& results);

}  // namespace silt::run
