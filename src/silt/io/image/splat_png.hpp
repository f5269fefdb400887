// PNG files for splat previews, through libpng's simplified API. Builds without libpng
// (SILT_WITH_PNG undefined) keep the function and throw an Error that says so.
#pragma once

#include <string>

#include "silt/io/image/splat_render.hpp"

namespace silt::io {

/// True when this build writes PNG previews (libpng found at configure time).
bool png_previews_available();

/// Writes an 8-bit RGB PNG atomically (temporary name, then rename). Errors name the path.
void write_png(const std::string& path, const SplatImage& image);

}  // namespace silt::io
