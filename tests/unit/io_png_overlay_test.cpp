// Features drawn over a map (io/image/overlay.hpp): a line's pixels take its kind's colour over a
// white halo, and nothing else changes; a polygon is closed; a point is a square; what lies off
// the map is clipped; a label is drawn beside the line's middle when text is available.
#include "silt/io/image/overlay.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <string>

#include "silt/io/image/text.hpp"

namespace silt::io {
namespace {

// A 100 x 80 px map in grey, 2 map units a pixel from (1000, 500): pixel (x, y) is the map's
// (1000 + 2 x, 660 - 2 y) at its top-left corner.
PngImage grey_map() {
  PngImage m;
  m.width = 100;
  m.height = 80;
  m.rgba.assign(size_t(m.width * m.height) * 4, 128);
  return m;
}

std::array<std::uint8_t, 3> at(const PngImage& m, int x, int y) {
  const std::uint8_t* p = &m.rgba[(size_t(y) * size_t(m.width) + size_t(x)) * 4];
  return {p[0], p[1], p[2]};
}

const MapPlacement kAt{1000, 500, 2.0, "m"};
constexpr std::array<std::uint8_t, 3> kGrey{128, 128, 128}, kWhite{255, 255, 255};

TEST(IoPngOverlay, ALineColoursItsPixelsAndNothingElse) {
  PngImage m = grey_map();
  // From x = 1040 to 1120 m at y = 580 m: pixels 20..60 along row 40 (y = 660 - 80).
  draw_features(m, kAt, {MapFeature{FeatureKind::section, "", {{1040, 580}, {1120, 580}}, false}});
  const auto c = feature_colour(FeatureKind::section);
  for (int x = 20; x <= 59; ++x) {
    EXPECT_EQ(at(m, x, 40), c) << x;
    EXPECT_EQ(at(m, x, 39), c) << x;
    EXPECT_EQ(at(m, x, 42), kWhite) << "the halo below, " << x;
  }
  int changed = 0;
  for (int y = 0; y < m.height; ++y)
    for (int x = 0; x < m.width; ++x) {
      const bool near = x >= 17 && x <= 62 && y >= 37 && y <= 42;
      if (at(m, x, y) != kGrey) {
        ++changed;
        EXPECT_TRUE(near) << "pixel (" << x << ", " << y << ") changed, far from the line";
      }
    }
  EXPECT_GT(changed, 4 * 40);
}

TEST(IoPngOverlay, PolygonsCloseLinesClipPointsAreSquares) {
  PngImage m = grey_map();
  const MapFeature area{FeatureKind::inflow, "", {{1020, 640}, {1060, 640}, {1060, 600}}, true};
  const MapFeature off{FeatureKind::boundary, "", {{1180, 520}, {1400, 520}}, false};
  const MapFeature tap{FeatureKind::inflow, "", {{1101, 541}}, false};
  draw_features(m, kAt, {area, off, tap});
  const auto green = feature_colour(FeatureKind::inflow);
  // The triangle's pixels (10, 10), (30, 10), (30, 30); its closing edge from (30, 30) back to
  // (10, 10).
  EXPECT_EQ(at(m, 15, 15), green);
  EXPECT_EQ(at(m, 20, 10), green);  // its first edge, along row 10
  EXPECT_EQ(at(m, 25, 15), kGrey);  // inside the triangle, off its edges
  // The boundary runs off the east side from pixel 90 on row 70: drawn up to the edge.
  EXPECT_EQ(at(m, 99, 70), feature_colour(FeatureKind::boundary));
  EXPECT_EQ(at(m, 85, 70), kGrey);
  // The point source: a square around pixel (50, 59).
  EXPECT_EQ(at(m, 50, 59), green);
  EXPECT_EQ(at(m, 53, 62), green);
  EXPECT_EQ(at(m, 50, 66), kGrey);
}

TEST(IoPngOverlay, ALabelBesideTheLinesMiddle) {
  if (!text_available()) GTEST_SKIP() << "no FreeType or font in this build";
  PngImage m = grey_map();
  draw_features(m, kAt,
                {MapFeature{FeatureKind::boundary, "inlet", {{1020, 520}, {1020, 620}}, false}});
  // The line's middle is pixel (10, 45): the label's white box right of and above it, with
  // pixels of the boundary's colour (or its anti-aliased blends) in it.
  int white = 0, ink = 0;
  for (int y = 26; y < 44; ++y)
    for (int x = 16; x < 60; ++x) {
      const auto p = at(m, x, y);
      white += p == kWhite;
      ink += p[1] < 200 && p[0] > p[1] + 40;  // magenta-ish
    }
  EXPECT_GT(white, 100);
  EXPECT_GT(ink, 10);
}

}  // namespace
}  // namespace silt::io
