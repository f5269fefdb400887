// silt's modules (core/module_loader.hpp) are loaded on first use only: a process that reads and
// writes ESRI ASCII grids never maps GDAL or OpenVDB; the first GeoTIFF read loads the GDAL module
// and GDAL; the first .vdb frame the VDB module and OpenVDB. A module that cannot be loaded is an
// Error naming its path and dlerror()'s reason (io.cmake runs that case again with
// SILT_MODULE_DIR at a folder without modules).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "io_test_util.hpp"
#include "silt/io/particles/vdb.hpp"
#include "silt/io/raster/raster.hpp"

namespace silt::test {
namespace {

// Whether a shared object whose file name starts with `name` is mapped into this process.
bool mapped(const std::string& name) {
  std::ifstream maps("/proc/self/maps");
  for (std::string line; std::getline(maps, line);)
    if (line.find("/" + name) != std::string::npos) return true;
  return false;
}

io::Raster small() {
  io::Raster r;
  r.nx = 3;
  r.ny = 2;
  r.dx = 10.0;
  r.values = {1, 2, 3, 4, 5, 6};
  return r;
}

bool modules_redirected() {
  const char* dir = std::getenv("SILT_MODULE_DIR");
  return dir && *dir;
}

TEST(IoModules, AsciiLeavesGdalUnloadedTifLoadsIt) {
  if (!io::gdal_available()) GTEST_SKIP() << "built without GDAL";
  if (modules_redirected()) GTEST_SKIP() << "SILT_MODULE_DIR is set (the missing-module case)";
  const std::string asc = (scratch() / "dem.asc").string();
  const std::string tif = (scratch() / "dem.tif").string();
  io::write_raster(asc, small(), io::RasterFormat::asc);
  EXPECT_EQ(io::read_raster(asc).values, small().values);
  EXPECT_FALSE(mapped("libgdal.so")) << "an .asc read must not load GDAL";
  EXPECT_FALSE(mapped("libsilt_gdal.so"));
  EXPECT_FALSE(mapped("libopenvdb.so")) << "rasters never load OpenVDB";
  // The GeoTIFF is written by a child process, so that this one first meets GDAL in the read.
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    try {
      io::write_raster(tif, small(), io::RasterFormat::tif);
    } catch (...) {
      _exit(1);
    }
    _exit(0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "writing " << tif;
  EXPECT_FALSE(mapped("libgdal.so"));
  EXPECT_EQ(io::read_raster(tif).values, small().values);
  EXPECT_TRUE(mapped("libgdal.so")) << "a .tif read loads GDAL";
  EXPECT_FALSE(mapped("libopenvdb.so"));
}

TEST(IoModules, VdbFrameLoadsOpenVdb) {
  if (!io::vdb_available()) GTEST_SKIP() << "built without OpenVDB";
  if (modules_redirected()) GTEST_SKIP() << "SILT_MODULE_DIR is set (the missing-module case)";
  EXPECT_FALSE(mapped("libopenvdb.so"));
  mpm::ParticleFrame frame;
  frame.position = {0.1f, 0.2f, 0.3f};
  frame.velocity = {1.0f, 0.0f, 0.0f};
  frame.material = {0};
  const auto path = scratch() / "p.vdb";
  io::write_particles_vdb(path.string(), frame, io::ParticleFileInfo{}, 0.1);
  EXPECT_TRUE(std::filesystem::file_size(path) > 0);
  EXPECT_TRUE(mapped("libopenvdb.so")) << "a .vdb frame loads OpenVDB";
}

TEST(IoModules, MissingModuleIsAnError) {
  if (!modules_redirected()) GTEST_SKIP() << "run with SILT_MODULE_DIR set (io.cmake)";
  const std::string dir = std::getenv("SILT_MODULE_DIR");
  // The raster need not be a GeoTIFF: the module is loaded before the file is opened.
  const std::string tif = write_file("fake.tif", "not a GeoTIFF");
  if (io::gdal_available()) {
    const std::string want = dir + "/libsilt_gdal.so";
    try {
      io::read_raster(tif);
      ADD_FAILURE() << "expected an Error";
    } catch (const Error& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find(want), std::string::npos) << what;
      EXPECT_NE(what.find("cannot open shared object file"), std::string::npos) << what;
    }
    // The same Error the second time, and `silt info`'s reason.
    EXPECT_THROW(io::crs_to_wkt("EPSG:4326"), Error);
    EXPECT_NE(io::gdal_problem().find(want), std::string::npos) << io::gdal_problem();
    EXPECT_FALSE(mapped("libgdal.so"));
  }
  if (io::vdb_available()) {
    const std::string want = dir + "/libsilt_vdb.so";
    mpm::ParticleFrame frame;
    try {
      io::write_particles_vdb((scratch() / "p.vdb").string(), frame, io::ParticleFileInfo{}, 0.1);
      ADD_FAILURE() << "expected an Error";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(want), std::string::npos) << e.what();
    }
    EXPECT_NE(io::vdb_problem().find(want), std::string::npos) << io::vdb_problem();
    EXPECT_FALSE(std::filesystem::exists(scratch() / "p.vdb"));
  }
}

}  // namespace
}  // namespace silt::test
