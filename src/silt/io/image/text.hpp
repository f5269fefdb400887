// Text on the PNG outputs (colour bars, times, legends) through FreeType with DejaVu Sans
// (Debian's libfreetype-dev and fonts-dejavu-core; SILT_FONT names another font file). A build
// without FreeType, or a machine without the font, writes its PNGs without text.
#pragma once

#include <array>
#include <cstdint>
#include <string>

namespace silt::io {

/// True when text can be drawn (FreeType built in and the font found).
bool text_available();

/// Draws `text` with the left end of its baseline at (x, y), `size` pixels per em, in `rgb`, into
/// an image of `channels` (3 or 4) bytes per pixel, rows top first; clipped to the image.
/// Returns the advance in pixels (0 when text is not available).
int draw_text(std::uint8_t* pixels, int width, int height, int channels, int x, int y,
              const std::string& text, std::array<std::uint8_t, 3> rgb, int size);

/// The advance of `text` in pixels at `size` (0 when text is not available).
int text_width(const std::string& text, int size);

}  // namespace silt::io
