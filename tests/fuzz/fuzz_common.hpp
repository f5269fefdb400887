// Shared by the libFuzzer targets (docs/fuzzing.md): the input as text, a small memory limit so
// that sizes a fuzzed file claims are refused quickly, and the rule every target checks: a reader
// either returns or throws silt::Error. Anything else (another exception, a crash, a sanitizer
// report, a hang or an allocation past -rss_limit_mb) is a finding.
#pragma once

#include <stdlib.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "silt/core/error.hpp"

namespace silt::fuzz {

/// 64 MiB: what the readers may think the machine has, so a fuzzed size is refused fast.
inline void limit_memory() {
  ::setenv("SILT_MEMORY_LIMIT", "67108864", 1);
}

inline std::string text(const std::uint8_t* data, std::size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

/// Runs fn; a silt::Error is the expected way to refuse input.
template <class Fn>
int refuse_or_accept(Fn fn) {
  try {
    fn();
  } catch (const Error&) {
  }
  return 0;
}

}  // namespace silt::fuzz
