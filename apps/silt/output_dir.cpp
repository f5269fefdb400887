#include "output_dir.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <vector>

#include "silt/core/error.hpp"

namespace silt::app {

namespace fs = std::filesystem;

namespace {

bool written_by_silt(const std::string& name) {
  static const std::regex frame_file(R"([A-Za-z_]+_[0-9]{4,}\.(asc|tif|nc|png|ply|vtp))");
  return name == "frames.csv" || name == "gauges.csv" || name == "resolved_scene.json" ||
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
  if (name != "frames.csv" && name != "gauges.csv") return false;
  std::ifstream in(p);
  std::string line;
  int lines = 0;
  while (lines < 2 && std::getline(in, line)) ++lines;
  return lines <= 1;
}

}  // namespace

void claim_output_dir(const std::string& dir, OutputMode mode) {
  std::error_code ec;
  if (mode == OutputMode::restart || !fs::is_directory(dir, ec)) return;
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

}  // namespace silt::app
