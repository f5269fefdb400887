// Room for a file before a library that fails badly on a full disk writes it: HDF5 (under
// NetCDF) reports a full disk as "NetCDF: HDF error" and then loops or crashes closing the library
// at exit; libtiff says only "IO error writing tag data". Checking the room first turns the
// common case into one message naming the file and "no space left"; a failed write afterwards is
// still explained the same way when the disk turns out to be full.
#pragma once

#include <cstdint>
#include <string>

namespace silt::io {

/// Throws silt::Error "cannot write '<shown>': no space left on device (N free, up to M needed)"
/// when the file system of path has less than `bytes` available, or "... larger than the file
/// size limit" when RLIMIT_FSIZE is below it. shown: the name the user knows (path when empty).
void require_room(const std::string& path, std::uintmax_t bytes, const std::string& shown = "");
/// "no space left on device (N bytes free)" when path's file system is (nearly) full, else "".
std::string full_disk_reason(const std::string& path);

}  // namespace silt::io
