// Files silt reads (scenes, rasters, CSV series, meshes, checkpoints) must be regular files: a FIFO
// with no writer blocks the open or the first read for ever, and a device (/dev/zero, a terminal)
// never ends. Every reader opens its input here, or checks it here before a library opens it: the
// file is opened without blocking and checked on the open descriptor (a file swapped between a
// check and an open cannot slip through), and anything but a regular file is refused before one
// byte is read, with the file and what it was read for named.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

namespace silt::io {

/// Why `path` cannot be read as an input file (the system's reason, "No such file or directory",
/// "File name too long", ..., or "it is a FIFO (named pipe); ..."), or "" when it is a regular
/// file that opens for reading.
std::string input_file_problem(const std::string& path);

/// Throws Error("cannot read <what> '<path>': <problem>") unless input_file_problem(path) is "".
/// For files that another library (GDAL, an istream) opens afterwards.
void require_input_file(const std::string& path, const std::string& what);

/// An open regular file, read with stdio; closed on destruction.
class InputFile {
 public:
  /// Opens `path` or throws Error naming `what` and the path (missing, not a regular file,
  /// unreadable).
  InputFile(const std::string& path, const std::string& what);
  ~InputFile();
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;

  std::FILE* get() const { return f_; }
  /// Bytes in the file when it was opened.
  std::uint64_t size() const { return size_; }

 private:
  std::FILE* f_ = nullptr;
  std::uint64_t size_ = 0;
};

}  // namespace silt::io
