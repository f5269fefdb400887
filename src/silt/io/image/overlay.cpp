// Features over a map (io/image/overlay.hpp): lines stamped with a disc every half pixel along
// their segments, first the white halo of every feature, then their colours, then the labels.
#include "silt/io/image/overlay.hpp"

#include <algorithm>
#include <cmath>

#include "silt/io/image/text.hpp"

namespace silt::io {

namespace {

constexpr int kLabelFont = 12;  // px per em
constexpr std::array<std::uint8_t, 3> kWhite{255, 255, 255};

using Px = std::array<double, 2>;

struct Painter {
  PngImage& im;
  void set(int x, int y, std::array<std::uint8_t, 3> c) const {
    if (x < 0 || y < 0 || x >= im.width || y >= im.height) return;
    std::uint8_t* p = &im.rgba[(std::size_t(y) * std::size_t(im.width) + std::size_t(x)) * 4];
    p[0] = c[0];
    p[1] = c[1];
    p[2] = c[2];
    p[3] = 255;
  }
  // The pixels whose centres lie within r of p.
  void disc(Px p, double r, std::array<std::uint8_t, 3> c) const {
    for (int y = int(std::floor(p[1] - r)); y <= int(std::ceil(p[1] + r)); ++y)
      for (int x = int(std::floor(p[0] - r)); x <= int(std::ceil(p[0] + r)); ++x) {
        const double dx = x + 0.5 - p[0], dy = y + 0.5 - p[1];
        if (dx * dx + dy * dy <= r * r) set(x, y, c);
      }
  }
  void segment(Px a, Px b, double r, std::array<std::uint8_t, 3> c) const {
    const double len = std::hypot(b[0] - a[0], b[1] - a[1]);
    const int n = std::max(1, int(std::ceil(len * 2.0)));
    for (int k = 0; k <= n; ++k)
      disc(Px{a[0] + (b[0] - a[0]) * k / n, a[1] + (b[1] - a[1]) * k / n}, r, c);
  }
  void square(Px p, int half, std::array<std::uint8_t, 3> c) const {
    const int cx = int(std::floor(p[0])), cy = int(std::floor(p[1]));
    for (int y = cy - half; y <= cy + half; ++y)
      for (int x = cx - half; x <= cx + half; ++x) set(x, y, c);
  }
};

// The feature's points in pixels (x east, y down from the top row), closed polygons closed.
std::vector<Px> pixels(const MapFeature& f, const MapPlacement& at, int height) {
  std::vector<Px> out;
  for (const auto& p : f.points)
    out.push_back(Px{(p[0] - at.x0) / at.units_per_pixel,
                     double(height) - (p[1] - at.y0) / at.units_per_pixel});
  if (f.closed && out.size() > 2 && out.front() != out.back()) out.push_back(out.front());
  return out;
}

void stroke(const Painter& p, const std::vector<Px>& pts, double r, std::array<std::uint8_t, 3> c) {
  if (pts.size() == 1) p.square(pts[0], int(r) + 2, c);
  for (size_t k = 1; k < pts.size(); ++k) p.segment(pts[k - 1], pts[k], r, c);
}

// Where the label goes: a polyline's middle (half its length along it), a polygon's mean point.
Px anchor(const MapFeature& f, const std::vector<Px>& pts) {
  if (f.closed || pts.size() == 1) {
    Px m{0, 0};
    const size_t n = f.closed && pts.size() > 1 ? pts.size() - 1 : pts.size();
    for (size_t k = 0; k < n; ++k) m = Px{m[0] + pts[k][0] / n, m[1] + pts[k][1] / n};
    return m;
  }
  double total = 0;
  for (size_t k = 1; k < pts.size(); ++k)
    total += std::hypot(pts[k][0] - pts[k - 1][0], pts[k][1] - pts[k - 1][1]);
  double left = 0.5 * total;
  for (size_t k = 1; k < pts.size(); ++k) {
    const double l = std::hypot(pts[k][0] - pts[k - 1][0], pts[k][1] - pts[k - 1][1]);
    if (l >= left && l > 0) {
      const double t = left / l;
      return Px{pts[k - 1][0] + t * (pts[k][0] - pts[k - 1][0]),
                pts[k - 1][1] + t * (pts[k][1] - pts[k - 1][1])};
    }
    left -= l;
  }
  return pts.back();
}

void label(PngImage& im, Px at, const std::string& name, std::array<std::uint8_t, 3> c) {
  const int w = text_width(name, kLabelFont);
  if (name.empty() || w == 0) return;
  const int h = kLabelFont + 4;
  const int x = std::clamp(int(at[0]) + 6, 0, std::max(0, im.width - w - 4));
  const int y = std::clamp(int(at[1]) - 6 - h, 0, std::max(0, im.height - h));
  const Painter p{im};
  for (int yy = y; yy < y + h; ++yy)
    for (int xx = x; xx < x + w + 4; ++xx) p.set(xx, yy, kWhite);
  draw_text(im.rgba.data(), im.width, im.height, 4, x + 2, y + h - 4, name, c, kLabelFont);
}

}  // namespace

std::array<std::uint8_t, 3> feature_colour(FeatureKind kind) {
  switch (kind) {
    case FeatureKind::boundary:
      return {220, 0, 220};
    case FeatureKind::inflow:
      return {0, 170, 0};
    default:
      return {20, 20, 20};
  }
}

void draw_features(PngImage& map, const MapPlacement& at, const std::vector<MapFeature>& features) {
  const Painter p{map};
  std::vector<std::vector<Px>> pts;
  for (const MapFeature& f : features) pts.push_back(pixels(f, at, map.height));
  for (const auto& q : pts) stroke(p, q, 2.5, kWhite);
  for (size_t k = 0; k < features.size(); ++k)
    stroke(p, pts[k], 1.5, feature_colour(features[k].kind));
  for (size_t k = 0; k < features.size(); ++k)
    if (!pts[k].empty())
      label(map, anchor(features[k], pts[k]), features[k].name, feature_colour(features[k].kind));
}

}  // namespace silt::io
