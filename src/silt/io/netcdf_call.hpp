// What every netCDF-C writer of io shares: a file handle closed on every path out, and the check
// of a call's status whose error names the file, the step and a full disk. Included only by
// units built with netCDF-C (SILT_WITH_NETCDF).
#pragma once

#include <fmt/format.h>
#include <netcdf.h>

#include <string>

#include "silt/core/error.hpp"
#include "silt/io/disk_space.hpp"

namespace silt::io::detail {

struct NcHandle {
  int id = -1;
  ~NcHandle() {
    if (id >= 0) nc_close(id);
  }
};

inline void check(int status, const std::string& path, const std::string& what) {
  if (status != NC_NOERR) {
    const std::string full = full_disk_reason(path);
    throw Error(fmt::format("cannot write '{}': {}: {}{}", path, what, nc_strerror(status),
                            full.empty() ? "" : " (" + full + ")"));
  }
}

}  // namespace silt::io::detail
