// The live viewer's pieces that need no browser: `--view` parsing, the browsers' commands and the
// run's pause, the MPM and shallow-water wire formats (quantisation, stable decimated subset, the
// attributes and fields the page colours by), the frames kept for the time slider and the served
// files.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>

#include "silt/core/error.hpp"
#include "silt/io/particles/ply.hpp"
#include "silt/io/particles/ply_read.hpp"
#include "silt/view/address.hpp"
#include "silt/view/assets.hpp"
#include "silt/view/history.hpp"
#include "silt/view/message.hpp"
#include "silt/view/mpm_message.hpp"
#include "silt/view/run_control.hpp"
#include "silt/view/swe_message.hpp"
#include "test_support.hpp"

namespace silt::view {
namespace {

// One uint16 step of a 2 m box, and half of it for rounding.
constexpr double kQuantumTolerance = 2.0 / 65535;

TEST(ViewAddress, PortAloneIsLoopback) {
  const Address a = parse_address("8080");
  EXPECT_EQ(a.host, "127.0.0.1");
  EXPECT_EQ(a.port, 8080);
  EXPECT_EQ(parse_address("0.0.0.0:9000").text(), "0.0.0.0:9000");
  if (silt::view::ipv6_available()) {
    EXPECT_EQ(parse_address("[::1]:80").host, "[::1]");
  } else {  // refused when parsed, not after the run has set up (issue 39)
    EXPECT_TRUE(silt::test::throws_with([] { parse_address("[::1]:80"); },
                                        {"--view '[::1]:80'", "no IPv6"}));
  }
}

TEST(ViewMessage, TextRepliesNeverThrowOnBytesThatAreNotUtf8) {
  // Issue 39: the error reply to a text frame of the byte 0xFF quoted the byte, and dump() threw
  // type_error.316 on a civetweb thread, which ended the run.
  const nlohmann::json reply{{"type", "error"}, {"message", std::string("not JSON: \xff\xc3(")}};
  EXPECT_THROW((void)reply.dump(), nlohmann::json::type_error);
  std::string text;
  EXPECT_NO_THROW(text = to_text(reply));
  EXPECT_NE(text.find("\xef\xbf\xbd"), std::string::npos) << text;  // U+FFFD
  EXPECT_EQ(nlohmann::json::parse(text)["type"], "error");
}

TEST(ViewAddress, BadOnesNameTheOption) {
  for (const char* bad : {"", "x", "70000", "host:", ":80", "::1:80", "1.2.3.4:-1", "a b:80"}) {
    try {
      parse_address(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("--view '" + std::string(bad) + "'"), std::string::npos)
          << e.what();
    }
  }
}

TEST(ViewCommand, ParsesTheCommandsAndRefusesTheRest) {
  EXPECT_EQ(parse_command(R"({"cmd":"pause"})"), Command::pause);
  EXPECT_EQ(parse_command(R"({"cmd":"resume"})"), Command::resume);
  EXPECT_EQ(parse_command(R"({"cmd":"step"})"), Command::step);
  EXPECT_EQ(parse_command(R"({"cmd":"shown"})"), Command::shown);
  EXPECT_EQ(parse_command(R"({"cmd":"live"})"), Command::live);
  double t = -1;
  EXPECT_EQ(parse_command(R"({"cmd":"seek","time":2.5})", &t), Command::seek);
  EXPECT_EQ(t, 2.5);
  for (const char* bad : {"", "pause", "[]", R"({"cmd":1})", R"({"cmd":"halt"})",
                          R"({"cmd":"pause","x":1})", R"({"cmd":"pau)", R"({"cmd":"seek"})",
                          R"({"cmd":"seek","time":"1"})", R"({"cmd":"pause","time":1})"})
    EXPECT_THROW(parse_command(bad), Error) << bad;
}

TEST(ViewRunControl, PauseHoldsStepLetsOneFrameThrough) {
  RunControl c;
  EXPECT_TRUE(c.wait_for_go(std::chrono::milliseconds(0)));
  c.apply(Command::pause);
  EXPECT_FALSE(c.wait_for_go(std::chrono::milliseconds(5)));
  c.apply(Command::step);
  EXPECT_TRUE(c.wait_for_go(std::chrono::milliseconds(0)));
  EXPECT_FALSE(c.wait_for_go(std::chrono::milliseconds(5)));  // paused again after one
  std::thread t([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    c.apply(Command::resume);
  });
  EXPECT_TRUE(c.wait_for_go(std::chrono::seconds(10)));
  t.join();
  EXPECT_FALSE(c.paused());
  c.apply(Command::pause);
  c.apply(Command::shown);  // a page's acknowledgement neither resumes nor steps
  EXPECT_TRUE(c.paused());
  EXPECT_FALSE(c.wait_for_go(std::chrono::milliseconds(5)));
}

mpm::Scene box_scene() {
  mpm::Scene s;
  s.domain_min = {-1, 0, 0};
  s.domain_max = {1, 2, 2};
  s.materials.resize(2);
  return s;
}

mpm::ParticleFrame lattice(int n) {
  mpm::ParticleFrame p;
  for (int i = 0; i < n; ++i) {
    p.position.insert(p.position.end(), {-1.0f + 2.0f * float(i) / float(n - 1), 0.5f, 1.9f});
    p.velocity.insert(p.velocity.end(), {0.0f, -float(i % 7), 0.0f});
    p.material.push_back(i % 2);
    p.id.push_back(1000 + i);
  }
  return p;
}

struct Decoded {
  nlohmann::json header;
  std::vector<std::uint16_t> pos;
  std::vector<std::uint8_t> material;
  std::vector<std::vector<std::uint16_t>> attributes;
};

Decoded decode(const std::string& msg) {
  Decoded d;
  std::size_t o = 0;
  d.header = read_header(msg, &o);
  const std::size_t n = d.header["count"];
  EXPECT_EQ(o % 4, 0u);
  d.pos.resize(3 * n);
  std::memcpy(d.pos.data(), msg.data() + o, 6 * n);
  o += (6 * n + 3) & ~std::size_t(3);
  d.material.assign(msg.begin() + long(o), msg.begin() + long(o + n));
  o += (n + 3) & ~std::size_t(3);
  for (std::size_t a = 0; a < d.header["attributes"].size(); ++a) {
    d.attributes.emplace_back(n);
    std::memcpy(d.attributes.back().data(), msg.data() + o, 2 * n);
    o += (2 * n + 3) & ~std::size_t(3);
  }
  EXPECT_EQ(msg.size(), o);
  return d;
}

TEST(ViewMpmMessage, QuantisesPositionsInTheBoxAndAttributesToTheFrameRange) {
  const mpm::Scene s = box_scene();
  mpm::ParticleFrame p = lattice(101);
  p.plastic.assign(101, 0.0f);
  p.plastic[7] = -0.5f;
  p.stress.assign(9 * 101, 0.0f);
  for (int i = 0; i < 101; ++i)  // isotropic compression of i Pa: pressure i, no shear
    for (int a = 0; a < 3; ++a) p.stress[9 * i + 4 * a] = -float(i);
  p.stress[9 * 5 + 1] = p.stress[9 * 5 + 3] = 2.0f;  // particle 5: a shear of 2 Pa
  const Decoded d = decode(encode_mpm(p, s, {3, 0.05, 30}, 1000));
  EXPECT_EQ(d.header["count"], 101);
  EXPECT_EQ(d.header["total"], 101);
  EXPECT_EQ(d.header["full"], true);
  EXPECT_EQ(d.header["frame"], 3);
  EXPECT_DOUBLE_EQ(d.header["speed_max"].get<double>(), 6.0);
  for (int i = 0; i < 101; ++i)
    for (int a = 0; a < 3; ++a) {
      const double lo = s.domain_min[a], ext = s.domain_max[a] - lo;
      const double back = lo + ext * d.pos[3 * i + a] / 65535.0;
      EXPECT_NEAR(back, p.position[3 * i + a], kQuantumTolerance)
          << "particle " << i << " axis " << a;
    }
  const auto& attrs = d.header["attributes"];
  ASSERT_EQ(attrs.size(), 4u);
  const char* names[] = {"speed", "pressure", "von_mises", "plastic"};
  for (int a = 0; a < 4; ++a) EXPECT_EQ(attrs[a]["name"], names[a]);
  EXPECT_EQ(attrs[1]["units"], "Pa");
  const auto value = [&](int a, int i) {
    const double lo = attrs[a]["lo"], hi = attrs[a]["hi"];
    return lo + (hi - lo) * d.attributes[std::size_t(a)][std::size_t(i)] / 65535.0;
  };
  for (int i = 0; i < 101; ++i) {
    EXPECT_EQ(d.material[i], i % 2);
    EXPECT_NEAR(value(0, i), i % 7, 6.0 / 65535) << "speed of particle " << i;
    EXPECT_NEAR(value(1, i), i, 100.0 / 65535) << "pressure of particle " << i;
    EXPECT_NEAR(value(2, i), i == 5 ? 2 * std::sqrt(3.0) : 0, 1e-3) << "von Mises " << i;
    EXPECT_NEAR(value(3, i), i == 7 ? -0.5 : 0, 1e-4) << "plastic of particle " << i;
  }
}

TEST(ViewSweMessage, EveryFieldOfTheFrameWithItsValuesAndTheMapsColourRange) {
  io::SweJob job;
  job.scene.grid = {4, 3, 2.0, 100, 200};
  job.scene.bed.assign(12, 5.0);
  job.scene.dry_depth = 1e-4;
  job.outputs.png_max = 2.0;
  swe::Fields f;
  f.nx = 4;
  f.ny = 3;
  f.h = {0, 0.5, 1, 1.5, 2, 2.5, 3, 0, 0.001, 0.1, 0.2, 0.3};
  f.hu.assign(12, 0.3);
  f.hv.assign(12, 0.4);
  std::size_t o = 0;
  const std::string msg = encode_swe(f, job, {2, 1.5, 9});
  const nlohmann::json h = read_header(msg, &o);
  ASSERT_EQ(h["layers"].size(), 3u);  // depth, level, velocity: what f holds
  EXPECT_EQ(h["layers"][0]["name"], "depth");
  EXPECT_EQ(h["layers"][0]["range"], nlohmann::json({0.0, 2.0}));  // the PNG map's
  EXPECT_EQ(h["layers"][2]["name"], "velocity");
  EXPECT_EQ(h["layers"][2]["units"], "m s-1");
  for (int l = 0; l < 3; ++l) {
    const double lo = h["layers"][l]["lo"], hi = h["layers"][l]["hi"];
    std::vector<std::uint16_t> q(12);
    std::memcpy(q.data(), msg.data() + o + std::size_t(l) * 24, 24);
    for (int c = 0; c < 12; ++c) {
      const double v = q[c] == 0 ? -1 : lo + (hi - lo) * (q[c] - 1) / 65534.0;
      // Depth below the map's minimum (1% of png_max) and dry cells are no data.
      const bool shown = f.h[c] >= 0.02;
      const bool wet = f.h[c] > 1e-4;
      const double want = l == 0   ? (shown ? f.h[c] : -1)
                          : l == 1 ? (wet ? 5 + f.h[c] : -1)
                                   : (wet ? 0.5 / f.h[c] : -1);
      EXPECT_NEAR(v, want, 0.6 * (hi - lo) / 65534) << "layer " << l << " cell " << c;
    }
  }
  EXPECT_EQ(msg.size(), o + 3 * 24);
}

TEST(ViewHistory, KeepsFramesInTimeOrderWithinItsBudgetSpreadOverTheRun) {
  FrameHistory h(1000);
  const auto frame = [](char c) {
    return std::make_shared<const std::string>(100, c);
  };
  for (int k = 0; k < 9; ++k) h.record(k, frame(char('a' + k)));
  EXPECT_EQ(h.times(), (std::vector<double>{0, 1, 2, 3, 4, 5, 6, 7, 8}));
  EXPECT_EQ(*h.nearest(3.4), std::string(100, 'd'));
  EXPECT_EQ(*h.nearest(99), std::string(100, 'i'));
  h.record(8, frame('z'));  // the same time again (paused, every particle): replaces it
  EXPECT_EQ(h.times().size(), 9u);
  EXPECT_EQ(*h.nearest(8), std::string(100, 'z'));
  h.record(2, frame('x'));  // earlier than the newest: not kept
  EXPECT_EQ(h.times().size(), 9u);
  const long v = h.version();
  h.record(9, frame('j'));
  h.record(10, frame('k'));  // 11 frames, 1100 bytes: every other one goes, first and last stay
  EXPECT_GT(h.version(), v);
  EXPECT_LE(h.bytes(), 1000u);
  EXPECT_EQ(h.times(), (std::vector<double>{0, 2, 4, 6, 8, 10}));
  FrameHistory few(1 << 20, 4);  // at most 4 frames, whatever their size
  for (int k = 0; k < 5; ++k) few.record(k, frame('a'));
  EXPECT_EQ(few.times(), (std::vector<double>{0, 2, 4}));
}

TEST(ViewMpmMessage, DecimatesToTheBudgetWithTheSameParticlesEachFrame) {
  const mpm::Scene s = box_scene();
  const mpm::ParticleFrame p = lattice(100000);
  const Decoded d = decode(encode_mpm(p, s, {}, 10000));
  const double n = d.header["count"];
  EXPECT_EQ(d.header["full"], false);
  EXPECT_NEAR(n, 10000, 400);  // a binomial count: 4 sigma = 4 sqrt(10000 * 0.9)
  // The subset is the ids the hash keeps, whatever the storage order.
  std::size_t kept = 0;
  for (int i = 0; i < 100000; ++i) kept += keeps(p.id[i], 0.1);
  EXPECT_EQ(std::size_t(n), kept);
  EXPECT_TRUE(keeps(12345, 1.0));
  EXPECT_FALSE(keeps(12345, 0.0));
}

TEST(ViewReplay, PlyFramesReadBackAsWritten) {
  mpm::ParticleFrame p = lattice(257);
  p.plastic.assign(257, 0.25f);
  p.stress.assign(9 * 257, 0.0f);
  for (int i = 0; i < 257; ++i) p.stress[9 * i + 2] = p.stress[9 * i + 6] = float(i);  // sxz
  const std::string path =
      (std::filesystem::temp_directory_path() / "silt_view_test_frame.ply").string();
  io::write_particles_ply(path, p, {"test", 7, 0.5});
  const mpm::ParticleFrame q = io::read_particles_ply(path);
  EXPECT_EQ(q.position, p.position);
  EXPECT_EQ(q.velocity, p.velocity);
  EXPECT_EQ(q.material, p.material);
  EXPECT_EQ(q.id, p.id);
  EXPECT_EQ(q.plastic, p.plastic);
  EXPECT_EQ(q.stress, p.stress);
  std::filesystem::resize_file(path, std::filesystem::file_size(path) - 4);
  EXPECT_THROW(io::read_particles_ply(path), Error);
  std::ofstream(path) << "not a ply\n";
  EXPECT_THROW(io::read_particles_ply(path), Error);
  std::filesystem::remove(path);
}

TEST(ViewAssets, ServesThePageAndNothingElse) {
  const Assets a;
  ASSERT_NE(a.find("/"), nullptr);
  EXPECT_NE(a.find("/")->body.find("silt viewer"), std::string::npos);
  EXPECT_NE(a.find("/viewer.js"), nullptr);
  ASSERT_NE(a.find("/three/three.min.js"), nullptr);
  EXPECT_NE(a.find("/three/three.min.js")->body.find("REVISION"), std::string::npos);
  for (const char* p : {"", "/../../etc/passwd", "/etc/passwd", "/three/../viewer.js",
                        "/three/build/three.min.js", "/viewer.js/", "viewer.js", "/VIEWER.JS"})
    EXPECT_EQ(a.find(p), nullptr) << p;
}

TEST(ViewAssets, AMissingThreeJsNamesThePackage) {
  try {
    Assets a("/nonexistent/three");
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("libjs-three"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace silt::view
