#include "silt/io/particles/file.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

#include "silt/core/error.hpp"

namespace silt::io {

AtomicFile::AtomicFile(const std::string& path)
    : path_(path), tmp_(fmt::format("{}.tmp{}", path, static_cast<long>(::getpid()))) {
  f_ = std::fopen(tmp_.c_str(), "wb");
  SILT_REQUIRE(f_ != nullptr, fmt::format("cannot write '{}': {}", path_, std::strerror(errno)));
}

AtomicFile::~AtomicFile() {
  if (f_) {
    std::fclose(f_);
    std::remove(tmp_.c_str());
  }
}

void AtomicFile::write(const void* data, std::size_t bytes) {
  SILT_REQUIRE(f_ != nullptr, fmt::format("'{}' is already committed", path_));
  if (bytes == 0) return;
  SILT_REQUIRE(std::fwrite(data, 1, bytes, f_) == bytes,
               fmt::format("writing '{}' failed: {}", path_, std::strerror(errno)));
}

void AtomicFile::commit() {
  SILT_REQUIRE(f_ != nullptr, fmt::format("'{}' is already committed", path_));
  bool ok = std::fflush(f_) == 0 && !std::ferror(f_);
  int err = errno;
  // The close is checked too: a file system may report a failed write only there.
  if (std::fclose(f_) != 0 && ok) {
    ok = false;
    err = errno;
  }
  f_ = nullptr;
  if (!ok) std::remove(tmp_.c_str());
  SILT_REQUIRE(ok, fmt::format("writing '{}' failed: {}", path_, std::strerror(err)));
  // rename() replaces the target atomically on POSIX file systems.
  if (std::rename(tmp_.c_str(), path_.c_str()) != 0) {
    const int e = errno;
    std::remove(tmp_.c_str());
    throw Error(fmt::format("cannot move '{}' onto '{}': {}", tmp_, path_, std::strerror(e)));
  }
}

void check_frame(const mpm::ParticleFrame& f, const std::string& path) {
  const std::size_t n = f.count();
  SILT_REQUIRE(f.position.size() == 3 * n && f.velocity.size() == 3 * n,
               fmt::format("'{}': particle frame has {} materials but {} position and {} velocity "
                           "values (3 per particle expected)",
                           path, n, f.position.size(), f.velocity.size()));
  SILT_REQUIRE(f.stress.empty() || f.stress.size() == 9 * n,
               fmt::format("'{}': particle frame has {} stress values for {} particles (9 each "
                           "expected)",
                           path, f.stress.size(), n));
  SILT_REQUIRE(
      f.id.empty() || f.id.size() == n,
      fmt::format("'{}': particle frame has {} ids for {} particles", path, f.id.size(), n));
  SILT_REQUIRE(f.plastic.empty() || f.plastic.size() == n,
               fmt::format("'{}': particle frame has {} plastic values for {} particles", path,
                           f.plastic.size(), n));
}

}  // namespace silt::io
