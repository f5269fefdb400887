#include "silt/run/output_dir.hpp"

#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>

#include <filesystem>
#include <fstream>
#include <regex>
#include <vector>

#include "silt/core/error.hpp"

namespace silt::run {

namespace fs = std::filesystem;

namespace {

// An ensemble's own files (ensemble_report.hpp, mpm_ensemble_report.hpp): its statistics
// rasters, ensemble.nc, measures.nc and tables.
bool written_by_ensemble(const std::string& name) {
  static const std::regex map_file(
      R"(((max_depth|max_speed|max_level)_(mean|std|p[0-9]{2,3})|p_depth_above_[0-9.e+-]+m|)"
      R"(p_hazard_[a-z]+)\.(asc|prj|tif)|report_(p_depth_above_[0-9.e+-]+m|p_hazard_[a-z]+)\.png)");
  return name == "ensemble.nc" || name == "members.csv" || name == "resolved_ensemble.json" ||
         name == "measures.csv" || name == "measures_stats.csv" || name == "measures.nc" ||
         name == "kinetic_energy.csv" || name == "ensemble_progress.json" ||
         std::regex_match(name, map_file);
}

bool written_by_silt(const std::string& name) {
  static const std::regex frame_file(R"([A-Za-z_]+_[0-9]{4,}\.(asc|tif|nc|png|ply|vtp|vdb))");
  return written_by_ensemble(name) || name == "frames.csv" || name == "gauges.csv" ||
         name == "gauge_points.csv" || name == "hydrograph.csv" || name == "hydrograph.nc" ||
         name == "mass_balance.csv" || name == "resolved_scene.json" ||
         name == "report_max_depth.png" || name == "report_hazard_class.png" ||
         name == "particles.pvd" || name == "checkpoint.silt" || std::regex_match(name, frame_file);
}

/// What a run that failed before its first frame leaves: the resolved scene and tables with no
/// row. A rerun may take the folder without --overwrite (no frame of two runs can mix). Also what
/// rank 0 of this very run may be writing while the other ranks look (io/atomic_file.cpp: the
/// writability probe, the hidden part of the resolved scene): seeing the probe, a rank refused
/// alone and rank 0 waited for it forever (1 run in ~40 of `mpirun -np 2` on two cores).
bool no_frames_yet(const fs::path& p) {
  static const std::regex in_progress(R"(\.silt-write-test-[0-9]+|\..+\.part[0-9]+)");
  const std::string name = p.filename().string();
  if (name == "resolved_scene.json" || std::regex_match(name, in_progress)) return true;
  if (name == "gauge_points.csv") return true;  // rewritten whole by every run
  if (name != "frames.csv" && name != "gauges.csv" && name != "hydrograph.csv" &&
      name != "mass_balance.csv")
    return false;
  std::ifstream in(p);
  std::string line;
  int lines = 0;
  while (lines < 2 && std::getline(in, line)) ++lines;
  return lines <= 1;
}

// What an ensemble's checkpoint folder holds (ensemble_checkpoint.hpp).
bool written_to_ensemble_checkpoint(const std::string& name) {
  static const std::regex member(R"(member_[0-9]+\.(bin|silt|partial))");
  return name == "key.json" || std::regex_match(name, member);
}

// The process id of a temporary file that silt's writers leave when the process is killed
// (SIGKILL, a crash) before they rename it: ".NAME.partPID" (io/atomic_file.cpp), "NAME.tmpPID"
// (io/particles/file.cpp) and ".silt-write-test-PID", with NAME a file silt writes there
// (`ours`); 0 for anything else.
long temporary_of(const std::string& name, bool (*ours)(const std::string&)) {
  static const std::regex part(R"(\.(.+)\.part([0-9]+))"), tmp(R"((.+)\.tmp([0-9]+))"),
      probe(R"(\.silt-write-test-([0-9]+))");
  std::smatch m;
  if (std::regex_match(name, m, probe)) return std::stol(m[1].str());
  if ((std::regex_match(name, m, part) || std::regex_match(name, m, tmp)) && ours(m[1].str()))
    return std::stol(m[2].str());
  return 0;
}

// Temporaries of processes that no longer run: a killed run's, which nothing else removes. Those
// of a live process (another rank of this run writing its probe) are left alone.
void remove_stale_temporaries(const std::string& dir,
                              bool (*ours)(const std::string&) = written_by_silt) {
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
    const long pid = temporary_of(e.path().filename().string(), ours);
    if (pid <= 0 || pid == long(::getpid())) continue;
    if (::kill(pid_t(pid), 0) == 0 || errno != ESRCH) continue;  // alive (or not ours to know)
    std::error_code rm;
    fs::remove(e.path(), rm);
    if (rm)
      throw Error(
          fmt::format("cannot remove '{}', a temporary file of an earlier run that was "
                      "killed: {}",
                      e.path().string(), rm.message()));
  }
}

}  // namespace

void claim_output_dir(const std::string& dir, OutputMode mode) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return;
  if (mode != OutputMode::fresh) remove_stale_temporaries(dir);
  if (mode == OutputMode::restart) return;
  std::vector<fs::path> entries;
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec))
    if (!no_frames_yet(e.path())) entries.push_back(e.path());
  if (entries.empty()) return;
  if (mode == OutputMode::fresh)
    throw Error(fmt::format(
        "output folder '{}' is not empty ({} entries, e.g. '{}'): pass --overwrite to replace "
        "the earlier run's files, --restart {}/checkpoint.silt to continue it, or another --out",
        dir, entries.size(), entries.front().filename().string(), dir));
  for (const fs::path& p : entries)
    if (fs::is_regular_file(p, ec) && written_by_silt(p.filename().string())) {
      fs::remove(p, ec);
      if (ec)
        throw Error(fmt::format("--overwrite: cannot remove '{}': {}", p.string(), ec.message()));
    }
}

void remove_stale_checkpoint_temporaries(const std::string& dir) {
  std::error_code ec;
  if (fs::is_directory(dir, ec)) remove_stale_temporaries(dir, written_to_ensemble_checkpoint);
}

void claim_ensemble_dir(const std::string& dir, OutputMode mode) {
  std::error_code ec;
  const fs::path members = fs::path(dir) / "members";
  if (mode == OutputMode::overwrite && fs::is_directory(members, ec)) {
    for (const fs::directory_entry& e : fs::directory_iterator(members, ec))
      if (e.is_directory()) {
        claim_output_dir(e.path().string(), OutputMode::overwrite);
        fs::remove(e.path(), ec);  // only when empty: a user's file keeps it
      }
    fs::remove(members, ec);
  }
  if (mode != OutputMode::fresh) return claim_output_dir(dir, mode);
  try {
    claim_output_dir(dir, mode);
  } catch (const Error&) {  // its way out names --restart, which ensembles do not offer
    throw Error(fmt::format(
        "output folder '{}' is not empty: pass --overwrite to replace an earlier ensemble's files "
        "(its members' folders too), --restart {}/ensemble_checkpoint to continue a stopped "
        "ensemble, or another --out",
        dir, dir));
  }
}

}  // namespace silt::run
