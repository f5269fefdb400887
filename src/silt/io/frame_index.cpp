#include "silt/io/frame_index.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "silt/io/atomic_file.hpp"

namespace silt::io {

FrameIndex::FrameIndex(const std::string& dir, long keep_below)
    : path_((std::filesystem::path(dir) / "frames.csv").string()), text_("frame,time_s\n") {
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

void FrameIndex::add(long k, double t) {
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
