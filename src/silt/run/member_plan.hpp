// How an ensemble's members share the machine (docs/ensembles.md, "How members run"): how many
// run at once, on which device each runs and how many OpenMP threads each gets. Pure functions,
// so that CI checks the CUDA path's scheduling on the CPU (run_member_plan_test).
#pragma once

#include <cstddef>
#include <map>
#include <vector>

namespace silt::run {

/// Members in flight per listed GPU when the ensemble file names no run.members_at_once: small
/// members (a 1M-cell flood, a 32K-particle column) leave a GPU idle between one member's
/// launches and host waits; several in flight, each on its own streams and graphs, fill those
/// gaps (docs/NOTES.md, "Ensembles on one GPU").
constexpr int kCudaMembersPerDevice = 8;

/// Members built ahead per listed GPU when several step at once: workers beyond those stepping,
/// each building its next member (its job, its solver, the uploads) while the others step, then
/// waiting for a turn (member_turns.hpp). Without them a worker's slot stepped nothing during its
/// member's job and set-up: 0.035-0.080 s (medians) of each ~1.05 s flood member on an H100.
/// With 2, the 64-member 1M-cell flood ensemble went from 0.799 to 0.809 of the 64M kernels on an
/// H200 (medians of eight; bench/results/ensemble-members-ahead-2026-12-07j-h200.md). The pool
/// builds no MPM members ahead (member_pool.cpp, member_plan).
constexpr int kCudaMembersAhead = 2;

/// The share of a device's free memory that members may take (the rest: growth of MPM's buffers
/// beyond what a member held when measured, the writers' staging, other processes).
constexpr double kMemberMemoryShare = 0.8;

/// The member pool: worker w runs members one after another on device index device[w] (into the
/// run's device list; 0 on the CPU), each pulling the next member from a shared counter, with
/// `threads` OpenMP threads (0: leave the thread count as it is). `device` lists the members
/// that step at once; `ahead` the device indices of the workers beyond them (CUDA), which build
/// their members while those step and then wait for a turn: on each device as many step at once
/// as `device` lists it.
struct MemberPlan {
  std::vector<int> device;
  std::vector<int> ahead;
  int threads = 0;
  /// Every worker's device index: `device`, then `ahead`.
  std::vector<int> workers() const;
};

/// `members` members; `at_once` the ensemble's run.members_at_once (0: the default: on the CPU
/// one member per OpenMP thread, on CUDA kCudaMembersPerDevice per listed device); `parallel`
/// false for run.parallel = "cells" (one member after another on every thread or the whole GPU);
/// `devices` the listed devices (CUDA; 1 on the CPU); `host_threads` OpenMP's threads. Workers
/// take the devices in turn (worker w: device w mod devices), so members spread over the GPUs.
/// On CUDA with several at once, kCudaMembersAhead per listed device more are built ahead (at
/// most the members left).
MemberPlan plan_members(std::size_t members, int at_once, bool parallel, bool cuda,
                        std::size_t devices, int host_threads);

/// The members rank `rank` of `ranks` runs, in member order: member m on rank m mod ranks (docs/
/// ensembles.md, "Members over MPI ranks"). Round robin rather than blocks, so that a sweep whose
/// cost grows along a key spreads its cheap and dear members over every rank.
std::vector<std::size_t> members_of_rank(std::size_t members, int rank, int ranks);

/// How many more members of `member_bytes` each fit in kMemberMemoryShare of `free_bytes` (no
/// limit when member_bytes is 0).
std::size_t members_that_fit(std::size_t free_bytes, std::size_t member_bytes);

/// Which workers go on once a member's size is known: `gpu` is each worker's CUDA device (two
/// entries of one GPU when --devices lists it twice), `room[g]` how many members GPU g holds in
/// all; the first workers of each GPU are kept, the rest dropped.
std::vector<bool> workers_that_fit(const std::vector<int>& gpu,
                                   const std::map<int, std::size_t>& room);

}  // namespace silt::run
