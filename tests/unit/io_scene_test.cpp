// Shallow-water scene loading: schema, validation messages, overrides, rasters and series.
#include <gtest/gtest.h>

#include <cmath>

#include "io_test_util.hpp"
#include "silt/io/raster/raster.hpp"
#include "silt/io/swe/scene_file.hpp"
#include "silt/io/time_series.hpp"
#include "test_support.hpp"

namespace silt::test {
namespace {

using io::Json;

// A small valid scene: 10 x 8 cells of 2 m from (100, 50).
Json base() {
  return Json::parse(R"({
    "solver": "swe",
    "grid": {"nx": 10, "ny": 8, "dx": 2.0, "origin": [100, 50]},
    "bed": 1.0,
    "initial": {"depth": 0.5},
    "run": {"end_time": 10}
  })");
}

io::SweJob parse(const Json& j, const std::vector<std::string>& overrides = {}) {
  return io::parse_swe_job(j.dump(), "scene.json", scratch().string(), overrides);
}

// ESRI ASCII text, rows given north first as in the file.
std::string asc(int nx, int ny, double dx, const std::vector<std::string>& rows,
                const std::string& corner = "xllcorner 100\nyllcorner 50\n") {
  std::string s = "ncols " + std::to_string(nx) + "\nnrows " + std::to_string(ny) + "\n" + corner +
                  "cellsize " + std::to_string(dx) + "\nNODATA_value -9999\n";
  for (const auto& r : rows) s += r + "\n";
  return s;
}

std::vector<std::string> uniform_rows(int nx, int ny, const std::string& v) {
  std::string row;
  for (int i = 0; i < nx; ++i) row += (i ? " " : "") + v;
  return std::vector<std::string>(static_cast<size_t>(ny), row);
}

TEST(SweScene, DamBreakExampleLoads) {
  const auto job = io::load_swe_job(SILT_SOURCE_DIR "/scenes/dam_break.json");
  const auto& s = job.scene;
  EXPECT_EQ(s.name, "dam_break");
  ASSERT_EQ(s.grid.nx, 200);
  ASSERT_EQ(s.grid.ny, 200);
  const auto at = [&](double x, double y) {
    return static_cast<size_t>(y) * 200 + size_t(x);
  };
  EXPECT_EQ(s.depth[at(50, 130)], 10.0);  // reservoir
  EXPECT_EQ(s.depth[at(150, 130)], 5.0);  // tailwater
  EXPECT_EQ(s.depth[at(100, 50)], 0.0);   // on the dam
  EXPECT_EQ(s.bed[at(100, 50)], 15.0);
  EXPECT_EQ(s.bed[at(100, 130)], 0.0);  // in the breach
  EXPECT_TRUE(s.manning.empty());
  constexpr double kRoundOff = 1e-12;  // output times are k * interval
  EXPECT_TRUE(all_near(job.run.output_times, std::vector<double>{0, 1.2, 2.4, 3.6, 4.8, 6.0, 7.2},
                       kRoundOff));
  ASSERT_EQ(job.outputs.gauges.size(), 3u);
  EXPECT_EQ(job.outputs.gauges[1].cell, 132 * 200 + 100);
  EXPECT_EQ(io::scene_solver(SILT_SOURCE_DIR "/scenes/dam_break.json"), "swe");
#if SILT_WITH_PNG
  EXPECT_TRUE(job.warnings.empty());
  EXPECT_EQ(job.outputs.png, io::PngMap::depth);
#else
  // The default scene asks for maps; a build without libpng runs it without them and says so.
  ASSERT_EQ(job.warnings.size(), 1u);
  EXPECT_NE(job.warnings[0].find("'outputs.png'"), std::string::npos) << job.warnings[0];
  EXPECT_EQ(job.outputs.png, io::PngMap::none);
#endif
}

TEST(SweScene, IsolatedBuildingExampleLoads) {
  const auto job = io::load_swe_job(SILT_SOURCE_DIR "/scenes/isolated_building.json");
  const auto& s = job.scene;
  ASSERT_EQ(s.grid.nx, 716);
  ASSERT_EQ(s.grid.ny, 72);
  const auto at = [&](double x, double y) {
    return static_cast<size_t>(y / 0.05) * 716 + static_cast<size_t>(x / 0.05);
  };
  EXPECT_EQ(s.bed[at(7.0, 0.5)], 1.0);    // the dam
  EXPECT_EQ(s.bed[at(7.0, 1.8)], 0.0);    // its gate
  EXPECT_EQ(s.depth[at(7.0, 1.8)], 0.4);  // full at the start
  EXPECT_EQ(s.depth[at(3.0, 1.8)], 0.4);  // the reservoir
  EXPECT_NEAR(s.depth[at(20.0, 1.8)], 0.02, 1e-12);
  EXPECT_NEAR(s.bed[at(3.0, 0.1)], 0.155 * (0.34 - 0.125) / 0.34, 1e-12);  // side slope
  EXPECT_EQ(s.bed[at(11.345, 2.02)], 1.0);                                 // the building's centre
  EXPECT_EQ(s.bed[at(11.06, 2.4)], 0.0);  // beside it, inside its bounding box
  // The building covers 0.8 x 0.4 m = 128 cells of 0.05 m, up to its staircase edge.
  int building = 0;
  for (size_t c = 0; c < s.bed.size(); ++c) {
    const double x = (static_cast<double>(c % 716) + 0.5) * 0.05;
    building += x > 9.0 && x < 13.0 && s.bed[c] == 1.0;
  }
  EXPECT_NEAR(building, 128, 8);
  ASSERT_EQ(job.outputs.gauges.size(), 6u);
}

TEST(SweScene, RiverSpillExampleLoads) {
  const auto job = io::load_swe_job(SILT_SOURCE_DIR "/scenes/river_spill.json");
  const auto& s = job.scene;
  ASSERT_EQ(s.grid.cells(), 400 * 60);
  constexpr double kRoundOff = 1e-12;
  EXPECT_NEAR(s.bed[30 * 400 + 100], 10.0 - 0.001 * 502.5, kRoundOff);  // channel at x = 502.5
  EXPECT_NEAR(s.bed[50 * 400 + 100], 11.5 - 0.001 * 502.5, kRoundOff);  // northern floodplain
  EXPECT_NEAR(s.bed[10 * 400 + 100], 12.5 - 0.001 * 502.5, kRoundOff);  // southern floodplain
  EXPECT_EQ(s.manning[30 * 400], 0.03);
  ASSERT_EQ(s.boundaries.size(), 2u);
  EXPECT_EQ(s.boundaries[0].kind, swe::BoundaryKind::discharge);
  EXPECT_EQ(s.boundaries[0].begin, 26);  // y = 130..170 m: centres 132.5 .. 167.5
  EXPECT_EQ(s.boundaries[0].end, 34);
  EXPECT_EQ(io::series_value(s.boundaries[0].series, 1800), 250.0);
  ASSERT_EQ(s.sources.size(), 1u);
  EXPECT_EQ(io::series_value(s.sources[0].discharge, 900), 0.2);
}

TEST(SweScene, JacksboroExampleLoads) {
  const auto job = io::load_swe_job(SILT_SOURCE_DIR "/scenes/jacksboro_flood.json");
  const auto& s = job.scene;
  EXPECT_EQ(s.grid.nx, 400);
  EXPECT_EQ(s.grid.ny, 424);
  EXPECT_EQ(s.grid.dx, 75.0);
  EXPECT_TRUE(s.active.empty());
  const Index lake = 264 * 400 + 194;  // (14588, 19838) m, bed 384.3 m
  EXPECT_NEAR(s.depth[lake], 420.0 - 384.3, 1e-9);
  EXPECT_EQ(s.depth[0], 0.0);
  EXPECT_NEAR(s.rainfall.value[0], 50e-3 / 3600, 1e-18);
  EXPECT_EQ(s.boundaries.size(), 4u);
  // Its CRS, from the .prj beside the DEM, goes to every output.
  EXPECT_NE(job.outputs.crs_wkt.find("Jacksboro"), std::string::npos) << job.outputs.crs_wkt;
}

TEST(SweScene, StartDatetimeIsIso8601InUtc) {
  const auto reference = [](const std::string& when) {
    const std::string text = R"({"solver": "swe", "grid": {"nx": 2, "ny": 2, "dx": 1},
        "run": {"end_time": 1, "start_datetime": ")" +
                             when + R"("}, "outputs": {"png": "none"}})";
    return io::parse_swe_job(text, "t.json", "").run.time_reference;
  };
  EXPECT_EQ(reference("2024-06-01T12:00:00+02:00"), "2024-06-01 10:00:00");
  EXPECT_EQ(reference("2024-03-01T00:30-01:00"), "2024-03-01 01:30:00");
  EXPECT_EQ(reference("2024-01-01T00:00:00+01:00"), "2023-12-31 23:00:00");  // across a year
  EXPECT_EQ(reference("2024-02-29"), "2024-02-29 00:00:00");                 // a leap day
  EXPECT_EQ(reference("2010-07-04T05:06:07Z"), "2010-07-04 05:06:07");
  for (const char* bad : {"2023-02-29", "2024-13-01", "2024-06-01T24:00", "yesterday",
                          "2024-06-01T12:00:00.5", "2024-06-01T12:00+2"})
    EXPECT_TRUE(throws_with([&] { reference(bad); }, {"run.start_datetime", bad, "ISO 8601"}))
        << bad;
  // Default: the Unix epoch, in the resolved scene too.
  const auto job = io::parse_swe_job(
      R"({"solver": "swe", "grid": {"nx": 2, "ny": 2, "dx": 1}, "run": {"end_time": 1}})", "d.json",
      "");
  EXPECT_EQ(job.run.time_reference, "1970-01-01 00:00:00");
  EXPECT_EQ(job.resolved["run"]["start_datetime"], "1970-01-01T00:00:00Z");
}

TEST(SweScene, UnknownKeyNamesKeyAndFile) {
  Json j = base();
  j["outputs"]["formatz"] = Json::array({"tif"});
  EXPECT_TRUE(throws_with([&] { parse(j); }, {"scene.json: unknown key 'outputs.formatz'"}));
  j = base();
  j["physics"]["cfl_number"] = 0.3;
  EXPECT_TRUE(throws_with([&] { parse(j); }, {"scene.json", "'physics.cfl_number'"}));
  j = base();
  j["boundaries"] = Json::parse(R"([{"side": "west", "type": "wall", "discharge": 3}])");
  EXPECT_TRUE(throws_with([&] { parse(j); }, {"unknown key 'boundaries[0].discharge'"}));
}

TEST(SweScene, MalformedJsonNamesFileAndLine) {
  const std::string text = "{\n  \"solver\": \"swe\",\n  \"grid\": {\"nx\": 10,, }\n}\n";
  EXPECT_TRUE(throws_with([&] { io::parse_swe_job(text, "bad.json", ""); },
                          {"bad.json:3:", "malformed JSON"}));
  const auto path = write_file("bad_file.json", text);
  EXPECT_TRUE(throws_with([&] { io::load_swe_job(path); }, {path + ":3:"}));
  EXPECT_TRUE(throws_with([&] { io::load_swe_job(path + ".missing"); }, {".missing", "No such"}));
}

TEST(SweScene, CommentsAllowed) {
  const std::string text = "// a comment\n" + base().dump() + "\n/* trailing */\n";
  EXPECT_EQ(io::parse_swe_job(text, "c.json", "").scene.grid.nx, 10);
}

TEST(SweScene, OverridesApplyBeforeValidation) {
  const auto job = parse(base(), {"run.end_time=5", "physics.precision=float64",
                                  "outputs.fields=[\"depth\",\"level\"]", "grid.origin[1]=7"});
  EXPECT_EQ(job.run.end_time, 5.0);
  EXPECT_EQ(job.scene.precision, swe::Precision::f64);
  EXPECT_EQ(job.outputs.fields.size(), 2u);
  EXPECT_EQ(job.scene.grid.y0, 7.0);
  EXPECT_EQ(job.resolved["run"]["end_time"], 5.0);
  EXPECT_TRUE(throws_with([&] { parse(base(), {"physics.cfl=2"}); },
                          {"'physics.cfl' must be in (0, 0.5], got 2", "--set physics.cfl=2"}));
  EXPECT_TRUE(throws_with([&] { parse(base(), {"run.end_tme=5"}); },
                          {"unknown key 'run.end_tme'", "--set run.end_tme=5"}));
  EXPECT_TRUE(throws_with([&] { parse(base(), {"run.end_time"}); }, {"expected path=value"}));
  EXPECT_TRUE(throws_with([&] { parse(base(), {"run.end_time.x=1"}); }, {"not an object"}));
}

TEST(SweScene, SchemeIsFirstOrderUnlessMusclIsAskedFor) {
  EXPECT_EQ(parse(base()).scene.scheme, swe::Scheme::first_order);
  EXPECT_EQ(parse(base()).scene.cfl, 0.45);
  EXPECT_EQ(parse(base()).resolved["physics"]["scheme"], "first_order");
  // muscl: its own default Courant number, and a bound that names the key and the reason.
  const auto job = parse(base(), {"physics.scheme=muscl"});
  EXPECT_EQ(job.scene.scheme, swe::Scheme::muscl);
  EXPECT_EQ(job.scene.cfl, 0.25);
  EXPECT_EQ(job.resolved["physics"]["cfl"], 0.25);
  EXPECT_EQ(parse(base(), {"physics.scheme=muscl", "physics.cfl=0.2"}).scene.cfl, 0.2);
  EXPECT_TRUE(throws_with(
      [&] {
        parse(base(), {"physics.scheme=muscl", "physics.cfl=0.45"});
      },
      {"'physics.cfl'", "0.45 is above 0.25", "physics.scheme = \"muscl\""}));
  // muscl_hancock (the one-stage prototype): muscl's default, its own bound (tested, not
  // proven), named.
  const auto hancock = parse(base(), {"physics.scheme=muscl_hancock"});
  EXPECT_EQ(hancock.scene.scheme, swe::Scheme::muscl_hancock);
  EXPECT_EQ(hancock.scene.cfl, 0.25);
  EXPECT_EQ(parse(base(), {"physics.scheme=muscl_hancock", "physics.cfl=0.45"}).scene.cfl, 0.45);
  EXPECT_TRUE(throws_with(
      [&] {
        parse(base(), {"physics.scheme=muscl_hancock", "physics.cfl=0.46"});
      },
      {"'physics.cfl'", "0.46 is above 0.45", "physics.scheme = \"muscl_hancock\""}));
  EXPECT_TRUE(throws_with([&] { parse(base(), {"physics.scheme=second_order"}); },
                          {"'physics.scheme' must be one of", "\"second_order\""}));
}

TEST(SweScene, WrongTypesAndRangesNameKeyAndValue) {
  const std::vector<std::pair<std::string, std::vector<std::string>>> cases = {
      {"grid.dx=-1", {"'grid.dx' must be in [1e-06, 10000000], got -1"}},
      {"grid.nx=2.5", {"'grid.nx' must be an integer, got 2.5"}},
      {"run.end_time=\"abc\"", {"'run.end_time' must be a number, got \"abc\""}},
      {"physics.precision=float16", {"'physics.precision' must be one of", "\"float16\""}},
      // Retired (the tile kernel is no scene setting): an old scene naming it is told so.
      {"physics.fused_kernel=true", {"unknown key 'physics.fused_kernel'"}},
      {"manning=-0.03", {"'manning' must be >= 0, got -0.03", "cell (i = 0, j = 0)"}},
      {"outputs.png=rgb", {"'outputs.png' must be one of"}},
      {"outputs.formats=[\"asc\",\"jpg\"]", {"'outputs.formats[1]'", "\"jpg\""}},
      {"solver=mpm", {"'solver' is \"mpm\""}},
      {"name=a/b", {"'name' must be a plain name of letters"}},
      {"run.output_times=[0, 5, 5]", {"'run.output_times[2]' 5 is not greater"}},
      {"run.output_times=[0, 20]", {"'run.output_times[1]' must be in [0, end_time = 10]"}},
  };
  for (const auto& [o, parts] : cases) EXPECT_TRUE(throws_with([&] { parse(base(), {o}); }, parts));
  Json j = base();
  j.erase("run");
  EXPECT_TRUE(throws_with([&] { parse(j); }, {"'run' is missing"}));
}

TEST(SweScene, GdalFormatsNeedAGdalBuild) {
#if SILT_WITH_GDAL
  EXPECT_EQ(parse(base(), {"outputs.formats=[\"tif\", \"nc\"]"}).outputs.formats.size(), 2u);
#else
  EXPECT_TRUE(throws_with([&] { parse(base(), {"outputs.formats=[\"asc\", \"nc\"]"}); },
                          {"'outputs.formats' asks for .nc output, which needs GDAL"}));
#endif
}

TEST(SweScene, NegativeDepthNamesCell) {
  Json j = base();
  j["initial"]["depth"] = Json::parse(
      R"({"value": 0.5, "patches": [{"shape": "circle", "center": [111, 57], "radius": 1.5,
          "value": -0.2}]})");
  EXPECT_TRUE(throws_with([&] { parse(j); },
                          {"'initial.depth' must be >= 0, got -0.2", "cell (i = 5, j = 3)"}));
  write_file("neg.asc", asc(10, 8, 2, uniform_rows(10, 8, "0.5")));
  auto rows = uniform_rows(10, 8, "0.5");
  rows[0] = "0.5 -1 0.5 0.5 0.5 0.5 0.5 0.5 0.5 0.5";  // northern row j = 7, i = 1
  write_file("neg.asc", asc(10, 8, 2, rows));
  j["initial"]["depth"] = "neg.asc";
  EXPECT_TRUE(throws_with([&] { parse(j); }, {"got -1", "(i = 1, j = 7)", "neg.asc"}));
}

TEST(SweScene, PolygonPatchPaintsCellCentresInside) {
  // A square turned 45 degrees (a diamond) centred on cell (i = 4, j = 3) at (109, 57), half
  // diagonal 3 m: the cells whose centre lies inside are the centre cell and its four neighbours
  // 2 m away (their centres are 2 m < 3 m from it along an axis); the diagonal ones (2 + 2 = 4 m
  // in the diamond's norm) are outside.
  Json j = base();
  j["bed"] = Json::parse(
      R"({"value": 0, "patches": [{"shape": "polygon", "value": 1,
          "vertices": [[109, 54], [112, 57], [109, 60], [106, 57]]}]})");
  const auto job = parse(j);
  const auto& s = job.scene;
  double sum = 0;
  for (double z : s.bed) sum += z;
  EXPECT_EQ(sum, 5.0);
  for (const auto& [i, jj] : {std::pair{4, 3}, {3, 3}, {5, 3}, {4, 2}, {4, 4}})
    EXPECT_EQ(s.bed[static_cast<size_t>(jj) * 10 + i], 1.0) << "cell " << i << ", " << jj;
  EXPECT_EQ(job.resolved["bed"]["patches"][0]["vertices"].size(), 4u);
  // Either orientation, and a concave (L-shaped) outline: the notch stays unpainted.
  j["bed"]["patches"][0]["vertices"] =
      Json::parse("[[100, 50], [100, 56], [104, 56], [104, 52], [108, 52], [108, 50]]");
  const auto l = parse(j).scene;
  EXPECT_EQ(l.bed[0], 1.0);           // (101, 51)
  EXPECT_EQ(l.bed[1 * 10 + 1], 1.0);  // (103, 53)
  EXPECT_EQ(l.bed[1 * 10 + 3], 0.0);  // (107, 53): in the notch
  EXPECT_EQ(l.bed[3], 1.0);           // (107, 51)
  // Errors name the key.
  j["bed"]["patches"][0]["vertices"] = Json::parse("[[100, 50], [104, 56]]");
  EXPECT_TRUE(throws_with([&] { parse(j); },
                          {"'bed.patches[0].vertices' must be a list of at least 3 points"}));
  j["bed"]["patches"][0]["vertices"] = Json::parse(R"([[100, 50], [104, 56], [104, "x"]])");
  EXPECT_TRUE(throws_with([&] { parse(j); }, {"'bed.patches[0].vertices'", "vertex 2"}));
  j["bed"]["patches"][0].erase("vertices");
  EXPECT_TRUE(throws_with([&] { parse(j); }, {"'bed.patches[0].vertices' is missing"}));
}

TEST(SweScene, LevelGivesDepthAboveBed) {
  Json j = base();
  j["initial"] = Json::parse(R"({"level": 1.25})");
  j["bed"] = Json::parse(R"({"value": 0.0, "gradient": [0.1, 0.0]})");  // z = 0.1 (x - 100)
  const auto s = parse(j).scene;
  EXPECT_DOUBLE_EQ(s.bed[0], 0.1);  // x = 101
  EXPECT_DOUBLE_EQ(s.depth[0], 1.15);
  EXPECT_DOUBLE_EQ(s.depth[9], 0.0);  // x = 119: bed 1.9 above the level
  j["initial"]["depth"] = 1.0;
  EXPECT_TRUE(throws_with([&] { parse(j); }, {"both 'depth' and 'level'"}));
}

TEST(SweScene, GridFromBedRasterAndMismatchedRasters) {
  write_file("dem.asc", asc(10, 8, 2, uniform_rows(10, 8, "3")));
  write_file("h9.asc", asc(9, 8, 2, uniform_rows(9, 8, "0.1")));
  Json j = base();
  j.erase("grid");
  j["bed"] = "dem.asc";
  const auto s = parse(j).scene;
  EXPECT_EQ(s.grid.nx, 10);
  EXPECT_EQ(s.grid.x0, 100.0);
  EXPECT_EQ(s.bed[5], 3.0);
  j["initial"]["depth"] = "h9.asc";
  EXPECT_TRUE(
      throws_with([&] { parse(j); }, {"h9.asc' is 9 x 8 cells", "dem.asc", "is 10 x 8 cells"}));
  j = base();
  j["grid"]["nx"] = 12;
  j["bed"] = "dem.asc";
  EXPECT_TRUE(
      throws_with([&] { parse(j); }, {"dem.asc' is 10 x 8", "'grid' in scene.json", "12 x 8"}));
}

TEST(SweScene, MissingAndCorruptRastersNameFile) {
  Json j = base();
  j["bed"] = "nowhere.asc";
  EXPECT_TRUE(throws_with([&] { parse(j); }, {"nowhere.asc", "No such file"}));
  auto rows = uniform_rows(10, 8, "1");
  rows.pop_back();
  write_file("short.asc", asc(10, 8, 2, rows));
  j["bed"] = "short.asc";
  EXPECT_TRUE(throws_with([&] { parse(j); }, {"short.asc", "truncated", "row 8 of 8"}));
  rows = uniform_rows(10, 8, "1");
  rows[2] = "1 1 1 x1 1 1 1 1 1 1";
  write_file("word.asc", asc(10, 8, 2, rows));
  j["bed"] = "word.asc";
  EXPECT_TRUE(throws_with([&] { parse(j); }, {"word.asc:9:", "'x1' is not a number"}));
  write_file("garbage.tif", "not a tiff");
  j["bed"] = "garbage.tif";
  EXPECT_TRUE(throws_with([&] { parse(j); }, {"garbage.tif"}));
}

TEST(SweScene, NodataWallOrReject) {
  auto rows = uniform_rows(10, 8, "2");
  rows[7] = "2 2 -9999 2 2 2 2 2 2 2";  // southern row: cell (2, 0)
  write_file("holes.asc", asc(10, 8, 2, rows));
  Json j = base();
  j["bed"] = "holes.asc";
  EXPECT_TRUE(throws_with(
      [&] { parse(j); },
      {"'bed'", "holes.asc", "no data at cell (i = 2, j = 0)", "\"nodata\": \"wall\""}));
  j["bed"] = Json{{"raster", "holes.asc"}, {"nodata", "wall"}};
  const auto s = parse(j).scene;
  ASSERT_EQ(s.active.size(), 80u);
  EXPECT_EQ(s.active[2], 0);
  EXPECT_EQ(s.active[3], 1);
  EXPECT_EQ(s.depth[2], 0.0);
  EXPECT_EQ(s.bed[2], 2.0);  // the highest valid bed, never -9999
  j["bed"]["nodata"] = "fill";
  EXPECT_TRUE(throws_with([&] { parse(j); }, {"'bed.nodata' must be one of"}));
}

TEST(SweScene, BoundariesSourcesRain) {
  write_file("q.csv", "time_s,discharge_m3s\n0,1\n60,5\n# peak\n120,2\n");
  Json j = base();
  j["boundaries"] = Json::parse(R"([
    {"name": "in", "side": "west", "range": [52, 58], "type": "discharge", "discharge": "q.csv",
     "concentration": 0.5},
    {"side": "east", "type": "open"},
    {"side": "north", "type": "level", "level": [[0, 1.5], [10, 2.0]]}])");
  j["sources"] = Json::parse(R"([{"name": "spill", "x": 105, "y": 55, "discharge": 0.1,
                                  "concentration": 20}])");
  j["rainfall_mm_h"] = 36;
  const auto job = parse(j);
  const auto& s = job.scene;
  ASSERT_EQ(s.boundaries.size(), 3u);
  EXPECT_EQ(s.boundaries[0].begin, 1);  // centres y = 53, 55, 57
  EXPECT_EQ(s.boundaries[0].end, 4);
  EXPECT_EQ(s.boundaries[0].series.value, (std::vector<double>{1, 5, 2}));
  EXPECT_EQ(s.boundaries[1].kind, swe::BoundaryKind::open);
  EXPECT_EQ(s.boundaries[1].end, 8);
  EXPECT_EQ(s.boundaries[2].name, "north_2");
  EXPECT_EQ(io::series_value(s.boundaries[2].series, 5.0), 1.75);
  EXPECT_DOUBLE_EQ(s.rainfall.value[0], 1e-5);  // 36 mm/h = 1e-5 m/s
  EXPECT_EQ(s.sources[0].concentration, 20.0);
  EXPECT_TRUE(job.resolved["boundaries"][0]["discharge"].get<std::string>().find("q.csv") !=
              std::string::npos);

  j["boundaries"][1]["range"] = Json::array({50, 56});
  j["boundaries"][1]["side"] = "west";
  EXPECT_TRUE(throws_with([&] { parse(j); }, {"'boundaries[1].range' overlaps boundary 'in'"}));
  j["boundaries"][1]["range"] = Json::array({200, 300});
  EXPECT_TRUE(throws_with([&] { parse(j); }, {"covers no cell centre"}));
  j = base();
  j["sources"] = Json::parse(R"([{"x": 99, "y": 55, "discharge": 1}])");
  EXPECT_TRUE(throws_with([&] { parse(j); }, {"'sources[0].x'", "outside the grid"}));
}

TEST(SweScene, FlowBoundariesAndTheirErrors) {
  write_file("rating.csv", "stage_m,discharge_m3s\n1.0,0\n2.0,4\n3.0,12\n");
  Json j = base();
  j["manning"] = 0.03;
  j["boundaries"] = Json::parse(R"([
    {"name": "steep", "side": "west", "range": [50, 56], "type": "supercritical",
     "discharge": 3, "depth": [[0, 0.4], [10, 0.5]]},
    {"name": "jet", "side": "west", "range": [58, 66], "type": "supercritical", "discharge": 2,
     "velocity": 4, "concentration": 1},
    {"name": "reach", "side": "east", "range": [50, 58], "type": "normal_depth", "slope": 0.002},
    {"name": "gauge", "side": "east", "range": [60, 66], "type": "rating", "rating": "rating.csv"},
    {"name": "fall", "side": "south", "type": "critical"},
    {"name": "weir", "side": "north", "type": "rating", "rating": [[1, 0], [1.5, 2]]}])");
  const auto job = parse(j);
  const auto& b = job.scene.boundaries;
  ASSERT_EQ(b.size(), 6u);
  EXPECT_EQ(b[0].kind, swe::BoundaryKind::inflow_depth);
  EXPECT_EQ(io::series_value(b[0].aux, 5.0), 0.45);
  EXPECT_EQ(b[1].kind, swe::BoundaryKind::inflow_velocity);
  EXPECT_EQ(b[1].aux.value, (std::vector<double>{4.0}));
  EXPECT_EQ(b[2].kind, swe::BoundaryKind::normal_depth);
  EXPECT_EQ(b[2].slope, 0.002);
  EXPECT_EQ(b[3].kind, swe::BoundaryKind::rating);
  EXPECT_EQ(b[3].rating.value, (std::vector<double>{0, 4, 12}));
  EXPECT_EQ(b[4].kind, swe::BoundaryKind::critical);
  EXPECT_EQ(b[5].rating.t, (std::vector<double>{1.0, 1.5}));

  // Each error names the file, the key (and so the segment's index) and the segment's name.
  const std::vector<std::pair<std::string, std::vector<std::string>>> cases = {
      {"boundaries[0].type=\"weir\"", {"scene.json", "'boundaries[0].type' must be one of"}},
      {"boundaries[0].depth=-1",
       {"scene.json", "'boundaries[0].depth' must be > 0, got -1", "boundary 'steep'"}},
      {"boundaries[0].depth=[[0, 0.4], [10, 0]]",
       {"'boundaries[0].depth[1]' value must be > 0, got 0 (t = 10 s)", "boundary 'steep'"}},
      {"boundaries[0].velocity=3",
       {"'boundaries[0].velocity'", "boundary 'steep'", "only one of \"depth\""}},
      {"boundaries[0].discharge=0", {"'boundaries[0].discharge' must be > 0", "'steep'"}},
      {"boundaries[2].slope=-0.01", {"'boundaries[2].slope' must be > 0, got -0.01"}},
      {"boundaries[2].slope=null", {"'boundaries[2].slope'"}},
      {"boundaries[5].rating=[[1, 0], [0.5, 2]]",
       {"scene.json", "'boundaries[5].rating'", "boundary 'weir'", "row 1 (stage 0.5 m",
        "the stages must increase strictly"}},
      {"boundaries[5].rating=[[1, 3], [1.5, 2]]",
       {"'boundaries[5].rating'", "'weir'", "row 1", "must not decrease"}},
      {"boundaries[5].rating=[[1, 0]]", {"'weir'", "at least 2 rows, has 1"}},
      {"boundaries[5].rating=[[1, -1], [2, 0]]", {"'weir'", "row 0", "the discharge >= 0"}},
      {"boundaries[4].slope=0.1", {"unknown key 'boundaries[4].slope'"}},
      {"boundaries[4].concentration=1", {"unknown key 'boundaries[4].concentration'"}},
  };
  for (const auto& [o, parts] : cases) EXPECT_TRUE(throws_with([&] { parse(j, {o}); }, parts)) << o;
  Json k = j;
  k["boundaries"][0].erase("depth");
  EXPECT_TRUE(throws_with([&] { parse(k); }, {"'boundaries[0].depth'", "boundary 'steep'",
                                              "needs the discharge and one of"}));
  k = j;
  k["boundaries"][2].erase("slope");
  EXPECT_TRUE(throws_with([&] { parse(k); }, {"'boundaries[2].slope' is missing", "'reach'"}));
  k = j;
  k["boundaries"][3].erase("rating");
  EXPECT_TRUE(throws_with([&] { parse(k); }, {"'boundaries[3].rating' is missing", "'gauge'"}));
  write_file("rating_bad.csv", "stage_m,discharge_m3s\n1.0,0\n2.0,4\n1.5,12\n");
  k = j;
  k["boundaries"][3]["rating"] = "rating_bad.csv";
  EXPECT_TRUE(throws_with([&] { parse(k); }, {"rating_bad.csv", "'gauge'"}));
  k = j;
  k.erase("manning");  // normal depth needs a roughness
  EXPECT_TRUE(throws_with([&] { parse(k); }, {"boundary 'reach'", "Manning n > 0"}));
}

TEST(SweScene, SeriesErrorsNameTheRow) {
  Json j = base();
  j["rainfall_mm_h"] = Json::parse("[[0, 1], [10, 2], [10, 3]]");
  EXPECT_TRUE(throws_with([&] { parse(j); },
                          {"'rainfall_mm_h[2]' time 10 is not greater than the previous time 10"}));
  j["rainfall_mm_h"] = Json::parse("[[0, 1], [10, -2]]");
  EXPECT_TRUE(throws_with([&] { parse(j); }, {"'rainfall_mm_h[1]' value must be >= 0, got -2"}));
  j["rainfall_mm_h"] = Json::parse("[[0, 1, 2]]");
  EXPECT_TRUE(throws_with([&] { parse(j); }, {"'rainfall_mm_h[0]' must be a row [t, value]"}));
  write_file("bad_order.csv", "t,q\n0,1\n30,2\n20,3\n");
  j["rainfall_mm_h"] = "bad_order.csv";
  EXPECT_TRUE(throws_with([&] { parse(j); },
                          {"bad_order.csv:4: time 20 is not greater", "'rainfall_mm_h'"}));
  write_file("three.csv", "0,1,2\n");
  j["rainfall_mm_h"] = "three.csv";
  EXPECT_TRUE(throws_with([&] { parse(j); }, {"three.csv:1: expected 2 columns"}));
  write_file("word.csv", "t,q\n0,1\n5,lots\n");
  j["rainfall_mm_h"] = "word.csv";
  EXPECT_TRUE(throws_with([&] { parse(j); }, {"word.csv:3: value 'lots' is not a number"}));
  j["rainfall_mm_h"] = "missing.csv";
  EXPECT_TRUE(throws_with([&] { parse(j); }, {"missing.csv"}));
}

TEST(SweScene, ResolvedSceneHasDefaultsAndReloadsIdentically) {
  Json j = base();
  j["initial"]["depth"] = Json::parse(
      R"({"value": 0.1, "patches": [{"min": [100, 50], "max": [110, 60], "value": 1}]})");
  const auto job = parse(j);
  const Json& r = job.resolved;
  EXPECT_EQ(r["physics"]["gravity"], 9.81);
  EXPECT_EQ(r["physics"]["precision"], "float32");
  EXPECT_TRUE(r["physics"]["max_dt"].is_null());
  EXPECT_EQ(r["initial"]["depth"]["patches"][0]["shape"], "rectangle");
  // GeoTIFF where the GDAL module loads, ESRI ASCII without it.
  EXPECT_EQ(r["outputs"]["formats"], Json::array({io::gdal_available() ? "tif" : "asc"}));
  EXPECT_EQ(r["run"]["output_interval"], 1.0);
  EXPECT_EQ(r["name"], "scene");
  const auto again = io::parse_swe_job(r.dump(2), "resolved.json", "");
  EXPECT_EQ(again.scene.depth, job.scene.depth);
  EXPECT_EQ(again.run.output_times, job.run.output_times);
  EXPECT_EQ(again.resolved, r);
}

}  // namespace
}  // namespace silt::test
