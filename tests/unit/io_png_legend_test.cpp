// Text on the PNG outputs: the shallow-water map's legend strip (colour bar, field and units,
// time, scale bar) and the MPM preview's time and material legend. Needs FreeType and DejaVu Sans
// (scripts/install-deps.sh): without them the test fails, it is not skipped.
#include <gtest/gtest.h>

#include <cstdlib>

#include "silt/io/image/legend.hpp"
#include "silt/io/image/report.hpp"
#include "silt/io/image/text.hpp"

namespace silt::io {
namespace {

// Ink is near-black (20, 20, 20) antialiased over the strip's (250, 250, 250).
bool dark(const std::uint8_t* p) {
  return p[0] < 120 && p[1] < 120 && p[2] < 120;
}

PngImage grey_map(int w, int h) {
  PngImage m;
  m.width = w;
  m.height = h;
  m.rgba.assign(std::size_t(w) * h * 4, 128);
  return m;
}

TEST(PngLegend, TextIsAvailable) {
  ASSERT_TRUE(text_available());
}

TEST(PngLegend, MapGetsAStripWithColourBarTextAndScaleBar) {
  const PngImage map = grey_map(400, 300);
  const PngImage out = with_map_legend(map, "depth", "m", 10.0, ColourRamp::blues, 2.4, 0.25);
  ASSERT_EQ(out.width, 400);
  ASSERT_GT(out.height, 300);
  EXPECT_TRUE(std::equal(map.rgba.begin(), map.rgba.end(), out.rgba.begin()));  // map untouched
  const auto px = [&](int x, int y) {
    return &out.rgba[(std::size_t(y) * out.width + x) * 4];
  };
  // The bar's top end is the ramp's darkest blue; its bottom end the lightest.
  bool dark_blue = false, light_blue = false;
  int ink = 0, scale_bar = 0;
  for (int y = 300; y < out.height; ++y)
    for (int x = 0; x < out.width; ++x) {
      const std::uint8_t* p = px(x, y);
      dark_blue |= p[0] < 20 && p[1] < 60 && p[2] > 95 && p[2] < 120;
      light_blue |= p[0] > 190 && p[0] < 205 && p[2] > 230;
      ink += dark(p) && x < 200;
      scale_bar += dark(p) && x > 300;
    }
  EXPECT_TRUE(dark_blue);
  EXPECT_TRUE(light_blue);
  EXPECT_GT(ink, 40) << "field name and range";
  // A 20 m bar (the largest 1-2-5 length within a quarter of 100 m) is 80 px of 3-pixel rows.
  EXPECT_GT(scale_bar, 3 * 80);
}

TEST(PngLegend, SmallMapsStayOnePixelPerCell) {
  const PngImage map = grey_map(kLegendMinWidth - 1, 50);
  const PngImage out = with_map_legend(map, "depth", "m", 1.0, ColourRamp::blues, 0.0, 1.0);
  EXPECT_EQ(out.height, 50);
  EXPECT_EQ(out.rgba, map.rgba);
}

TEST(PngLegend, PreviewGetsTimeAndMaterialSwatches) {
  SplatImage img{480, 270, std::vector<std::uint8_t>(480 * 270 * 3, 40)};
  annotate_preview(img, 0.05, {"sand", "jelly"}, {{214, 178, 112}, {214, 60, 72}});
  EXPECT_EQ(img.at(15, 33), (Rgb{214, 178, 112}));  // first swatch
  EXPECT_EQ(img.at(15, 51), (Rgb{214, 60, 72}));    // second
  int text = 0;
  for (int y = 5; y < 25; ++y)
    for (int x = 10; x < 100; ++x) text += img.at(x, y)[0] > 150;
  EXPECT_GT(text, 30) << "the time";
}

// A report map (io/image/report.hpp): a 400 x 300 px map of 2 m pixels at UTM easting 600000,
// northing 4000000 gets a frame with coordinates west and south, a north arrow and a class legend.
TEST(PngReport, FrameHasCoordinatesNorthArrowAndLegend) {
  const PngImage map = grey_map(400, 300);
  int left = 0;
  const PngImage framed =
      framed_map(map, MapPlacement{600000.0, 4000000.0, 2.0, "m, WGS 84 / UTM zone 17N"}, &left);
  ASSERT_GT(left, 40) << "the northings' labels (7 digits) fit west of the map";
  ASSERT_EQ(framed.width, left + 400 + kFrameRight);
  ASSERT_GT(framed.height, kFrameTop + 300 + 20);
  const auto px = [&](const PngImage& im, int x, int y) {
    return &im.rgba[(std::size_t(y) * im.width + x) * 4];
  };
  // The map is copied unchanged (but for the north arrow's box in its north-east corner).
  EXPECT_EQ(px(framed, left + 10, kFrameTop + 150)[0], 128);
  // Labels every 200 m (the 1-2-5 step of at least 120 px of 2 m): ink below the map and west of
  // it, beside the ticks.
  int south = 0, west = 0, arrow = 0, white = 0;
  for (int y = kFrameTop + 300 + 6; y < framed.height; ++y)
    for (int x = left; x < left + 400; ++x) south += dark(px(framed, x, y));
  for (int y = kFrameTop; y < kFrameTop + 300; ++y)
    for (int x = 0; x < left - 6; ++x) west += dark(px(framed, x, y));
  // The arrow: a black triangle in a white box at the map's north-east corner.
  for (int y = kFrameTop + 6; y < kFrameTop + 6 + kArrowBox; ++y)
    for (int x = left + 400 - 6 - kArrowBox; x < left + 400 - 6; ++x) {
      arrow += dark(px(framed, x, y));
      white += px(framed, x, y)[0] == 255;
    }
  EXPECT_GT(south, 150) << "eastings 600000 ... 600800";
  EXPECT_GT(west, 150) << "northings 4000000 ... 4000600";
  EXPECT_GT(arrow, 100);
  EXPECT_GT(white, 200);
  // The class legend: a box of each class's colour below the framed map.
  const std::vector<std::array<double, 3>> colours{
      {254, 217, 118}, {253, 141, 60}, {227, 26, 28}, {128, 0, 38}};
  const PngImage out = with_class_legend(
      framed, "flood hazard", {"low", "moderate", "significant", "extreme"}, colours, 2.0);
  ASSERT_GT(out.height, framed.height);
  for (const auto& c : colours) {
    int n = 0;
    for (int y = framed.height; y < out.height; ++y)
      for (int x = 0; x < out.width; ++x) {
        const std::uint8_t* p = px(out, x, y);
        n += p[0] == c[0] && p[1] == c[1] && p[2] == c[2];
      }
    EXPECT_GE(n, 100) << "a 12 x 12 box of (" << c[0] << ", " << c[1] << ", " << c[2] << ")";
  }
}

TEST(PngReport, HazardClassesHaveOneColourEach) {
  EXPECT_EQ(ramp_colour(ColourRamp::hazard_classes, 0.25), (std::array<double, 3>{254, 217, 118}));
  EXPECT_EQ(ramp_colour(ColourRamp::hazard_classes, 1.0), (std::array<double, 3>{128, 0, 38}));
  EXPECT_NE(ramp_colour(ColourRamp::hazard_classes, 0.5),
            ramp_colour(ColourRamp::hazard_classes, 0.75));
}

}  // namespace
}  // namespace silt::io
