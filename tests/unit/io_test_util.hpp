// Helpers for the io tests: a scratch folder per test program (error-message checks are in
// test_support.hpp).
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
#include "test_support.hpp"

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

}  // namespace silt::test
