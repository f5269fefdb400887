#include "silt/core/error.hpp"

#include <fmt/format.h>

namespace silt::detail {

void throw_require(const char* cond, const char* file, int line, const std::string& msg) {
  (void)cond;
  (void)file;
  (void)line;
  throw Error(msg);
}

void throw_cuda(int code, const char* what, const char* expr, const char* file, int line) {
  throw Error(fmt::format("CUDA error {} ({}) in {} at {}:{}", code, what, expr, file, line));
}

}  // namespace silt::detail
