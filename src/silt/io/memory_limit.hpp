// Sizes from scene files are bounded before anything is allocated: a count (grid cells, raster
// cells, particles, output times) times the bytes each item takes must fit in the machine's memory,
// else the loader throws an Error that names the key, the value, the memory it would take and the
// memory there is. `silt validate` and `silt run` load scenes alike, so both refuse the same scenes.
//
// The memory is the machine's physical memory (sysconf), or SILT_MEMORY_LIMIT (bytes, e.g. 8e9)
// when set: for shared machines and for tests.
#pragma once

#include <string>

namespace silt::io {

/// Bytes of memory a scene may use: SILT_MEMORY_LIMIT when set, else the physical memory.
double memory_limit_bytes();
/// "where the limit comes from" for messages: "this machine has 31.2 GiB of memory" or
/// "SILT_MEMORY_LIMIT is 1.0 GiB".
std::string memory_limit_text();
/// "1.5 GiB".
std::string human_bytes(double bytes);

/// True when count items of bytes_per_item fit in memory_limit_bytes() (false for a count that is
/// not finite).
bool fits_in_memory(double count, double bytes_per_item);
/// The end of the message: "would take 149.0 GiB (about 100 B each), more than the 31.2 GiB of
/// memory this machine has" ("within" when it fits). The caller names the file, key and value.
std::string memory_text(double count, double bytes_per_item);

}  // namespace silt::io
