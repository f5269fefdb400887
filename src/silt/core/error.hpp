// Errors: host-side failures are exceptions (silt::Error) whose message names the file, key, cell
// or particle and step; the library never calls exit(). Device-side faults are recorded in a small
// flag block on the device (see fault.hpp) and turned into an Error by the host once per frame.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>

namespace silt {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& what) : std::runtime_error(what) {}
};

/// File content quoted in a message: at most max_chars characters, bytes outside printable ASCII
/// as \xNN, "..." when cut, so a binary file never floods a message or a terminal.
std::string excerpt(std::string_view text, std::size_t max_chars = 40);

namespace detail {
[[noreturn]] void throw_require(const char* cond, const char* file, int line,
                                const std::string& msg);
[[noreturn]] void throw_cuda(int code, const char* what, const char* expr, const char* file,
                             int line);
}  // namespace detail

}  // namespace silt

/// Throws silt::Error(msg) when cond is false. msg is a std::string built by the caller (with
/// fmt::format in host code); it is only evaluated on failure.
#define SILT_REQUIRE(cond, msg)                                                 \
  do {                                                                          \
    if (!(cond)) ::silt::detail::throw_require(#cond, __FILE__, __LINE__, msg); \
  } while (0)

#if defined(__CUDACC__)
#include <cuda_runtime.h>
/// Checks a CUDA runtime call and throws silt::Error with the call, file and line on failure.
#define SILT_CUDA_CHECK(expr)                                                                \
  do {                                                                                       \
    cudaError_t silt_err_ = (expr);                                                          \
    if (silt_err_ != cudaSuccess)                                                            \
      ::silt::detail::throw_cuda(static_cast<int>(silt_err_), cudaGetErrorString(silt_err_), \
                                 #expr, __FILE__, __LINE__);                                 \
  } while (0)
#endif
