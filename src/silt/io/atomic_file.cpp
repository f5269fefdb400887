#include "silt/io/atomic_file.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "silt/core/error.hpp"

namespace silt::io {

namespace fs = std::filesystem;

void prepare_output_dir(const std::string& dir) {
  std::error_code ec;
  if (fs::exists(dir, ec) && !fs::is_directory(dir, ec))
    throw Error(fmt::format("output path '{}' exists and is not a directory", dir));
  fs::create_directories(dir, ec);
  if (ec) throw Error(fmt::format("cannot create output directory '{}': {}", dir, ec.message()));
  if (!fs::is_directory(dir, ec))
    throw Error(fmt::format("output path '{}' exists and is not a directory", dir));
  const std::string probe =
      (fs::path(dir) / fmt::format(".silt-write-test-{}", ::getpid())).string();
  std::FILE* f = std::fopen(probe.c_str(), "wb");
  if (!f)
    throw Error(
        fmt::format("output directory '{}' is not writable: {}", dir, std::strerror(errno)));
  std::fclose(f);
  fs::remove(probe, ec);
}

void write_atomically(const std::string& path,
                      const std::function<void(const std::string&)>& write) {
  const fs::path p(path);
  // Hidden, in the same folder (rename must not cross file systems), unique per process.
  const std::string tmp =
      (p.parent_path() / fmt::format(".{}.part{}", p.filename().string(), ::getpid())).string();
  std::error_code ec;
  try {
    write(tmp);
  } catch (const Error& e) {
    fs::remove(tmp, ec);
    // The writer names the file it was given; the user knows the file by its own name.
    std::string msg = e.what();
    for (size_t at = msg.find(tmp); at != std::string::npos; at = msg.find(tmp, at + path.size()))
      msg.replace(at, tmp.size(), path);
    throw Error(msg);
  } catch (...) {
    fs::remove(tmp, ec);
    throw;
  }
  fs::rename(tmp, path, ec);
  if (ec) {
    const std::string why = ec.message();
    fs::remove(tmp, ec);
    throw Error(fmt::format("cannot write '{}': {}", path, why));
  }
}

void write_text_atomically(const std::string& path, const std::string& text) {
  write_pieces_atomically(path, {std::string_view(text)});
}

void write_pieces_atomically(const std::string& path, const std::vector<std::string_view>& pieces) {
  write_atomically(path, [&](const std::string& tmp) {
    std::FILE* f = std::fopen(tmp.c_str(), "wb");
    if (!f) throw Error(fmt::format("cannot write '{}': {}", path, std::strerror(errno)));
    // errno of the call that failed, read right after it: a buffered write fails only at the
    // close (a full disk), and errno read before then was a stale one ("No such file or
    // directory" from an earlier lookup).
    bool written = true;
    int err = 0;
    for (const std::string_view p : pieces)
      if (written && !p.empty() && std::fwrite(p.data(), 1, p.size(), f) != p.size()) {
        err = errno;
        written = false;
      }
    const bool closed = std::fclose(f) == 0;
    if (!closed && err == 0) err = errno;
    if (!closed || !written)
      throw Error(fmt::format("cannot write '{}': {}", path, std::strerror(err ? err : EIO)));
  });
}

void remove_files(const std::vector<std::string>& paths) noexcept {
  std::error_code ec;
  for (const std::string& p : paths) fs::remove(p, ec);
}

}  // namespace silt::io
