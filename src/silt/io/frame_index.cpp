#include "silt/io/frame_index.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "silt/core/error.hpp"
#include "silt/io/atomic_file.hpp"

namespace silt::io {

FrameIndex::FrameIndex(const std::string& dir, long keep_below)
    : dir_(dir),
      path_((std::filesystem::path(dir) / "frames.csv").string()),
      text_("frame,time_s\n") {
  dir_fd_ = ::open(dir_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd_ < 0)
    throw Error(fmt::format("cannot write '{}': the output folder '{}': {}", path_, dir_,
                            std::strerror(errno)));
  try {
    start(keep_below);
  } catch (...) {
    ::close(dir_fd_);
    throw;
  }
}

void FrameIndex::start(long keep_below) {
  if (keep_below >= 0) {
    // Rows are written whole (atomically), so every line of the file parses; the times were
    // written in the shortest form that reads back exactly.
    std::ifstream in(path_);
    std::string line;
    std::getline(in, line);  // header
    while (std::getline(in, line)) {
      const std::size_t comma = line.find(',');
      if (comma == std::string::npos) continue;
      const long k = std::strtol(line.c_str(), nullptr, 10);
      if (k < 0 || k >= keep_below) continue;
      rows_.emplace_back(k, std::strtod(line.c_str() + comma + 1, nullptr));
      text_ += line + "\n";
    }
  }
  write_text_atomically(path_, text_);
}

FrameIndex::~FrameIndex() {
  if (dir_fd_ >= 0) ::close(dir_fd_);
}

void FrameIndex::add(long k, double t) {
  // Files written into a folder that was removed are gone; one made again since holds none of the
  // frames before. Either way the run stops here rather than list frames that are not there.
  struct stat held = {}, now = {};
  const bool there = ::stat(dir_.c_str(), &now) == 0;
  if (::fstat(dir_fd_, &held) == 0 && there &&
      (now.st_dev != held.st_dev || now.st_ino != held.st_ino))
    throw Error(
        fmt::format("cannot write '{}': the output folder '{}' was removed and made again "
                    "during the run (it no longer holds the frames before frame {})",
                    path_, dir_, k));
  if (!there || held.st_nlink == 0)
    throw Error(
        fmt::format("cannot write '{}': the output folder '{}' was removed during the run "
                    "(frame {} and the frames before it are gone with it)",
                    path_, dir_, k));
  const std::string before = text_;
  text_ += fmt::format("{},{}\n", k, t);
  try {
    write_text_atomically(path_, text_);
  } catch (...) {
    text_ = before;
    throw;
  }
  rows_.emplace_back(k, t);
}

}  // namespace silt::io
