// The ensemble's helper threads beside its member pool (run/member_checks.hpp,
// run/member_saver.hpp): every member's job built on several threads with the errors reported in
// member order, and the thread that saves finished members while the others run.
#include <gtest/gtest.h>
#include <omp.h>

#include <atomic>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "silt/run/member_checks.hpp"
#include "silt/run/member_saver.hpp"

namespace {

using silt::run::check_each_member;
using silt::run::MemberSaver;

std::string what(const std::exception_ptr& e) {
  try {
    std::rethrow_exception(e);
  } catch (const std::exception& x) {
    return x.what();
  }
}

TEST(MemberChecks, EveryMemberOnceOnOneOpenMpThreadEach) {
  std::vector<std::atomic<int>> calls(40);
  std::atomic<int> wider{0};
  const auto errors = check_each_member(40, 4, [&](std::size_t m) {
    ++calls[m];
    if (omp_get_max_threads() != 1) ++wider;
  });
  for (std::size_t m = 0; m < 40; ++m) {
    EXPECT_EQ(calls[m], 1) << m;
    EXPECT_FALSE(errors[m]) << m;
  }
  EXPECT_EQ(wider, 0);
}

// At least the members in flight; more for small jobs (up to kCheckCells cells at once); never
// more than OpenMP's threads or the members.
TEST(MemberChecks, SmallJobsAreCheckedOnEveryThread) {
  const int threads = omp_get_max_threads();
  omp_set_num_threads(16);
  using silt::run::check_workers;
  using silt::run::kCheckCells;
  EXPECT_EQ(check_workers(1, 63, std::size_t(1) << 20), 16u);  // 1M cells: every thread
  EXPECT_EQ(check_workers(1, 63, kCheckCells), 1u);            // large: the members in flight
  EXPECT_EQ(check_workers(8, 63, kCheckCells), 8u);
  EXPECT_EQ(check_workers(4, 63, kCheckCells / 6), 6u);
  EXPECT_EQ(check_workers(32, 63), 16u);  // cells unknown (MPM): in flight, at most the threads
  EXPECT_EQ(check_workers(8, 3, 100), 3u);
  EXPECT_EQ(check_workers(8, 0, 100), 1u);
  omp_set_num_threads(threads);
}

TEST(MemberChecks, TheLowestFailureIsKeptAndLaterMembersMaySkip) {
  for (std::size_t workers : {1, 3}) {
    std::vector<std::atomic<int>> calls(30);
    const auto errors = check_each_member(30, workers, [&](std::size_t m) {
      ++calls[m];
      if (m == 11 || m == 20) throw std::runtime_error("member " + std::to_string(m));
    });
    for (std::size_t m = 0; m < 11; ++m) {
      EXPECT_EQ(calls[m], 1) << m;  // every member before the first failure is checked
      EXPECT_FALSE(errors[m]) << m;
    }
    ASSERT_TRUE(errors[11]);
    EXPECT_EQ(what(errors[11]), "member 11");
    if (workers == 1) {  // in member order the check stops there
      for (std::size_t m = 12; m < 30; ++m) EXPECT_EQ(calls[m], 0) << m;
    }
  }
}

TEST(MemberSaver, SavesEveryMemberInOrderOnItsOwnThread) {
  std::vector<std::size_t> saved;
  std::mutex mutex;
  std::atomic<bool> elsewhere{true};
  const std::thread::id caller = std::this_thread::get_id();
  MemberSaver saver([&](std::size_t m) {
    if (std::this_thread::get_id() == caller) elsewhere = false;
    const std::lock_guard<std::mutex> lock(mutex);
    saved.push_back(m);
  });
  for (std::size_t m : {3, 1, 4, 1, 5}) saver.push(m);
  EXPECT_FALSE(saver.finish());
  EXPECT_EQ(saved, (std::vector<std::size_t>{3, 1, 4, 1, 5}));
  EXPECT_TRUE(elsewhere);
  saver.push(9);  // after finish: saved at once, in this thread
  EXPECT_EQ(saved.back(), 9u);
}

TEST(MemberSaver, KeepsTheFirstErrorAndSavesTheRest) {
  std::vector<std::size_t> saved;
  MemberSaver saver([&](std::size_t m) {
    if (m == 2 || m == 3) throw std::runtime_error("disk full at " + std::to_string(m));
    saved.push_back(m);
  });
  for (std::size_t m = 0; m < 5; ++m) saver.push(m);
  const std::exception_ptr e = saver.finish();
  ASSERT_TRUE(e);
  EXPECT_EQ(what(e), "disk full at 2");
  EXPECT_EQ(saved, (std::vector<std::size_t>{0, 1, 4}));
}

TEST(MemberSaver, AnEmptySaveStartsNothing) {
  MemberSaver saver{std::function<void(std::size_t)>()};
  saver.push(1);
  EXPECT_FALSE(saver.finish());
}

}  // namespace
