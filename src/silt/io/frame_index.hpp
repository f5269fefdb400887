// frames.csv, the record of a run's complete frames: "frame,time_s", then one row per frame
// whose files are all written. The writers add a frame's row last, so the file lists exactly the
// frames that are complete; it is rewritten whole (atomically) each time, never half a line.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace silt::io {

class FrameIndex {
 public:
  /// Starts "<dir>/frames.csv" afresh (a rerun into the same folder replaces it); keep_below >= 0
  /// (a restart): keeps the rows of the frames before keep_below that the file already lists.
  explicit FrameIndex(const std::string& dir, long keep_below = -1);

  /// Adds the row of frame k at simulated time t (s).
  void add(long k, double t);
  const std::string& path() const { return path_; }
  /// (frame, time) of every row, in order.
  const std::vector<std::pair<long, double>>& rows() const { return rows_; }

 private:
  std::string path_;
  std::string text_;
  std::vector<std::pair<long, double>> rows_;
};

}  // namespace silt::io
