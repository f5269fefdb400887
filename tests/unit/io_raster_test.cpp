// Rasters: ESRI ASCII round trip and row order, and GeoTIFF / CF NetCDF / ESRI ASCII files read
// back by GDAL's own reader (Python osgeo.gdal and gdalinfo) for values, nodata, size and
// geotransform.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "io_test_util.hpp"
#include "silt/io/raster/raster.hpp"
#include "silt/io/swe/output.hpp"
#include "silt/io/swe/scene_file.hpp"
#include "test_support.hpp"

namespace silt::test {
namespace {

using nlohmann::json;

// 7 x 5 cells of 2.5 m from (1000.5, -20); value 10 j + i + 0.25 (exact in float32); one nodata.
io::Raster sample() {
  io::Raster r;
  r.nx = 7;
  r.ny = 5;
  r.dx = 2.5;
  r.x0 = 1000.5;
  r.y0 = -20.0;
  r.nodata = -9999.0;
  r.variable = "depth";
  r.units = "m";
  r.time = 12.5;
  for (int j = 0; j < r.ny; ++j)
    for (int i = 0; i < r.nx; ++i) r.values.push_back(10.0 * j + i + 0.25);
  r.values[1 * 7 + 3] = std::nan("");  // cell (3, 1): no data
  return r;
}

// Every value equal, nodata where `a` has nodata. Values pass through float32.
::testing::AssertionResult same_values(const io::Raster& a, const io::Raster& b) {
  if (a.nx != b.nx || a.ny != b.ny)
    return ::testing::AssertionFailure() << "size " << b.nx << " x " << b.ny;
  for (Index k = 0; k < a.cells(); ++k) {
    if (a.is_nodata(k) != b.is_nodata(k))
      return ::testing::AssertionFailure() << "nodata differs at " << k;
    if (!a.is_nodata(k) && float(a.values[k]) != float(b.values[k]))
      return ::testing::AssertionFailure()
             << "value at " << k << ": " << a.values[k] << " vs " << b.values[k];
  }
  return ::testing::AssertionSuccess();
}

TEST(Raster, AsciiRoundTripAndNorthFirstRows) {
  const io::Raster r = sample();
  const std::string path = (scratch() / "round.asc").string();
  io::write_raster(path, r, io::RasterFormat::asc);
  const io::Raster back = io::read_raster(path);
  EXPECT_TRUE(same_values(r, back));
  EXPECT_EQ(back.x0, r.x0);
  EXPECT_EQ(back.y0, r.y0);
  EXPECT_EQ(back.dx, r.dx);
  // The first data row of the file is the northern row (j = 4): 40.25 41.25 ...
  const std::string text = read_file(path);
  EXPECT_NE(text.find("NODATA_value -9999\n40.25 41.25 42.25"), std::string::npos) << text;
  EXPECT_NE(text.find("\n10.25 11.25 12.25 -9999 14.25"), std::string::npos) << text;
}

// A grid of many slabs of rows (the writer formats slabs on several threads and writes them in
// order): every row in its place, float64 values exact, nodata kept.
TEST(Raster, AsciiManySlabsKeepRowOrderAndDoubles) {
  io::Raster r;
  r.nx = 3;
  r.ny = 90001;  // about four slabs of 21,845 rows and a short last one
  r.type = io::ValueType::f64;
  for (Index k = 0; k < r.cells(); ++k) r.values.push_back(0.1 * double(k) + 1.0 / 3.0);
  r.values[size_t(5 * 3 + 1)] = std::nan("");
  const std::string path = (scratch() / "slabs.asc").string();
  io::write_raster(path, r, io::RasterFormat::asc);
  const io::Raster back = io::read_raster(path);
  ASSERT_EQ(back.nx, r.nx);
  ASSERT_EQ(back.ny, r.ny);
  for (Index k = 0; k < r.cells(); ++k) {
    ASSERT_EQ(back.is_nodata(k), r.is_nodata(k)) << k;
    if (!r.is_nodata(k)) {
      ASSERT_EQ(back.values[size_t(k)], r.values[size_t(k)]) << k;
    }
  }
}

TEST(Raster, AsciiCellCentreHeaderAndErrors) {
  const auto p = write_file("centre.asc",
                            "NCOLS 2\nNROWS 2\nXLLCENTER 10\nYLLCENTER 20\nCELLSIZE 4\n1 2\n3 4\n");
  const io::Raster r = io::read_raster(p);
  EXPECT_EQ(r.x0, 8.0);  // centre of the lower-left cell minus half a cell
  EXPECT_EQ(r.y0, 18.0);
  EXPECT_EQ(r.values, (std::vector<double>{3, 4, 1, 2}));  // south row first
  const auto q =
      write_file("rect.asc", "ncols 2\nnrows 1\nxllcorner 0\nyllcorner 0\ndx 1\ndy 2\n1 2\n");
  EXPECT_TRUE(throws_with([&] { io::read_raster(q); }, {"rect.asc", "non-square"}));
  const auto m = write_file("nohead.asc", "ncols 2\nnrows 1\ncellsize 1\n1 2\n");
  EXPECT_TRUE(
      throws_with([&] { io::read_raster(m); }, {"nohead.asc", "'xllcorner' or 'xllcenter'"}));
  const auto x =
      write_file("extra.asc", "ncols 2\nnrows 1\nxllcorner 0\nyllcorner 0\ncellsize 1\n1 2 3\n");
  EXPECT_TRUE(throws_with([&] { io::read_raster(x); }, {"extra.asc", "more values"}));
}

#if SILT_WITH_GDAL

json gdal_dump(const std::string& path) {
  return json::parse(
      command_output("/usr/bin/python3 " SILT_TEST_DIR "/io_gdal_dump.py '" + path + "'"));
}

// What GDAL's own reader must see in a file silt wrote from sample().
void check_with_gdal(const std::string& path) {
  const io::Raster r = sample();
  const json d = gdal_dump(path);
  SCOPED_TRACE(path + " read by GDAL driver " + d["driver"].get<std::string>());
  EXPECT_EQ(d["size"], json::array({7, 5}));
  // North-up geotransform: top-left corner, dx, 0, top edge, 0, -dx.
  const std::vector<double> gt = d["geotransform"];
  constexpr double kGeoTol = 1e-9;  // the corner is printed/stored as a double
  EXPECT_TRUE(all_near(gt, std::vector<double>{1000.5, 2.5, 0, -20.0 + 5 * 2.5, 0, -2.5}, kGeoTol));
  EXPECT_EQ(d["nodata"], -9999.0);
  for (int row = 0; row < 5; ++row)
    for (int i = 0; i < 7; ++i) {
      const int j = 4 - row;
      const json& v = d["values"][row][i];
      if (i == 3 && j == 1) {
        EXPECT_TRUE(v.is_null()) << "cell (3, 1) must be nodata, got " << v;
      } else {
        EXPECT_EQ(v.get<double>(), r.values[j * 7 + i]) << "cell (" << i << ", " << j << ")";
      }
    }
}

TEST(Raster, GeoTiffReadByGdal) {
  const std::string path = (scratch() / "sample.tif").string();
  io::write_raster(path, sample(), io::RasterFormat::tif);
  check_with_gdal(path);
  EXPECT_EQ(gdal_dump(path)["units"], "m");
  // gdalinfo's statistics skip the nodata cell: min 0.25, max 46.25.
  const json info = json::parse(command_output("gdalinfo -json -stats '" + path + "' 2>/dev/null"));
  EXPECT_EQ(info["bands"][0]["minimum"], 0.25);
  EXPECT_EQ(info["bands"][0]["maximum"], 46.25);
  std::remove((path + ".aux.xml").c_str());
  // And silt reads it back.
  EXPECT_TRUE(same_values(sample(), io::read_raster(path)));
}

TEST(Raster, NetcdfReadByGdalWithCfMetadata) {
  const std::string path = (scratch() / "sample.nc").string();
  io::write_raster(path, sample(), io::RasterFormat::nc);
  check_with_gdal(path);
  const json d = gdal_dump(path);
  EXPECT_EQ(d["metadata"]["NC_GLOBAL#Conventions"], "CF-1.8");
  EXPECT_EQ(d["metadata"]["x#standard_name"], "projection_x_coordinate");
  EXPECT_EQ(d["metadata"]["x#units"], "m");
  EXPECT_EQ(d["metadata"]["NETCDF_DIM_time_VALUES"], "12.5");
  EXPECT_EQ(d["band_metadata"]["NETCDF_VARNAME"], "depth");
  EXPECT_EQ(d["band_metadata"]["units"], "m");
  EXPECT_TRUE(same_values(sample(), io::read_raster(path)));
}

TEST(Raster, AsciiReadByGdal) {
  const std::string path = (scratch() / "sample_gdal.asc").string();
  io::write_raster(path, sample(), io::RasterFormat::asc);
  check_with_gdal(path);
}

// GDAL writes a UTM GeoTIFF (3 x 2 cells of 10 m, rows north first, nodata -1).
std::string gdal_made_tif() {
  const std::string path = (scratch() / "gdal_made.tif").string();
  command_output(
      "/usr/bin/python3 -c \"from osgeo import gdal, osr; import numpy as np; "
      "gdal.UseExceptions(); "
      "d = gdal.GetDriverByName('GTiff').Create('" +
      path +
      "', 3, 2, 1, gdal.GDT_Float32); "
      "d.SetGeoTransform([500000, 10, 0, 4000020, 0, -10]); s = osr.SpatialReference(); "
      "s.ImportFromEPSG(32617); d.SetProjection(s.ExportToWkt()); b = d.GetRasterBand(1); "
      "b.SetNoDataValue(-1); b.WriteArray(np.array([[1, 2, 3], [4, -1, 6]], dtype=np.float32)); "
      "d = None\"");
  return path;
}

TEST(Raster, ReadsGeoTiffWrittenByGdalWithCrs) {
  // silt must flip the rows and keep the CRS.
  const io::Raster r = io::read_raster(gdal_made_tif());
  EXPECT_EQ(r.nx, 3);
  EXPECT_EQ(r.ny, 2);
  EXPECT_EQ(r.x0, 500000.0);
  EXPECT_EQ(r.y0, 4000000.0);
  EXPECT_EQ(r.dx, 10.0);
  EXPECT_EQ(r.values[0], 4.0);  // south-west cell
  EXPECT_TRUE(r.is_nodata(1));
  EXPECT_EQ(r.values[5], 3.0);  // north-east cell
  EXPECT_NE(r.crs_wkt.find("UTM zone 17N"), std::string::npos) << r.crs_wkt;
}

TEST(Raster, SceneOnGeoTiffDemWritesOutputsInItsCrs) {
  const std::string dem = gdal_made_tif();
  const std::string text = R"({"solver": "swe", "bed": {"raster": ")" + dem +
                           R"(", "nodata": "wall"}, "initial": {"level": 5},
      "run": {"end_time": 1}, "outputs": {"formats": ["tif", "nc"], "fields": ["level"],
      "png": "none", "netcdf": "frames"}})";
  const auto job = io::parse_swe_job(text, "utm.json", "");
  EXPECT_EQ(job.scene.grid.x0, 500000.0);
  EXPECT_EQ(job.scene.active, (std::vector<std::uint8_t>{1, 0, 1, 1, 1, 1}));
  EXPECT_NE(job.outputs.crs_wkt.find("UTM zone 17N"), std::string::npos);
  const std::string dir = (scratch() / "utm_out").string();
  io::SweOutputWriter w(job, dir);
  swe::Fields f;
  f.nx = 3;
  f.ny = 2;
  f.h = job.scene.depth;
  f.hu = f.hv = f.hc = std::vector<double>(6, 0.0);
  w.write_frame(f, 0.0, 0);
  for (const char* ext : {"tif", "nc"}) {
    const json d = gdal_dump(dir + "/level_0000." + ext);
    EXPECT_NE(d["crs"].get<std::string>().find("UTM zone 17N"), std::string::npos) << ext;
    // North row first: level 5 where wet; the south-east cell (bed 6 m) is dry and the
    // south-middle one inactive: both nodata.
    EXPECT_EQ(d["values"], json::parse("[[5, 5, 5], [5, null, null]]")) << ext;
  }
}

#else

TEST(Raster, GdalFormatsNeedGdal) {
  EXPECT_TRUE(throws_with([] { io::write_raster("x.tif", sample(), io::RasterFormat::tif); },
                          {"x.tif", "needs GDAL"}));
  const auto p = write_file("plain.tif", "x");
  EXPECT_TRUE(throws_with([&] { io::read_raster(p); }, {"plain.tif", "no GDAL"}));
}

#endif

}  // namespace
}  // namespace silt::test
