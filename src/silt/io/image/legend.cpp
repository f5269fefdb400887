#include "silt/io/image/legend.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "silt/io/image/text.hpp"

namespace silt::io {

namespace {

constexpr int kStrip = 44;      // legend strip height, px
constexpr int kFont = 13;       // text size, px per em
constexpr int kBarWidth = 160;  // colour bar length, px

// A length of 1, 2 or 5 x 10^k m that is at most `max_m`.
double nice_length(double max_m) {
  const double p = std::pow(10.0, std::floor(std::log10(max_m)));
  for (const double f : {5.0, 2.0, 1.0})
    if (f * p <= max_m) return f * p;
  return p;
}

std::string metres(double m) {
  return m >= 1000 ? fmt::format("{:g} km", m / 1000) : fmt::format("{:g} m", m);
}

// The map over a strip of kStrip pixels, the strip light grey.
PngImage with_strip(const PngImage& map) {
  PngImage out;
  out.width = map.width;
  out.height = map.height + kStrip;
  out.rgba.assign(std::size_t(out.width) * out.height * 4, 0);
  std::copy(map.rgba.begin(), map.rgba.end(), out.rgba.begin());
  for (std::size_t p = map.rgba.size(); p < out.rgba.size(); p += 4) {
    out.rgba[p] = out.rgba[p + 1] = out.rgba[p + 2] = 250;
    out.rgba[p + 3] = 255;
  }
  return out;
}

// A 1-2-5 length of at most a quarter of the width, right-aligned in the strip at height y, and
// its length in words left of it.
void scale_bar(PngImage& out, int y, double metres_per_pixel) {
  const double len = nice_length(0.25 * out.width * metres_per_pixel);
  const int len_px = int(std::lround(len / metres_per_pixel));
  const int sx = out.width - 8 - len_px;
  for (int x = sx; x < sx + len_px; ++x)
    for (int q = y; q < y + 3; ++q) {
      std::uint8_t* p = &out.rgba[(std::size_t(q) * out.width + x) * 4];
      p[0] = p[1] = p[2] = 20;
    }
  const std::string l = metres(len);
  draw_text(out.rgba.data(), out.width, out.height, 4, sx - 6 - text_width(l, kFont), y + 6, l,
            {20, 20, 20}, kFont);
}

}  // namespace

PngImage with_class_legend(const PngImage& map, const std::string& title,
                           const std::vector<std::string>& classes,
                           const std::vector<std::array<double, 3>>& colours,
                           double metres_per_pixel) {
  if (map.width < kLegendMinWidth || !text_available()) return map;
  PngImage out = with_strip(map);
  const std::array<std::uint8_t, 3> ink{20, 20, 20};
  const int top = map.height + 6;
  draw_text(out.rgba.data(), out.width, out.height, 4, 8, top + 10, title, ink, kFont);
  // Boxes and names in a row below the title and the scale bar, as far as the width allows.
  int x = 8;
  for (std::size_t k = 0; k < classes.size() && k < colours.size(); ++k) {
    const int w = 12 + 4 + text_width(classes[k], kFont) + 10;
    if (x + w > out.width) break;
    for (int y = top + 15; y < top + 27; ++y)
      for (int q = x; q < x + 12; ++q) {
        std::uint8_t* p = &out.rgba[(std::size_t(y) * out.width + q) * 4];
        for (int c = 0; c < 3; ++c) p[c] = std::uint8_t(std::lround(colours[k][c]));
      }
    draw_text(out.rgba.data(), out.width, out.height, 4, x + 16, top + 26, classes[k], ink, kFont);
    x += w;
  }
  scale_bar(out, top + 4, metres_per_pixel);
  return out;
}

PngImage with_map_legend(const PngImage& map, const std::string& field, const std::string& units,
                         double vmax, ColourRamp ramp, double time, double metres_per_pixel) {
  if (map.width < kLegendMinWidth || !text_available()) return map;
  PngImage out = with_strip(map);
  const auto px = [&](int x, int y) {
    return &out.rgba[(std::size_t(y) * out.width + x) * 4];
  };
  const std::array<std::uint8_t, 3> ink{20, 20, 20};
  const int top = map.height + 6, base = map.height + kStrip - 8;
  // Colour bar: field and units above, 0 and vmax below its ends.
  const int x0 = 8, bar = std::min(kBarWidth, out.width / 2 - 16);
  for (int x = 0; x < bar; ++x) {
    const auto c = ramp_colour(ramp, double(x) / std::max(1, bar - 1));
    for (int y = top + 14; y < top + 22; ++y) {
      std::uint8_t* p = px(x0 + x, y);
      for (int k = 0; k < 3; ++k) p[k] = std::uint8_t(std::lround(c[k]));
    }
  }
  draw_text(out.rgba.data(), out.width, out.height, 4, x0, top + 10,
            units.empty() ? field : fmt::format("{}, {}", field, units), ink, kFont);
  draw_text(out.rgba.data(), out.width, out.height, 4, x0 + bar + 4, top + 22,
            fmt::format("0 - {:g}{}{}", vmax, units.empty() ? "" : " ", units), ink, kFont);
  // Time, right of the bar's labels.
  const std::string t = fmt::format("t = {:.2f} s", time);
  draw_text(out.rgba.data(), out.width, out.height, 4, out.width - 8 - text_width(t, kFont), base,
            t, ink, kFont);
  // Scale bar: at most a quarter of the width, right-aligned above the time.
  scale_bar(out, top + 4, metres_per_pixel);
  return out;
}

void annotate_preview(SplatImage& image, double time, const std::vector<std::string>& names,
                      const std::vector<Rgb>& palette) {
  if (image.width < kLegendMinWidth || !text_available()) return;
  const std::array<std::uint8_t, 3> ink{245, 245, 245};
  int y = 20;
  draw_text(image.rgb.data(), image.width, image.height, 3, 10, y,
            fmt::format("t = {:.3f} s", time), ink, kFont + 1);
  for (std::size_t k = 0; k < names.size() && k < palette.size(); ++k) {
    y += 18;
    if (y >= image.height) break;
    for (int q = y - 10; q < y; ++q)
      for (int x = 10; x < 20; ++x) {
        std::uint8_t* p = &image.rgb[(std::size_t(q) * image.width + x) * 3];
        for (int c = 0; c < 3; ++c) p[c] = palette[k][c];
      }
    draw_text(image.rgb.data(), image.width, image.height, 3, 26, y, names[k], ink, kFont);
  }
}

}  // namespace silt::io
