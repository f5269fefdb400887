// Shared test support: the backend the program was asked to run on, comparison helpers that
// print both values and the index on failure, and error-message checks.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "silt/core/error.hpp"
#include "silt/core/exec.hpp"

namespace silt::test {

/// The Exec chosen by --backend=cpu|cuda (default cpu).
const Exec& exec();
inline bool on_gpu() {
  return exec().is_cuda();
}

/// Relative L2 difference ||a - b|| / max(||b||, tiny).
inline double rel_l2(const std::vector<double>& a, const std::vector<double>& b) {
  double num = 0, den = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    num += (a[i] - b[i]) * (a[i] - b[i]);
    den += b[i] * b[i];
  }
  return std::sqrt(num) / std::max(std::sqrt(den), 1e-300);
}

/// Fails (once, with the first offending index and both values) when |a[i] - b[i]| > tol.
template <class A, class B>
::testing::AssertionResult all_near(const A& a, const B& b, double tol) {
  if (a.size() != b.size())
    return ::testing::AssertionFailure() << "sizes differ: " << a.size() << " vs " << b.size();
  size_t bad = 0, first = a.size();
  double worst = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    const double d = std::abs(double(a[i]) - double(b[i]));
    if (!(d <= tol)) {
      if (first == a.size()) first = i;
      ++bad;
      if (!(d <= worst)) worst = d;
    }
  }
  if (bad == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << bad << " of " << a.size() << " values differ by more than " << tol
         << "; first at index " << first << ": " << a[first] << " vs " << b[first]
         << "; worst difference " << worst;
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

/// The message of the silt::Error fn throws; "(no error)" when it throws none.
inline std::string error_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

/// Runs a shell command and returns its standard output; a non-zero exit fails the test (with the
/// command and what it printed).
inline std::string command_output(const std::string& cmd) {
  std::string out;
  std::FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) {
    ADD_FAILURE() << "cannot run: " << cmd;
    return out;
  }
  char buf[4096];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  const int rc = ::pclose(p);
  EXPECT_EQ(rc, 0) << cmd << "\n" << out;
  return out;
}

}  // namespace silt::test
