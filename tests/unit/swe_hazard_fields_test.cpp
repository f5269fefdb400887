// The hazard fields a run accumulates (HazardSettings::fields): only those that its outputs read
// (io/swe/scene_outputs.cpp, read_hazard), each with the bits of a run that accumulates them all,
// on the plain pass and, on CUDA, in the float64 tile kernel (kTileHazard); a checkpoint of fewer
// fields does not restart a run that reads more.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "io_test_util.hpp"
#include "silt/io/checkpoint_file.hpp"
#include "silt/io/image/map.hpp"
#include "silt/io/swe/checkpoint.hpp"
#include "silt/io/swe/output.hpp"
#include "silt/io/swe/scene_file.hpp"
#include "silt/swe/kernels/hazard_k.hpp"
#include "silt/swe/solver.hpp"
#include "test_support.hpp"

namespace silt::io {
namespace {

using silt::test::scratch;

// A dam break on a flat, frictionless float64 bed with a pollutant, every side a wall: fast water,
// depth, concentration and wetting for every hazard field.
SweJob dam_break(const std::string& hazard_fields, const std::string& png = "none") {
  const std::string outputs =
      R"({"png": ")" + png + R"(", "hazard": {"fields": )" + hazard_fields + "}}";
  const std::string text = R"({"solver": "swe", "name": "hazard_fields",
    "grid": {"nx": 64, "ny": 24, "dx": 1.0, "origin": [0, 0]}, "bed": 0, "manning": 0,
    "initial": {"level": {"value": 0.0, "patches": [
      {"shape": "rectangle", "min": [0, 0], "max": [20, 24], "value": 2.0}]},
      "concentration": 1.5},
    "physics": {"precision": "float64"}, "run": {"end_time": 4}, "outputs": )" +
                           outputs + "}";
  return parse_swe_job(text, "hazard_fields.json", scratch().string(), {});
}

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

// Whether every value of v is x (the start value of a field not accumulated).
bool all_equal(const std::vector<double>& v, double x) {
  for (double y : v)
    if (y != x) return false;
  return !v.empty();
}

TEST(SweHazardFields, TheKernelChangesOnlyTheChosenFieldsWithTheBitsOfAll) {
  using swe::HazardCell;
  using swe::HazardParams;
  const HazardCell<double> start{0.5, 0.25, 0.0, 0.1, -1.0, 3.0};
  const HazardParams<double> all{0.01, swe::kDebrisUrban};
  // A wet cell (2 m, 3 m/s east, 1 m/s north, 0.4 kg/m^3) at the end of a step of 0.1 s at 12 s.
  const HazardCell<double> want =
      swe::accumulate_hazard_k(start, 2.0, 6.0, 2.0, 0.8, 12.0, 0.1, all);
  for (unsigned bit = 1; bit <= swe::kHazardWetTime; bit <<= 1) {
    HazardParams<double> one = all;
    one.fields = bit;
    const HazardCell<double> a =
        swe::accumulate_hazard_k(start, 2.0, 6.0, 2.0, 0.8, 12.0, 0.1, one);
    const auto pick = [bit](unsigned b, double chosen, double other) {
      return (bit & b) ? chosen : other;
    };
    SCOPED_TRACE("field bit " + std::to_string(bit));
    EXPECT_EQ(a.max_speed, pick(swe::kHazardMaxSpeed, want.max_speed, start.max_speed));
    EXPECT_EQ(a.max_depth_speed,
              pick(swe::kHazardMaxDepthSpeed, want.max_depth_speed, start.max_depth_speed));
    EXPECT_EQ(a.max_conc, pick(swe::kHazardMaxConc, want.max_conc, start.max_conc));
    EXPECT_EQ(a.max_rating, pick(swe::kHazardMaxRating, want.max_rating, start.max_rating));
    EXPECT_EQ(a.first_wet, pick(swe::kHazardFirstWet, want.first_wet, start.first_wet));
    EXPECT_EQ(a.wet_time, pick(swe::kHazardWetTime, want.wet_time, start.wet_time));
  }
  // Each field changes in `want`: the test can fail.
  EXPECT_NE(want.max_speed, start.max_speed);
  EXPECT_NE(want.max_depth_speed, start.max_depth_speed);
  EXPECT_NE(want.max_conc, start.max_conc);
  EXPECT_NE(want.max_rating, start.max_rating);
  EXPECT_NE(want.first_wet, start.first_wet);
  EXPECT_NE(want.wet_time, start.wet_time);
}

TEST(SweHazardFields, TheSceneOutputsChooseTheFields) {
  using swe::kHazardFirstWet, swe::kHazardMaxRating, swe::kHazardMaxSpeed;
  EXPECT_EQ(dam_break(R"(["max_depth", "max_speed", "first_wet_time"])").scene.hazard.fields,
            kHazardMaxSpeed | kHazardFirstWet);
  EXPECT_EQ(dam_break(R"(["max_depth"])").scene.hazard.fields, 0u);
  EXPECT_FALSE(dam_break(R"(["max_depth"])").scene.hazard.accumulates());
  EXPECT_EQ(dam_break(R"(["class"])").scene.hazard.fields, kHazardMaxRating | kHazardFirstWet);
  // The end's PNG report draws the classes.
  if (png_available())
    EXPECT_EQ(dam_break(R"(["max_speed"])", "depth").scene.hazard.fields,
              kHazardMaxSpeed | kHazardMaxRating | kHazardFirstWet);
  EXPECT_EQ(dam_break(R"(["max_depth_speed", "wet_duration", "max_concentration", "rating"])")
                .scene.hazard.fields,
            unsigned(swe::kHazardAllFields & ~(kHazardMaxSpeed | kHazardFirstWet)));
}

// A run that writes the maximum speed and the arrival accumulates no other field, and those two
// have the bits of a run that writes every field (whose hazard pass is the tile kernel's oracle).
TEST(SweHazardFields, ARunAccumulatesOnlyWhatItsOutputsRead) {
  const SweJob chosen = dam_break(R"(["max_depth", "max_speed", "first_wet_time"])");
  const SweJob every = dam_break(
      R"(["max_speed", "max_depth_speed", "first_wet_time", "wet_duration", "max_concentration",
          "rating"])");
  swe::SolverOptions pass;
  pass.hazard_pass = true;
  swe::Solver a(chosen.scene, test::exec());
  swe::Solver b(every.scene, test::exec(), pass);
  a.advance_to(chosen.run.end_time);
  b.advance_to(every.run.end_time);
  ASSERT_EQ(a.steps(), b.steps());
  const swe::Fields fa = a.fields(), fb = b.fields();
  EXPECT_TRUE(same_bits(fa.h, fb.h)) << "the flow";
  EXPECT_TRUE(same_bits(fa.max_speed, fb.max_speed));
  EXPECT_TRUE(same_bits(fa.first_wet_time, fb.first_wet_time));
  EXPECT_TRUE(same_bits(fa.max_depth, fb.max_depth));
  // Not read, not accumulated: the start values (maxima 0, no wet time) where the full run has
  // wet cells.
  EXPECT_FALSE(all_equal(fb.max_rating, 0.0));
  EXPECT_FALSE(all_equal(fb.max_concentration, 0.0));
  EXPECT_FALSE(all_equal(fb.wet_duration, 0.0));
  EXPECT_TRUE(all_equal(fa.max_rating, 0.0));
  EXPECT_TRUE(all_equal(fa.max_depth_speed, 0.0));
  EXPECT_TRUE(all_equal(fa.max_concentration, 0.0));
  EXPECT_TRUE(all_equal(fa.wet_duration, 0.0));
  // A raster made of a field the run did not accumulate is refused, not written from zeros.
  EXPECT_NO_THROW(hazard_raster(chosen, fa, HazardField::max_speed));
  EXPECT_THROW(hazard_raster(chosen, fa, HazardField::hazard_class), Error);
}

// A checkpoint holds the fields its run accumulated: a restart of the same scene that reads more
// (an ensemble's statistics, which the scene hash does not cover) is refused; one that reads as
// many continues.
TEST(SweHazardFields, ACheckpointOfFewerFieldsDoesNotRestartARunThatReadsMore) {
  SweJob job = dam_break(R"(["max_speed"])");
  swe::Solver s(job.scene, Exec::host());
  s.advance_to(1.0);
  SweCheckpoint cp;
  cp.state = s.state();
  cp.parts = 1;
  const std::string path = (scratch() / "hazard_fields.ckpt").string();
  save_swe_checkpoint(path, job, cp, "test");
  EXPECT_NO_THROW(load_swe_checkpoint(path, job));
  job.scene.hazard.fields |= swe::kHazardFirstWet;
  try {
    load_swe_checkpoint(path, job);
    ADD_FAILURE() << "a restart that reads the arrival from a run that did not keep it";
  } catch (const CheckpointError& e) {
    EXPECT_NE(std::string(e.what()).find("hazard.first_wet_time"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace silt::io
