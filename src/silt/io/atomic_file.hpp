// Output files that are either complete or absent: each file is written under a temporary name in
// the same folder and renamed over the final name (rename is atomic within a file system), so a
// crash or a full disk mid-write never leaves a half-written raster and never damages outputs
// written earlier.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace silt::io {

/// Creates dir (and parents) and checks that a file can be written there; the Error names the
/// folder and the system's reason.
void prepare_output_dir(const std::string& dir);

/// Calls write(tmp) to produce the file under a temporary name next to path, then renames it to
/// path. On failure the temporary file is removed and the error is rethrown; path is untouched.
void write_atomically(const std::string& path,
                      const std::function<void(const std::string&)>& write);

/// Writes text to path atomically.
void write_text_atomically(const std::string& path, const std::string& text);
/// Writes the pieces one after another to path atomically (no joined copy of large pieces).
void write_pieces_atomically(const std::string& path, const std::vector<std::string_view>& pieces);

/// Removes the files of a frame that failed part-way, so that a frame is complete or absent (best
/// effort: errors are ignored, the caller is already reporting one).
void remove_files(const std::vector<std::string>& paths) noexcept;

}  // namespace silt::io
