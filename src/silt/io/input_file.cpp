#include "silt/io/input_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "silt/core/error.hpp"

namespace silt::io {

namespace {

// "" for a regular file, else what it is instead.
std::string kind_problem(mode_t mode) {
  if (S_ISREG(mode)) return "";
  const char* kind = S_ISDIR(mode)    ? "a directory"
                     : S_ISFIFO(mode) ? "a FIFO (named pipe)"
                     : S_ISCHR(mode)  ? "a character device"
                     : S_ISBLK(mode)  ? "a block device"
                     : S_ISSOCK(mode) ? "a socket"
                                      : "not a regular file";
  return fmt::format("it is {}; silt reads regular files only", kind);
}

// The system's reason ("No such file or directory", "File name too long", "Permission denied").
std::string errno_problem(int err) {
  return std::strerror(err);
}

// Opens path without blocking (a FIFO with no writer would block the open itself) and checks what
// the descriptor is; -1 with *problem set when it is not a regular file that opens.
int open_regular(const std::string& path, std::string* problem, struct stat* st) {
  // stat first, so that a device is not even opened (opening some has effects); the descriptor is
  // checked again below, which is what counts.
  if (::stat(path.c_str(), st) != 0) {
    *problem = errno_problem(errno);
    return -1;
  }
  if (!(*problem = kind_problem(st->st_mode)).empty()) return -1;
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) {
    *problem = errno_problem(errno);
    return -1;
  }
  if (::fstat(fd, st) != 0) {
    *problem = std::strerror(errno);
    ::close(fd);
    return -1;
  }
  if (!(*problem = kind_problem(st->st_mode)).empty()) {
    ::close(fd);
    return -1;
  }
  // Back to blocking reads (no effect on a regular file; said anyway).
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags >= 0) ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  return fd;
}

}  // namespace

std::string input_file_problem(const std::string& path) {
  if (path.empty()) return "the file name is empty";
  std::string problem;
  struct stat st {};
  const int fd = open_regular(path, &problem, &st);
  if (fd >= 0) ::close(fd);
  return problem;
}

void require_input_file(const std::string& path, const std::string& what) {
  const std::string problem = input_file_problem(path);
  if (!problem.empty()) throw Error(fmt::format("cannot read {} '{}': {}", what, path, problem));
}

InputFile::InputFile(const std::string& path, const std::string& what) {
  std::string problem = path.empty() ? "the file name is empty" : "";
  struct stat st {};
  const int fd = problem.empty() ? open_regular(path, &problem, &st) : -1;
  if (fd < 0) throw Error(fmt::format("cannot read {} '{}': {}", what, path, problem));
  f_ = ::fdopen(fd, "rb");
  if (!f_) {
    const int err = errno;
    ::close(fd);
    throw Error(fmt::format("cannot read {} '{}': {}", what, path, std::strerror(err)));
  }
  size_ = std::uint64_t(st.st_size);
}

InputFile::~InputFile() {
  if (f_) std::fclose(f_);
}

}  // namespace silt::io
