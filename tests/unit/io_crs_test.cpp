// Coordinate reference systems and precision of shallow-water outputs (issue 21): the CRS of every
// input raster (an ESRI ASCII grid's .prj included) is read, inputs must agree, and every output
// carries it (a .prj beside each .asc, GeoTIFF keys, the NetCDF grid mapping), as GDAL's own
// reader and gdalinfo see it; outputs.crs overrides; values are written at outputs.precision
// (default: the run's).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "io_test_util.hpp"
#include "silt/io/raster/raster.hpp"
#include "silt/io/swe/output.hpp"
#include "silt/io/swe/scene_file.hpp"
#include "test_support.hpp"

namespace silt::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// .prj files as ArcGIS writes them (ESRI WKT1) for WGS 84 / UTM zones 16N and 17N.
std::string utm_prj(int zone) {
  return fmt::format(
      "PROJCS[\"WGS_1984_UTM_Zone_{}N\",GEOGCS[\"GCS_WGS_1984\",DATUM[\"D_WGS_1984\","
      "SPHEROID[\"WGS_1984\",6378137.0,298.257223563]],PRIMEM[\"Greenwich\",0.0],"
      "UNIT[\"Degree\",0.0174532925199433]],PROJECTION[\"Transverse_Mercator\"],"
      "PARAMETER[\"False_Easting\",500000.0],PARAMETER[\"False_Northing\",0.0],"
      "PARAMETER[\"Central_Meridian\",{}.0],PARAMETER[\"Scale_Factor\",0.9996],"
      "PARAMETER[\"Latitude_Of_Origin\",0.0],UNIT[\"Meter\",1.0]]",
      zone, 6 * zone - 183);
}

// 3 x 2 cells of 10 m from (500000, 4000000), bed 1 m, as <stem>.asc (+ <stem>.prj for zone > 0).
std::string utm_grid(const std::string& stem, int zone, double value = 1.0) {
  const std::string v = fmt::format("{}", value);
  const std::string path =
      write_file(stem + ".asc",
                 "ncols 3\nnrows 2\nxllcorner 500000\nyllcorner 4000000\n"
                 "cellsize 10\nNODATA_value -9999\n" +
                     v + " " + v + " " + v + "\n" + v + " " + v + " " + v + "\n");
  std::error_code ec;
  fs::remove(io::prj_path_of(path), ec);
  if (zone > 0) write_file(stem + ".prj", utm_prj(zone) + "\n");
  return path;
}

io::SweJob utm_job(const std::string& extra, const std::string& outputs) {
  const std::string text = R"({"solver": "swe", "name": "utm", "bed": "crs_dem.asc",
      "initial": {"depth": 0.5}, "run": {"end_time": 1}, )" +
                           extra + R"("outputs": )" + outputs + "}";
  return io::parse_swe_job(text, "utm.json", scratch().string());
}

// h = 1/3 + k / 7 (no float32 holds these exactly), at rest.
swe::Fields utm_fields() {
  swe::Fields f;
  f.nx = 3;
  f.ny = 2;
  for (int k = 0; k < 6; ++k) f.h.push_back(1.0 / 3.0 + k / 7.0);
  f.hu = f.hv = f.hc = std::vector<double>(6, 0.0);
  return f;
}

std::vector<std::string> write_one_frame(const io::SweJob& job, const std::string& name) {
  const std::string dir = (scratch() / name).string();
  std::error_code ec;
  fs::remove_all(dir, ec);
  io::SweOutputWriter w(job, dir);
  return w.write_frame(utm_fields(), 0.0, 0);
}

#if SILT_WITH_GDAL

// What GDAL's own reader makes of the file's CRS against `epsg` ("same" or "different: ...").
std::string gdal_crs(const std::string& path, const std::string& epsg) {
  std::string s =
      command_output("/usr/bin/python3 " SILT_TEST_DIR "/io_crs_check.py '" + path + "' " + epsg);
  while (!s.empty() && s.back() == '\n') s.pop_back();
  return s;
}

json gdal_dump(const std::string& path) {
  return json::parse(
      command_output("/usr/bin/python3 " SILT_TEST_DIR "/io_gdal_dump.py '" + path + "'"));
}

TEST(Crs, AsciiPrjIsRead) {
  const io::Raster r = io::read_raster(utm_grid("crs_read", 16));
  EXPECT_TRUE(io::same_crs(r.crs_wkt, io::crs_to_wkt("EPSG:32616"))) << r.crs_wkt;
  EXPECT_FALSE(io::same_crs(r.crs_wkt, io::crs_to_wkt("EPSG:32617")));
  EXPECT_EQ(io::read_raster(utm_grid("crs_none", 0)).crs_wkt, "");
  write_file("crs_bad.prj", "not a CRS at all");
  const std::string bad = utm_grid("crs_bad", 0);
  write_file("crs_bad.prj", "not a CRS at all");
  EXPECT_TRUE(throws_with([&] { io::read_raster(bad); }, {"crs_bad.prj", "not a CRS"}));
}

TEST(Crs, AsciiDemPrjGoesIntoEveryOutput) {
  utm_grid("crs_dem", 16);
  const auto job = utm_job(
      "", R"({"formats": ["asc", "tif", "nc"], "netcdf": "frames", "fields": ["depth", "level"],
                                   "png": "none"})");
  EXPECT_EQ(io::files_per_frame(job.outputs), 2u * 4u);  // asc, prj, tif, nc per field
  const auto files = write_one_frame(job, "crs_out");
  ASSERT_EQ(files.size(), 8u);
  for (const auto& f : files) {
    if (fs::path(f).extension() == ".prj") continue;
    EXPECT_EQ(gdal_crs(f, "EPSG:32616"), "same") << f;
    // gdalinfo, as a user checks it, shows the projected CRS.
    const json info = json::parse(command_output("gdalinfo -json '" + f + "'"));
    EXPECT_NE(info["coordinateSystem"]["wkt"].get<std::string>().find("UTM"), std::string::npos)
        << f;
  }
  EXPECT_TRUE(fs::exists(scratch() / "crs_out" / "depth_0000.prj"));
  EXPECT_TRUE(fs::exists(scratch() / "crs_out" / "level_0000.prj"));
  // The resolved scene keeps the CRS, and loads again to the same one.
  const std::string resolved = job.resolved["outputs"]["crs"].get<std::string>();
  EXPECT_TRUE(io::same_crs(resolved, io::crs_to_wkt("EPSG:32616")));
}

TEST(Crs, OutputsCrsOverridesTheInputs) {
  utm_grid("crs_dem", 16);
  const auto job = utm_job(
      "",
      R"({"formats": ["asc", "tif", "nc"], "netcdf": "frames", "fields": ["depth"], "png": "none",
                      "crs": "EPSG:32617"})");
  for (const auto& f : write_one_frame(job, "crs_override"))
    if (fs::path(f).extension() != ".prj") {
      EXPECT_EQ(gdal_crs(f, "EPSG:32617"), "same") << f;
    }
}

TEST(Crs, InputsInDifferentCrsNameBothFiles) {
  utm_grid("crs_dem", 16);
  utm_grid("crs_manning", 17, 0.03);
  EXPECT_TRUE(throws_with(
      [] { utm_job(R"("manning": "crs_manning.asc",)", R"({"png": "none"})"); },
      {"manning", "crs_manning.asc", "crs_dem.asc", "UTM zone 17N", "UTM zone 16N", "one CRS"}));
  // The same CRS written differently (an EPSG GeoTIFF against an ESRI .prj) agrees, and a
  // raster without a CRS is taken to be on the grid's.
  utm_grid("crs_manning", 16, 0.03);
  EXPECT_NO_THROW(utm_job(R"("manning": "crs_manning.asc",)", R"({"png": "none"})"));
  utm_grid("crs_manning", 0, 0.03);
  EXPECT_NO_THROW(utm_job(R"("manning": "crs_manning.asc",)", R"({"png": "none"})"));
}

TEST(Crs, NoCrsWritesNoPrj) {
  utm_grid("crs_dem", 0);
  const auto job = utm_job("", R"({"formats": ["asc"], "fields": ["depth"], "png": "none"})");
  EXPECT_EQ(io::files_per_frame(job.outputs), 1u);
  EXPECT_EQ(write_one_frame(job, "crs_plain").size(), 1u);
}

// outputs.hazard.every_frame: frames download the hazard arrays only when it is set, and then write
// each hazard raster with its .prj (the CRS of the DEM) beside the fields; a value that is not a
// boolean is an error naming the key.
TEST(Crs, HazardWithEveryFrameOnlyWhenAsked) {
  utm_grid("crs_dem", 16);
  const auto end_only =
      utm_job("", R"({"formats": ["asc"], "fields": ["depth"], "png": "none", "hazard": {}})");
  EXPECT_EQ(io::field_arrays_of(end_only.outputs) & io::kHazardArrays, 0u);
  EXPECT_EQ(io::files_per_frame(end_only.outputs), 2u);  // depth .asc and .prj
  EXPECT_EQ(write_one_frame(end_only, "crs_hazard_end").size(), 2u);
  const auto every = utm_job("", R"({"formats": ["asc"], "fields": ["depth"], "png": "none",
      "hazard": {"every_frame": true, "fields": ["max_speed", "class"]}})");
  EXPECT_EQ(io::field_arrays_of(every.outputs) & io::kHazardArrays, io::kHazardArrays);
  EXPECT_EQ(io::files_per_frame(every.outputs), 3u * 2u);
  swe::Fields f = utm_fields();
  f.max_depth = f.h;
  f.max_speed = f.max_depth_speed = f.max_concentration = f.wet_duration = f.hu;
  f.max_rating = std::vector<double>(6, 1.0);
  f.first_wet_time = std::vector<double>(6, -1.0);
  f.first_wet_time[2] = 0.5;
  const std::string dir = (scratch() / "crs_hazard_every").string();
  std::error_code ec;
  fs::remove_all(dir, ec);
  io::SweOutputWriter w(every, dir);
  EXPECT_EQ(w.write_frame(f, 1.0, 0).size(), 6u);
  for (const char* name : {"hazard_max_speed_0000", "hazard_class_0000"}) {
    EXPECT_EQ(gdal_crs(dir + "/" + name + ".asc", "EPSG:32616"), "same") << name;
    EXPECT_TRUE(fs::exists(fs::path(dir) / (std::string(name) + ".prj"))) << name;
  }
  EXPECT_TRUE(throws_with([] { utm_job("", R"({"png": "none", "hazard": {"every_frame": 1}})"); },
                          {"utm.json", "outputs.hazard.every_frame", "true or false"}));
}

TEST(Precision, FollowsTheRunAndTheKey) {
  utm_grid("crs_dem", 16);
  const std::string all =
      R"({"formats": ["asc", "tif", "nc"], "netcdf": "frames", "fields": ["depth"],
                               "png": "none")";
  const auto f64 = utm_job(R"("physics": {"precision": "float64"},)", all + "}");
  EXPECT_EQ(f64.resolved["outputs"]["precision"], "float64");
  write_one_frame(f64, "prec64");
  const auto f = utm_fields();
  const std::string d64 = (scratch() / "prec64" / "depth_0000.").string();
  for (const char* ext : {"tif", "nc"}) EXPECT_EQ(gdal_dump(d64 + ext)["type"], "Float64") << ext;
  // Every value back exactly, from silt's readers and from GDAL's (north row first; GDAL reads
  // ESRI ASCII as float32 unless told otherwise, so that one from silt's only).
  for (const char* ext : {"asc", "tif", "nc"}) {
    const io::Raster r = io::read_raster(d64 + ext);
    for (int k = 0; k < 6; ++k) EXPECT_EQ(r.values[k], f.h[k]) << ext << " cell " << k;
    if (std::string(ext) == "asc") continue;
    const json g = gdal_dump(d64 + ext);
    for (int k = 0; k < 6; ++k)
      EXPECT_EQ(g["values"][1 - k / 3][k % 3].get<double>(), f.h[k]) << ext << " cell " << k;
  }
  // float32 when asked, and by default in a float32 run.
  for (const std::string& extra :
       {std::string(R"("physics": {"precision": "float64"},)"), std::string()}) {
    const auto j32 = utm_job(extra, all + (extra.empty() ? "}" : R"(, "precision": "float32"})"));
    EXPECT_EQ(j32.resolved["outputs"]["precision"], "float32");
    write_one_frame(j32, "prec32");
    const std::string d32 = (scratch() / "prec32" / "depth_0000.").string();
    for (const char* ext : {"tif", "nc"}) EXPECT_EQ(gdal_dump(d32 + ext)["type"], "Float32");
    // The shortest text of the float: the same float back, not the double.
    const double back = io::read_raster(d32 + "asc").values[1];
    EXPECT_EQ(float(back), float(f.h[1]));
    EXPECT_NE(back, f.h[1]);
  }
  EXPECT_TRUE(throws_with([&] { utm_job("", R"({"precision": "float16"})"); },
                          {"outputs.precision", "float16"}));
}

#else

TEST(Crs, WithoutGdalThePrjIsPassedThrough) {
  utm_grid("crs_dem", 16);
  const auto job = utm_job("", R"({"formats": ["asc"], "fields": ["depth"], "png": "none"})");
  write_one_frame(job, "crs_plain_build");
  EXPECT_EQ(read_file((scratch() / "crs_plain_build" / "depth_0000.prj").string()),
            utm_prj(16) + "\n");
  utm_grid("crs_manning", 17, 0.03);
  EXPECT_TRUE(throws_with([] { utm_job(R"("manning": "crs_manning.asc",)", R"({"png": "none"})"); },
                          {"crs_manning.asc", "crs_dem.asc", "one CRS"}));
}

TEST(Precision, Float64RunWritesExactAscii) {
  utm_grid("crs_dem", 0);
  const auto job = utm_job(R"("physics": {"precision": "float64"},)",
                           R"({"formats": ["asc"], "fields": ["depth"], "png": "none"})");
  write_one_frame(job, "prec64_plain");
  const io::Raster r = io::read_raster((scratch() / "prec64_plain" / "depth_0000.asc").string());
  for (int k = 0; k < 6; ++k) EXPECT_EQ(r.values[k], utm_fields().h[k]) << "cell " << k;
}

#endif

}  // namespace
}  // namespace silt::test
