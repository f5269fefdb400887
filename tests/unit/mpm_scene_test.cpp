// MPM scene files (src/silt/io/mpm/scene_file.hpp): a minimal scene and its defaults, every kind of
// error naming the key path and file, --set overrides, the resolved scene loading back to the same
// scene, dt checks against the elastic CFL, and the example scenes in scenes/.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <cmath>
#include <filesystem>

#include "io_test_util.hpp"
#include "silt/io/mpm/scene_file.hpp"
#include "silt/io/scene_text.hpp"
#include "silt/mpm/sampling/sample_source.hpp"
#include "silt/mpm/wave_speed.hpp"

namespace {

using silt::io::MpmJob;
using silt::io::parse_mpm_job;
using silt::test::throws_with;

// A small valid scene; tests break one thing at a time with --set overrides or by replacing text.
const std::string kScene = R"({
  // comments are allowed
  "solver": "mpm",
  "name": "tiny",
  "domain": { "min": [0, 0, 0], "max": [1, 1, 1], "dx": 0.05 },
  "materials": [
    { "name": "sand", "kind": "sand", "friction_angle": 35 },
    { "name": "goo", "kind": "jelly", "youngs_modulus": 2e4 }
  ],
  "sources": [
    { "name": "pile", "material": "sand", "shape": "box", "min": [0.2, 0.2, 0.2], "max": [0.5, 0.4, 0.5] },
    { "name": "ball", "material": "goo", "shape": "sphere", "center": [0.6, 0.7, 0.6], "radius": 0.1,
      "velocity": [0, -1, 0], "sampling": "poisson", "seed": 9 }
  ],
  "colliders": [ { "name": "ramp", "kind": "plane", "point": [0, 0.1, 0], "normal": [0.1, 1, 0] } ],
  "run": { "frames": 3 }
})";

MpmJob parse(const std::vector<std::string>& overrides = {}, const std::string& text = kScene) {
  return parse_mpm_job(text, "tiny.json", "", overrides);
}

std::string replace(std::string s, const std::string& from, const std::string& to) {
  const auto at = s.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return s.replace(at, from.size(), to);
}

TEST(MpmScene, MinimalSceneGetsDefaults) {
  const MpmJob job = parse();
  const auto& s = job.scene;
  EXPECT_EQ(s.name, "tiny");
  EXPECT_DOUBLE_EQ(s.dx, 0.05);
  ASSERT_EQ(s.materials.size(), 2u);
  EXPECT_EQ(s.materials[0].kind, silt::mpm::MaterialKind::drucker_prager);
  EXPECT_DOUBLE_EQ(s.materials[0].friction_angle, 35.0);
  EXPECT_DOUBLE_EQ(s.materials[0].density, 1600.0);  // sand's default
  EXPECT_EQ(s.materials[1].kind, silt::mpm::MaterialKind::fixed_corotated);
  ASSERT_EQ(s.sources.size(), 2u);
  EXPECT_EQ(s.sources[1].material, 1);
  EXPECT_EQ(s.sources[1].sampling, silt::mpm::Sampling::poisson);
  EXPECT_EQ(s.sources[1].seed, 9u);
  EXPECT_DOUBLE_EQ(s.sources[1].velocity[1], -1.0);
  ASSERT_EQ(s.colliders.size(), 1u);
  EXPECT_EQ(s.colliders[0].kind, silt::mpm::Collider::Kind::plane);
  EXPECT_EQ(job.run.frames, 3);
  EXPECT_DOUBLE_EQ(job.run.end_time, 3 * s.frame_dt);
  EXPECT_EQ(job.outputs.formats.size(), 1u);
  EXPECT_FALSE(job.outputs.png);
  // 8 ppc * 0.3 * 0.2 * 0.3 m^3 / 0.05^3 m^3.
  ASSERT_EQ(job.expected_particles.size(), 2u);
  EXPECT_NEAR(job.expected_particles[0], 1152.0, 1e-6);
  EXPECT_TRUE(job.warnings.empty()) << job.warnings.front();
}

TEST(MpmScene, ResolvedSceneLoadsBackToTheSameScene) {
  const MpmJob a = parse({"run.end_time=0.1", "run.frames=null"});
  EXPECT_EQ(a.run.frames, 6);  // ceil(0.1 * 60)
  const MpmJob b = parse_mpm_job(a.resolved.dump(2), "resolved.json", "");
  EXPECT_EQ(a.resolved, b.resolved);
  EXPECT_EQ(b.run.frames, a.run.frames);
  EXPECT_EQ(b.scene.sources.size(), a.scene.sources.size());
  EXPECT_EQ(b.scene.materials[1].youngs_modulus, 2e4);
}

TEST(MpmScene, UnknownKeysAreErrorsNamingPathAndFile) {
  EXPECT_TRUE(throws_with([] { parse({"sources[0].colour=1"}); },
                          {"tiny.json", "unknown key 'sources[0].colour'"}));
  EXPECT_TRUE(throws_with([] { parse({"physics.cfll=0.4"}); }, {"tiny.json", "'physics.cfll'"}));
  EXPECT_TRUE(throws_with([] { parse({"extra=1"}); }, {"unknown key 'extra'"}));
}

TEST(MpmScene, BadValuesNameKeyAndValue) {
  EXPECT_TRUE(throws_with([] { parse({"domain.dx=-0.1"}); }, {"'domain.dx'", "-0.1"}));
  EXPECT_TRUE(throws_with([] { parse({"sources[1].radius=\"big\""}); },
                          {"'sources[1].radius'", "\"big\""}));
  EXPECT_TRUE(
      throws_with([] { parse({"sources[0].shape=cone"}); }, {"'sources[0].shape'", "cone", "box"}));
  EXPECT_TRUE(throws_with([] { parse({"sources[0].velocity=[1,2]"}); },
                          {"'sources[0].velocity'", "[1,2]"}));
  EXPECT_TRUE(throws_with([] { parse({"materials[0].poisson_ratio=0.5"}); },
                          {"'materials[0].poisson_ratio'", "0.5"}));
  EXPECT_TRUE(
      throws_with([] { parse({"materials[0].kind=mud"}); }, {"'materials[0].kind'", "mud"}));
  EXPECT_TRUE(
      throws_with([] { parse({"physics.transfer=flip"}); }, {"'physics.transfer'", "flip"}));
}

// "contact": two bodies by source or material name; the first body's sources are marked.
TEST(MpmScene, ContactNamesTwoBodies) {
  EXPECT_FALSE(parse().scene.contact.enabled());
  const MpmJob a = parse({"contact.bodies=[\"ball\",\"sand\"]", "contact.friction=0.3"});
  EXPECT_TRUE(a.scene.contact.enabled());
  EXPECT_EQ(a.scene.contact.first_body, (std::vector<int>{0, 1}));
  EXPECT_DOUBLE_EQ(a.scene.contact.friction, 0.3);
  EXPECT_DOUBLE_EQ(a.scene.contact.gap, 0.5);
  EXPECT_TRUE(throws_with([] { parse({"contact.bodies=[\"ball\",\"rock\"]"}); },
                          {"'contact.bodies'", "'rock'"}));
  EXPECT_TRUE(throws_with([] { parse({"contact.bodies=[\"ball\"]"}); }, {"'contact.bodies'"}));
  EXPECT_TRUE(throws_with(
      [] {
        parse({"contact.bodies=[\"ball\",\"pile\"]", "contact.gap=2"});
      },
      {"'contact.gap'"}));
}

TEST(MpmScene, OverridesApplyBeforeValidationAndAreNamedInErrors) {
  const MpmJob job = parse({"domain.dx=0.025", "materials[1].youngs_modulus=3e4"});
  EXPECT_DOUBLE_EQ(job.scene.dx, 0.025);
  EXPECT_DOUBLE_EQ(job.scene.materials[1].youngs_modulus, 3e4);
  EXPECT_TRUE(throws_with([] { parse({"domain.dx=0"}); }, {"'domain.dx'", "--set domain.dx=0"}));
}

TEST(MpmScene, UnknownMaterialNamesMaterialAndSource) {
  EXPECT_TRUE(throws_with([] { parse({"sources[1].material=gooo"}); },
                          {"'sources[1].material'", "\"gooo\"", "'ball'", "sand, goo"}));
  EXPECT_TRUE(
      throws_with([] { parse({"materials[1].name=sand"}); }, {"'materials[1].name'", "unique"}));
}

TEST(MpmScene, ParameterOfAnotherKindIsNamedAsSuch) {
  EXPECT_TRUE(throws_with([] { parse({"materials[1].friction_angle=30"}); },
                          {"'materials[1].friction_angle'",
                           "not a parameter of kind fixed_corotated", "drucker_prager"}));
}

TEST(MpmScene, RunNeedsFramesOrEndTime) {
  EXPECT_TRUE(throws_with([] { parse({"run.end_time=1"}); }, {"'run.frames'", "not both"}));
  EXPECT_TRUE(throws_with([] { parse({"run.frames=null"}); }, {"'run.frames'"}));
  const MpmJob job = parse({"run.fps=24"});
  EXPECT_DOUBLE_EQ(job.scene.frame_dt, 1.0 / 24);
  EXPECT_TRUE(throws_with([] { parse({"run.fps=24", "run.frame_dt=0.1"}); }, {"'run.fps'"}));
}

TEST(MpmScene, SourcesMustLieInTheDomain) {
  EXPECT_TRUE(throws_with([] { parse({"sources[1].center=[0.95,0.7,0.6]"}); },
                          {"'sources[1]'", "'ball'", "outside the domain", "along x"}));
}

TEST(MpmScene, StiffMaterialWarnsAndTooLargeFixedDtFails) {
  // Steel-like jelly: c = sqrt((lambda + 2 mu) / rho) ~ 5,800 m/s, dt limit 0.5 * 0.05 / c ~ 4e-6
  // s.
  const MpmJob job = parse({"materials[1].youngs_modulus=2e11", "materials[1].density=7800"});
  ASSERT_EQ(job.warnings.size(), 1u);
  EXPECT_NE(job.warnings[0].find("'goo'"), std::string::npos) << job.warnings[0];
  EXPECT_NE(job.warnings[0].find("elastic_cfl dx / c = 4."), std::string::npos) << job.warnings[0];
  // Soft materials: sand's limit is 0.5 * 0.05 / 17.1 m/s = 1.46e-3 s; 2x that is the most allowed.
  EXPECT_NO_THROW(parse({"physics.fixed_dt=2.5e-3", "physics.max_dt=1e-2"}));
  EXPECT_TRUE(throws_with([] { parse({"physics.fixed_dt=3.5e-3"}); },
                          {"'physics.fixed_dt'", "0.0035", "material 'sand'", "0.00146"}));
  EXPECT_TRUE(throws_with([] { parse({"physics.fixed_dt=0.5"}); }, {"longer than a frame"}));
}

// The wave speed and dt limit the checks above report come from mpm/ (closed forms in double).
TEST(MpmScene, ElasticDtLimitIsTheCflOverTheWaveSpeed) {
  constexpr double kRoundOff = 1e-12;  // relative, a few double operations
  silt::mpm::Material water;
  water.kind = silt::mpm::MaterialKind::fluid;
  water.bulk_modulus = 1.0e5, water.density = 1000;  // c = sqrt(K / rho) = 10 m/s
  EXPECT_NEAR(silt::mpm::material_wave_speed(water), 10.0, 10.0 * kRoundOff);
  EXPECT_NEAR(silt::mpm::elastic_dt_limit(water, 0.01, 0.5), 5e-4, 5e-4 * kRoundOff);
  water.bulk_modulus = 0;  // no waves, no limit
  EXPECT_TRUE(std::isinf(silt::mpm::elastic_dt_limit(water, 0.01, 0.5)));
}

TEST(MpmScene, G2p2gRefusesEmitters) {
  EXPECT_TRUE(throws_with(
      [] {
        parse({"performance.g2p2g=true", "sources[0].emit={\"interval\":0.1,\"end\":0.5}"});
      },
      {"'performance.g2p2g'", "emit"}));
  const MpmJob job = parse({"sources[0].emit={\"interval\":0.1,\"end\":0.5}"});
  EXPECT_DOUBLE_EQ(job.scene.sources[0].emit_interval, 0.1);
  EXPECT_EQ(silt::mpm::emission_times(job.scene.sources[0]).size(), 6u);
}

TEST(MpmScene, CudaGraphsCanBeTurnedOffForProfilers) {
  EXPECT_TRUE(parse({}).scene.cuda_graphs);
  EXPECT_FALSE(parse({"performance.cuda_graphs=false"}).scene.cuda_graphs);
  EXPECT_TRUE(
      throws_with([] { parse({"performance.cuda_graphs=2"}); }, {"'performance.cuda_graphs'"}));
}

TEST(MpmScene, MeshPathsResolveAgainstTheSceneFolder) {
  const std::string obj =
      "v 0.3 0.3 0.3\nv 0.6 0.3 0.3\nv 0.3 0.6 0.3\nv 0.3 0.3 0.6\n"
      "f 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n";
  silt::test::write_file("meshes/tet.obj", obj);
  const std::string scene =
      replace(kScene, R"("shape": "box", "min": [0.2, 0.2, 0.2], "max": [0.5, 0.4, 0.5])",
              R"("shape": "mesh", "file": "meshes/tet.obj")");
  const std::string path = silt::test::write_file("mesh_scene.json", scene);
  const MpmJob job = silt::io::load_mpm_job(path);
  EXPECT_EQ(job.scene.sources[0].shape, silt::mpm::Shape::mesh);
  EXPECT_TRUE(std::filesystem::path(job.scene.sources[0].mesh_path).is_absolute() ||
              job.scene.sources[0].mesh_path.find("meshes/tet.obj") != std::string::npos);
  EXPECT_NEAR(job.expected_particles[0], 8 * (0.027 / 6) / 1.25e-4, 1e-6);  // tetrahedron
  EXPECT_TRUE(throws_with([&] { silt::io::load_mpm_job(path, {"sources[0].file=nope.obj"}); },
                          {"'sources[0].file'", "nope.obj", "No such file"}));
}

TEST(MpmScene, MissingSolverAndWrongSolverAreExplained) {
  EXPECT_TRUE(throws_with([] { parse({"solver=swe"}); }, {"'solver'", "mpm"}));
  EXPECT_TRUE(throws_with([] { parse_mpm_job("{\"solver\": \"mpm\",", "broken.json", ""); },
                          {"broken.json:1"}));
}

TEST(MpmScene, ExampleScenesLoadAndTheBenchmarkHas370386Particles) {
  const std::filesystem::path dir = std::filesystem::path(SILT_SOURCE_DIR) / "scenes";
  int seen = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("mpm_", 0) != 0 || e.path().extension() != ".json") continue;
    ++seen;
    MpmJob job;
    ASSERT_NO_THROW(job = silt::io::load_mpm_job(e.path().string())) << name;
    EXPECT_TRUE(job.warnings.empty()) << name << ": " << job.warnings.front();
    if (name == "mpm_bench_cube.json") {
      std::size_t n = 0;
      for (const auto& s : job.scene.sources) n += silt::mpm::sample_source(s, job.scene.dx).size();
      EXPECT_EQ(n, 370386u);
      EXPECT_DOUBLE_EQ(job.scene.fixed_dt, 1e-4);
      EXPECT_DOUBLE_EQ(job.scene.dx, 1.0 / 256);
    } else if (name == "mpm_fountain.json") {
      // The paper's interactive fountain, for the GPU: one emitter, ~1,300 particles a frame for
      // 1.6 s, at most 143.5K in the paper.
      ASSERT_EQ(job.scene.sources.size(), 1u);
      const auto& src = job.scene.sources[0];
      ASSERT_GT(src.emit_interval, 0.0);
      const double emissions = 1.0 + std::floor(src.emit_end / src.emit_interval);
      const double n = job.expected_particles.at(0) * emissions;  // expected: per emission
      EXPECT_GT(n, 100000) << name;
      EXPECT_LT(n, 143500) << name;
    } else if (name == "mpm_snow_paper.json" || name == "mpm_snow_crawl.json" ||
               name == "mpm_sand_paper.json") {
      // The paper's scenes at its sizes, for the GPU: 1.33M snow particles (the snowball and the
      // crawling figure's bed), 3.1M sand particles, within 1% (the sampler's expected count).
      const double paper = name == "mpm_sand_paper.json" ? 3.1e6 : 1.33e6;
      double n = 0;
      for (double x : job.expected_particles) n += x;
      EXPECT_NEAR(n / paper, 1.0, 0.01) << name;
    } else {
      // Small enough for a few frames on a 2-core CPU.
      double n = 0;
      for (double x : job.expected_particles) n += x;
      EXPECT_LT(n, 30000) << name;
    }
  }
  EXPECT_EQ(seen, 12);  // with mpm_column_sweep_2d.json, the base of the ensembles' sweeps
}

TEST(MpmScene, WallsTakeOneConditionOrOnePerFace) {
  using silt::mpm::WallKind;
  const MpmJob d = parse();
  for (const auto& w : d.scene.walls) {
    EXPECT_EQ(w.kind, WallKind::separate);
    EXPECT_DOUBLE_EQ(w.friction, 0.5);  // a rough box unless the scene says otherwise (issue 36)
  }
  const MpmJob all = parse({"domain.walls=slip", "domain.friction=0.3"});
  for (const auto& w : all.scene.walls) {
    EXPECT_EQ(w.kind, WallKind::slip);
    EXPECT_DOUBLE_EQ(w.friction, 0.3);
  }
  const MpmJob faces = parse(
      {R"(domain.walls={"x-": "sticky", "y-": {"type": "friction", "friction": 0.6}, "z+": "slip"})"});
  const auto& w = faces.scene.walls;
  EXPECT_EQ(w[0].kind, WallKind::sticky);
  EXPECT_EQ(w[1].kind, WallKind::separate);  // left out: separate
  EXPECT_EQ(w[2].kind, WallKind::separate);  // "friction": separate with Coulomb friction
  EXPECT_DOUBLE_EQ(w[2].friction, 0.6);
  EXPECT_DOUBLE_EQ(w[3].friction, 0.5);  // left out: the default coefficient
  EXPECT_EQ(w[5].kind, WallKind::slip);
  // The resolved form names every face and loads back to the same walls.
  const MpmJob back = parse_mpm_job(faces.resolved.dump(2), "resolved.json", "");
  EXPECT_EQ(back.resolved, faces.resolved);
  for (int f = 0; f < 6; ++f) {
    EXPECT_EQ(back.scene.walls[f].kind, w[f].kind) << f;
    EXPECT_EQ(back.scene.walls[f].friction, w[f].friction) << f;
  }
  // Colliders take the same conditions.
  const MpmJob col = parse({R"(colliders[0].wall={"type": "friction", "friction": 0.4})"});
  EXPECT_EQ(col.scene.colliders[0].wall, WallKind::separate);
  EXPECT_DOUBLE_EQ(col.scene.colliders[0].friction, 0.4);
  const MpmJob rough = parse({R"(colliders[0].wall="separate")"});
  EXPECT_DOUBLE_EQ(rough.scene.colliders[0].friction, 0.5);
  const MpmJob smooth = parse({"domain.friction=0", "colliders[0].friction=0"});
  for (const auto& w : smooth.scene.walls) EXPECT_DOUBLE_EQ(w.friction, 0.0);
  EXPECT_DOUBLE_EQ(smooth.scene.colliders[0].friction, 0.0);
}

TEST(MpmScene, BadWallsNameTheKey) {
  EXPECT_TRUE(throws_with([] { parse({R"(domain.walls={"w-": "slip"})"}); },
                          {"tiny.json", "unknown key 'domain.walls.w-'"}));
  EXPECT_TRUE(throws_with([] { parse({R"(domain.walls={"x-": "glue"})"}); },
                          {"'domain.walls.x-'", "glue", "sticky"}));
  EXPECT_TRUE(
      throws_with([] { parse({R"(domain.walls={"y-": {"type": "friction", "friction": -0.1}})"}); },
                  {"'domain.walls.y-.friction'", "-0.1"}));
  EXPECT_TRUE(
      throws_with([] { parse({R"(domain.walls={"y-": {"type": "friction", "friction": 0}})"}); },
                  {"'domain.walls.y-.friction'", "positive"}));
  EXPECT_TRUE(throws_with(
      [] {
        parse({"domain.walls=friction", "domain.friction=0"});
      },
      {"'domain.walls'", "coefficient of 0"}));
  EXPECT_TRUE(throws_with([] { parse({"domain.friction=-1"}); }, {"'domain.friction'", "-1"}));
  EXPECT_TRUE(
      throws_with([] { parse({"colliders[0].friction=-1"}); }, {"'colliders[0].friction'", "-1"}));
  EXPECT_TRUE(throws_with([] { parse({"physics.damping=1"}); }, {"'physics.damping'", "1"}));
}

// A 2D scene: [x, y] vectors, boxes and discs, 4 particles per dx^2, everything in the plane z = 0.
const std::string kScene2D = R"({
  "solver": "mpm", "name": "flat",
  "domain": { "dimensions": 2, "min": [0, 0], "max": [1, 0.5], "dx": 0.05,
              "walls": { "y-": { "type": "friction", "friction": 0.5 } } },
  "materials": [ { "name": "sand", "kind": "sand" } ],
  "sources": [
    { "name": "pile", "material": "sand", "shape": "box", "min": [0, 0], "max": [0.3, 0.2] },
    { "name": "disc", "material": "sand", "shape": "sphere", "center": [0.6, 0.3], "radius": 0.1,
      "velocity": [0, -1] }
  ],
  "colliders": [ { "kind": "plane", "point": [0, 0.05], "normal": [0.1, 1] } ],
  "physics": { "gravity": [0, -9.81], "damping": 0.2 },
  "run": { "frames": 3, "rest_speed": 0.01 }
})";

TEST(MpmScene, TwoDimensionalScenesAreRead) {
  const MpmJob job = parse({}, kScene2D);
  const auto& s = job.scene;
  EXPECT_EQ(s.dimensions, 2);
  EXPECT_EQ(s.domain_max[2], 0.0);
  EXPECT_DOUBLE_EQ(s.damping, 0.2);
  EXPECT_DOUBLE_EQ(job.run.rest_speed, 0.01);
  EXPECT_DOUBLE_EQ(s.sources[0].particles_per_cell, 4.0);  // the 2D default
  EXPECT_DOUBLE_EQ(s.sources[1].velocity[1], -1.0);
  // 4 per dx^2: the box holds 6 x 4 cells, 96 particles; the disc pi r^2 / dx^2 * 4 ~ 50.
  const auto box = silt::mpm::sample_source(s.sources[0], s.dx, 2);
  EXPECT_EQ(box.size(), 96u);
  for (const auto& p : box) EXPECT_EQ(p[2], 0.0);
  EXPECT_NEAR(job.expected_particles[1], 4 * 3.14159265 * 0.01 / 0.0025, 1e-6);
  const MpmJob back = parse_mpm_job(job.resolved.dump(2), "resolved.json", "");
  EXPECT_EQ(back.resolved, job.resolved);
  EXPECT_EQ(back.scene.dimensions, 2);
}

TEST(MpmScene, TwoDimensionalScenesRefuseThreeDimensionalInput) {
  auto parse2 = [](const std::vector<std::string>& o) {
    parse(o, kScene2D);
  };
  EXPECT_TRUE(throws_with([&] { parse2({"sources[0].max=[0.3, 0.2, 0.1]"}); },
                          {"'sources[0].max'", "[x, y]", "2D"}));
  EXPECT_TRUE(throws_with([&] { parse2({"physics.gravity=[0, -9.81, 0]"}); },
                          {"'physics.gravity'", "[x, y]"}));
  EXPECT_TRUE(throws_with([&] { parse2({"colliders[0].normal=[0, 1, 0]"}); },
                          {"'colliders[0].normal'", "[x, y]"}));
  EXPECT_TRUE(
      throws_with([&] { parse2({"sources[0].shape=cylinder"}); }, {"'sources[0].shape'", "2D"}));
  EXPECT_TRUE(
      throws_with([&] { parse2({"colliders[0].kind=cylinder"}); }, {"'colliders[0].kind'", "2D"}));
  EXPECT_TRUE(throws_with([&] { parse2({"sources[0].sampling=poisson"}); },
                          {"'sources[0].sampling'", "2D"}));
  EXPECT_TRUE(throws_with([&] { parse2({R"(domain.walls={"z-": "slip"})"}); },
                          {"'domain.walls.z-'", "2D"}));
  EXPECT_TRUE(throws_with([&] { parse2({"domain.dimensions=4"}); }, {"'domain.dimensions'"}));
}

// Issue 16: what a hostile test fed the MPM loader. Each names the file and key.
TEST(MpmScene, ResolvedSceneWithProvenanceLoadsBack) {
  // `silt run` adds a provenance block to resolved_scene.json; the file must run again.
  nlohmann::json doc = parse().resolved;
  doc["provenance"] = {{"build", "test"}, {"backend", "cpu"}, {"scene_file", "tiny.json"}};
  const MpmJob b = parse_mpm_job(doc.dump(2), "resolved_scene.json", "");
  EXPECT_EQ(b.scene.sources.size(), 2u);
}

TEST(MpmScene, EmissionsAreBoundedBeforeTheirTimesAreListed) {
  EXPECT_TRUE(throws_with([] { parse({"sources[0].emit={\"interval\":1e-9,\"end\":4}"}); },
                          {"tiny.json", "'sources[0].emit.interval'", "1e-09", "4e+09 emissions"}));
}

TEST(MpmScene, ParticlesAreBoundedByIndexAndMemory) {
  // dx = 1e-4 m: ~6e10 particles, more than an int32 index holds.
  EXPECT_TRUE(throws_with([] { parse({"domain.dx=1e-4"}); },
                          {"tiny.json", "'sources'", "particles", "2147483647"}));
  // dx = 2.5 mm: ~1.1e7 particles (8 per cell), which fit the index but not 1 GiB.
  ::setenv("SILT_MEMORY_LIMIT", "1073741824", 1);
  EXPECT_TRUE(throws_with([] { parse({"domain.dx=0.0025"}); },
                          {"'sources'", "GiB", "more than SILT_MEMORY_LIMIT = 1.0 GiB"}));
  ::unsetenv("SILT_MEMORY_LIMIT");
}

TEST(MpmScene, StepsPerFrameAreBoundedAsTheSolverBoundsThem) {
  // The solver stops a frame past StepParams::max_steps = 2^20 steps ("dt collapsed"), so
  // validation refuses a scene whose first frame needs more: E = 1e30 Pa (c ~ 3e13 m/s, dt ~ 1e-15
  // s, ~1e13 steps a frame), or a max_dt of 1e-12 s.
  const std::vector<std::pair<std::string, std::vector<std::string>>> cases = {
      {"materials[1].youngs_modulus=1e30", {"tiny.json", "'materials[1]'", "'goo'", "1048576"}},
      {"physics.max_dt=1e-12", {"tiny.json", "'physics.max_dt'", "1048576"}},
  };
  for (const auto& [set, parts] : cases) EXPECT_TRUE(throws_with([&] { parse({set}); }, parts));
}

TEST(MpmScene, FramesAreBoundedBeforeTheyAreCounted) {
  // end_time / frame_dt was cast to int unchecked: 1e300 s gave a negative frame count.
  EXPECT_TRUE(throws_with(
      [] {
        parse({"run.frames=null", "run.end_time=1e300"});
      },
      {"tiny.json", "'run.end_time'", "frames", "10000000"}));
}

TEST(MpmScene, NamesMustBePlainAndMeshPathsFiles) {
  EXPECT_TRUE(throws_with([] { parse({"name=\"..\""}); }, {"tiny.json", "'name'", "\"..\""}));
  const std::string scene =
      replace(kScene, R"("shape": "box", "min": [0.2, 0.2, 0.2], "max": [0.5, 0.4, 0.5])",
              R"("shape": "mesh", "file": ".")");
  EXPECT_TRUE(throws_with([&] { parse({}, scene); }, {"'sources[0].file'", "is a directory"}));
  EXPECT_TRUE(throws_with([&] { parse({"sources[0].file=/dev/zero"}, scene); },
                          {"'sources[0].file'", "'/dev/zero'", "a character device"}));
}

// A closed tetrahedron inside the unit domain, written as frame files of a collider sequence.
const std::string kTetObj =
    "v 0.3 0.3 0.3\nv 0.6 0.3 0.3\nv 0.3 0.6 0.3\nv 0.3 0.3 0.6\n"
    "f 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n";

// The scene with colliders[0] a mesh sequence of `pattern` over frames first..last, in the scratch
// folder (file names in the pattern resolve against it).
MpmJob parse_sequence(const std::string& pattern, int first = 0, int last = 2) {
  const std::string collider = fmt::format(
      R"({{ "name": "wheel", "kind": "mesh", "frames": {{ "pattern": {}, "first": {}, "last": {} }} }})",
      silt::io::Json(pattern).dump(), first, last);
  const std::string scene = replace(
      kScene, R"({ "name": "ramp", "kind": "plane", "point": [0, 0.1, 0], "normal": [0.1, 1, 0] })",
      collider);
  return silt::io::load_mpm_job(silt::test::write_file("sequence.json", scene));
}

TEST(MpmScene, FramePatternsAreParsedBySiltNeverByPrintf) {
  // Issue 39: the pattern went to snprintf; "%n" wrote through a garbage pointer (rc 139), "%s"
  // read one, "%f" printed garbage and "%5000d" made a name too long for the file system.
  for (int n = 0; n <= 2; ++n) {
    silt::test::write_file(fmt::format("w_{:04d}.obj", n), kTetObj);
    silt::test::write_file(fmt::format("w_{}.obj", n), kTetObj);
    silt::test::write_file(fmt::format("100%_{:>3}.obj", n), kTetObj);
  }
  const MpmJob padded = parse_sequence("w_%04d.obj");
  ASSERT_EQ(padded.scene.colliders[0].mesh_files.size(), 3u);
  EXPECT_NE(padded.scene.colliders[0].mesh_files[2].find("w_0002.obj"), std::string::npos);
  EXPECT_NE(parse_sequence("w_%i.obj").scene.colliders[0].mesh_files[1].find("w_1.obj"),
            std::string::npos);
  EXPECT_NE(parse_sequence("100%%_%3d.obj").scene.colliders[0].mesh_files[0].find("100%_  0.obj"),
            std::string::npos);
  const std::string key = "'colliders[0].frames.pattern'";
  EXPECT_TRUE(throws_with([] { parse_sequence("w_%n_d.obj"); }, {key, "\"%n\"", "%0Nd"}));
  EXPECT_TRUE(throws_with([] { parse_sequence("w_%s.obj", 1); }, {key, "\"%s\""}));
  EXPECT_TRUE(throws_with([] { parse_sequence("w_%f.obj"); }, {key, "\"%f\""}));
  EXPECT_TRUE(throws_with([] { parse_sequence("w_%5000d.obj"); }, {key, "wider than 9 digits"}));
  EXPECT_TRUE(throws_with([] { parse_sequence("w_%d_%d.obj"); }, {key, "second % field"}));
  EXPECT_TRUE(throws_with([] { parse_sequence("w_%d%"); }, {key, "second % field"}));
  EXPECT_TRUE(throws_with([] { parse_sequence("w.obj"); }, {key, "no frame-number field"}));
  EXPECT_TRUE(throws_with([] { parse_sequence("w_%-4d.obj"); }, {key, "\"%-\""}));
  // A name longer than the file system takes is the scene's error, not an internal one.
  EXPECT_TRUE(throws_with([] { parse_sequence(std::string(5000, 'a') + "%d.obj"); },
                          {key, "names frame 0", "File name too long"}));
  EXPECT_TRUE(throws_with([] { parse_sequence("w_%04d.obj", 0, 3); },
                          {key, "names frame 3", "w_0003.obj", "No such file"}));
}

TEST(MpmScene, ResolvedMeshCollidersLoadBackFromAnyFolder) {
  // Issue 35: resolved_scene.json kept a sequence's pattern relative to the scene's folder and
  // wrote a 'velocity' for an animated mesh, which the loader refuses: the resolved scene of the
  // paddle did not load again (silt view, a rerun). The pattern is made absolute ('%' in the
  // folder's name escaped); an animated mesh's resolved form has no velocity.
  for (int n = 0; n <= 2; ++n) silt::test::write_file(fmt::format("50%/w_{}.obj", n), kTetObj);
  const MpmJob a = parse_sequence("50%%/w_%d.obj");
  const silt::io::Json& frames = a.resolved["colliders"][0]["frames"];
  EXPECT_TRUE(std::filesystem::path(frames["pattern"].get<std::string>()).is_absolute())
      << frames["pattern"];
  EXPECT_FALSE(a.resolved["colliders"][0].contains("velocity"));
  const MpmJob b = parse_mpm_job(a.resolved.dump(2), "resolved_scene.json", "/");
  EXPECT_EQ(b.scene.colliders[0].mesh_files, a.scene.colliders[0].mesh_files);
  EXPECT_EQ(b.resolved, a.resolved);
  silt::test::write_file("k_tet.obj", kTetObj);
  const std::string keyed = R"({ "name": "paddle", "kind": "mesh", "file": "k_tet.obj",
                                 "keys": [{"time": 0}, {"time": 1, "angle": 1}] })";
  const std::string scene = replace(
      kScene, R"({ "name": "ramp", "kind": "plane", "point": [0, 0.1, 0], "normal": [0.1, 1, 0] })",
      keyed);
  const MpmJob c = silt::io::load_mpm_job(silt::test::write_file("keyed.json", scene));
  EXPECT_FALSE(c.resolved["colliders"][0].contains("velocity"));
  EXPECT_TRUE(
      std::filesystem::path(c.resolved["colliders"][0]["file"].get<std::string>()).is_absolute());
  const MpmJob d = parse_mpm_job(c.resolved.dump(2), "resolved_scene.json", "/");
  EXPECT_EQ(d.scene.colliders[0].mesh_files, c.scene.colliders[0].mesh_files);
}

// The scene with colliders[0] the mesh collider `collider` (JSON), loaded as validate loads it.
MpmJob parse_collider(const std::string& collider, const std::vector<std::string>& sets = {}) {
  const std::string scene = replace(
      kScene, R"({ "name": "ramp", "kind": "plane", "point": [0, 0.1, 0], "normal": [0.1, 1, 0] })",
      collider);
  return silt::io::load_mpm_job(silt::test::write_file("collider.json", scene), sets);
}

TEST(MpmScene, ValidateReadsMeshColliderFilesAsRunDoes) {
  // Issue 39: validate did not read collider meshes; run refused what validate called ok.
  silt::test::write_file("c_tet.obj", kTetObj);
  silt::test::write_file("c_open.obj", "v 0 0 0\nv 0.1 0 0\nv 0 0.1 0\nf 1 2 3\n");
  silt::test::write_file("c_empty.obj", "");
  silt::test::write_file("c_garbage.obj", "v 0.1 x 0.2\n");
  silt::test::write_file("c_nan.obj", "v nan 0 0\n");
  silt::test::write_file("c_index.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 4294967298\n");
  const std::string ok = R"({ "name": "rock", "kind": "mesh", "file": "c_tet.obj" })";
  EXPECT_NO_THROW(parse_collider(ok));
  const auto bad = [&](const std::string& file, std::vector<std::string> parts) {
    parts.push_back("'colliders[0]'");
    EXPECT_TRUE(throws_with([&] { parse_collider(ok, {"colliders[0].file=" + file}); }, parts))
        << file;
  };
  bad("c_open.obj", {"c_open.obj", "not closed"});
  bad("c_empty.obj", {"c_empty.obj", "no faces"});
  bad("c_garbage.obj", {"c_garbage.obj:1", "three numbers"});
  bad("c_nan.obj", {"c_nan.obj:1", "three numbers"});
  bad("c_index.obj", {"c_index.obj:4", "4294967298"});
  EXPECT_TRUE(throws_with([&] { parse_collider(ok, {"colliders[0].offset=[5, 0, 0]"}); },
                          {"'colliders[0]'", "outside the domain"}));
  // A sequence whose frames change their vertex count, or their triangles with the same count.
  silt::test::write_file("s_0.obj", kTetObj);
  silt::test::write_file("s_1.obj", kTetObj + "v 0.4 0.4 0.4\n");
  silt::test::write_file("t_0.obj", kTetObj);
  silt::test::write_file("t_1.obj",
                         "v 0.3 0.3 0.3\nv 0.6 0.3 0.3\nv 0.3 0.6 0.3\nv 0.3 0.3 0.6\n"
                         "f 1 2 3\nf 1 4 2\nf 1 3 4\nf 2 4 3\n");
  const std::string seq =
      R"({ "name": "w", "kind": "mesh", "frames": {"pattern": "X_%d.obj", "last": 1} })";
  EXPECT_TRUE(throws_with([&] { parse_collider(replace(seq, "X_", "s_")); },
                          {"'colliders[0]'", "frame 1", "5 vertices", "one vertex count"}));
  EXPECT_TRUE(throws_with(
      [&] { parse_collider(replace(seq, "X_", "t_")); },
      {"'colliders[0]'", "frame 1", "connects its vertices differently", "triangle 1"}));
  // Sizes of the distance field, bounded before it is built.
  EXPECT_TRUE(throws_with([&] { parse_collider(ok, {"colliders[0].grow=10"}); },
                          {"'colliders[0].grow'", "= 10 m", "past the domain"}));
  EXPECT_TRUE(throws_with([&] { parse_collider(ok, {"colliders[0].voxel=1e-6"}); },
                          {"'colliders[0].voxel'", "1e-06", "voxels"}));
  // Scaled 1e6 about the domain's middle: 2e5 m across, 8e6 voxels of 0.025 m along each axis.
  silt::test::write_file("c_centred.obj",
                         "v -0.1 -0.1 -0.1\nv 0.1 -0.1 -0.1\nv -0.1 0.1 -0.1\nv -0.1 -0.1 0.1\n"
                         "f 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n");
  EXPECT_TRUE(throws_with(
      [&] {
        parse_collider(ok, {"colliders[0].file=c_centred.obj",
                            "colliders[0].offset=[0.5, 0.5, 0.5]", "colliders[0].scale=1e6"});
      },
      {"'colliders[0].voxel'", "scale 1000000", "voxels along"}));
}

TEST(MpmScene, MeshFilesThatAreNotRegularFilesAreRefusedBeforeTheyAreRead) {
  // A FIFO with no writer blocked the reader for ever; a device never ends.
  for (int n = 0; n <= 1; ++n) silt::test::write_file(fmt::format("p_{}.obj", n), kTetObj);
  const std::string fifo = (silt::test::scratch() / "p_2.obj").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_TRUE(throws_with([] { parse_sequence("p_%d.obj"); },
                          {"'colliders[0].frames.pattern'", "names frame 2", "a FIFO"}));
  const std::string scene = replace(
      kScene, R"({ "name": "ramp", "kind": "plane", "point": [0, 0.1, 0], "normal": [0.1, 1, 0] })",
      R"({ "name": "rock", "kind": "mesh", "file": "p_2.obj" })");
  const std::string path = silt::test::write_file("fifo_collider.json", scene);
  EXPECT_TRUE(throws_with([&] { silt::io::load_mpm_job(path); },
                          {"'colliders[0].file'", "p_2.obj", "a FIFO"}));
  EXPECT_TRUE(throws_with([&] { silt::io::load_mpm_job(path, {"colliders[0].file=/dev/zero"}); },
                          {"'colliders[0].file'", "a character device"}));
}

}  // namespace
