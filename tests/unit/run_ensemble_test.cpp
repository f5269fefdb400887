// Ensembles (docs/ensembles.md): the ensemble file (members listed and ranges as a product or a
// zip, scale of the scene's values), every member validated with the scene parser before
// anything runs (a bad member is refused naming the member and the key; grids must agree), and
// the statistics' definitions against values NumPy gives (numpy 1.24: np.percentile(v, p),
// method 'linear'; np.std, ddof 0).
#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "silt/core/error.hpp"
#include "silt/io/ensemble_file.hpp"
#include "silt/run/ensemble.hpp"
#include "silt/run/ensemble_checkpoint.hpp"
#include "silt/run/ensemble_stats.hpp"
#include "test_support.hpp"

namespace {

namespace fs = std::filesystem;
using silt::io::Json;

// The values below are NumPy's repr (17 digits); the host code follows NumPy's formulae (its
// _lerp, its two-pass std) and gives the same bits: a plain a + (b - a) g gives 7.95 at p = 95.
constexpr double kNumpyTol = 0.0;

// A small scene file with a series in a CSV file and a raster for Manning's n.
struct SceneDir {
  fs::path dir = fs::temp_directory_path() / ("silt_ensemble_test_" + std::to_string(::getpid()));
  std::string scene;
  SceneDir() {
    fs::create_directories(dir);
    std::ofstream(dir / "q.csv") << "time,q\n0,1\n10,3\n";
    std::ofstream(dir / "n.asc") << "ncols 4\nnrows 2\nxllcorner 0\nyllcorner 0\ncellsize 1\n"
                                    "0.01 0.02 0.03 0.04\n0.05 0.06 0.07 0.08\n";
    scene = (dir / "scene.json").string();
    std::ofstream(scene) << R"({
      "solver": "swe", "grid": {"nx": 4, "ny": 2, "dx": 1.0},
      "manning": "n.asc",
      "initial": {"depth": {"value": 0.1, "patches": [{"min": [0, 0], "max": [1, 2], "value": 0.5}]}},
      "boundaries": [{"side": "west", "type": "discharge", "discharge": "q.csv"}],
      "rainfall_mm_h": [[0, 10], [20, 0]],
      "run": {"end_time": 2.0}})";
  }
  ~SceneDir() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
};

silt::io::Ensemble parse(const SceneDir& d, const std::string& text) {
  const silt::run::EnsembleScene s = silt::run::load_ensemble_scene(d.scene, {});
  return silt::io::parse_ensemble(text, "ens.json", s.tree, s.source);
}

using silt::test::error_of;

TEST(EnsembleFile, ProductAndZipNameMembersInOrder) {
  SceneDir d;
  const auto product = parse(d, R"({"members": [{"name": "base"}],
    "vary": {"keys": {"physics.cfl": {"values": [0.3, 0.4]}, "manning": {"from": 0.01, "to": 0.03, "count": 3}}}})");
  ASSERT_EQ(product.members.size(), 1u + 6u);
  EXPECT_EQ(product.members[0].name, "base");
  EXPECT_TRUE(product.members[0].overrides.empty());
  // Keys in alphabetical order, the last (physics.cfl) fastest.
  EXPECT_EQ(product.members[1].name, "m00");
  EXPECT_EQ(product.members[1].overrides,
            (std::vector<std::string>{"manning=0.01", "physics.cfl=0.3"}));
  EXPECT_EQ(product.members[2].overrides[1], "physics.cfl=0.4");
  EXPECT_EQ(product.members[6].name, "m05");
  EXPECT_EQ(product.members[6].overrides[0], "manning=0.03");
  const auto zip = parse(d, R"({"vary": {"combine": "zip", "prefix": "z",
    "keys": {"physics.cfl": {"values": [0.3, 0.4]}, "run.end_time": {"values": [1, 2]}}}})");
  ASSERT_EQ(zip.members.size(), 2u);
  EXPECT_EQ(zip.members[1].name, "z01");
  EXPECT_EQ(zip.members[1].overrides,
            (std::vector<std::string>{"physics.cfl=0.4", "run.end_time=2"}));
  EXPECT_NE(error_of([&] {
              parse(d, R"({"vary": {"combine": "zip", "keys": {"physics.cfl": {"values": [0.3]},
                 "run.end_time": {"values": [1, 2]}}}})");
            }).find("one length"),
            std::string::npos);
}

TEST(EnsembleFile, ScaleMultipliesTheScenesValue) {
  SceneDir d;
  const silt::run::EnsembleScene s = silt::run::load_ensemble_scene(d.scene, {});
  const auto scaled = [&](const std::string& key, double f) {
    return silt::io::scaled_value(s.tree, key, f, s.source, "test");
  };
  EXPECT_EQ(scaled("manning", 2.0), (Json{{"raster", "n.asc"}, {"scale", 2.0}}));
  EXPECT_EQ(scaled("rainfall_mm_h", 2.0), Json::parse("[[0, 20.0], [20, 0.0]]"));
  EXPECT_EQ(scaled("boundaries[0].discharge", 2.0), Json::parse("[[0.0, 2.0], [10.0, 6.0]]"));
  const Json depth = scaled("initial.depth", 2.0);
  EXPECT_DOUBLE_EQ(depth["value"].get<double>(), 0.2);
  EXPECT_DOUBLE_EQ(depth["patches"][0]["value"].get<double>(), 1.0);
  EXPECT_NE(error_of([&] { scaled("physics.cfl", 2.0); }).find("no value there"),
            std::string::npos);
  // A rain factor on a scene that gives its rain as rainfall_mm_h names that key.
  EXPECT_NE(error_of([&] { scaled("rainfall", 2.0); }).find("the scene has 'rainfall_mm_h' there"),
            std::string::npos);
  // Shifts move time series: rows and CSV files; a constant or a field cannot move.
  const auto shifted = [&](const std::string& key, double dt) {
    return silt::io::shifted_value(s.tree, key, dt, s.source, "test");
  };
  EXPECT_EQ(shifted("rainfall_mm_h", 600), Json::parse("[[600.0, 10], [620.0, 0]]"));
  EXPECT_EQ(shifted("boundaries[0].discharge", -5), Json::parse("[[-5.0, 1.0], [5.0, 3.0]]"));
  EXPECT_NE(error_of([&] { shifted("manning", 60); }).find("only time series move"),
            std::string::npos);
  const auto moved = parse(d, R"({"members": [{"name": "late", "shift": {"rainfall_mm_h": 60}}],
    "vary": {"prefix": "s", "keys": {"boundaries[0].discharge": {"shift": [0, 30]}}}})");
  ASSERT_EQ(moved.members.size(), 3u);
  EXPECT_EQ(moved.members[0].overrides,
            (std::vector<std::string>{"rainfall_mm_h=[[60.0,10],[80.0,0]]"}));
  EXPECT_EQ(moved.members[0].settings, (std::vector<std::string>{"rainfall_mm_h+60s"}));
  EXPECT_EQ(moved.members[2].settings, (std::vector<std::string>{"boundaries[0].discharge+30s"}));
  EXPECT_NE(error_of([&] {
              parse(d, R"({"members": [{"name": "x", "shift": {"rainfall_mm_h": 60},
                "scale": {"rainfall_mm_h": 2}}]})");
            }).find("also in"),
            std::string::npos);
  // The scaled raster is what the scene parser reads: n times 2 in every cell.
  const auto e = parse(d, R"({"members": [{"name": "rough", "scale": {"manning": 2}}]})");
  const silt::io::SweJob job = silt::run::member_job(s, e, 0);
  ASSERT_EQ(job.scene.manning.size(), 8u);
  EXPECT_DOUBLE_EQ(job.scene.manning[0], 0.10);  // row j = 0 is the south row: 0.05 x 2
  EXPECT_DOUBLE_EQ(job.scene.manning[7], 0.08);  // north-east: 0.04 x 2
}

TEST(EnsembleFile, BadMemberIsRefusedNamingMemberAndKey) {
  SceneDir d;
  const silt::run::EnsembleScene s = silt::run::load_ensemble_scene(d.scene, {});
  const auto e = parse(d, R"({"members": [{"name": "fine", "set": {"physics.cfl": 0.4}},
    {"name": "broken", "set": {"physics.cfl": 0.9}}]})");
  const std::string msg = error_of([&] { silt::run::check_members(s, e); });
  EXPECT_NE(msg.find("member 'broken'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("'physics.cfl'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("set by ensemble member 'broken': physics.cfl=0.9"), std::string::npos) << msg;
  // An unknown key in a member's set is the scene's unknown key.
  const auto typo = parse(d, R"({"members": [{"name": "t", "set": {"physics.cfll": 0.4}}]})");
  const std::string unknown = error_of([&] { silt::run::check_members(s, typo); });
  EXPECT_NE(unknown.find("member 't'"), std::string::npos) << unknown;
  EXPECT_NE(unknown.find("physics.cfll"), std::string::npos) << unknown;
  // Every member needs the first one's grid.
  const auto grids =
      parse(d, R"({"members": [{"name": "a"}, {"name": "wide", "set": {"grid.nx": 8}}]})");
  const std::string grid = error_of([&] { silt::run::check_members(s, grids); });
  EXPECT_NE(grid.find("member 'wide'"), std::string::npos) << grid;
  // Every member needs the first one's hydrograph series (measures.csv's columns).
  const auto walled =
      parse(d, R"({"members": [{"name": "a"}, {"name": "walled", "set": {"boundaries": []}}]})");
  const std::string series = error_of([&] { silt::run::check_members(s, walled); });
  EXPECT_NE(series.find("member 'walled'"), std::string::npos) << series;
  EXPECT_NE(series.find("(none) are not member 'a''s ('west_0')"), std::string::npos) << series;
  // The ensemble file's own errors name its key.
  EXPECT_NE(error_of([&] {
              parse(d, R"({"members": [{"name": "a"}, {"name": "a"}]})");
            }).find("both named 'a'"),
            std::string::npos);
  EXPECT_NE(error_of([&] {
              parse(d, R"({"members": [{"name": "a", "sett": {}}]})");
            }).find("members[0].sett"),
            std::string::npos);
  EXPECT_NE(error_of([&] {
              parse(d, R"({"vary": {"keys": {"manning": {"scale": [-1]}}}})");
            }).find("vary.keys.manning.scale[0]"),
            std::string::npos);
  EXPECT_NE(error_of([&] {
              parse(d, R"({"members": [{"name": "a"}], "outputs": {"percentiles": [5.5]}})");
            }).find("outputs.percentiles[0]"),
            std::string::npos);
}

TEST(EnsembleStats, PercentilesAsNumpyLinear) {
  // np.percentile([3, 1, 4, 1, 5, 9, 2, 6], [0, 5, 37, 50, 95, 100]) (numpy 1.24).
  std::vector<double> v = {3, 1, 4, 1, 5, 9, 2, 6};
  std::sort(v.begin(), v.end());
  const double expected[][2] = {{0, 1.0},  {5, 1.0}, {37, 2.59}, {50, 3.5}, {95, 7.949999999999998},
                                {100, 9.0}};
  for (const auto& [p, want] : expected)
    EXPECT_NEAR(silt::run::percentile_linear(v, p), want, kNumpyTol) << "p = " << p;
  EXPECT_EQ(silt::run::percentile_linear({2.5}, 95), 2.5);
}

TEST(EnsembleStats, CellStatsSkipNanAndExceedanceCountsStrictly) {
  const double nan = std::nan("");
  // Three members, three cells: cell 2 has no value in any member.
  const silt::run::MemberValues v = {{0.0, 1.0, nan}, {0.5, nan, nan}, {1.0, 3.0, nan}};
  const silt::run::CellStats s = silt::run::cell_stats(v, true, true, {50});
  EXPECT_DOUBLE_EQ(s.mean[0], 0.5);
  EXPECT_NEAR(s.std[0], 0.408248290463863, kNumpyTol);  // np.std([0, 0.5, 1])
  EXPECT_DOUBLE_EQ(s.mean[1], 2.0);                     // np.nanmean([1, nan, 3])
  EXPECT_DOUBLE_EQ(s.std[1], 1.0);
  EXPECT_DOUBLE_EQ(s.percentiles[0][1], 2.0);
  EXPECT_TRUE(std::isnan(s.mean[2]) && std::isnan(s.percentiles[0][2]));
  const auto p = silt::run::exceedance(v, {0.5, 1.0});
  EXPECT_DOUBLE_EQ(p[0][0], 1.0 / 3.0);  // only 1.0 is above 0.5
  EXPECT_DOUBLE_EQ(p[1][1], 0.5);        // 3.0 of {1.0, 3.0}
  EXPECT_TRUE(std::isnan(p[0][2]));
}

// Members' scene warnings: each distinct one once, with the members that gave it.
TEST(EnsembleFile, MemberWarningsAreSaidOnceWithTheirMembers) {
  silt::io::Ensemble e;
  for (const char* n : {"a", "b", "c", "d", "e"}) e.members.push_back({n, {}, {}});
  const auto w = silt::run::member_warnings(e, {{"open west", "late rain"},
                                                {"open west"},
                                                {"open west", "late rain"},
                                                {"open west", "late rain"},
                                                {"open west", "late rain"}});
  ASSERT_EQ(w.size(), 2u);
  EXPECT_EQ(w[0], "open west (every member)");
  EXPECT_EQ(w[1], "late rain (members 'a', 'c', 'd' and 1 more)");
  EXPECT_EQ(silt::run::member_warnings(e, {{}, {"x"}, {}, {}, {}}),
            (std::vector<std::string>{"x (member 'b')"}));
}

// Members checked on several threads meet the error a check in member order meets first: the
// lowest member that fails, whether its scene does not parse or its grid differs, and warnings
// in member order.
TEST(EnsembleFile, MembersCheckedAtOnceReportTheFirstErrorInMemberOrder) {
  SceneDir d;
  const silt::run::EnsembleScene s = silt::run::load_ensemble_scene(d.scene, {});
  // One OpenMP thread: one member after another, the reference.
  const int threads = omp_get_max_threads();
  const auto checked = [&](const silt::io::Ensemble& e, int at_once) {
    omp_set_num_threads(at_once);
    const std::string error = error_of([&] { silt::run::check_members(s, e, 4); });
    omp_set_num_threads(threads);
    return error;
  };
  const auto bad = parse(d, R"({"members": [{"name": "a"}, {"name": "b"},
    {"name": "wide", "set": {"grid.nx": 8}}, {"name": "c"}, {"name": "broken",
    "set": {"physics.cfl": 0.9}}, {"name": "typo", "set": {"physics.cfll": 1}}]})");
  const std::string serial = checked(bad, 1);
  EXPECT_NE(serial.find("member 'wide'"), std::string::npos) << serial;
  for (int at_once : {2, 3, 6}) EXPECT_EQ(checked(bad, at_once), serial) << at_once;
  const auto broken_first = parse(d, R"({"members": [{"name": "a"}, {"name": "broken",
    "set": {"physics.cfl": 0.9}}, {"name": "wide", "set": {"grid.nx": 8}}]})");
  const std::string first = checked(broken_first, 1);
  EXPECT_NE(first.find("member 'broken'"), std::string::npos) << first;
  EXPECT_EQ(checked(broken_first, 3), first);
  const auto good = parse(d, R"({"members": [{"name": "a"}, {"name": "b"}, {"name": "c"}]})");
  omp_set_num_threads(1);
  const silt::io::SweJob one = silt::run::check_members(s, good, 1);
  omp_set_num_threads(3);
  const silt::io::SweJob three = silt::run::check_members(s, good, 3);
  omp_set_num_threads(threads);
  EXPECT_EQ(three.warnings, one.warnings);
  EXPECT_EQ(three.scene.grid.nx, 4);
  EXPECT_EQ(three.scene.manning, one.scene.manning);  // the first member's job, whole
}

// A member's job is read from the scene parsed once, with the fields the members have alike
// made once (EnsembleScene::fields): it is the job the member's own load_swe_job gives, and a
// field out of range is refused with that load's message, for a member whose field differs and
// for one that shares it with the member before (and finds it made).
TEST(EnsembleFile, MemberJobsAreTheirOwnLoadsWithSharedFields) {
  SceneDir d;
  const silt::run::EnsembleScene s = silt::run::load_ensemble_scene(d.scene, {"run.end_time=3"});
  const auto e = parse(d, R"({"members": [{"name": "a"}, {"name": "b", "set": {"physics.cfl": 0.3}},
    {"name": "dry", "set": {"initial.depth.patches[0].value": -0.5}},
    {"name": "dry_too", "set": {"initial.depth.patches[0].value": -0.5}}]})");
  const auto own = [&](std::size_t m) {
    std::vector<std::string> labels;
    const std::vector<std::string> overrides = silt::run::member_overrides(s, e, m, &labels);
    return silt::run::as_member(e, m,
                                [&] { return silt::io::load_swe_job(d.scene, overrides, labels); });
  };
  for (std::size_t m : {0, 1}) {
    const silt::io::SweJob job = silt::run::member_job(s, e, m), alone = own(m);
    EXPECT_EQ(job.scene.depth, alone.scene.depth) << m;
    EXPECT_EQ(job.scene.manning, alone.scene.manning) << m;
    EXPECT_EQ(job.scene.cfl, alone.scene.cfl) << m;
    EXPECT_EQ(job.resolved, alone.resolved) << m;
  }
  for (std::size_t m : {2, 3}) {
    const std::string error = error_of([&] { silt::run::member_job(s, e, m); });
    EXPECT_EQ(error, error_of([&] { own(m); })) << m;
    EXPECT_NE(error.find(silt::run::member_where(e, m) + ": "), std::string::npos) << error;
    EXPECT_NE(error.find("'initial.depth' must be >= 0, got -0.5 at cell (i = 0, j = 0)"),
              std::string::npos)
        << error;
  }
  const std::string checked = error_of([&] { silt::run::check_members(s, e); });
  EXPECT_EQ(checked, error_of([&] { own(2); }));
}

// A member is the scene file's text as the ensemble read it at its start: a file edited during the
// run reaches no member (run_mpm_ensemble_test checks MPM members the same way).
TEST(EnsembleFile, MembersReadTheSceneFileAsItWasAtTheStart) {
  SceneDir d;
  const silt::run::EnsembleScene s = silt::run::load_ensemble_scene(d.scene, {});
  const auto e = parse(d, R"({"members": [{"name": "a"}]})");
  const double cfl = silt::run::member_job(s, e, 0).scene.cfl;
  std::ofstream(d.scene) << R"({"solver": "swe", "grid": {"nx": 8, "ny": 2, "dx": 1.0},
    "physics": {"cfl": 0.1}, "run": {"end_time": 2.0}})";
  const silt::io::SweJob job = silt::run::member_job(s, e, 0);
  EXPECT_EQ(job.scene.cfl, cfl);
  EXPECT_NE(job.scene.cfl, 0.1);
  EXPECT_EQ(job.scene.grid.nx, 4);  // 8 in the file now
}

// put_ref gives the bytes put gives (a member's maxima are written from where they are, not
// copied); the saved file is the header and those bytes.
TEST(EnsembleCheckpoint, BorrowedValuesGiveTheBytesOfCopiedOnes) {
  const std::vector<double> a = {1.0, -0.0, 3.5}, empty;
  silt::run::MemberBytes copied, borrowed;
  for (silt::run::MemberBytes* b : {&copied, &borrowed}) b->put(2.5);
  copied.put(a);
  borrowed.put_ref(a);
  copied.put(std::int64_t(7));
  borrowed.put(std::int64_t(7));
  copied.put(empty);
  borrowed.put_ref(empty);
  copied.put(a);
  borrowed.put_ref(a);
  EXPECT_EQ(borrowed.bytes(), copied.bytes());
  silt::run::MemberBytes back(borrowed.bytes());
  EXPECT_EQ(back.number(), 2.5);
  EXPECT_EQ(back.numbers(), a);
  EXPECT_EQ(back.integer(), 7);
  EXPECT_TRUE(back.numbers().empty());
  EXPECT_EQ(back.numbers(), a);
  EXPECT_TRUE(back.at_end());

  const fs::path dir = fs::temp_directory_path() / "silt_ensemble_ckpt_bytes";
  fs::remove_all(dir);
  fs::create_directories(dir);
  silt::run::MemberResult r;
  r.time = 2.0;
  r.steps = 3;
  r.maxima = {a, {4.0, 5.0}};
  r.hazard_class = {0.0, 1.0};
  r.measures = {6.0};
  silt::run::save_member(dir.string(), 2, "m02", r);
  silt::run::MemberBytes want;
  want.put(std::string("silt ensemble member 3"));
  want.put(std::string("swe"));
  want.put(std::string("m02"));
  want.put(r.time);
  want.put(r.wall_s);
  want.put(std::int64_t(3));
  want.put(std::int64_t(2));
  for (const auto& v : r.maxima) want.put(v);
  want.put(r.hazard_class);
  want.put(r.measures);
  std::ifstream in(silt::run::member_file(dir.string(), 2), std::ios::binary);
  const std::string file((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(file, want.bytes());
  silt::run::MemberResult loaded;
  ASSERT_TRUE(silt::run::load_member(dir.string(), 2, "m02", loaded));
  EXPECT_EQ(loaded.maxima, r.maxima);
  EXPECT_EQ(loaded.hazard_class, r.hazard_class);
  fs::remove_all(dir);
}

// The statistics read the members' values where they are (columns) and give what the copied
// values give.
TEST(EnsembleStats, ColumnsGiveTheStatisticsOfCopies) {
  const double nan = std::nan("");
  const silt::run::MemberValues v = {
      {0.0, 1.0, nan, 2.0}, {0.5, nan, nan, 2.0}, {1.0, 3.0, nan, 7.0}};
  const silt::run::MemberColumns c = silt::run::columns_of(v);
  ASSERT_EQ(c.cells, 4u);
  const auto a = silt::run::cell_stats(v, true, true, {10, 50, 90});
  const auto b = silt::run::cell_stats(c, true, true, {10, 50, 90});
  for (std::size_t k = 0; k < 4; ++k) {
    EXPECT_EQ(std::isnan(a.mean[k]), std::isnan(b.mean[k]));
    if (!std::isnan(a.mean[k])) {
      EXPECT_EQ(a.mean[k], b.mean[k]);
    }
  }
  EXPECT_EQ(a.percentiles[2][3], b.percentiles[2][3]);
  EXPECT_EQ(silt::run::exceedance(c, {0.5})[0][3], 1.0);
  const std::string uneven = error_of([&] { silt::run::columns_of({{1.0, 2.0}, {1.0}}); });
  EXPECT_NE(uneven.find("member 1 has 1 values"), std::string::npos) << uneven;
}

// A member's saved result of another format (an older build's) is refused with what to do, not
// read as far as it goes ("the file ends early").
TEST(EnsembleCheckpoint, AResultOfAnotherFormatIsRefusedByName) {
  const fs::path dir = fs::temp_directory_path() / "silt_ensemble_ckpt_format";
  fs::remove_all(dir);
  fs::create_directories(dir);
  silt::run::MemberResult r;
  r.time = 1.5;
  r.measures = {1.0, 2.0};
  silt::run::save_member(dir.string(), 0, "m00", r);
  silt::run::MemberResult back;
  ASSERT_TRUE(silt::run::load_member(dir.string(), 0, "m00", back));
  EXPECT_EQ(back.measures, r.measures);
  silt::run::MemberBytes old;
  old.put(std::string("silt ensemble member 1"));
  old.put(std::string("swe"));
  old.put(std::string("m00"));
  std::ofstream(silt::run::member_file(dir.string(), 0), std::ios::binary) << old.bytes();
  const std::string why = error_of([&] { silt::run::load_member(dir.string(), 0, "m00", back); });
  EXPECT_NE(why.find("written by another version of silt"), std::string::npos) << why;
  EXPECT_NE(why.find("--overwrite"), std::string::npos) << why;
  fs::remove_all(dir);
}

}  // namespace
