// io::FrameQueue, the writer pool of `silt run`: jobs pushed whole run in order off the caller's
// thread; frames encode on the pool, perhaps out of order, and commit in order; a full queue
// blocks the producer (nothing dropped; frames encoded but not committed count); the first failure
// stops the writing, discards the frames encoded after it and is rethrown on the producer's side;
// closing or destroying the queue drains it.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <future>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "io_test_util.hpp"
#include "silt/core/error.hpp"
#include "silt/io/atomic_file.hpp"
#include "silt/io/frame_index.hpp"
#include "silt/io/frame_queue.hpp"
#include "test_support.hpp"

namespace silt::test {
namespace {

// Long enough for a push that does not block to have returned (a blocked one never returns
// before its gate opens, so the test cannot pass by being slow).
constexpr auto kSettle = std::chrono::milliseconds(100);
// What a test waits at most for the pool to reach a state it must reach (a hang would fail later
// and less clearly).
constexpr auto kPatience = std::chrono::seconds(20);

// Polls `reached` until it holds or kPatience has passed.
template <class Pred>
bool eventually(Pred reached) {
  const auto until = std::chrono::steady_clock::now() + kPatience;
  while (!reached()) {
    if (std::chrono::steady_clock::now() > until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

// A record of events from several threads, in the order they happened.
struct Log {
  std::mutex m;
  std::vector<std::string> events;
  void add(const std::string& e) {
    std::lock_guard<std::mutex> lock(m);
    events.push_back(e);
  }
  std::size_t size() {
    std::lock_guard<std::mutex> lock(m);
    return events.size();
  }
};

// A gate per frame that the test opens.
struct Gates {
  std::vector<std::promise<void>> gates;
  std::vector<std::shared_future<void>> open;
  explicit Gates(int n) : gates(std::size_t(n)) {
    for (auto& g : gates) open.push_back(g.get_future().share());
  }
};

TEST(FrameQueue, RunsJobsInOrderOffTheCallersThread) {
  std::vector<int> ran;
  std::mutex m;
  std::atomic<bool> other_thread{true};
  const auto caller = std::this_thread::get_id();
  {
    io::FrameQueue q(2, 1);
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
  io::FrameQueue q(1, 1);
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
  io::FrameQueue q(4, 1);
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
  io::FrameQueue q(1, 1);
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
    io::FrameQueue q(8, 1);
    for (int k = 0; k < 8; ++k)
      q.push([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
        ++ran;
      });
  }  // as when the stepping thread throws: the frames queued before are still written
  EXPECT_EQ(ran.load(), 8);
}

TEST(FramePool, FramesFinishedOutOfOrderCommitInOrder) {
  // Three frames encoding at once on three threads, finished last to first: the commits still
  // come first to last, each after its frame and every frame before it.
  Log log;
  std::atomic<int> encoding{0};
  io::FrameQueue q(1, 3);
  Gates g(3);  // after the queue: destroyed first, a failed check does not leave it waiting
  ASSERT_EQ(q.threads(), 3u);
  for (int k = 0; k < 3; ++k)
    q.push_frame([&, k, open = g.open[std::size_t(k)]] {
      ++encoding;
      open.wait();
      log.add("e" + std::to_string(k));
      return io::FrameQueue::Encoded{[&log, k] { log.add("c" + std::to_string(k)); }, {}};
    });
  ASSERT_TRUE(eventually([&] { return encoding.load() == 3; }))
      << "the pool did not encode three frames at once";
  g.gates[2].set_value();
  ASSERT_TRUE(eventually([&] { return log.size() >= 1; }));
  std::this_thread::sleep_for(kSettle);  // a commit of frame 2 now would be out of order
  g.gates[1].set_value();
  ASSERT_TRUE(eventually([&] { return log.size() >= 2; }));
  std::this_thread::sleep_for(kSettle);
  g.gates[0].set_value();
  q.close();
  EXPECT_EQ(q.done(), 3u);
  const std::vector<std::string> expected{"e2", "e1", "e0", "c0", "c1", "c2"};
  EXPECT_EQ(log.events, expected);
}

TEST(FramePool, JobsPushedWholeKeepTheirPlaceAmongFrames) {
  // A gauge row or a checkpoint between frames runs after the frames pushed before it were
  // committed and before those pushed after.
  Log log;
  {
    io::FrameQueue q(2, 3);
    for (int k = 0; k < 12; ++k) {
      if (k % 3 == 1) q.push([&log, k] { log.add("j" + std::to_string(k)); });
      q.push_frame([&log, k] {
        std::this_thread::sleep_for(std::chrono::milliseconds(k % 2 ? 1 : 7));
        return io::FrameQueue::Encoded{[&log, k] { log.add("c" + std::to_string(k)); }, {}};
      });
    }
    q.close();
  }
  std::vector<std::string> expected;
  for (int k = 0; k < 12; ++k) {
    if (k % 3 == 1) expected.push_back("j" + std::to_string(k));
    expected.push_back("c" + std::to_string(k));
  }
  EXPECT_EQ(log.events, expected);
}

TEST(FramePool, FramesEncodedButNotCommittedCountAgainstTheBound) {
  // capacity 1 + 2 threads: three frames in flight at most. Frame 0 stays encoding; frames 1 and
  // 2 are encoded but wait for its commit, so the pool is idle and a fourth push must still wait:
  // each frame in flight holds a pinned copy slot and its data.
  std::atomic<int> encoded{0}, most{0}, now{0};
  io::FrameQueue q(1, 2);
  Gates g(1);
  const auto frame = [&](bool gated) {
    return [&, gated, open = g.open[0]] {
      most = std::max(most.load(), ++now);
      if (gated) open.wait();
      --now;
      ++encoded;
      return io::FrameQueue::Encoded{[] {}, {}};
    };
  };
  q.push_frame(frame(true));
  q.push_frame(frame(false));
  q.push_frame(frame(false));
  ASSERT_TRUE(eventually([&] { return encoded.load() == 2; }));
  std::atomic<bool> pushed{false};
  std::thread producer([&] {
    q.push_frame(frame(false));
    pushed = true;
  });
  std::this_thread::sleep_for(kSettle);
  EXPECT_FALSE(pushed) << "push returned with three frames in flight";
  g.gates[0].set_value();
  producer.join();
  EXPECT_TRUE(pushed);
  q.close();
  EXPECT_EQ(q.done(), 4u);
  EXPECT_LE(most.load(), 2) << "more frames encoded at once than the pool has threads";
}

TEST(FramePool, RowsSampledWhileAFrameIsWrittenDoNotHoldTheSteps) {
  // A shallow-water run samples its gauges ten times a frame or more: while one frame is written,
  // its rows wait for their turn on the commit thread without filling the frames' bound. Frames
  // still wait for room.
  Log log;
  io::FrameQueue q(1, 1);
  Gates g(1);
  q.push_frame([&log, open = g.open[0]] {
    open.wait();
    return io::FrameQueue::Encoded{[&log] { log.add("c0"); }, {}};
  });
  std::atomic<int> rows{0};
  std::atomic<bool> frame_pushed{false};
  std::thread producer([&] {
    for (int r = 0; r < 50; ++r) {
      q.push_row([&log, r] { log.add("r" + std::to_string(r)); });
      ++rows;
    }
    q.push_frame([&log] { return io::FrameQueue::Encoded{[&log] { log.add("c1"); }, {}}; });
    q.push_frame([&log] { return io::FrameQueue::Encoded{[&log] { log.add("c2"); }, {}}; });
    frame_pushed = true;
  });
  EXPECT_TRUE(eventually([&] { return rows.load() == 50; }))
      << "rows waited for the frame being written";
  std::this_thread::sleep_for(kSettle);
  EXPECT_FALSE(frame_pushed) << "a frame was pushed beyond the bound (1 + 1 frames)";
  g.gates[0].set_value();
  producer.join();
  q.close();
  std::vector<std::string> expected{"c0"};
  for (int r = 0; r < 50; ++r) expected.push_back("r" + std::to_string(r));
  expected.push_back("c1");
  expected.push_back("c2");
  EXPECT_EQ(log.events, expected);
}

// Frames whose encode writes a file "f_<k>.txt" and whose commit lists the frame in frames.csv:
// the shape of `silt run`'s frames, in a folder of their own.
class FilesOfFrames : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    dir = scratch() / (std::string("pool_") + (GetParam() ? "commit" : "encode"));
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
  }
  std::string file_of(int k) const { return (dir / ("f_" + std::to_string(k) + ".txt")).string(); }
  std::vector<std::string> names() const {
    std::vector<std::string> n;
    for (const auto& e : std::filesystem::directory_iterator(dir))
      n.push_back(e.path().filename().string());
    std::sort(n.begin(), n.end());
    return n;
  }
  std::filesystem::path dir;
};

TEST_P(FilesOfFrames, AFailedFrameLeavesTheFramesBeforeItAndNoFileAfter) {
  // Frame 2 fails (in its encode, or in its commit) after frames 3 and 4 were encoded: frames.csv
  // lists 0 and 1, their files stay, and 2, 3 and 4 leave no file, temporary or not.
  const bool in_commit = GetParam();
  const int failing = 2;
  io::FrameIndex index(dir.string());
  std::atomic<int> encoded_after{0};
  std::atomic<int> committed_after{0};
  io::FrameQueue q(4, 3);
  Gates g(1);
  for (int k = 0; k < 5; ++k)
    q.push_frame([&, k, open = g.open[0]] {
      const std::string path = file_of(k);
      io::write_text_atomically(path, "frame " + std::to_string(k) + "\n");
      if (k == failing) {
        open.wait();
        if (!in_commit) {
          io::remove_files({path});  // as the writers do: the failed frame removes its own files
          throw Error("cannot write '" + path + "': No space left on device");
        }
      }
      if (k > failing) ++encoded_after;
      io::FrameQueue::Encoded e;
      e.commit = [&, k, path] {
        if (k > failing) ++committed_after;
        if (k == failing && in_commit) {
          io::remove_files({path});
          throw Error("cannot write '" + index.path() + "': No space left on device");
        }
        index.add(k, 0.5 * k);
      };
      e.discard = [path] {
        io::remove_files({path});
      };
      return e;
    });
  ASSERT_TRUE(eventually([&] { return encoded_after.load() == 2; }))
      << "frames 3 and 4 were not encoded before frame 2 finished";
  g.gates[0].set_value();
  EXPECT_TRUE(
      throws_with([&] { q.close(); }, {in_commit ? "frames.csv" : "f_2.txt", "No space left"}));
  EXPECT_EQ(q.done(), 2u);
  EXPECT_EQ(committed_after.load(), 0) << "a frame after the failed one was committed";
  EXPECT_EQ(read_file(index.path()), "frame,time_s\n0,0\n1,0.5\n");
  const std::vector<std::string> expected{"f_0.txt", "f_1.txt", "frames.csv"};
  EXPECT_EQ(names(), expected);
}

INSTANTIATE_TEST_SUITE_P(EncodeOrCommit, FilesOfFrames, ::testing::Bool(),
                         [](const auto& info) { return info.param ? "InCommit" : "InEncode"; });

TEST(FramePool, DestroyingDrainsTheFramesInFlight) {
  // As when the stepping thread throws: every frame pushed is still encoded and committed, in
  // order, before the destructor returns.
  Log log;
  {
    io::FrameQueue q(3, 3);
    for (int k = 0; k < 9; ++k)
      q.push_frame([&log, k] {
        std::this_thread::sleep_for(std::chrono::milliseconds(9 - k));
        return io::FrameQueue::Encoded{[&log, k] { log.add("c" + std::to_string(k)); }, {}};
      });
  }
  std::vector<std::string> expected;
  for (int k = 0; k < 9; ++k) expected.push_back("c" + std::to_string(k));
  EXPECT_EQ(log.events, expected);
}

}  // namespace
}  // namespace silt::test
