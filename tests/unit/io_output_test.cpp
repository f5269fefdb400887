// Shallow-water outputs: raster frames and their derived fields, atomic writes, gauge CSV, the
// resolved scene, PNG maps (decoded with libpng) and clear errors for unwritable folders.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>

#include "io_test_util.hpp"
#include "silt/io/frame_index.hpp"
#include "silt/io/image/map.hpp"
#include "silt/io/raster/raster.hpp"
#include "silt/io/swe/output.hpp"
#include "test_support.hpp"

namespace silt::test {
namespace {

namespace fs = std::filesystem;

// 4 x 3 cells of 1 m, bed 2 m, one nodata (inactive) cell at (3, 2).
io::SweJob job(const std::string& outputs_json) {
  write_file("out_dem.asc",
             "ncols 4\nnrows 3\nxllcorner 0\nyllcorner 0\ncellsize 1\nNODATA_value -9999\n"
             "2 2 2 -9999\n2 2 2 2\n2 2 2 2\n");
  const std::string text = R"({"solver": "swe", "name": "out",
    "bed": {"raster": "out_dem.asc", "nodata": "wall"}, "initial": {"depth": 0.5},
    "run": {"end_time": 4}, "outputs": )" +
                           outputs_json + "}";
  return io::parse_swe_job(text, "out.json", scratch().string());
}

// Cell k: h = 0.1 k (cell 0 dry), hu = 0.2 h, hv = -0.1 h, hc = 3 h.
swe::Fields fields() {
  swe::Fields f;
  f.nx = 4;
  f.ny = 3;
  for (int k = 0; k < 12; ++k) {
    const double h = 0.1 * k;
    f.h.push_back(h);
    f.hu.push_back(0.2 * h);
    f.hv.push_back(-0.1 * h);
    f.hc.push_back(3 * h);
    f.max_depth.push_back(h + 1);
  }
  return f;
}

std::vector<std::string> leftovers(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().filename().string().find(".part") != std::string::npos) out.push_back(e.path());
  return out;
}

TEST(SweOutput, DerivedFields) {
  const auto j = job(R"({"png": "none"})");
  const auto f = fields();
  constexpr double kExact = 1e-12;  // plain arithmetic on the same doubles
  const auto level = io::derived_field(j.scene, f, io::SweField::level);
  EXPECT_TRUE(std::isnan(level[0]));         // dry
  EXPECT_NEAR(level[5], 0.5 + 2.0, kExact);  // h + z
  EXPECT_TRUE(std::isnan(level[11]));        // inactive
  const auto c = io::derived_field(j.scene, f, io::SweField::concentration);
  EXPECT_NEAR(c[4], 3.0, kExact);  // hc / h
  const auto speed = io::derived_field(j.scene, f, io::SweField::velocity);
  EXPECT_NEAR(speed[7], std::hypot(0.2, 0.1), kExact);
  const auto depth = io::derived_field(j.scene, f, io::SweField::depth);
  EXPECT_EQ(depth[0], 0.0);  // dry cells have depth 0, not nodata
  EXPECT_NEAR(io::derived_field(j.scene, f, io::SweField::max_depth)[2], 1.2, kExact);
  EXPECT_NEAR(io::derived_field(j.scene, f, io::SweField::v)[6], -0.1, kExact);
}

TEST(SweOutput, FramesNamedAndReadable) {
  const std::string formats = io::gdal_available() ? R"(["asc", "tif", "nc"])" : R"(["asc"])";
  const auto j = job(R"({"fields": ["depth", "level", "concentration"], "png": "none",
                         "netcdf": "frames", "formats": )" +
                     formats + "}");
  const std::string dir = (scratch() / "frames").string();
  io::SweOutputWriter w(j, dir);
  const auto files = w.write_frame(fields(), 1.5, 3);
  EXPECT_EQ(files.size(), 3 * j.outputs.formats.size());
  const io::Raster level = io::read_raster(dir + "/level_0003.asc");
  EXPECT_TRUE(level.is_nodata(0));
  EXPECT_TRUE(level.is_nodata(11));
  EXPECT_EQ(level.values[5], double(float(2.5)));
  const io::Raster depth = io::read_raster(dir + "/depth_0003.asc");
  EXPECT_EQ(depth.values[0], 0.0);
  if (io::gdal_available()) {
    const io::Raster c = io::read_raster(dir + "/concentration_0003.nc");
    EXPECT_EQ(c.values[4], 3.0);
    EXPECT_TRUE(c.is_nodata(0));
    EXPECT_TRUE(fs::exists(dir + "/depth_0003.tif"));
  }
  EXPECT_EQ(read_file(dir + "/frames.csv"), "frame,time_s\n3,1.5\n");
  EXPECT_TRUE(leftovers(dir).empty());
}

TEST(SweOutput, FailedWriteKeepsEarlierFilesAndLeavesNoTemporary) {
  const auto j = job(R"({"fields": ["depth"], "formats": ["asc"], "png": "none"})");
  const std::string dir = (scratch() / "atomic").string();
  io::SweOutputWriter w(j, dir);
  w.write_frame(fields(), 0.0, 2);
  const std::string before = read_file(dir + "/depth_0002.asc");
  // A folder where frame 3 must go makes its rename fail after the data was written.
  fs::create_directories(dir + "/depth_0003.asc");
  EXPECT_TRUE(throws_with([&] { w.write_frame(fields(), 1.0, 3); }, {"depth_0003.asc"}));
  EXPECT_EQ(read_file(dir + "/depth_0002.asc"), before);
  EXPECT_TRUE(leftovers(dir).empty());
  // Rewriting a frame replaces the file whole.
  auto f = fields();
  f.h[1] = 0.75;
  w.write_frame(f, 0.0, 2);
  EXPECT_EQ(io::read_raster(dir + "/depth_0002.asc").values[1], 0.75);
}

TEST(SweOutput, UnwritableDirectoryIsAClearError) {
  const auto j = job(R"({"png": "none"})");
  const std::string file = write_file("plain_file", "x");
  EXPECT_TRUE(throws_with([&] { io::SweOutputWriter(j, file + "/sub"); },
                          {"cannot create output directory", "plain_file/sub"}));
  EXPECT_TRUE(
      throws_with([&] { io::SweOutputWriter(j, file); }, {"plain_file", "not a directory"}));
  EXPECT_TRUE(throws_with([&] { io::GaugeCsvWriter(j, file + "/sub"); }, {"plain_file/sub"}));
}

TEST(SweOutput, FramesCsvRefusesAFolderRemovedOrMadeAgain) {
  // Issue 39: an output folder removed mid-run was made again and frames.csv listed the frames
  // that went with the old one; the run ended with exit 0.
  namespace fs = std::filesystem;
  const fs::path dir = silt::test::scratch() / "vanishing";
  fs::create_directories(dir);
  silt::io::FrameIndex index(dir.string());
  index.add(0, 0.0);
  fs::remove_all(dir);
  EXPECT_TRUE(silt::test::throws_with([&] { index.add(1, 0.5); },
                                      {"frames.csv", "'" + dir.string() + "'", "was removed"}));
  fs::create_directories(dir);
  EXPECT_TRUE(silt::test::throws_with([&] { index.add(1, 0.5); },
                                      {"frames.csv", "removed and made again", "frame 1"}));
  EXPECT_EQ(silt::test::read_file((dir / "frames.csv").string()), "");  // nothing listed there
}

TEST(SweOutput, GaugeCsvRowsFlushed) {
  const auto j = job(R"({"png": "none", "gauges": {"interval": 0.5, "points": [
      {"name": "a", "x": 0.5, "y": 0.5}, {"name": "b", "x": 2.5, "y": 1.5}]}})");
  EXPECT_EQ(j.gauge_cells(), (std::vector<Index>{0, 6}));
  const std::string dir = (scratch() / "gauges").string();
  io::GaugeCsvWriter g(j, dir);
  g.write(0.0, {{0.0, 0, 0, 0}, {0.5, 0.25, -1, 2}});
  // Flushed: visible before the writer closes.
  EXPECT_EQ(read_file(g.path()),
            "time_s,a_h_m,a_u_m_s,a_v_m_s,a_c_kg_m3,b_h_m,b_u_m_s,b_v_m_s,b_c_kg_m3,a_level_m,"
            "b_level_m\n"
            "0,0,0,0,0,0.5,0.25,-1,2,2,2.5\n");
  EXPECT_TRUE(throws_with([&] { g.write(0.5, {{}}); }, {"1 probe values for 2 gauges"}));
  // Gauge a crosses its arrival depth (0.01 m) a quarter of the way from 0.7 s to 1.1 s.
  g.write(0.7, {{0.0, 0, 0, 0}, {0.5, 0, 0, 0}});
  g.write(1.1, {{0.04, 0, 0, 0}, {0.5, 0, 0, 0}});
  g.write_points();
  EXPECT_EQ(read_file(dir + "/gauge_points.csv"),
            "name,x_m,y_m,cell_i,cell_j,ground_m,arrival_depth_m,arrival_time_s,max_depth_m,"
            "max_level_m,time_of_max_s,snap_radius_m\n"
            "a,0.5,0.5,0,0,2,0.01,0.8,0.04,2.04,1.1,0\n"
            "b,2.5,1.5,2,1,2,0.01,0,0.5,2.5,0,0\n");
}

// A gauge with a snap radius reads the nearest wet cell within it while its own is dry: the
// probes of its cell, then of the cells around it nearest first; its row says which it read.
TEST(SweOutput, GaugeSnapsToTheNearestWetCell) {
  const auto j = job(R"({"png": "none", "gauges": {"interval": 1, "points": [
      {"name": "a", "x": 0.5, "y": 0.5, "snap_radius": 1.5}]}})");
  // Cells (1, 0) and (0, 1) at 1 m, then (1, 1) at 1.41 m; (0, 2) at 2 m is beyond.
  EXPECT_EQ(j.gauge_cells(), (std::vector<Index>{0, 1, 4, 5}));
  const std::string dir = (scratch() / "gauges_snap").string();
  io::GaugeCsvWriter g(j, dir);
  g.write(0.0, {{0.3, 0, 0, 0}, {0.1, 0, 0, 0}, {0.2, 0, 0, 0}, {0, 0, 0, 0}});    // its own: wet
  g.write(1.0, {{0.0, 0, 0, 0}, {0.0, 0, 0, 0}, {0.2, 1, 0, 0}, {0.4, 0, 0, 0}});  // (0, 1)
  g.write(2.0, {{0.0, 0, 0, 0}, {0.0, 0, 0, 0}, {0.0, 0, 0, 0}, {0.0, 0, 0, 0}});  // none wet
  EXPECT_EQ(read_file(g.path()),
            "time_s,a_h_m,a_u_m_s,a_v_m_s,a_c_kg_m3,a_level_m,a_cell_i,a_cell_j\n"
            "0,0.3,0,0,0,2.3,0,0\n"
            "1,0.2,1,0,0,2.2,0,1\n"
            "2,0,0,0,0,2,0,0\n");
  std::vector<Index> cells;
  const auto picked =
      io::pick_gauges(j, {{0, 0, 0, 0}, {0.5, 0, 0, 0}, {0.2, 0, 0, 0}, {0}}, &cells);
  EXPECT_EQ(picked.size(), 1u);
  EXPECT_EQ(picked[0].h, 0.5);
  EXPECT_EQ(cells, (std::vector<Index>{1}));
  EXPECT_TRUE(throws_with([&] { g.write(3.0, {{}}); }, {"1 probe values for 1 gauges (4 cells)"}));
}

TEST(SweOutput, ResolvedSceneRunsAgain) {
  const auto j = job(R"({"png": "none"})");
  const std::string dir = (scratch() / "resolved").string();
  const std::string path =
      io::write_resolved_scene(j, dir, "0.1.0 (test)", "cpu", {"run.end_time=4"});
  const auto doc = nlohmann::json::parse(read_file(path));
  EXPECT_EQ(doc["provenance"]["build"], "0.1.0 (test)");
  EXPECT_EQ(doc["provenance"]["backend"], "cpu");
  EXPECT_EQ(doc["physics"]["cfl"], 0.45);
  const auto again = io::load_swe_job(path);
  EXPECT_EQ(again.scene.bed, j.scene.bed);
  EXPECT_EQ(again.scene.active, j.scene.active);
  EXPECT_EQ(again.run.output_times, j.run.output_times);
}

TEST(SweOutput, HillshadeLitFromNorthWest) {
  swe::Grid g{3, 3, 1.0, 0, 0};
  constexpr double kShadeTol = 1e-6;  // float storage of the shade
  const auto flat = io::hillshade(g, std::vector<double>(9, 5.0), {});
  EXPECT_NEAR(flat[4], std::sqrt(0.5), kShadeTol);  // sin(45 deg)
  // A bed rising to the south-east faces north-west, towards the light: brighter than flat.
  std::vector<double> nw(9), se(9);
  for (int j = 0; j < 3; ++j)
    for (int i = 0; i < 3; ++i) {
      nw[j * 3 + i] = 0.5 * i - 0.5 * j;
      se[j * 3 + i] = -0.5 * i + 0.5 * j;
    }
  EXPECT_GT(io::hillshade(g, nw, {})[4], flat[4] + 0.1);
  EXPECT_LT(io::hillshade(g, se, {})[4], flat[4] - 0.1);
}

#if SILT_WITH_PNG
TEST(SweOutput, PngMapDecodesWithExpectedSizeAndColours) {
  const auto j = job(R"({"png": "depth", "png_max": 1.0, "png_scale": 1})");
  const std::string dir = (scratch() / "png").string();
  io::SweOutputWriter w(j, dir);
  const auto files = w.write_frame(fields(), 0.0, 0);
  ASSERT_EQ(files.back(), dir + "/depth_0000.png");
  const io::PngImage img = io::read_png(files.back());
  ASSERT_EQ(img.width, 4);
  ASSERT_EQ(img.height, 3);
  auto px = [&](int i, int j) {
    return &img.rgba[((2 - j) * 4 + i) * 4];
  };                           // north row first
  EXPECT_EQ(px(3, 2)[3], 0);   // inactive: transparent
  const auto* dry = px(0, 0);  // h = 0: terrain only, grey
  EXPECT_EQ(dry[3], 255);
  EXPECT_TRUE(dry[0] == dry[1] && dry[1] == dry[2]);
  const auto* wet = px(2, 2);  // h = 1.0: dark blue over grey
  EXPECT_GT(wet[2], wet[0] + 40);
  EXPECT_TRUE(throws_with([&] { io::read_png(dir + "/frames.csv"); }, {"frames.csv"}));
  // By default small grids are enlarged towards 800 pixels across (at most 16 pixels per cell).
  const auto big = job(R"({"png": "depth"})");
  EXPECT_EQ(big.outputs.png_scale, 16);  // at most 16
  io::SweOutputWriter wb(big, dir + "/big");
  const io::PngImage large = io::read_png(wb.write_frame(fields(), 0.0, 0).back());
  EXPECT_EQ(large.width, 4 * 16);
  EXPECT_EQ(large.height, 3 * 16);
  // The block of cell (2, 2) (top row) is uniform and equals the unscaled pixel.
  for (int y = 0; y < 16; ++y)
    for (int x = 32; x < 48; ++x)
      ASSERT_EQ(0, std::memcmp(&large.rgba[(y * 64 + x) * 4], px(2, 2), 4)) << x << ", " << y;
}
#endif

}  // namespace
}  // namespace silt::test
