// The device block cache (core/block_cache.hpp): its bookkeeping over a fake device (blocks are
// numbered addresses, marks are counters that record whether they were waited for), and on the
// GPU machine the CUDA backend's DeviceBuffers and PinnedBuffers through it.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "silt/core/block_cache.hpp"
#include "silt/core/buffer.hpp"
#include "silt/core/device_memory.hpp"
#include "silt/core/device_set.hpp"
#include "test_support.hpp"

namespace {

using silt::detail::BlockBackend;
using silt::detail::BlockCache;

// A device of `capacity` bytes per device ordinal; blocks and marks are fake addresses.
class FakeDevice final : public BlockBackend {
 public:
  explicit FakeDevice(std::size_t capacity = 1 << 30) : capacity_(capacity) {}
  void* allocate(int device, std::size_t bytes) override {
    const std::lock_guard<std::mutex> lock(m_);
    if (used_[device] + bytes > capacity_) return nullptr;
    used_[device] += bytes;
    ++allocations;
    void* p = reinterpret_cast<void*>(next_ += 4096);
    size_[p] = bytes;
    return p;
  }
  void free(int device, void* p) override {
    const std::lock_guard<std::mutex> lock(m_);
    used_[device] -= size_.at(p);
    size_.erase(p);
    ++frees;
  }
  void* mark(int, void* stream) override {
    const std::lock_guard<std::mutex> lock(m_);
    if (!marks_on) return nullptr;
    void* m = reinterpret_cast<void*>(next_ += 4096);
    marks_[m] = stream;
    return m;
  }
  void wait_and_drop(int, void* mark) override {
    const std::lock_guard<std::mutex> lock(m_);
    ASSERT_EQ(marks_.count(mark), 1u) << "a mark waited for twice or never made";
    marks_.erase(mark);
    ++waits;
  }
  std::size_t marks_pending() const { return marks_.size(); }
  std::size_t blocks_held() const { return size_.size(); }

  bool marks_on = true;
  long long allocations = 0, frees = 0, waits = 0;

 private:
  std::mutex m_;
  std::size_t capacity_;
  std::uintptr_t next_ = 0;
  std::map<int, std::size_t> used_;
  std::map<void*, std::size_t> size_;
  std::map<void*, void*> marks_;
};

void* const kStream = reinterpret_cast<void*>(0x5);  // a stream of its own (not the legacy one)

TEST(BlockCache, AFreedBlockIsReusedForTheSameSizeAfterItsMark) {
  FakeDevice dev;
  BlockCache cache(dev);
  void* a = cache.allocate(0, 1000);
  cache.free(0, a, kStream);
  EXPECT_EQ(dev.frees, 0) << "a cached block is not freed";
  EXPECT_EQ(dev.marks_pending(), 1u);
  void* b = cache.allocate(0, 1000);
  EXPECT_EQ(b, a);
  EXPECT_EQ(dev.allocations, 1);
  EXPECT_EQ(dev.waits, 1) << "the freeing stream's work is waited for before the reuse";
  const silt::detail::BlockCacheStats s = cache.stats();
  EXPECT_EQ(s.allocations, 2);
  EXPECT_EQ(s.reused, 1);
  EXPECT_EQ(s.frees, 1);
  EXPECT_EQ(s.cached_bytes, 0u);
}

TEST(BlockCache, SizesAndDevicesAreNotMixed) {
  FakeDevice dev;
  BlockCache cache(dev);
  void* a = cache.allocate(0, 1000);
  cache.free(0, a, kStream);
  EXPECT_NE(cache.allocate(1, 1000), a) << "another device";
  EXPECT_NE(cache.allocate(0, 1024), a) << "another size";
  EXPECT_EQ(cache.stats().cached_bytes, 1000u);
  EXPECT_EQ(cache.cached_bytes(0), 1000u);
  EXPECT_EQ(cache.cached_bytes(1), 0u) << "the member pool counts a device's cached blocks free";
  EXPECT_EQ(cache.allocate(0, 1000), a);
  EXPECT_EQ(dev.allocations, 3);
}

// Pinned host staging (core/device_set.cpp): its owner has waited for its copies, so it is kept
// without a mark and handed out again without a wait.
TEST(BlockCache, KeptBlocksComeBackWithoutAWait) {
  FakeDevice dev;
  BlockCache cache(dev);
  void* a = cache.allocate(-1, 4096);
  cache.keep(-1, a);
  EXPECT_EQ(dev.marks_pending(), 0u);
  EXPECT_EQ(cache.allocate(-1, 4096), a);
  EXPECT_EQ(dev.waits, 0);
  EXPECT_EQ(dev.frees, 0);
  cache.keep(-1, a);
  EXPECT_EQ(cache.release(-1), 1);
  EXPECT_EQ(dev.frees, 1);
  EXPECT_EQ(dev.waits, 0);
}

TEST(BlockCache, TheOldestFreedBlockComesBackFirst) {
  FakeDevice dev;
  BlockCache cache(dev);
  void* a = cache.allocate(0, 64);
  void* b = cache.allocate(0, 64);
  cache.free(0, a, kStream);
  cache.free(0, b, kStream);
  EXPECT_EQ(cache.allocate(0, 64), a);
  EXPECT_EQ(cache.allocate(0, 64), b);
}

TEST(BlockCache, BlocksOfTheLegacyStreamOrWithoutAMarkAreFreedAtOnce) {
  FakeDevice dev;
  BlockCache cache(dev);
  void* a = cache.allocate(0, 1000);
  cache.free(0, a, nullptr);
  EXPECT_EQ(dev.frees, 1);
  dev.marks_on = false;  // e.g. a stream being captured into a graph
  cache.free(0, cache.allocate(0, 1000), kStream);
  EXPECT_EQ(dev.frees, 2);
  EXPECT_EQ(cache.stats().cached_bytes, 0u);
  EXPECT_EQ(cache.stats().reused, 0);
}

TEST(BlockCache, AFullDeviceEmptiesItsCacheAndTriesAgain) {
  FakeDevice dev(3000);
  BlockCache cache(dev);
  void* a = cache.allocate(0, 1000);
  void* b = cache.allocate(0, 1000);
  void* other = cache.allocate(1, 1000);
  cache.free(0, a, kStream);
  cache.free(0, b, kStream);
  cache.free(1, other, kStream);
  // 2000 bytes cached on device 0: 1500 more fit only once they are freed.
  void* c = cache.allocate(0, 1500);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(dev.frees, 2);
  EXPECT_EQ(dev.waits, 2) << "each freed block's mark is waited for before cudaFree";
  EXPECT_EQ(cache.stats().released, 2);
  EXPECT_EQ(cache.stats().cached_bytes, 1000u) << "device 1's block stays";
  EXPECT_EQ(cache.allocate(0, 4000), nullptr) << "larger than the device";
}

TEST(BlockCache, TheCacheFreesWhatItHoldsWhenItEnds) {
  FakeDevice dev;
  {
    BlockCache cache(dev);
    cache.free(0, cache.allocate(0, 10), kStream);
    cache.free(2, cache.allocate(2, 20), kStream);
    (void)cache.allocate(0, 30);  // still live: its owner frees it
  }
  EXPECT_EQ(dev.frees, 2);
  EXPECT_EQ(dev.marks_pending(), 0u);
  EXPECT_EQ(dev.blocks_held(), 1u);
}

// Members in flight allocate and free from several threads: a block is never handed to two
// owners at once, and every block ends either live or cached.
TEST(BlockCache, ThreadsNeverShareABlock) {
  FakeDevice dev;
  BlockCache cache(dev);
  std::mutex m;
  std::set<void*> live;
  std::atomic<bool> shared{false};
  const auto work = [&](int t) {
    for (int k = 0; k < 2000; ++k) {
      const std::size_t bytes = std::size_t(64 * (1 + (k + t) % 3));
      void* p = cache.allocate(0, bytes);
      {
        const std::lock_guard<std::mutex> lock(m);
        if (!live.insert(p).second) shared = true;
      }
      {
        const std::lock_guard<std::mutex> lock(m);
        live.erase(p);
      }
      cache.free(0, p, kStream);
    }
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) threads.emplace_back(work, t);
  for (std::thread& t : threads) t.join();
  EXPECT_FALSE(shared);
  const silt::detail::BlockCacheStats s = cache.stats();
  EXPECT_EQ(s.allocations, 8000);
  EXPECT_EQ(s.frees, 8000);
  EXPECT_EQ(s.allocations - s.reused, dev.allocations);
  EXPECT_LE(dev.allocations, 12) << "at most 4 threads x 3 sizes ever new";
}

// The CUDA backend: a DeviceBuffer on a stream of its own hands its block to the next buffer of
// its size; one on the legacy default stream is freed as before.
TEST(BlockCache, DeviceBuffersOnTheGpuReuseBlocks) {
  if (!silt::test::on_gpu()) GTEST_SKIP() << "the CUDA backend's cache: run with --backend=cuda";
  const silt::Stream own(silt::test::exec());
  const silt::DeviceBlockStats before = silt::device_block_stats();
  const float* first = nullptr;
  {
    silt::DeviceBuffer<float> a(own.exec(), 12345, "test.a");
    a.zero();
    first = a.data();
  }
  silt::DeviceBuffer<float> b(own.exec(), 12345, "test.b");
  EXPECT_EQ(b.data(), first);
  const silt::DeviceBlockStats after = silt::device_block_stats();
  EXPECT_EQ(after.allocations - before.allocations, 2);
  EXPECT_EQ(after.reused - before.reused, 1);
  silt::Exec legacy = silt::test::exec();
  legacy.stream = nullptr;
  { silt::DeviceBuffer<float> c(legacy, 54321, "test.c"); }
  silt::DeviceBuffer<float> d(legacy, 54321, "test.d");
  EXPECT_EQ(silt::device_block_stats().reused, after.reused) << "legacy stream: not cached";
}

TEST(BlockCache, PinnedBuffersOnTheGpuMachineReuseTheirPages) {
  if (!silt::test::on_gpu()) GTEST_SKIP() << "page-locked staging: run with --backend=cuda";
  const char* first = nullptr;
  {
    silt::PinnedBuffer a(3 * 4096 + 5, true);
    first = a.data();
  }
  silt::PinnedBuffer b(3 * 4096 + 7, true);  // the same pages
  EXPECT_EQ(b.data(), first);
  silt::PinnedBuffer c(3 * 4096, true);  // another size
  EXPECT_NE(c.data(), first);
}

}  // namespace
