// MPM sweeps' members (run/mpm_ensemble.hpp): each member's job is the scene file as it was read
// when the ensemble started, with the member's values applied and its errors naming the member,
// the same job a solo load of that file with the member's overrides gives.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "silt/core/error.hpp"
#include "silt/io/ensemble_file.hpp"
#include "silt/run/mpm_ensemble.hpp"
#include "test_support.hpp"

namespace {

namespace fs = std::filesystem;

std::string scene_text(double friction_angle) {
  return R"({"solver": "mpm", "name": "col",
    "domain": {"dimensions": 2, "min": [0, 0], "max": [0.4, 0.2], "dx": 0.02},
    "materials": [{"name": "sand", "kind": "sand", "density": 1600, "youngs_modulus": 3.5e5,
                   "poisson_ratio": 0.3, "friction_angle": )" +
         std::to_string(friction_angle) + R"(}],
    "sources": [{"name": "column", "material": "sand", "shape": "box", "min": [0, 0],
                 "max": [0.1, 0.1], "particles_per_cell": 4}],
    "run": {"fps": 10, "end_time": 0.2}, "outputs": {"png": false}})";
}

using silt::test::error_of;

TEST(MpmEnsembleMembers, ReadTheSceneFileAsItWasWhenTheEnsembleStarted) {
  const fs::path dir =
      fs::temp_directory_path() / ("silt_mpm_members_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string scene = (dir / "col.json").string();
  std::ofstream(scene) << scene_text(30.0);
  const silt::run::EnsembleScene s = silt::run::load_ensemble_scene(scene, {"run.fps=20"});
  const silt::io::Ensemble e = silt::io::parse_ensemble(
      R"({"members": [{"name": "a"}, {"name": "cohesive", "set": {"materials[0].cohesion": 0.1}},
                      {"name": "bad", "set": {"materials[0].friction_angle": -5}}]})",
      "ens.json", s.tree, s.source);
  // The file changes after the start: members still see the scene they were started with.
  std::ofstream(scene) << scene_text(40.0);
  const silt::io::MpmJob a = silt::run::mpm_member_job(s, e, 0),
                         cohesive = silt::run::mpm_member_job(s, e, 1);
  EXPECT_EQ(a.scene.materials.at(0).friction_angle, 30.0);
  EXPECT_EQ(a.run.frames, 4);  // --set run.fps=20 over 0.2 s
  EXPECT_EQ(cohesive.scene.materials.at(0).friction_angle, 30.0);
  EXPECT_EQ(cohesive.scene.materials.at(0).cohesion, 0.1);

  // The same jobs as a solo load of the file as it was, with the member's overrides and labels.
  std::ofstream(scene) << scene_text(30.0);
  for (std::size_t m : {0, 1}) {
    std::vector<std::string> labels;
    const std::vector<std::string> overrides = silt::run::member_overrides(s, e, m, &labels);
    const silt::io::MpmJob alone = silt::io::load_mpm_job(scene, overrides, labels);
    EXPECT_EQ(silt::run::mpm_member_job(s, e, m).resolved, alone.resolved) << m;
  }
  std::vector<std::string> labels;
  const std::vector<std::string> overrides = silt::run::member_overrides(s, e, 2, &labels);
  const std::string error = error_of([&] { silt::run::mpm_member_job(s, e, 2); });
  EXPECT_EQ(error, error_of([&] {
              silt::run::as_member(
                  e, 2, [&] { return silt::io::load_mpm_job(scene, overrides, labels); });
            }));
  EXPECT_NE(error.find("'bad'"), std::string::npos) << error;
  EXPECT_NE(error.find("friction_angle"), std::string::npos) << error;
  std::error_code ec;
  fs::remove_all(dir, ec);
}

}  // namespace
