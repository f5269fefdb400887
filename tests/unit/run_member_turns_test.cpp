// Turns to step on a device (run/member_turns.hpp): never more members inside than turns, turns
// handed out in the order asked, a turn given back when its scope ends by an exception, and a
// device without a count never waits.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include "silt/run/member_turns.hpp"

namespace {

using silt::run::StepTurn;
using silt::run::StepTurns;

void wait_until(const std::function<bool()>& done) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (!done() && std::chrono::steady_clock::now() < end)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  ASSERT_TRUE(done()) << "timed out";
}

TEST(StepTurns, NeverMoreInsideThanTurns) {
  StepTurns turns(std::map<int, std::size_t>{{0, 2}, {1, 1}});
  std::atomic<int> inside0{0}, most0{0}, inside1{0}, most1{0};
  std::vector<std::thread> workers;
  for (int w = 0; w < 12; ++w)
    workers.emplace_back([&, w] {
      const int d = w % 2;
      std::atomic<int>& inside = d == 0 ? inside0 : inside1;
      std::atomic<int>& most = d == 0 ? most0 : most1;
      for (int k = 0; k < 5; ++k) {
        const StepTurn turn(&turns, d);
        const int now = ++inside;
        int seen = most.load();
        while (now > seen && !most.compare_exchange_weak(seen, now)) {
        }
        std::this_thread::sleep_for(std::chrono::microseconds(300));
        --inside;
      }
    });
  for (std::thread& t : workers) t.join();
  EXPECT_EQ(most0.load(), 2);
  EXPECT_EQ(most1.load(), 1);
  EXPECT_EQ(turns.waiting(0), 0u);
}

TEST(StepTurns, FirstAskedFirstServed) {
  StepTurns turns(std::map<int, std::size_t>{{3, 2}});
  turns.take(3);
  turns.take(3);  // both turns held: the workers below queue
  std::mutex m;
  std::vector<int> order;
  std::vector<std::thread> workers;
  for (int w = 0; w < 8; ++w) {
    workers.emplace_back([&, w] {
      const StepTurn turn(&turns, 3);
      const std::lock_guard<std::mutex> lock(m);
      order.push_back(w);
    });
    wait_until([&] { return turns.waiting(3) == std::size_t(w + 1); });  // w asked before w + 1
  }
  // One turn given back: each worker in turn goes on and hands it to whoever goes next.
  turns.give(3);
  for (std::thread& t : workers) t.join();
  turns.give(3);
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
}

TEST(StepTurns, GivenBackOnAnException) {
  StepTurns turns(std::map<int, std::size_t>{{0, 1}});
  try {
    const StepTurn turn(&turns, 0);
    throw std::runtime_error("a member failed while stepping");
  } catch (const std::runtime_error&) {
  }
  std::atomic<bool> in{false};
  std::thread next([&] {
    const StepTurn turn(&turns, 0);
    in = true;
  });
  wait_until([&] { return in.load(); });
  next.join();
}

TEST(StepTurns, UncountedDeviceAndNoTurnsNeverWait) {
  StepTurns turns(std::map<int, std::size_t>{{0, 1}});
  const StepTurn held(&turns, 0);
  const StepTurn other(&turns, 5);  // no count for device 5
  const StepTurn none(nullptr, 0);  // a pool without members built ahead
  EXPECT_EQ(turns.waiting(5), 0u);
  EXPECT_EQ(turns.waiting(0), 0u);
}

}  // namespace
