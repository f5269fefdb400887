#include "silt/io/image/report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "silt/io/image/text.hpp"

namespace silt::io {

namespace {

constexpr int kFont = 12;     // tick labels, px per em
constexpr int kBottom = 34;   // south margin: tick labels and the units' caption, px
constexpr int kTickPx = 120;  // about one tick every this many pixels
constexpr int kTick = 5;      // tick length, px
constexpr std::array<std::uint8_t, 3> kInk{20, 20, 20};

// The smallest 1, 2 or 5 x 10^k at least `v` (> 0).
double nice_step(double v) {
  const double p = std::pow(10.0, std::floor(std::log10(v)));
  for (const double f : {1.0, 2.0, 5.0})
    if (f * p >= v) return f * p;
  return 10.0 * p;
}

// The coordinate as its tick label: as many decimals as the step needs, no exponent.
std::string label(double v, double step) {
  const int decimals = std::max(0, -int(std::floor(std::log10(step) + 1e-9)));
  return fmt::format("{:.{}f}", std::abs(v) < 0.5 * step * 1e-6 ? 0.0 : v, decimals);
}

// The multiples of step within [lo, hi].
std::vector<double> ticks(double lo, double hi, double step) {
  std::vector<double> t;
  for (double k = std::ceil(lo / step - 1e-9); k * step <= hi + 1e-9 * step; k += 1.0)
    t.push_back(k * step);
  return t;
}

struct Canvas {
  PngImage& im;
  void set(int x, int y, std::array<std::uint8_t, 3> c) const {
    if (x < 0 || y < 0 || x >= im.width || y >= im.height) return;
    std::uint8_t* p = &im.rgba[(std::size_t(y) * im.width + x) * 4];
    p[0] = c[0];
    p[1] = c[1];
    p[2] = c[2];
    p[3] = 255;
  }
  void rect(int x0, int y0, int x1, int y1, std::array<std::uint8_t, 3> c) const {
    for (int y = y0; y < y1; ++y)
      for (int x = x0; x < x1; ++x) set(x, y, c);
  }
  void text(int x, int y, const std::string& s) const {
    draw_text(im.rgba.data(), im.width, im.height, 4, x, y, s, kInk, kFont);
  }
};

// A north arrow in a white box whose top-right corner is (right, top): a black triangle pointing
// up (grid north) over an "N".
void north_arrow(const Canvas& c, int right, int top) {
  const int x0 = right - kArrowBox, y0 = top;
  c.rect(x0, y0, right, y0 + kArrowBox + 12, {255, 255, 255});
  const int cx = x0 + kArrowBox / 2, tip = y0 + 4, base = y0 + kArrowBox - 8;
  for (int y = tip; y <= base; ++y) {
    const int half = (y - tip) * (kArrowBox / 2 - 6) / std::max(1, base - tip);
    for (int x = cx - half; x <= cx + half; ++x) c.set(x, y, kInk);
  }
  c.text(cx - text_width("N", kFont + 2) / 2, y0 + kArrowBox + 8, "N");
}

}  // namespace

PngImage framed_map(const PngImage& map, const MapPlacement& at, int* margin_left) {
  const double upp = at.units_per_pixel;
  const double x1 = at.x0 + map.width * upp, y1 = at.y0 + map.height * upp;
  const double step = nice_step(kTickPx * upp);
  const std::vector<double> tx = ticks(at.x0, x1, step), ty = ticks(at.y0, y1, step);
  int label_w = 0;
  for (double y : ty) label_w = std::max(label_w, text_width(label(y, step), kFont));
  const int left = label_w + kTick + 8;
  PngImage out;
  out.width = left + map.width + kFrameRight;
  out.height = kFrameTop + map.height + kBottom;
  out.rgba.assign(std::size_t(out.width) * out.height * 4, 255);
  for (int y = 0; y < map.height; ++y)
    std::copy_n(&map.rgba[std::size_t(y) * map.width * 4], std::size_t(map.width) * 4,
                &out.rgba[(std::size_t(y + kFrameTop) * out.width + left) * 4]);
  const Canvas c{out};
  const int bottom = kFrameTop + map.height;  // first row below the map
  // The border, then the ticks outward with their coordinates.
  c.rect(left - 1, kFrameTop - 1, left + map.width + 1, kFrameTop, kInk);
  c.rect(left - 1, bottom, left + map.width + 1, bottom + 1, kInk);
  c.rect(left - 1, kFrameTop - 1, left, bottom + 1, kInk);
  c.rect(left + map.width, kFrameTop - 1, left + map.width + 1, bottom + 1, kInk);
  int last_right = -1000;
  for (double x : tx) {
    const int px = left + int(std::lround((x - at.x0) / upp));
    c.rect(px, bottom + 1, px + 1, bottom + 1 + kTick, kInk);
    const std::string s = label(x, step);
    const int w = text_width(s, kFont), lx = std::clamp(px - w / 2, 0, out.width - w);
    if (lx > last_right + 6) {
      c.text(lx, bottom + kTick + 13, s);
      last_right = lx + w;
    }
  }
  for (double y : ty) {
    const int py = bottom - 1 - int(std::lround((y - at.y0) / upp));
    c.rect(left - 1 - kTick, py, left - 1, py + 1, kInk);
    const std::string s = label(y, step);
    c.text(left - kTick - 4 - text_width(s, kFont), py + kFont / 2 - 1, s);
  }
  c.text(2, out.height - 4, at.units);
  north_arrow(c, left + map.width - 6, kFrameTop + 6);
  if (margin_left) *margin_left = left;
  return out;
}

}  // namespace silt::io
