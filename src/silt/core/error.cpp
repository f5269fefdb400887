#include "silt/core/error.hpp"

#include <fmt/format.h>

namespace silt {

std::string excerpt(std::string_view text, std::size_t max_chars) {
  std::string out;
  std::size_t shown = 0;
  for (const char ch : text) {
    if (shown == max_chars) return out + "...";
    const auto c = static_cast<unsigned char>(ch);
    if (c >= 0x20 && c < 0x7f && c != '\\')
      out += ch;
    else
      out += fmt::format("\\x{:02X}", c);
    ++shown;
  }
  return out;
}

}  // namespace silt

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
