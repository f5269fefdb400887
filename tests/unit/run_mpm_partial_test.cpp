// What an MPM ensemble member gathers beside its solver checkpoint (src/silt/run/
// mpm_member_partial.hpp): the partial is written before its .silt and only grows, so a kill
// between the two writes leaves a partial newer than the .silt beside it; the restart cuts it to
// the .silt's frame and reads what the partial of that frame held. A partial behind its .silt
// (changed, another run's) is refused naming the file; none: false.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "silt/core/error.hpp"
#include "silt/mpm/solver.hpp"
#include "silt/run/mpm_member_partial.hpp"

namespace {

namespace fs = std::filesystem;
using silt::run::MemberPartial;

// A member after `frames` frames of 10, 11, 12, ... steps.
MemberPartial after(int frames) {
  MemberPartial p;
  p.start = {1.5, 0.25, 0.75};
  for (int f = 1; f <= frames; ++f) {
    silt::mpm::FrameStats s;
    s.steps = 9 + f;
    s.time = 0.05 * f;
    s.kinetic_energy = 1.0 / f;
    s.rms_speed = 0.5 / f;
    p.add(s);
  }
  return p;
}

void expect_same(const MemberPartial& a, const MemberPartial& b) {
  EXPECT_EQ(a.start.front, b.start.front);
  EXPECT_EQ(a.start.back, b.start.back);
  EXPECT_EQ(a.start.height, b.start.height);
  EXPECT_EQ(a.steps, b.steps);
  EXPECT_EQ(a.energy.time, b.energy.time);
  EXPECT_EQ(a.energy.kinetic_energy, b.energy.kinetic_energy);
  EXPECT_EQ(a.energy.rms_speed, b.energy.rms_speed);
}

struct Dir {
  fs::path path = fs::temp_directory_path() / ("silt_mpm_partial_" + std::to_string(::getpid()));
  Dir() { fs::create_directories(path); }
  ~Dir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  std::string str() const { return path.string(); }
};

TEST(MpmMemberPartial, AddCountsTheStepsOfEveryFrame) {
  const MemberPartial p = after(3);
  EXPECT_EQ(p.steps, (std::vector<double>{10, 21, 33}));
  EXPECT_EQ(p.steps_done(), 33);
  EXPECT_EQ(MemberPartial().steps_done(), 0);
}

// The pair of frame 3 written (partial, then .silt), then the partial of frame 5 and a kill
// before its .silt: the restart from the .silt of frame 3 reads frame 3's partial.
TEST(MpmMemberPartial, ANewerPartialIsCutToItsCheckpointsFrame) {
  const Dir d;
  silt::run::save_member_partial(d.str(), 2, "m02", after(3));
  silt::run::save_member_partial(d.str(), 2, "m02", after(5));
  MemberPartial back;
  ASSERT_TRUE(silt::run::load_member_partial(d.str(), 2, "m02", 3, back));
  expect_same(back, after(3));
  EXPECT_EQ(back.steps_done(), 33);
  ASSERT_TRUE(silt::run::load_member_partial(d.str(), 2, "m02", 5, back));
  expect_same(back, after(5));
  ASSERT_TRUE(silt::run::load_member_partial(d.str(), 2, "m02", 0, back));
  expect_same(back, after(0));
}

TEST(MpmMemberPartial, APartialBehindItsCheckpointIsRefusedByName) {
  const Dir d;
  MemberPartial back;
  EXPECT_FALSE(silt::run::load_member_partial(d.str(), 1, "m01", 4, back));
  silt::run::save_member_partial(d.str(), 1, "m01", after(3));
  std::string why;
  try {
    silt::run::load_member_partial(d.str(), 1, "m01", 4, back);
  } catch (const silt::Error& e) {
    why = e.what();
  }
  EXPECT_NE(why.find("member_1.partial"), std::string::npos) << why;
  EXPECT_NE(why.find("holds 3 frames"), std::string::npos) << why;
  EXPECT_NE(why.find("after frame 4"), std::string::npos) << why;
  EXPECT_NE(why.find("--overwrite"), std::string::npos) << why;
  // Another member's partial is not this one's.
  EXPECT_THROW(silt::run::load_member_partial(d.str(), 1, "m09", 3, back), silt::Error);
}

}  // namespace
