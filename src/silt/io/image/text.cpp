#include "silt/io/image/text.hpp"

#include <algorithm>
#include <cstdlib>
#include <mutex>

#ifdef SILT_WITH_FREETYPE
#include <ft2build.h>
#include FT_FREETYPE_H
#endif

namespace silt::io {

#ifdef SILT_WITH_FREETYPE

namespace {

// One face for the process, loaded on first use; FreeType faces are not thread-safe, so every
// use holds the lock (the writer pool's threads draw, nothing else).
struct Font {
  FT_Library lib = nullptr;
  FT_Face face = nullptr;
  std::mutex mutex;
  Font() {
    const char* env = std::getenv("SILT_FONT");
    const char* path = env && *env ? env : "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";
    if (FT_Init_FreeType(&lib) != 0) return;
    if (FT_New_Face(lib, path, 0, &face) != 0) face = nullptr;
  }
  ~Font() {
    if (face) FT_Done_Face(face);
    if (lib) FT_Done_FreeType(lib);
  }
};

Font& font() {
  static Font f;
  return f;
}

// Draws (pixels != nullptr) or measures text; returns the advance.
int render(std::uint8_t* pixels, int width, int height, int channels, int x, int y,
           const std::string& text, std::array<std::uint8_t, 3> rgb, int size) {
  Font& f = font();
  if (!f.face) return 0;
  std::lock_guard<std::mutex> lock(f.mutex);
  FT_Set_Pixel_Sizes(f.face, 0, FT_UInt(size));
  int pen = x;
  for (const unsigned char c : text) {
    if (FT_Load_Char(f.face, c, FT_LOAD_RENDER) != 0) continue;
    const FT_GlyphSlot g = f.face->glyph;
    if (pixels)
      for (unsigned r = 0; r < g->bitmap.rows; ++r)
        for (unsigned q = 0; q < g->bitmap.width; ++q) {
          const int px = pen + g->bitmap_left + int(q), py = y - g->bitmap_top + int(r);
          if (px < 0 || py < 0 || px >= width || py >= height) continue;
          const double a = g->bitmap.buffer[r * unsigned(g->bitmap.pitch) + q] / 255.0;
          std::uint8_t* p = pixels + (std::size_t(py) * std::size_t(width) + std::size_t(px)) *
                                         std::size_t(channels);
          for (int k = 0; k < 3; ++k) p[k] = std::uint8_t((1 - a) * p[k] + a * rgb[k] + 0.5);
          if (channels == 4) p[3] = std::max<std::uint8_t>(p[3], std::uint8_t(255 * a));
        }
    pen += int(g->advance.x >> 6);
  }
  return pen - x;
}

}  // namespace

bool text_available() {
  return font().face != nullptr;
}

int draw_text(std::uint8_t* pixels, int width, int height, int channels, int x, int y,
              const std::string& text, std::array<std::uint8_t, 3> rgb, int size) {
  return render(pixels, width, height, channels, x, y, text, rgb, size);
}

int text_width(const std::string& text, int size) {
  return render(nullptr, 0, 0, 0, 0, 0, text, {0, 0, 0}, size);
}

#else

bool text_available() {
  return false;
}
int draw_text(std::uint8_t*, int, int, int, int, int, const std::string&,
              std::array<std::uint8_t, 3>, int) {
  return 0;
}
int text_width(const std::string&, int) {
  return 0;
}

#endif

}  // namespace silt::io
