#include "silt/io/frame_index.hpp"

#include <fmt/format.h>

#include <filesystem>

#include "silt/io/atomic_file.hpp"

namespace silt::io {

FrameIndex::FrameIndex(const std::string& dir)
    : path_((std::filesystem::path(dir) / "frames.csv").string()), text_("frame,time_s\n") {
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
}

}  // namespace silt::io
