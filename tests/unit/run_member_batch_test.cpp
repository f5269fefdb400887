// run::MemberBatch (member_batch.hpp): members on threads of their own meet at the group and step
// together (on CUDA one launch of the tile kernel a step, label gpu; on the CPU one after
// another), each through its own frames, to the bits of its own run: a member that ends early, one
// stopped short and going on, one whose thread throws between its advances (it leaves the group
// as it unwinds: nobody waits for it), and the others end as alone.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <limits>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "silt/run/member_batch.hpp"
#include "silt/swe/solver.hpp"
#include "swe_scene_builder.hpp"
#include "test_support.hpp"

namespace silt::run {
namespace {

constexpr double kNever = std::numeric_limits<double>::infinity();

std::vector<swe::Scene> member_scenes() {
  std::vector<swe::Scene> out;
  const double manning[] = {0.03, 0.02, 0.045, 0.01};
  for (int k = 0; k < 4; ++k) {
    swe::Scene s = swe::scenes::forced_basin(swe::Precision::f64);
    s.name = "member" + std::to_string(k);
    s.manning.assign(s.depth.size(), manning[k]);
    if (k == 1)
      for (double& h : s.depth) h *= 2.0;
    out.push_back(s);
  }
  return out;
}

// Member k's frames: every `every` s to `end` (the last clipped).
std::vector<double> frame_times(double every, double end) {
  std::vector<double> t;
  for (double x = every; x < end; x += every) t.push_back(x);
  t.push_back(end);
  return t;
}

TEST(MemberBatch, MembersOnThreadsEndWithTheirOwnRunsBits) {
  const std::vector<swe::Scene> scenes = member_scenes();
  const std::vector<std::vector<double>> frames = {
      frame_times(0.5, 2.0), {6.0}, frame_times(1.0, 3.5), frame_times(0.3, 4.0)};
  std::mutex m;
  std::vector<std::string> lines;
  MemberBatch group(test::exec(), [&](const std::string& s) {
    const std::lock_guard<std::mutex> lock(m);
    lines.push_back(s);
  });
  std::vector<std::unique_ptr<swe::Solver>> solvers;
  for (const swe::Scene& s : scenes)
    solvers.push_back(std::make_unique<swe::Solver>(s, test::exec(), group.solver_options()));
  std::vector<std::string> errors(scenes.size());
  int stops = 0;
  std::atomic<int> seated{0};
  const auto member = [&](size_t k) {
    try {
      MemberBatch::Seat seat(&group, *solvers[k]);
      ++seated;  // every member sits before any advances: the first rounds hold them all
      while (seated < int(scenes.size())) std::this_thread::yield();
      for (size_t f = 0; f < frames[k].size(); ++f) {
        if (k == 3 && f == 2) throw std::runtime_error("member 3 fails between its advances");
        // Member 1 (one frame, several batches away) is stopped short after its first batch.
        if (k == 1 && f == 0 &&
            !seat.advance_to(
                frames[k][f], [&] { return ++stops == 1; }, kNever))
          EXPECT_LT(solvers[k]->time(), frames[k][f]);
        ASSERT_TRUE(seat.advance_to(frames[k][f], {}, kNever));
        EXPECT_EQ(solvers[k]->time(), frames[k][f]);
      }
    } catch (const std::exception& e) {
      errors[k] = e.what();
    }
  };
  std::vector<std::thread> threads;
  for (size_t k = 0; k < scenes.size(); ++k) threads.emplace_back(member, k);
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(errors[0] + errors[1] + errors[2], "");
  EXPECT_EQ(errors[3], "member 3 fails between its advances");
  EXPECT_EQ(stops, 1);
  for (size_t k = 0; k < scenes.size(); ++k) {
    swe::Solver solo(scenes[k], test::exec());
    for (size_t f = 0; f < frames[k].size() && !(k == 3 && f == 2); ++f)
      solo.advance_to(frames[k][f]);
    EXPECT_EQ(solvers[k]->time(), solo.time()) << k;
    EXPECT_EQ(solvers[k]->steps(), solo.steps()) << k;
    EXPECT_EQ(solvers[k]->fields().h, solo.fields().h) << k;
    EXPECT_EQ(solvers[k]->fields().hu, solo.fields().hu) << k;
  }
  const std::string summary = group.summary();
  EXPECT_NE(summary.find("members batched on"), std::string::npos) << summary;
  for (const std::string& l : lines) ADD_FAILURE() << "logged: " << l;  // no fallback
}

// A member that cannot share the tile kernel on CUDA (here: the second-order scheme) makes the
// group fall back: every member advances alone, to the same bits.
TEST(MemberBatch, FallsBackWhereMembersCannotShareTheTileKernel) {
  if (!test::on_gpu()) GTEST_SKIP() << "on the CPU the members step one after another anyway";
  std::vector<swe::Scene> scenes = member_scenes();
  scenes[2].scheme = swe::Scheme::muscl;
  std::vector<std::string> lines;
  MemberBatch group(test::exec(), [&](const std::string& s) { lines.push_back(s); });
  std::vector<std::unique_ptr<swe::Solver>> solvers;
  for (const swe::Scene& s : scenes)
    solvers.push_back(std::make_unique<swe::Solver>(s, test::exec(), group.solver_options()));
  std::vector<std::thread> threads;
  for (size_t k = 0; k < scenes.size(); ++k)
    threads.emplace_back([&, k] {
      MemberBatch::Seat seat(&group, *solvers[k]);
      seat.advance_to(1.5, {}, kNever);
    });
  for (std::thread& t : threads) t.join();
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].find("members not batched"), std::string::npos) << lines[0];
  for (size_t k = 0; k < scenes.size(); ++k) {
    swe::Solver solo(scenes[k], test::exec());
    solo.advance_to(1.5);
    EXPECT_EQ(solvers[k]->steps(), solo.steps()) << k;
    EXPECT_EQ(solvers[k]->fields().h, solo.fields().h) << k;
  }
}

}  // namespace
}  // namespace silt::run
