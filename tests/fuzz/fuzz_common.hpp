// Shared by the libFuzzer targets (docs/fuzzing.md). fuzz_main.cpp holds libFuzzer's entry points:
// it limits the memory the readers think there is (SILT_MEMORY_LIMIT = 64 MiB, so sizes a fuzzed
// file claims are refused quickly) and passes each input as text to the target's one_input. An
// input passes when one_input returns or throws silt::Error; anything else (another exception, a
// crash, a sanitizer report, a hang, an allocation past -rss_limit_mb) is a finding.
#pragma once

#include <string>

namespace silt::fuzz {

/// Defined by each target: read `text` with one reader and use what it returns.
void one_input(const std::string& text);

}  // namespace silt::fuzz
