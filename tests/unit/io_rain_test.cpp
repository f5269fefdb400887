// Rain rasters and soil fields in shallow-water scenes (io/swe/scene_rain.cpp): frames from a list
// of GeoTIFF / ESRI ASCII rasters and from a NetCDF variable over time, times from dates,
// area-weighted resampling that conserves the volume, and the errors for bad input naming the
// file, the band or frame and the cell.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "io_test_util.hpp"
#include "silt/io/raster/raster.hpp"
#include "silt/io/swe/scene_file.hpp"
#include "silt/swe/solver.hpp"

namespace silt::io {
namespace {

using silt::test::scratch;
using silt::test::throws_with;

constexpr double kMmH = 1e-3 / 3600.0;

// The scene grid: 12 x 9 cells of 10 m from (1000, 2000).
constexpr int kNx = 12, kNy = 9;
constexpr double kDx = 10.0, kX0 = 1000.0, kY0 = 2000.0;

Raster grid_raster(Index nx, Index ny, double dx, double x0, double y0,
                   const std::function<double(Index, Index)>& value) {
  Raster r;
  r.nx = nx;
  r.ny = ny;
  r.dx = dx;
  r.x0 = x0;
  r.y0 = y0;
  r.values.resize(size_t(nx * ny));
  for (Index j = 0; j < ny; ++j)
    for (Index i = 0; i < nx; ++i) r.values[size_t(j * nx + i)] = value(i, j);
  return r;
}

std::string write(const std::string& name, const Raster& r, RasterFormat f) {
  const std::string p = (scratch() / name).string();
  write_raster(p, r, f);
  return p;
}

std::string scene(const std::string& rainfall, const std::string& extra = "",
                  const std::string& start = "2026-06-01T00:10:00Z") {
  return R"({"solver": "swe", "grid": {"nx": 12, "ny": 9, "dx": 10, "origin": [1000, 2000]},
    "bed": 0, "initial": {"depth": 0}, "run": {"end_time": 60, "start_datetime": ")" +
         start + R"("}, "outputs": {"png": "none"}, "rainfall": )" + rainfall + extra + "}";
}

SweJob parse(const std::string& text) {
  return parse_swe_job(text, "rain.json", scratch().string(), {});
}

// The rain volume of a run of the scene in a closed box (flat, walls all round) to t_end, float64.
double rained(SweJob job, double t_end) {
  job.scene.precision = swe::Precision::f64;
  swe::Solver s(job.scene, Exec::host());
  s.advance_to(t_end);
  const swe::Totals t = s.totals();
  EXPECT_NEAR(t.volume, t.rain_volume, 1e-12 * t.rain_volume) << "stored against rained";
  return t.rain_volume;
}

double grid_volume(const std::vector<double>& rate) {
  double v = 0;
  for (double r : rate) v += r * kDx * kDx;
  return v;
}

TEST(IoRain, FramesFromRastersWithTimesAndDates) {
  if (!gdal_available()) GTEST_SKIP() << "no GDAL";
  const auto a = write(
      "f0.tif",
      grid_raster(kNx, kNy, kDx, kX0, kY0, [](Index i, Index j) { return double(i + 10 * j); }),
      RasterFormat::tif);
  const auto b =
      write("f1.asc", grid_raster(kNx, kNy, kDx, kX0, kY0, [](Index, Index) { return 36.0; }),
            RasterFormat::asc);
  const SweJob job = parse(scene(R"({"frames": [{"time": 0, "raster": ")" + a +
                                 R"("}, {"time": "2026-06-01T01:10:00Z", "raster": ")" + b +
                                 R"("}], "interpolation": "step"})"));
  const swe::RainRaster& r = job.scene.rain;
  ASSERT_EQ(r.t.size(), 2u);
  EXPECT_EQ(r.t[0], 0.0);
  EXPECT_EQ(r.t[1], 3600.0);  // an hour after run.start_datetime
  EXPECT_TRUE(r.step);
  EXPECT_NEAR(r.rate[0][size_t(3 + 2 * kNx)], 23.0 * kMmH, 1e-18);
  EXPECT_NEAR(r.rate[1][5], 36.0 * kMmH, 1e-18);
  // Held rates: sum(i + 10 j) = 4914 mm/h for an hour, then 36 mm/h on 108 cells, 100 m^2 each.
  const double expected = kMmH * 100.0 * (4914.0 * 3600.0 + 36.0 * 108.0 * 400.0);
  EXPECT_NEAR(rained(job, 4000.0), expected, 1e-12 * expected);
}

// "shift" moves every frame later (an ensemble's storm arriving later): a held 36 mm/h frame
// then zeros an hour on, shifted 600 s, rains 4200 s; the held first frame covers the run's start.
TEST(IoRain, ShiftMovesEveryFrame) {
  const auto wet =
      write("s0.asc", grid_raster(kNx, kNy, kDx, kX0, kY0, [](Index, Index) { return 36.0; }),
            RasterFormat::asc);
  const auto dry =
      write("s1.asc", grid_raster(kNx, kNy, kDx, kX0, kY0, [](Index, Index) { return 0.0; }),
            RasterFormat::asc);
  const std::string frames = R"({"frames": [{"time": 0, "raster": ")" + wet +
                             R"("}, {"time": 3600, "raster": ")" + dry +
                             R"("}], "interpolation": "step")";
  const SweJob plain = parse(scene(frames + "}"));
  const SweJob later = parse(scene(frames + R"(, "shift": 600})"));
  ASSERT_EQ(later.scene.rain.t.size(), 2u);
  EXPECT_EQ(later.scene.rain.t[0], 600.0);
  EXPECT_EQ(later.scene.rain.t[1], 4200.0);
  // That held first frame is said, under the key, and only then.
  ASSERT_EQ(later.warnings.size(), 1u);
  EXPECT_NE(later.warnings[0].find("'rainfall.shift' the first rain frame, now at t = 600 s"),
            std::string::npos)
      << later.warnings[0];
  EXPECT_TRUE(plain.warnings.empty());
  const double hour = 36.0 * kMmH * 100.0 * 108.0 * 3600.0;
  EXPECT_NEAR(rained(plain, 5000.0), hour, 1e-12 * hour);
  EXPECT_NEAR(rained(later, 5000.0), hour * 4200.0 / 3600.0, 1e-12 * hour);
  EXPECT_TRUE(
      throws_with([&] { parse(scene(frames + R"(, "shift": "soon"})")); }, {"rainfall.shift"}));
}

TEST(IoRain, FramesFromANetcdfTimeAxis) {
  if (!netcdf_series_available()) GTEST_SKIP() << "no NetCDF";
  RasterSeries s;
  s.grid = grid_raster(kNx, kNy, kDx, kX0, kY0, [](Index, Index) { return 0.0; });
  s.grid.nodata = -9999.0;
  s.grid.time_reference = "2026-06-01 00:00:00";  // 10 min before the run's start
  Raster rain = s.grid;
  rain.variable = "rain";
  rain.units = "mm/h";
  s.fields = {rain};
  const std::string p = (scratch() / "storm.nc").string();
  create_netcdf_series(p, s);
  for (long k = 0; k < 3; ++k) {
    std::vector<double> v(size_t(kNx * kNy));
    for (Index c = 0; c < kNx * kNy; ++c) v[size_t(c)] = double(k + 1) * (1.0 + double(c % kNx));
    append_netcdf_frame(p, s, k, 600.0 + 900.0 * double(k), {v});
  }
  const SweJob job = parse(scene(R"({"netcdf": ")" + p + R"(", "variable": "rain"})"));
  const swe::RainRaster& r = job.scene.rain;
  ASSERT_EQ(r.t.size(), 3u);
  EXPECT_EQ(r.t[0], 0.0);  // 600 s after 00:00 is the run's start
  EXPECT_EQ(r.t[2], 1800.0);
  EXPECT_FALSE(r.step);
  EXPECT_NEAR(r.rate[2][size_t(4 + 5 * kNx)], 3.0 * 5.0 * kMmH, 1e-15);
  // Linear in time: per cell (1 + i) (900 (1 + 2) / 2 + 900 (2 + 3) / 2 + 600 x 3) mm/h s, and
  // sum(1 + i) = 78 per row, 9 rows.
  const double expected = kMmH * 100.0 * 702.0 * 5400.0;
  EXPECT_NEAR(rained(job, 2400.0), expected, 1e-12 * expected);
  // Bands named in errors: a negative rate in band 2.
  std::vector<double> bad(size_t(kNx * kNy), 1.0);
  bad[size_t(7 + 3 * kNx)] = -2.0;
  append_netcdf_frame(p, s, 1, 1500.0, {bad});
  EXPECT_TRUE(throws_with(
      [&] { parse(scene(R"({"netcdf": ")" + p + R"("})")); },
      {"rainfall.netcdf", "storm.nc' band 2", "t = 900 s", "rate -2", "raster cell (7, 3)"}));
}

TEST(IoRain, ResamplingConservesTheVolume) {
  // Finer cells (2.5 m): each grid cell is the mean of its 16 raster cells.
  const auto fine = grid_raster(4 * kNx, 4 * kNy, kDx / 4, kX0, kY0,
                                [](Index i, Index j) { return double((i * 7 + j * 3) % 11); });
  const auto a = write("fine.asc", fine, RasterFormat::asc);
  const SweJob fj = parse(scene(R"({"frames": [{"time": 0, "raster": ")" + a + R"("}]})"));
  double raster_volume = 0;
  for (double v : fine.values) raster_volume += v * kMmH * (kDx / 4) * (kDx / 4);
  EXPECT_NEAR(grid_volume(fj.scene.rain.rate[0]), raster_volume, 1e-12 * raster_volume);
  // Coarser, not aligned (7 m cells from 3 m south-west of the grid): the grid's volume is the
  // raster's over the grid's extent (each raster cell weighted by its overlap with it).
  const double rx0 = kX0 - 3, ry0 = kY0 - 3, e = 7.0;
  const auto coarse = grid_raster(
      20, 15, e, rx0, ry0, [](Index i, Index j) { return 1.0 + double((i * 5 + j * 2) % 7); });
  const auto b = write("coarse.asc", coarse, RasterFormat::asc);
  const SweJob cj = parse(scene(R"({"frames": [{"time": 0, "raster": ")" + b + R"("}]})"));
  double expected = 0;
  for (Index j = 0; j < coarse.ny; ++j)
    for (Index i = 0; i < coarse.nx; ++i) {
      const double wx =
          std::max(0.0, std::min(rx0 + (i + 1) * e, kX0 + kNx * kDx) - std::max(rx0 + i * e, kX0));
      const double wy =
          std::max(0.0, std::min(ry0 + (j + 1) * e, kY0 + kNy * kDx) - std::max(ry0 + j * e, kY0));
      expected += coarse.values[size_t(j * coarse.nx + i)] * kMmH * wx * wy;
    }
  EXPECT_NEAR(grid_volume(cj.scene.rain.rate[0]), expected, 1e-12 * expected);
}

TEST(IoRain, BadInputNamesTheFileTheFrameAndTheCell) {
  const auto ok =
      write("ok.asc", grid_raster(kNx, kNy, kDx, kX0, kY0, [](Index, Index) { return 5.0; }),
            RasterFormat::asc);
  // Off the grid: a raster that stops 20 m short of the east edge.
  const auto small =
      write("small.asc", grid_raster(kNx - 2, kNy, kDx, kX0, kY0, [](Index, Index) { return 5.0; }),
            RasterFormat::asc);
  EXPECT_TRUE(throws_with(
      [&] { parse(scene(R"({"frames": [{"time": 0, "raster": ")" + small + R"("}]})")); },
      {"rainfall.frames[0].raster", "small.asc' (frame 0, t = 0 s)", "cell (i = 10, j = 0)",
       "outside it"}));
  // Times not increasing.
  EXPECT_TRUE(throws_with(
      [&] {
        parse(scene(R"({"frames": [{"time": 60, "raster": ")" + ok +
                    R"("}, {"time": 60, "raster": ")" + ok + R"("}]})"));
      },
      {"rainfall.frames[1].time", "ok.asc' (frame 1, t = 60 s)", "times must increase"}));
  // Negative rates and nodata, by raster cell.
  const auto neg =
      write("neg.asc",
            grid_raster(kNx, kNy, kDx, kX0, kY0,
                        [](Index i, Index j) {
                          return i == 4 && j == 6 ? -1.0 : i == 2 && j == 1 ? -9999.0 : 1.0;
                        }),
            RasterFormat::asc);
  EXPECT_TRUE(
      throws_with([&] { parse(scene(R"({"frames": [{"time": 0, "raster": ")" + neg + R"("}]})")); },
                  {"neg.asc' (frame 0, t = 0 s)", "no data at raster cell (2, 1)"}));
  // A date that is not ISO 8601.
  EXPECT_TRUE(throws_with(
      [&] { parse(scene(R"({"frames": [{"time": "yesterday", "raster": ")" + ok + R"("}]})")); },
      {"rainfall.frames[0].time", "ISO 8601"}));
  // Soil: nodata in an active cell of a raster parameter.
  const auto ks =
      write("ks.asc",
            grid_raster(kNx, kNy, kDx, kX0, kY0,
                        [](Index i, Index j) { return i == 9 && j == 2 ? -9999.0 : 10.0; }),
            RasterFormat::asc);
  const std::string rain = R"({"frames": [{"time": 0, "raster": ")" + ok + R"("}]})";
  EXPECT_TRUE(throws_with(
      [&] {
        parse(scene(rain, R"(, "infiltration": {"model": "green_ampt", "conductivity_mm_h": ")" +
                              ks + R"(", "suction_m": 0.11, "porosity": 0.4,
                              "initial_moisture": 0.1})"));
      },
      {"infiltration.conductivity_mm_h", "ks.asc", "no data at cell (i = 9, j = 2)"}));
  EXPECT_TRUE(throws_with(
      [&] {
        parse(scene(rain, R"(, "infiltration": {"model": "green_ampt", "conductivity_mm_h": 10,
                              "suction_m": 0.11, "porosity": 0.3, "initial_moisture": 0.35})"));
      },
      {"infiltration.initial_moisture", "above the porosity"}));
  EXPECT_TRUE(throws_with(
      [&] {
        parse(scene(rain, R"(, "infiltration": {"model": "horton", "initial_rate_mm_h": 5,
                              "final_rate_mm_h": 10, "decay_per_h": 2})"));
      },
      {"infiltration.initial_rate_mm_h", "below the final rate"}));
  // A rain raster in another CRS than the scene's.
  if (gdal_available()) {
    Raster a = grid_raster(kNx, kNy, kDx, kX0, kY0, [](Index, Index) { return 1.0; });
    a.crs_wkt = crs_to_wkt("EPSG:32616");
    Raster b = a;
    b.crs_wkt = crs_to_wkt("EPSG:32617");
    const auto pa = write("crs_a.tif", a, RasterFormat::tif);
    const auto pb = write("crs_b.tif", b, RasterFormat::tif);
    EXPECT_TRUE(throws_with(
        [&] {
          parse(scene(R"({"frames": [{"time": 0, "raster": ")" + pa +
                      R"("}, {"time": 60, "raster": ")" + pb + R"("}]})"));
        },
        {"rainfall.frames[1].raster", "crs_b.tif", "UTM zone 17N", "crs_a.tif", "16N"}));
  }
}

}  // namespace
}  // namespace silt::io
