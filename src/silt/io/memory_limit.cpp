#include "silt/io/memory_limit.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>

#include "silt/core/error.hpp"

namespace silt::io {

namespace {

// SILT_MEMORY_LIMIT in bytes (> 0), or 0 when unset or not a positive number.
double env_limit() {
  const char* v = std::getenv("SILT_MEMORY_LIMIT");
  if (!v || !*v) return 0.0;
  char* end = nullptr;
  const double b = std::strtod(v, &end);
  return end && *end == '\0' && std::isfinite(b) && b > 0 ? b : 0.0;
}

double physical_memory() {
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page <= 0) return 0.0;
  return double(pages) * double(page);
}

}  // namespace

std::string human_bytes(double b) {
  const char* unit[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  int u = 0;
  while (b >= 1024.0 && u < 6) {
    b /= 1024.0;
    ++u;
  }
  return u == 6 && b >= 1024.0 ? "more than 1024 EiB" : fmt::format("{:.1f} {}", b, unit[u]);
}

double memory_limit_bytes() {
  const double e = env_limit();
  if (e > 0) return e;
  const double p = physical_memory();
  // A system that does not say: no bound from here (the allocation itself may still fail).
  return p > 0 ? p : INFINITY;
}

std::string memory_limit_text() {
  const double e = env_limit();
  if (e > 0) return fmt::format("SILT_MEMORY_LIMIT = {}", human_bytes(e));
  return fmt::format("the {} of memory this machine has", human_bytes(physical_memory()));
}

bool fits_in_memory(double count, double bytes_per_item) {
  const double bytes = count * bytes_per_item;
  return std::isfinite(bytes) && bytes <= memory_limit_bytes();
}

std::string memory_text(double count, double bytes_per_item) {
  const double bytes = count * bytes_per_item;
  return fmt::format("would take {} (about {} B each), {} {}",
                     std::isfinite(bytes) ? human_bytes(bytes) : "unbounded memory", bytes_per_item,
                     fits_in_memory(count, bytes_per_item) ? "within" : "more than",
                     memory_limit_text());
}

}  // namespace silt::io
