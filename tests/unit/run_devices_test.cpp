// The device choice of every front end (src/silt/run/devices.hpp): what the CLI and Python ask
// for, and the errors each gets in its own words.
#include <gtest/gtest.h>

#include "silt/core/error.hpp"
#include "silt/run/devices.hpp"
#include "test_support.hpp"

namespace {

using silt::Exec;
using silt::partition::World;
using silt::run::DeviceRequest;
using silt::test::throws_with;

TEST(RunDevices, CpuListsArePartitionsOfThisProcess) {
  const auto execs = silt::run::choose_execs({"cpu", {0, 1, 2}}, World::self());
  ASSERT_EQ(execs.size(), 3u);
  for (const Exec& e : execs) EXPECT_FALSE(e.is_cuda());
  const std::string one = silt::run::describe_execs({execs.front()}, World::self());
  EXPECT_EQ(one.rfind("cpu (", 0), 0u) << one;
  const std::string three = silt::run::describe_execs(execs, World::self());
  EXPECT_EQ(three.rfind("3 cpu partitions (", 0), 0u) << three;
}

TEST(RunDevices, ErrorsNameTheListAsTheFrontEndDoes) {
  EXPECT_TRUE(throws_with(
      [] {
        silt::run::choose_execs({"cpu", {}}, World::self());
      },
      {"--devices: no device given"}));
  EXPECT_TRUE(throws_with(
      [] {
        silt::run::choose_execs({"cpu", {}, true, "devices"}, World::self());
      },
      {"devices: no device given"}));
  EXPECT_TRUE(throws_with([] { silt::run::choose_execs({"gpu", {0}}, World::self()); }, {"gpu"}));
  if (silt::cuda_device_count() == 0) {
    EXPECT_TRUE(throws_with([] { silt::run::cuda_device(0, "devices"); },
                            {"devices: CUDA device 0 does not exist (0 visible)"}));
  } else {
    const int n = silt::cuda_device_count();
    EXPECT_TRUE(throws_with([n] { silt::run::cuda_device(n); }, {"--devices: CUDA device"}));
    EXPECT_TRUE(throws_with(
        [] {
          silt::run::choose_execs({"cuda", {0, 0}}, World::self());
        },
        {"--devices: device 0 listed twice"}));
    EXPECT_EQ(silt::run::choose_execs({"cuda", {0, 0}, true}, World::self()).size(), 2u);
  }
}

// The contexts made ahead (DeviceStart) never fail the command: a bad backend, a device that
// does not exist or no GPU at all leave the error to the command's own choice, which still says
// it in the front end's words.
TEST(RunDevices, StartingTheDevicesAheadLeavesErrorsToTheChoice) {
  { const silt::run::DeviceStart none({"cpu", {0}}, World::self()); }
  { const silt::run::DeviceStart bad({"quantum", {0}}, World::self()); }
  { const silt::run::DeviceStart missing({"cuda", {97}}, World::self()); }
  EXPECT_THROW(silt::run::choose_execs({"cuda", {97}}, World::self()), silt::Error);
}

TEST(RunDevices, HaloAndBuildId) {
  EXPECT_EQ(silt::run::halo_layers(0, true), silt::run::kCudaHalo);
  EXPECT_EQ(silt::run::halo_layers(0, false), 1);
  EXPECT_EQ(silt::run::halo_layers(3, true), 3);
  EXPECT_EQ(silt::run::build_id().rfind("silt ", 0), 0u) << silt::run::build_id();
}

}  // namespace
