// Fields shared by jobs of one scene file (raster/field_cache.hpp): a job read with the cache,
// whether it makes the fields or finds them, is the job read without it (every array and the
// resolved scene), and a field outside its range is refused with the message an uncached read
// gives, naming that job's own overrides, whether the job made the field or found it.
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <vector>

#include "io_test_util.hpp"
#include "silt/io/json_keys.hpp"
#include "silt/io/raster/field_cache.hpp"
#include "silt/io/swe/scene_file.hpp"
#include "test_support.hpp"

namespace silt::test {
namespace {

using io::Json;

// Found fields are copies of made ones, bit for bit.
constexpr double kSameBits = 0.0;

// A scene of 6 x 4 cells of 2 m from (10, 20) with every kind of field: a bed raster with a
// nodata cell (a wall), an analytic level (gradient, rectangle, circle and polygon patches), a
// Manning raster scaled, a constant u.
Json scene() {
  write_file("cache/bed.asc",
             "ncols 6\nnrows 4\nxllcorner 10\nyllcorner 20\ncellsize 2\nNODATA_value -9999\n"
             "3 3 3 3 3 3\n2 2 2 2 2 -9999\n1 1 1 1 1 1\n0 0 0.5 0 0 0\n");
  write_file("cache/n.asc",
             "ncols 6\nnrows 4\nxllcorner 10\nyllcorner 20\ncellsize 2\n"
             "0.01 0.02 0.03 0.04 0.05 0.06\n0.02 0.02 0.02 0.02 0.02 0.02\n"
             "0.03 0.03 0.03 0.03 0.03 0.03\n0.04 0.04 0.04 0.04 0.04 0.04\n");
  return Json::parse(R"({
    "solver": "swe",
    "bed": {"raster": "bed.asc", "nodata": "wall"},
    "initial": {
      "level": {"value": 2.5, "gradient": [0.01, -0.02], "patches": [
        {"min": [10, 20], "max": [15, 25], "value": 4},
        {"shape": "circle", "center": [19, 25], "radius": 2.5, "value": 3.5, "gradient": [0.1, 0]},
        {"shape": "polygon", "vertices": [[18, 20], [22, 20], [22, 23]], "value": 3}]},
      "u": 0.25},
    "manning": {"raster": "n.asc", "scale": 1.5},
    "run": {"end_time": 1}
  })");
}

io::SceneSource source(const std::vector<std::string>& overrides,
                       const std::vector<std::string>& labels) {
  return io::SceneSource{(scratch() / "cache" / "scene.json").string(),
                         (scratch() / "cache").string(), overrides, labels};
}

io::SweJob job(io::FieldCache* cache, const std::vector<std::string>& overrides = {},
               const std::vector<std::string>& labels = {}) {
  return io::read_swe_job(scene(), source(overrides, labels), cache);
}

std::string error_of(io::FieldCache* cache, const std::vector<std::string>& overrides,
                     const std::vector<std::string>& labels) {
  try {
    job(cache, overrides, labels);
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

void expect_same(const io::SweJob& a, const io::SweJob& b) {
  const swe::Scene &s = a.scene, &t = b.scene;
  EXPECT_TRUE(all_near(s.bed, t.bed, kSameBits)) << "bed";
  EXPECT_TRUE(all_near(s.depth, t.depth, kSameBits)) << "depth";
  EXPECT_TRUE(all_near(s.velocity_x, t.velocity_x, kSameBits)) << "u";
  EXPECT_TRUE(all_near(s.velocity_y, t.velocity_y, kSameBits)) << "v";
  EXPECT_TRUE(all_near(s.manning, t.manning, kSameBits)) << "manning";
  EXPECT_EQ(s.active, t.active);
  EXPECT_EQ(a.resolved, b.resolved);
  EXPECT_EQ(a.warnings, b.warnings);
}

TEST(FieldCache, FoundFieldsAreTheFieldsReadWithout) {
  const io::SweJob alone = job(nullptr);
  ASSERT_EQ(alone.scene.depth.size(), 24u);
  ASSERT_EQ(alone.scene.active.size(), 24u);  // the nodata cell is a wall
  io::FieldCache cache;
  expect_same(job(&cache), alone);  // makes the fields
  expect_same(job(&cache), alone);  // finds them
  // A value set differently is another field: the level one cell deeper in its rectangle.
  const std::vector<std::string> deeper{"initial.level.patches[0].value=5"};
  expect_same(job(&cache, deeper), job(nullptr, deeper));
  EXPECT_NE(job(&cache, deeper).scene.depth, alone.scene.depth);
}

TEST(FieldCache, AFieldOutOfRangeIsRefusedAsWithoutForEveryJob) {
  // A negative depth patch, set by a member of one name and then of another (the second finds
  // the field the first made): each message names its own.
  io::FieldCache cache;
  const std::vector<std::string> overrides{
      "run.end_time=2", R"(initial={"depth": {"value": 0.5, "patches": [{"min": [16, 22], )"
                        R"("max": [20, 26], "value": -0.25}]}})"};
  for (const std::string member : {"low", "lower"}) {
    const std::vector<std::string> labels{"--set", "ensemble member '" + member + "':"};
    const std::string without = error_of(nullptr, overrides, labels);
    EXPECT_NE(without.find("'initial.depth' must be >= 0, got -0.25 at cell (i = 3, j = 1)"),
              std::string::npos)
        << without;
    EXPECT_NE(without.find("(set by ensemble member '" + member + "': initial="), std::string::npos)
        << without;
    EXPECT_EQ(error_of(&cache, overrides, labels), without);
  }
  // An error in reading the field's keys is the scene's own too.
  const std::vector<std::string> rough{"manning.scale=-1"};
  EXPECT_EQ(error_of(&cache, rough, {}), error_of(nullptr, rough, {}));
}

TEST(FieldCache, MakesEachFieldOnceAndKeepsABoundedNumber) {
  io::FieldCache cache;
  std::atomic<int> made{0};
  const auto make = [&] {
    ++made;
    io::FieldCache::Checked c;
    c.field.values = {1.0, 2.0};
    c.outside = 1;
    return c;
  };
  const auto a = cache.field("a", make);
  EXPECT_EQ(cache.field("a", make), a);
  EXPECT_EQ(made, 1);
  EXPECT_EQ(a->outside, 1);
  for (std::size_t k = 0; k < io::kFieldCacheEntries; ++k) cache.field(std::to_string(k), make);
  EXPECT_EQ(made, 1 + int(io::kFieldCacheEntries));
  // Full: a new key is made each time it is asked for, and the first ones stay.
  cache.field("late", make);
  cache.field("late", make);
  EXPECT_EQ(made, 3 + int(io::kFieldCacheEntries));
  EXPECT_EQ(cache.field("a", make), a);
  cache.clear();
  EXPECT_NE(cache.field("a", make), a);
}

}  // namespace
}  // namespace silt::test
