#include "silt/io/disk_space.hpp"

#include <fmt/format.h>
#include <sys/resource.h>

#include <filesystem>

#include "silt/core/error.hpp"
#include "silt/io/memory_limit.hpp"

namespace silt::io {

namespace {

/// Below this a file system counts as full after a failed write (metadata, a last block).
constexpr std::uintmax_t kNearlyFull = 1u << 20;

std::uintmax_t available(const std::string& path) {
  std::error_code ec;
  std::filesystem::path dir = std::filesystem::path(path).parent_path();
  if (dir.empty()) dir = ".";
  const std::filesystem::space_info s = std::filesystem::space(dir, ec);
  return ec ? UINTMAX_MAX : s.available;
}

}  // namespace

void require_room(const std::string& path, std::uintmax_t bytes, const std::string& shown) {
  const std::string& name = shown.empty() ? path : shown;
  const std::uintmax_t free = available(path);
  if (free < bytes)
    throw Error(fmt::format("cannot write '{}': no space left on device ({} free, up to {} needed)",
                            name, human_bytes(double(free)), human_bytes(double(bytes))));
  struct rlimit lim {};
  if (getrlimit(RLIMIT_FSIZE, &lim) == 0 && lim.rlim_cur != RLIM_INFINITY &&
      std::uintmax_t(lim.rlim_cur) < bytes)
    throw Error(
        fmt::format("cannot write '{}': File too large (up to {} needed, the file size "
                    "limit is {})",
                    name, human_bytes(double(bytes)), human_bytes(double(lim.rlim_cur))));
}

std::string full_disk_reason(const std::string& path) {
  const std::uintmax_t free = available(path);
  if (free >= kNearlyFull) return {};
  return fmt::format("no space left on device ({} free)", human_bytes(double(free)));
}

}  // namespace silt::io
