// keep_freed_host_blocks (core/host_memory.hpp): a thread that builds and frees the same arrays
// again, as an ensemble's worker does member after member, gets them from the allocator's heap
// (no mapping of their own) and touches no fresh pages after its first round. Without the setting
// glibc maps them afresh each round (one fault a page, or a few with transparent huge pages: the
// count of mapped blocks is the check that does not depend on the kernel's settings).
#include <gtest/gtest.h>
#include <malloc.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <thread>
#include <vector>

#include "silt/core/host_memory.hpp"

namespace {

long thread_minor_faults() {
  rusage u{};
  getrusage(RUSAGE_THREAD, &u);
  return u.ru_minflt;
}

TEST(HostMemory, ArraysBuiltAgainOnAThreadReuseItsPages) {
  silt::keep_freed_host_blocks();
  constexpr int kArrays = 5, kRounds = 4;
  constexpr std::size_t kDoubles = std::size_t(1) << 20;  // 8 MiB: a 1M-cell grid
  long faults = 0;
  std::size_t mapped = 0;  // blocks with a mapping of their own while a round's arrays live
  std::thread worker([&] {
    for (int r = 0; r < kRounds; ++r) {
      const long before = thread_minor_faults();
      {
        std::vector<std::vector<double>> grids;
        for (int k = 0; k < kArrays; ++k) grids.emplace_back(kDoubles, double(r));
#if defined(__GLIBC__)
        mapped = std::max(mapped, std::size_t(mallinfo2().hblks));
#endif
      }
      if (r > 0) faults += thread_minor_faults() - before;
    }
  });
  worker.join();
  const long page = sysconf(_SC_PAGESIZE);
  const long pages = long(kRounds - 1) * kArrays * long(kDoubles * sizeof(double)) / page;
#if defined(__GLIBC__)
  EXPECT_EQ(mapped, 0u) << "arrays of 8 MiB were mapped on their own";
  EXPECT_LT(faults, pages / 20) << "of " << pages << " pages written after the first round";
#else
  GTEST_SKIP() << "not glibc: " << faults << " faults of " << pages << " pages";
#endif
}

}  // namespace
