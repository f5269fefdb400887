// io::FrameQueue, the writer thread of `silt run`: jobs run in order off the caller's thread, a
// full queue blocks the producer (nothing dropped), the first failure stops the writing and is
// rethrown on the producer's side, and closing or destroying the queue drains it.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <mutex>
#include <thread>
#include <vector>

#include "io_test_util.hpp"
#include "silt/core/error.hpp"
#include "silt/io/frame_queue.hpp"
#include "test_support.hpp"

namespace silt::test {
namespace {

// Long enough for a push that does not block to have returned (a blocked one never returns
// before its gate opens, so the test cannot pass by being slow).
constexpr auto kSettle = std::chrono::milliseconds(100);

TEST(FrameQueue, RunsJobsInOrderOffTheCallersThread) {
  std::vector<int> ran;
  std::mutex m;
  std::atomic<bool> other_thread{true};
  const auto caller = std::this_thread::get_id();
  {
    io::FrameQueue q(2);
    for (int k = 0; k < 20; ++k)
      q.push([&, k] {
        std::lock_guard<std::mutex> lock(m);
        ran.push_back(k);
        if (std::this_thread::get_id() == caller) other_thread = false;
      });
    q.close();
    EXPECT_EQ(q.done(), 20u);
  }
  ASSERT_EQ(ran.size(), 20u);
  for (int k = 0; k < 20; ++k) EXPECT_EQ(ran[size_t(k)], k);
  EXPECT_TRUE(other_thread);
}

TEST(FrameQueue, AFullQueueBlocksTheProducer) {
  io::FrameQueue q(1);
  std::promise<void> gate;
  std::shared_future<void> open = gate.get_future().share();
  q.push([open] { open.wait(); });  // being written
  q.push([] {});                    // waiting: the queue is full
  std::atomic<bool> pushed{false};
  std::thread producer([&] {
    q.push([] {});
    pushed = true;
  });
  std::this_thread::sleep_for(kSettle);
  EXPECT_FALSE(pushed) << "push returned while the queue was full";
  gate.set_value();
  producer.join();
  EXPECT_TRUE(pushed);
  q.close();
  EXPECT_EQ(q.done(), 3u);
}

TEST(FrameQueue, AFailedJobStopsTheWritingAndIsRethrown) {
  io::FrameQueue q(4);
  std::promise<void> gate;
  std::shared_future<void> open = gate.get_future().share();
  std::atomic<int> after{0};
  q.push([open] { open.wait(); });
  q.push([] { throw Error("cannot write 'out/particles_0001.ply': No space left on device"); });
  q.push([&] { ++after; });
  gate.set_value();
  EXPECT_TRUE(throws_with([&] { q.close(); }, {"particles_0001.ply", "No space left"}));
  EXPECT_EQ(after.load(), 0) << "a job after the failed one ran";
  EXPECT_EQ(q.done(), 1u);
}

TEST(FrameQueue, PushRethrowsAnEarlierFailure) {
  io::FrameQueue q(1);
  q.push([] { throw Error("cannot write 'x.asc'"); });
  // The writer reports the failure at the latest when the job has run; a push then sees it.
  bool thrown = false;
  for (int k = 0; k < 1000 && !thrown; ++k) {
    try {
      q.push([] {});
    } catch (const Error& e) {
      thrown = std::string(e.what()).find("x.asc") != std::string::npos;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_TRUE(thrown);
}

TEST(FrameQueue, DestroyingDrainsWhatIsQueued) {
  std::atomic<int> ran{0};
  {
    io::FrameQueue q(8);
    for (int k = 0; k < 8; ++k)
      q.push([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
        ++ran;
      });
  }  // as when the stepping thread throws: the frames queued before are still written
  EXPECT_EQ(ran.load(), 8);
}

}  // namespace
}  // namespace silt::test
