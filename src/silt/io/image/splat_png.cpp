#include "silt/io/image/splat_png.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <memory>

#include "silt/core/error.hpp"
#include "silt/io/particles/file.hpp"

#if defined(SILT_WITH_PNG)
#include <png.h>
#endif

namespace silt::io {

#if defined(SILT_WITH_PNG)

bool png_previews_available() {
  return true;
}

void write_png(const std::string& path, const SplatImage& img) {
  SILT_REQUIRE(
      img.width > 0 && img.height > 0 && img.rgb.size() == std::size_t(img.width) * img.height * 3,
      fmt::format("'{}': image {}x{} has {} bytes", path, img.width, img.height, img.rgb.size()));
  png_image pi{};
  pi.version = PNG_IMAGE_VERSION;
  pi.width = static_cast<png_uint_32>(img.width);
  pi.height = static_cast<png_uint_32>(img.height);
  pi.format = PNG_FORMAT_RGB;
  pi.flags = PNG_IMAGE_FLAG_FAST;  // speed over size, as the shallow-water maps (io/image/map.cpp)
  // First call sizes the buffer, the second fills it; no setjmp/longjmp through C++ frames.
  png_alloc_size_t bytes = 0;
  const bool sized = png_image_write_to_memory(&pi, nullptr, &bytes, 0, img.rgb.data(), 0, nullptr);
  SILT_REQUIRE(sized, fmt::format("'{}': libpng: {}", path, pi.message));
  std::string buf(bytes, '\0');
  const bool ok = png_image_write_to_memory(&pi, buf.data(), &bytes, 0, img.rgb.data(), 0, nullptr);
  png_image_free(&pi);
  SILT_REQUIRE(ok, fmt::format("'{}': libpng: {}", path, pi.message));
  buf.resize(bytes);
  AtomicFile file(path);
  file.write(buf);
  file.commit();
}

#else

bool png_previews_available() {
  return false;
}

void write_png(const std::string& path, const SplatImage&) {
  throw Error(
      fmt::format("cannot write '{}': this build of silt has no PNG support (libpng was "
                  "not found at configure time)",
                  path));
}

#endif

}  // namespace silt::io
