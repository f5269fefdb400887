// frames.csv, the record of a run's complete frames: "frame,time_s", then one row per frame
// whose files are all written. The writers add a frame's row last, so the file lists exactly the
// frames that are complete; it is rewritten whole (atomically) each time, never half a line. A
// folder removed or replaced during the run (its files gone with it) stops the run at the next
// row: frames.csv never lists frames whose files are not there.
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
  ~FrameIndex();
  FrameIndex(const FrameIndex&) = delete;
  FrameIndex& operator=(const FrameIndex&) = delete;

  /// Adds the row of frame k at simulated time t (s); silt::Error naming frames.csv when the
  /// folder is no longer the one the run started in (removed, or removed and made again).
  void add(long k, double t);
  const std::string& path() const { return path_; }
  /// (frame, time) of every row, in order.
  const std::vector<std::pair<long, double>>& rows() const { return rows_; }

 private:
  void start(long keep_below);

  std::string dir_;
  std::string path_;
  std::string text_;
  // The folder the run began in, held open: its inode cannot be reused by a folder made again
  // under the same name while this holds it.
  int dir_fd_ = -1;
  std::vector<std::pair<long, double>> rows_;
};

}  // namespace silt::io
