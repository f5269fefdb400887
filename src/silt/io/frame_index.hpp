// frames.csv, the record of a run's complete frames: "frame,time_s", then one row per frame
// whose files are all written. The writers add a frame's row last, so the file lists exactly the
// frames that are complete; it is rewritten whole (atomically) each time, never half a line.
#pragma once

#include <string>

namespace silt::io {

class FrameIndex {
 public:
  /// Starts "<dir>/frames.csv" afresh (a rerun into the same folder replaces it).
  explicit FrameIndex(const std::string& dir);

  /// Adds the row of frame k at simulated time t (s).
  void add(long k, double t);
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::string text_;
};

}  // namespace silt::io
