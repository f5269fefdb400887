// Helpers for the io tests: a scratch folder per test program and error-message checks.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "silt/core/error.hpp"

namespace silt::test {

/// A fresh folder under the system temp dir, removed at the end of the program.
inline const std::filesystem::path& scratch() {
  static const std::filesystem::path dir = [] {
    auto d =
        std::filesystem::temp_directory_path() / ("silt_io_test_" + std::to_string(::getpid()));
    std::filesystem::remove_all(d);
    std::filesystem::create_directories(d);
    std::atexit([] {
      std::error_code ec;
      std::filesystem::remove_all(
          std::filesystem::temp_directory_path() / ("silt_io_test_" + std::to_string(::getpid())),
          ec);
    });
    return d;
  }();
  return dir;
}

inline std::string write_file(const std::string& name, const std::string& text) {
  const auto p = scratch() / name;
  std::filesystem::create_directories(p.parent_path());
  std::ofstream(p) << text;
  return p.string();
}

inline std::string read_file(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

/// Passes when fn throws silt::Error whose message contains every one of `parts`.
inline ::testing::AssertionResult throws_with(const std::function<void()>& fn,
                                              const std::vector<std::string>& parts) {
  try {
    fn();
  } catch (const Error& e) {
    const std::string msg = e.what();
    if (std::getenv("SILT_SHOW_ERRORS")) std::printf("  error: %s\n", msg.c_str());
    for (const auto& p : parts)
      if (msg.find(p) == std::string::npos)
        return ::testing::AssertionFailure() << "message lacks \"" << p << "\": " << msg;
    return ::testing::AssertionSuccess() << msg;
  }
  return ::testing::AssertionFailure() << "no silt::Error thrown";
}

}  // namespace silt::test
