// swe::Batch (batch.hpp): members stepped in lock step end with exactly the bits of their own runs
// (fields, clock and volumes, float64) through advance_to (each member's own time steps, a member
// at its target idling until the batch ends) and step_many; on CUDA (label gpu) one launch of the
// tile kernel steps every member. Members that cannot share the tile kernel are refused, naming
// the member and what differs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "silt/core/device_set.hpp"
#include "silt/swe/batch.hpp"
#include "silt/swe/fused_step.hpp"
#include "silt/swe/solver.hpp"
#include "swe_scene_builder.hpp"
#include "test_support.hpp"

namespace silt::swe {
namespace {

// Three members of the forced basin: Manning 0.03, 0.02 and 0.045, the second twice as deep at the
// start (faster waves: more, shorter steps), the last with 1.5 times the rain.
std::vector<Scene> members(Precision p) {
  std::vector<Scene> out;
  const double manning[] = {0.03, 0.02, 0.045};
  for (int k = 0; k < 3; ++k) {
    Scene s = scenes::forced_basin(p);
    s.name = "member" + std::to_string(k);
    s.manning.assign(s.depth.size(), manning[k]);
    if (k == 1)
      for (double& h : s.depth) h *= 2.0;
    if (k == 2)
      for (double& r : s.rainfall.value) r *= 1.5;
    out.push_back(s);
  }
  return out;
}

void expect_same_bits(const Solver& got, const Solver& want, const std::string& who) {
  EXPECT_EQ(got.time(), want.time()) << who;
  EXPECT_EQ(got.steps(), want.steps()) << who;
  EXPECT_EQ(got.last_dt(), want.last_dt()) << who;
  const Fields a = got.fields(), b = want.fields();
  const std::vector<
      std::pair<const char*, std::pair<const std::vector<double>*, const std::vector<double>*>>>
      arrays = {{"h", {&a.h, &b.h}},
                {"hu", {&a.hu, &b.hu}},
                {"hv", {&a.hv, &b.hv}},
                {"hc", {&a.hc, &b.hc}},
                {"max_depth", {&a.max_depth, &b.max_depth}}};
  for (const auto& [name, ab] : arrays) {
    ASSERT_EQ(ab.first->size(), ab.second->size()) << who << " " << name;
    size_t differ = 0;
    for (size_t k = 0; k < ab.first->size(); ++k) differ += (*ab.first)[k] != (*ab.second)[k];
    EXPECT_EQ(differ, 0u) << who << ": " << differ << " cells of " << name << " differ";
  }
  const Totals ta = got.totals(), tb = want.totals();
  // The tile kernel adds the boundary inflow with float atomics on CUDA, in an order that varies
  // from run to run even for one solver alone (docs/ensembles.md): there this sum agrees to its
  // rounding, not to the bit; the state above is compared bit for bit on every backend.
  if (test::exec().is_cuda())
    EXPECT_NEAR(ta.net_inflow_volume, tb.net_inflow_volume,
                1e-12 * std::max(1.0, std::abs(tb.net_inflow_volume)))
        << who;
  else
    EXPECT_EQ(ta.net_inflow_volume, tb.net_inflow_volume) << who;
  EXPECT_EQ(ta.rain_volume, tb.rain_volume) << who;
  EXPECT_EQ(ta.flows, tb.flows) << who;
}

// The members' solvers, sharing one stream on CUDA (SolverOptions::stream).
struct Members {
  explicit Members(const std::vector<Scene>& scenes) : stream(test::exec()) {
    SolverOptions o;
    o.stream = stream.exec().stream;  // nullptr on the CPU
    for (const Scene& s : scenes) solvers.emplace_back(s, test::exec(), o);
  }
  std::vector<std::reference_wrapper<Solver>> refs() {
    return std::vector<std::reference_wrapper<Solver>>(solvers.begin(), solvers.end());
  }
  Stream stream;
  std::vector<Solver> solvers;
};

// Each member against its own run, which `run` steps alone from the member's scene.
void expect_each_as_alone(Members& m, const std::vector<Scene>& scenes,
                          const std::function<void(Solver&)>& run, const std::string& when = "") {
  for (size_t k = 0; k < scenes.size(); ++k) {
    Solver solo(scenes[k], test::exec());
    run(solo);
    expect_same_bits(m.solvers[k], solo, scenes[k].name + when);
  }
}

TEST(SweBatch, AdvanceToGivesEachMemberItsOwnRunsBits) {
  const std::vector<Scene> scenes = members(Precision::f64);
  Members m(scenes);
  std::vector<Solver> solo;
  for (const Scene& s : scenes) solo.emplace_back(s, test::exec());
  Batch batch(m.refs());
  EXPECT_EQ(batch.size(), 3);
  EXPECT_EQ(batch.batched(), test::on_gpu());
  for (const double t : {0.7, 2.5, 4.0}) {
    ASSERT_TRUE(batch.advance_to(t));
    for (size_t k = 0; k < solo.size(); ++k) {
      solo[k].advance_to(t);
      expect_same_bits(m.solvers[k], solo[k], scenes[k].name + " at t = " + std::to_string(t));
    }
  }
  // The members ran apart: their own fields and time steps.
  EXPECT_NE(solo[0].fields().h, solo[2].fields().h);
  EXPECT_NE(solo[0].steps(), solo[1].steps());
}

TEST(SweBatch, StopEndsAtABatchAndTheRunGoesOn) {
  const std::vector<Scene> scenes = members(Precision::f64);
  Members m(scenes);
  Batch batch(m.refs());
  int asked = 0;
  EXPECT_FALSE(batch.advance_to(6.0, [&] { return ++asked == 1; }));
  EXPECT_EQ(asked, 1);
  EXPECT_LT(m.solvers[0].time(), 6.0);
  EXPECT_TRUE(batch.advance_to(6.0));
  expect_each_as_alone(m, scenes, [](Solver& s) { s.advance_to(6.0); });
}

TEST(SweBatch, StepManyGivesEachMemberItsOwnSteps) {
  const std::vector<Scene> scenes = members(Precision::f64);
  Members m(scenes);
  Batch batch(m.refs());
  const std::uint64_t launches = detail::fused_launch_count();
  batch.step_many(7);
  if (test::on_gpu()) {
    // One launch of the tile kernel a step for the three members.
    EXPECT_EQ(detail::fused_launch_count() - launches, 7u);
  }
  expect_each_as_alone(m, scenes, [](Solver& s) { s.step(7); });
  // advance_to after step_many: the queued steps' faults are read, the run goes on alike.
  ASSERT_TRUE(batch.advance_to(2.0));
  expect_each_as_alone(
      m, scenes,
      [](Solver& s) {
        s.step(7);
        s.advance_to(2.0);
      },
      " after advance_to");
}

// The float64 members with rain rasters whose frames stand at other times in each member (a rate
// varying over the cells and the frames), so that each member stops at its own frame times.
static std::vector<Scene> members_with_rain_frames() {
  std::vector<Scene> scenes = members(Precision::f64);
  const std::vector<std::vector<double>> times = {{0.0, 1.3, 3.1}, {0.0, 0.9, 2.2}, {0.0, 2.0}};
  for (size_t k = 0; k < scenes.size(); ++k) {
    Scene& s = scenes[k];
    s.rain.t = times[k];
    for (size_t f = 0; f < times[k].size(); ++f) {
      std::vector<double> rate(s.depth.size());
      for (size_t c = 0; c < rate.size(); ++c) rate[c] = 1e-4 * double((c + f + k) % 7);
      s.rain.rate.push_back(rate);
      s.rain.source.push_back("frame " + std::to_string(f));
    }
  }
  return scenes;
}

// Rain rasters with frames at other times in each member: each stops at its own frame times.
TEST(SweBatch, RainRasterMembersStopAtTheirOwnFrames) {
  const std::vector<Scene> scenes = members_with_rain_frames();
  Members m(scenes);
  Batch batch(m.refs());
  ASSERT_TRUE(batch.advance_to(4.0));
  expect_each_as_alone(m, scenes, [](Solver& s) { s.advance_to(4.0); });
}

// advance_each (an ensemble's members on one GPU, run/member_batch.hpp): each member its own
// target, one with `after` (it returns at the first step end past it), one stopped after its first
// batch; with rain rasters at other times in each. Each ends as its own run, and goes on alike.
TEST(SweBatch, AdvanceEachGivesEachMemberItsOwnLeg) {
  const std::vector<Scene> scenes = members_with_rain_frames();
  Members m(scenes);
  Batch batch(m.refs());
  std::vector<Batch::Leg> legs(3);
  legs[0].t_end = 1.1;
  legs[1].t_end = 3.0;
  legs[1].after = 0.4;
  legs[2].t_end = 5.0;
  int asked = 0;
  legs[2].stop = [&] {
    return ++asked == 1;
  };
  const std::vector<Batch::LegEnd> ends = batch.advance_each(legs);
  ASSERT_EQ(ends.size(), 3u);
  EXPECT_TRUE(ends[0].reached && !ends[0].stopped && !ends[0].fault);
  EXPECT_TRUE(ends[1].reached && !ends[1].fault);
  EXPECT_TRUE(ends[2].stopped && !ends[2].reached && !ends[2].fault);
  EXPECT_EQ(asked, 1);
  std::vector<Solver> solo;
  for (const Scene& s : scenes) solo.emplace_back(s, test::exec());
  solo[0].advance_to(1.1);
  solo[1].advance_to(3.0, {}, 0.4);
  expect_same_bits(m.solvers[0], solo[0], "member0 at its target");
  expect_same_bits(m.solvers[1], solo[1], "member1 past `after`");
  EXPECT_GE(m.solvers[1].time(), 0.4);
  EXPECT_LT(m.solvers[1].time(), 3.0);
  EXPECT_LT(m.solvers[2].time(), 5.0);
  for (Batch::Leg& l : legs) l = Batch::Leg{5.0, {}};
  for (const Batch::LegEnd& e : batch.advance_each(legs)) EXPECT_TRUE(e.reached);
  for (size_t k = 0; k < scenes.size(); ++k) {
    solo[k].advance_to(5.0);
    expect_same_bits(m.solvers[k], solo[k], scenes[k].name + " at 5 s");
  }
}

TEST(SweBatch, FloatMembersStepAsAlone) {
  const std::vector<Scene> scenes = members(Precision::f32);
  Members m(scenes);
  Batch batch(m.refs());
  ASSERT_TRUE(batch.advance_to(1.5));
  expect_each_as_alone(m, scenes, [](Solver& s) { s.advance_to(1.5); });
}

std::string refusal(const std::vector<Scene>& scenes) {
  Members m(scenes);
  try {
    Batch batch(m.refs());
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(SweBatch, RefusesMembersThatDiffer) {
  std::vector<Scene> scenes = members(Precision::f64);
  scenes[2] = scenes::forced_basin(Precision::f64, 32, 20);
  scenes[2].name = "wide";
  const std::string grid = refusal(scenes);
  EXPECT_NE(grid.find("member 2 ('wide')"), std::string::npos) << grid;
  EXPECT_NE(grid.find("32 x 20"), std::string::npos) << grid;
  EXPECT_NE(grid.find("30 x 20"), std::string::npos) << grid;

  scenes = members(Precision::f64);
  scenes[1].precision = Precision::f32;
  const std::string precision = refusal(scenes);
  EXPECT_NE(precision.find("member 1 ('member1') is float32"), std::string::npos) << precision;

  scenes = members(Precision::f64);
  scenes[1].sources.clear();
  const std::string features = refusal(scenes);
  EXPECT_NE(features.find("member 1"), std::string::npos) << features;
  EXPECT_NE(features.find("point sources"), std::string::npos) << features;

  scenes = members(Precision::f64);
  scenes[2].active.assign(scenes[2].depth.size(), 1);
  scenes[2].active[0] = 0;
  const std::string active = refusal(scenes);
  EXPECT_NE(active.find("member 2"), std::string::npos) << active;
  EXPECT_NE(active.find("active cells"), std::string::npos) << active;

  EXPECT_THROW(Batch(std::vector<std::reference_wrapper<Solver>>{}), Error);
}

}  // namespace
}  // namespace silt::swe
