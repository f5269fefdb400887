// Particle outputs (src/silt/io/particles/*.hpp, io/image/splat_*.hpp): PLY and VTP files read back
// by VTK's Python readers (mpm_particles_readback.py; an independent implementation of both
// formats) with every value compared exactly; atomic writes; the per-frame writer; the PNG splat
// preview.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "io_test_util.hpp"
#include "silt/io/image/splat_png.hpp"
#include "silt/io/mpm/scene_file.hpp"
#include "silt/io/particles/output.hpp"
#include "silt/io/particles/ply.hpp"
#include "silt/io/particles/vtp.hpp"
#include "silt/mpm/splitmix.hpp"
#include "test_support.hpp"

namespace {

namespace fs = std::filesystem;
using silt::mpm::ParticleFrame;
using Arrays = std::map<std::string, std::vector<double>>;

// Float32 values go through the files unchanged (printed as exact doubles by Python): exact.
constexpr double kExact = 0.0;

ParticleFrame make_frame(std::size_t n, bool stress) {
  ParticleFrame f;
  silt::mpm::SplitMix rng(2024);
  for (std::size_t i = 0; i < n; ++i) {
    for (int d = 0; d < 3; ++d) {
      f.position.push_back(float(rng.uniform()));
      f.velocity.push_back(float(4 * rng.uniform() - 2));
    }
    f.material.push_back(std::int32_t(rng.below(4)));
    if (stress) f.id.push_back(std::int32_t(n - i) * 3);  // ids in any order
    if (stress) {
      for (int k = 0; k < 9; ++k) f.stress.push_back(float(2e4 * rng.uniform() - 1e4));
      f.plastic.push_back(float(-rng.uniform()));
    }
  }
  return f;
}

// The first interpreter that imports vtk and numpy: $SILT_VTK_PYTHON, Debian's /usr/bin/python3
// (python3-vtk9), then python3 on PATH (pyenv and venvs often lack VTK).
std::string vtk_python() {
  static const std::string found = [] {
    std::vector<std::string> c;
    if (const char* e = std::getenv("SILT_VTK_PYTHON")) c.push_back(e);
    c.push_back("/usr/bin/python3");
    c.push_back("python3");
    for (const auto& py : c)
      if (std::system(("\"" + py + "\" -c \"import vtk, numpy\" > /dev/null 2>&1").c_str()) == 0)
        return py;
    return std::string();
  }();
  return found;
}

// Runs the reader on `paths`; returns "<file> <array>" -> values.
Arrays read_back(const std::vector<std::string>& paths) {
  const std::string py = vtk_python();
  if (py.empty()) {
    ADD_FAILURE() << "no Python with VTK found: install python3-vtk9 (Debian) or set "
                     "SILT_VTK_PYTHON to an interpreter that can `import vtk, numpy`";
    return {};
  }
  const std::string out = (silt::test::scratch() / "readback.txt").string();
  std::string cmd = "\"" + py + "\" \"" SILT_TEST_DIR "/mpm_particles_readback.py\"";
  for (const auto& p : paths) cmd += " \"" + p + "\"";
  cmd += " > \"" + out + "\"";
  const int rc = std::system(cmd.c_str());
  EXPECT_EQ(rc, 0) << cmd;
  Arrays a;
  std::ifstream in(out);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    std::string file, name;
    std::size_t n = 0;
    ls >> file >> name >> n;
    std::vector<double>& v = a[fs::path(file).filename().string() + " " + name];
    v.resize(n);
    for (auto& x : v) ls >> x;
  }
  return a;
}

std::vector<double> column(const std::vector<float>& v, int comps, int c) {
  std::vector<double> out;
  for (std::size_t i = c; i < v.size(); i += comps) out.push_back(v[i]);
  return out;
}

template <class T>
std::vector<double> as_double(const std::vector<T>& v) {
  return std::vector<double>(v.begin(), v.end());
}

TEST(MpmParticlesIo, PlyReadsBackExactly) {
  const ParticleFrame f = make_frame(1000, true);
  const std::string path = (silt::test::scratch() / "frame.ply").string();
  silt::io::write_particles_ply(path, f, {"test", 7, 0.125});
  Arrays a = read_back({path});
  ASSERT_FALSE(a.empty());
  EXPECT_TRUE(silt::test::all_near(a["frame.ply points"], as_double(f.position), kExact));
  const char* v[] = {"vx", "vy", "vz"};
  for (int d = 0; d < 3; ++d) {
    EXPECT_TRUE(silt::test::all_near(a["frame.ply ply." + std::string("xyz").substr(d, 1)],
                                     column(f.position, 3, d), kExact));
    EXPECT_TRUE(silt::test::all_near(a[std::string("frame.ply ply.") + v[d]],
                                     column(f.velocity, 3, d), kExact));
  }
  EXPECT_TRUE(silt::test::all_near(a["frame.ply ply.material"], as_double(f.material), kExact));
  EXPECT_TRUE(silt::test::all_near(a["frame.ply ply.id"], as_double(f.id), kExact));
  // Symmetric stress: sxx syy szz from the diagonal, sxy = s[0][1], syz = s[1][2], sxz = s[0][2].
  const std::pair<const char*, int> s[] = {{"sxx", 0}, {"syy", 4}, {"szz", 8},
                                           {"sxy", 1}, {"syz", 5}, {"sxz", 2}};
  for (const auto& [name, k] : s)
    EXPECT_TRUE(silt::test::all_near(a[std::string("frame.ply ply.") + name],
                                     column(f.stress, 9, k), kExact))
        << name;
  std::vector<double> pressure;
  for (std::size_t i = 0; i < f.count(); ++i)
    pressure.push_back(-(f.stress[9 * i] + f.stress[9 * i + 4] + f.stress[9 * i + 8]) / 3.0f);
  EXPECT_TRUE(silt::test::all_near(a["frame.ply ply.pressure"], pressure, kExact));
  EXPECT_TRUE(silt::test::all_near(a["frame.ply ply.plastic"], as_double(f.plastic), kExact));
}

TEST(MpmParticlesIo, VtpReadsBackExactlyInBothEncodings) {
  const ParticleFrame f = make_frame(777, true);
  const std::string raw = (silt::test::scratch() / "raw.vtp").string();
  const std::string b64 = (silt::test::scratch() / "b64.vtp").string();
  silt::io::write_particles_vtp(raw, f, {"test", 12, 0.2}, silt::io::VtpEncoding::appended_raw);
  silt::io::write_particles_vtp(b64, f, {"test", 12, 0.2}, silt::io::VtpEncoding::inline_base64);
  Arrays a = read_back({raw, b64});
  ASSERT_FALSE(a.empty());
  for (const std::string file : {"raw.vtp", "b64.vtp"}) {
    EXPECT_TRUE(silt::test::all_near(a[file + " points"], as_double(f.position), kExact)) << file;
    EXPECT_TRUE(silt::test::all_near(a[file + " velocity"], as_double(f.velocity), kExact)) << file;
    EXPECT_TRUE(silt::test::all_near(a[file + " material"], as_double(f.material), kExact)) << file;
    EXPECT_TRUE(silt::test::all_near(a[file + " stress"], as_double(f.stress), kExact)) << file;
    EXPECT_TRUE(silt::test::all_near(a[file + " id"], as_double(f.id), kExact)) << file;
    EXPECT_TRUE(silt::test::all_near(a[file + " plastic"], as_double(f.plastic), kExact)) << file;
    EXPECT_EQ(a[file + " verts"], std::vector<double>{777.0}) << file;
    EXPECT_EQ(a[file + " cell_types"], std::vector<double>{1.0}) << file;  // VTK_VERTEX
    EXPECT_EQ(a[file + " TIME"], std::vector<double>{0.2}) << file;
    EXPECT_EQ(a[file + " CYCLE"], std::vector<double>{12.0}) << file;
  }
}

TEST(MpmParticlesIo, FramesWithoutStressAndEmptyFramesAreValid) {
  const ParticleFrame f = make_frame(10, false);
  const ParticleFrame empty;
  const auto dir = silt::test::scratch();
  silt::io::write_particles_ply((dir / "nostress.ply").string(), f, {});
  silt::io::write_particles_vtp((dir / "nostress.vtp").string(), f, {});
  silt::io::write_particles_vtp((dir / "empty.vtp").string(), empty, {});
  Arrays a = read_back({(dir / "nostress.ply").string(), (dir / "nostress.vtp").string(),
                        (dir / "empty.vtp").string()});
  ASSERT_FALSE(a.empty());
  EXPECT_TRUE(silt::test::all_near(a["nostress.ply ply.vx"], column(f.velocity, 3, 0), kExact));
  EXPECT_EQ(a.count("nostress.ply ply.sxx"), 0u);
  EXPECT_EQ(a.count("nostress.ply ply.id"), 0u);
  EXPECT_EQ(a.count("nostress.vtp stress"), 0u);
  EXPECT_TRUE(silt::test::all_near(a["nostress.vtp velocity"], as_double(f.velocity), kExact));
  EXPECT_EQ(a["empty.vtp verts"], std::vector<double>{0.0});
}

TEST(MpmParticlesIo, WritesAreAtomicAndErrorsNameThePath) {
  const auto dir = silt::test::scratch() / "atomic";
  fs::create_directories(dir);
  const std::string path = (dir / "p.ply").string();
  silt::io::write_particles_ply(path, make_frame(5, false), {});
  silt::io::write_particles_ply(path, make_frame(3, false), {});  // replaces
  std::size_t files = 0;
  for (const auto& e : fs::directory_iterator(dir)) files += e.is_regular_file();
  EXPECT_EQ(files, 1u) << "a temporary file was left behind";
  ParticleFrame bad = make_frame(4, false);
  bad.velocity.pop_back();
  EXPECT_TRUE(silt::test::throws_with([&] { silt::io::write_particles_vtp(path, bad, {}); },
                                      {"p.ply", "velocity"}));
  EXPECT_TRUE(silt::test::throws_with(
      [&] { silt::io::write_particles_ply("/nonexistent/dir/x.ply", make_frame(1, false), {}); },
      {"/nonexistent/dir/x.ply"}));
}

// A two-frame water scene for the frame writer, with the given "outputs" object.
silt::io::MpmJob writer_job(const std::string& outputs) {
  return silt::io::parse_mpm_job(R"({
    "solver": "mpm", "name": "w",
    "domain": { "max": [1, 1, 1], "dx": 0.1 },
    "materials": [ { "name": "w", "kind": "water" } ],
    "sources": [ { "material": "w", "min": [0.2, 0.2, 0.2], "max": [0.6, 0.6, 0.6] } ],
    "run": { "frames": 2 },
    "outputs": )" + outputs + "}",
                                 "w.json", "");
}

TEST(MpmParticlesIo, FrameWriterWritesEachFormatAndACollection) {
  const silt::io::MpmJob job =
      writer_job(R"({ "formats": ["ply", "vtp"], "png": true, "png_size": [64, 48] })");
  const auto dir = silt::test::scratch() / "frames";
  silt::io::MpmFrameWriter w(job, dir.string());
  const ParticleFrame f = make_frame(20, false);
  auto files = w.write(f, 0, 0.0);
  files = w.write(f, 1, job.scene.frame_dt);
  EXPECT_TRUE(fs::exists(dir / "particles_0001.ply"));
  EXPECT_TRUE(fs::exists(dir / "particles_0001.vtp"));
  EXPECT_EQ(fs::exists(dir / "preview_0001.png"), silt::io::png_previews_available());
  const std::string pvd = silt::test::read_file((dir / "particles.pvd").string());
  EXPECT_NE(pvd.find("file=\"particles_0000.vtp\""), std::string::npos) << pvd;
  EXPECT_NE(pvd.find("file=\"particles_0001.vtp\""), std::string::npos) << pvd;
  EXPECT_EQ(silt::test::read_file((dir / "frames.csv").string()),
            fmt::format("frame,time_s\n0,0\n1,{}\n", job.scene.frame_dt));
}

// A frame brings to the host only what its files read (io::particle_attributes_of, what `silt
// run` passes to Solver::particles_async): the preview positions, the volume velocities too, the
// particle files stress and plastic state too when asked; and a preview-only frame without
// velocities is written.
TEST(MpmParticlesIo, FramesAskOnlyForTheAttributesTheirFilesRead) {
  namespace a = silt::mpm::attributes;
  silt::io::MpmOutputSettings o;
  o.formats.clear();
  EXPECT_EQ(silt::io::particle_attributes_of(o), 0u);
  o.png = true;
  o.with_stress = true;
  EXPECT_EQ(silt::io::particle_attributes_of(o), a::position);
  o.volume = true;
  EXPECT_EQ(silt::io::particle_attributes_of(o), a::position | a::velocity);
  o.formats = {silt::io::ParticleFormat::vtp};
  o.volume = false;
  EXPECT_EQ(silt::io::particle_attributes_of(o), a::all);
  o.with_stress = false;
  EXPECT_EQ(silt::io::particle_attributes_of(o), a::motion);
  if (!silt::io::png_previews_available()) GTEST_SKIP() << "no libpng in this build";
  const silt::io::MpmJob job =
      writer_job(R"({ "formats": [], "png": true, "png_size": [64, 48] })");
  ParticleFrame f = make_frame(20, false);
  f.velocity.clear();
  const auto dir = silt::test::scratch() / "preview_only";
  silt::io::MpmFrameWriter w(job, dir.string());
  EXPECT_EQ(w.write(f, 0, 0.0).size(), 1u);
  EXPECT_TRUE(fs::exists(dir / "preview_0000.png"));
}

TEST(MpmParticlesIo, AFrameThatFailsPartWayIsRemovedWhole) {
  const silt::io::MpmJob job = writer_job(R"({ "formats": ["ply", "vtp"], "png": false })");
  const auto dir = silt::test::scratch() / "partial";
  silt::io::MpmFrameWriter w(job, dir.string());
  const ParticleFrame f = make_frame(20, false);
  w.write(f, 0, 0.0);
  // A folder where frame 1's .vtp must go: its rename fails after the .ply was written.
  fs::create_directories(dir / "particles_0001.vtp");
  EXPECT_TRUE(
      silt::test::throws_with([&] { w.write(f, 1, job.scene.frame_dt); }, {"particles_0001.vtp"}));
  EXPECT_FALSE(fs::exists(dir / "particles_0001.ply")) << "half a frame left";
  EXPECT_EQ(silt::test::read_file((dir / "frames.csv").string()), "frame,time_s\n0,0\n");
  const std::string pvd = silt::test::read_file((dir / "particles.pvd").string());
  EXPECT_EQ(pvd.find("particles_0001"), std::string::npos) << pvd;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    EXPECT_TRUE(name.find(".tmp") == std::string::npos && name.find(".part") == std::string::npos)
        << "temporary file left: " << name;
  }
}

TEST(MpmParticlesIo, SplatsShowNearestParticleInMaterialColour) {
  silt::mpm::Scene scene;
  scene.dx = 0.05;
  scene.domain_min = {0, 0, 0};
  scene.domain_max = {1, 1, 1};
  scene.materials.resize(2);
  scene.materials[0].kind = silt::mpm::MaterialKind::fluid;
  scene.materials[1].kind = silt::mpm::MaterialKind::drucker_prager;
  silt::io::SplatCamera cam;
  cam.eye = {0.5, 0.5, 3.0};
  cam.target = {0.5, 0.5, 0.5};
  silt::io::SplatSettings st;
  st.width = 64;
  st.height = 64;
  st.radius = 0.05;
  st.palette = silt::io::material_palette(scene);
  st.draw_domain = false;
  ParticleFrame f;
  // Water behind (z = 0.3), sand in front (z = 0.7), on the view axis.
  f.position = {0.5f, 0.5f, 0.3f, 0.5f, 0.5f, 0.7f};
  f.velocity.assign(6, 0.0f);
  f.material = {0, 1};
  const auto img = silt::io::render_splats(f, scene, cam, st);
  const silt::io::Rgb c = img.at(32, 32), corner = img.at(2, 2);
  // Sand is tan (r > g > b); water would be blue (b > r). The corner is background grey.
  EXPECT_GT(c[0], c[2]) << int(c[0]) << " " << int(c[1]) << " " << int(c[2]);
  EXPECT_GT(c[1], c[2]);
  EXPECT_LT(std::abs(int(corner[0]) - int(corner[2])), 20);
  f.material = {1, 0};  // now water is in front
  const auto img2 = silt::io::render_splats(f, scene, cam, st);
  EXPECT_GT(img2.at(32, 32)[2], img2.at(32, 32)[0]);
  // A sphere collider between the camera and the particles hides them behind cool grey.
  silt::mpm::Collider ball;
  ball.kind = silt::mpm::Collider::Kind::sphere;
  ball.center = {0.5, 0.5, 0.85};
  ball.radius = 0.1;
  scene.colliders.push_back(ball);
  const silt::io::Rgb g = silt::io::render_splats(f, scene, cam, st).at(32, 32);
  EXPECT_LT(std::abs(int(g[0]) - int(g[1])), 16)
      << int(g[0]) << " " << int(g[1]) << " " << int(g[2]);
  EXPECT_GT(g[2], g[0]);
  EXPECT_LT(g[2] - g[0], 40);
}

TEST(MpmParticlesIo, PngReadsBackWithTheRenderedPixels) {
  if (!silt::io::png_previews_available()) {
    EXPECT_THROW(silt::io::write_png("x.png", {}), silt::Error);
    return;
  }
  silt::io::SplatImage img{5, 3, {}};
  for (int i = 0; i < 15; ++i)
    for (int c = 0; c < 3; ++c) img.rgb.push_back(std::uint8_t(17 * i + 60 * c));
  const std::string path = (silt::test::scratch() / "p.png").string();
  silt::io::write_png(path, img);
  Arrays a = read_back({path});
  ASSERT_FALSE(a.empty());
  EXPECT_EQ(a["p.png size"], (std::vector<double>{5, 3}));
  EXPECT_TRUE(silt::test::all_near(a["p.png rgb"], as_double(img.rgb), kExact));
}

}  // namespace
