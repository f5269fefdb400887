// The member pool's plan (run/member_plan.hpp): how many members an ensemble runs at once, on
// which device each worker runs, with how many OpenMP threads, and which workers go on once a
// member's device memory is known. The CUDA path's scheduling, checked on the CPU.
#include <gtest/gtest.h>

#include <map>
#include <vector>

#include "silt/run/ensemble.hpp"
#include "silt/run/member_plan.hpp"

namespace {

using silt::run::kCudaMembersAhead;
using silt::run::kCudaMembersPerDevice;
using silt::run::members_of_rank;
using silt::run::members_that_fit;
using silt::run::plan_members;
using silt::run::workers_that_fit;

TEST(MemberPlan, CpuRunsOneMemberPerThreadOrOneAfterAnother) {
  const auto at_once = plan_members(10, 0, true, false, 1, 4);
  EXPECT_EQ(at_once.device, std::vector<int>(4, 0));
  EXPECT_EQ(at_once.threads, 1);
  const auto cells = plan_members(10, 0, false, false, 1, 4);
  EXPECT_EQ(cells.device.size(), 1u);
  EXPECT_EQ(cells.threads, 0);                                          // every thread, as it is
  EXPECT_EQ(plan_members(3, 0, true, false, 1, 8).device.size(), 3u);   // no more than members
  EXPECT_EQ(plan_members(10, 2, true, false, 1, 8).device.size(), 2u);  // run.members_at_once
}

TEST(MemberPlan, CudaSpreadsWorkersOverTheListedDevicesInTurn) {
  const auto one = plan_members(100, 0, true, true, 1, 16);
  EXPECT_EQ(one.device, std::vector<int>(kCudaMembersPerDevice, 0));
  EXPECT_EQ(one.threads, 16 / kCudaMembersPerDevice);
  const auto two = plan_members(100, 5, true, true, 2, 16);
  EXPECT_EQ(two.device, (std::vector<int>{0, 1, 0, 1, 0}));
  EXPECT_EQ(two.threads, 3);
  EXPECT_EQ(plan_members(100, 0, true, true, 2, 16).device.size(),
            2u * std::size_t(kCudaMembersPerDevice));
  EXPECT_EQ(plan_members(100, 64, true, true, 1, 16).threads, 1);  // never below one thread
  const auto cells = plan_members(100, 8, false, true, 2, 16);     // "cells": one after another
  EXPECT_EQ(cells.device, std::vector<int>{0});
  EXPECT_EQ(plan_members(1, 8, true, true, 2, 16).device.size(), 1u);
}

TEST(MemberPlan, CudaBuildsMembersAheadOfThoseStepping) {
  const auto one = plan_members(100, 0, true, true, 1, 16);
  EXPECT_EQ(one.ahead, std::vector<int>(kCudaMembersAhead, 0));
  std::vector<int> workers(kCudaMembersPerDevice + kCudaMembersAhead, 0);
  EXPECT_EQ(one.workers(), workers);  // those stepping first: the memory gate keeps them first
  const auto two = plan_members(100, 5, true, true, 2, 16);
  EXPECT_EQ(two.ahead.size(), 2u * std::size_t(kCudaMembersAhead));
  for (std::size_t w = 0; w < two.ahead.size(); ++w) EXPECT_EQ(two.ahead[w], int(w % 2));
  EXPECT_EQ(two.workers().size(), 5u + 2u * std::size_t(kCudaMembersAhead));
  // At most the members left beyond those stepping; none for one at a time, "cells" or the CPU.
  EXPECT_EQ(plan_members(9, 8, true, true, 1, 16).ahead, std::vector<int>{0});
  EXPECT_TRUE(plan_members(8, 8, true, true, 1, 16).ahead.empty());
  EXPECT_TRUE(plan_members(100, 1, true, true, 1, 16).ahead.empty());
  EXPECT_TRUE(plan_members(100, 8, false, true, 1, 16).ahead.empty());
  EXPECT_TRUE(plan_members(100, 0, true, false, 1, 16).ahead.empty());
  EXPECT_EQ(plan_members(100, 0, true, false, 1, 4).workers(), std::vector<int>(4, 0));
}

// An ensemble's own plan (member_pool.cpp, member_plan): flood members on CUDA are built ahead;
// MPM members (their set-up small, building ahead measured slower) and members stepping together
// are not. Only the plan: no device is touched.
TEST(MemberPlan, OnlyFloodMembersSteppingAloneAreBuiltAhead) {
  silt::io::Ensemble e;
  e.members.resize(100);
  silt::run::EnsembleOptions o;
  o.execs = {silt::Exec::cuda(0)};
  EXPECT_EQ(silt::run::member_plan(e, o).ahead, std::vector<int>(kCudaMembersAhead, 0));
  e.mpm = true;
  EXPECT_TRUE(silt::run::member_plan(e, o).ahead.empty());
  EXPECT_EQ(silt::run::member_plan(e, o).device.size(), std::size_t(kCudaMembersPerDevice));
  e.mpm = false;
  e.batch = silt::io::EnsembleBatch::on;
  EXPECT_TRUE(silt::run::member_plan(e, o).ahead.empty());
  o.execs = {silt::Exec::host()};
  e.batch = silt::io::EnsembleBatch::automatic;
  EXPECT_TRUE(silt::run::member_plan(e, o).ahead.empty());
}

TEST(MemberPlan, MembersGoToRanksInTurn) {
  EXPECT_EQ(members_of_rank(7, 0, 3), (std::vector<std::size_t>{0, 3, 6}));
  EXPECT_EQ(members_of_rank(7, 2, 3), (std::vector<std::size_t>{2, 5}));
  EXPECT_EQ(members_of_rank(7, 0, 1), (std::vector<std::size_t>{0, 1, 2, 3, 4, 5, 6}));
  EXPECT_TRUE(members_of_rank(4, 4, 5).empty());  // more ranks than members: rank 4 runs none
  // Every member on exactly one rank.
  std::vector<int> runs(10, 0);
  for (int r = 0; r < 4; ++r)
    for (const std::size_t m : members_of_rank(10, r, 4)) ++runs[m];
  EXPECT_EQ(runs, std::vector<int>(10, 1));
}

TEST(MemberPlan, MembersThatFitKeepAShareOfTheFreeMemory) {
  constexpr std::size_t GiB = std::size_t(1) << 30;
  // 0.8 x 100 GiB / 30 GiB = 2.67
  EXPECT_EQ(members_that_fit(100 * GiB, 30 * GiB), 2u);
  EXPECT_EQ(members_that_fit(10 * GiB, 30 * GiB), 0u);
  EXPECT_EQ(members_that_fit(10 * GiB, 0), std::size_t(-1));  // nothing measured: no limit
}

TEST(MemberPlan, WorkersBeyondAGpusRoomAreDropped) {
  // --devices 0,1: workers alternate; GPU 0 holds 2 members, GPU 1 holds 1.
  const std::vector<bool> keep =
      workers_that_fit({0, 1, 0, 1, 0, 1}, std::map<int, std::size_t>{{0, 2}, {1, 1}});
  EXPECT_EQ(keep, (std::vector<bool>{true, true, true, false, false, false}));
  // --devices 0,0 is one GPU: its room is shared by both entries' workers.
  EXPECT_EQ(workers_that_fit({0, 0, 0, 0}, std::map<int, std::size_t>{{0, 3}}),
            (std::vector<bool>{true, true, true, false}));
  // A GPU with no measured room keeps every worker.
  EXPECT_EQ(workers_that_fit({0, 0}, {}), (std::vector<bool>{true, true}));
}

}  // namespace
