// The pinned staging pool both solvers' frame copies use (core/staging.hpp): slots are reused
// once their handle is gone, grown when too small, and a copy queued on the device lands before
// get() returns and before a dropped handle frees its slot. Runs on the CPU and, on the GPU
// machine, on CUDA (copies queued on a stream, one event per part).
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "silt/core/buffer.hpp"
#include "silt/core/staging.hpp"
#include "test_support.hpp"

namespace {

using silt::Exec;
using silt::StagedFrame;
using silt::StagingPool;

// Queues a copy of `values` from the device into the slot at byte `at`, recorded on part q's event.
void stage(StagedFrame& slot, std::size_t q, const silt::DeviceBuffer<float>& from,
           std::size_t at) {
  const Exec& e = silt::test::exec();
  const std::size_t bytes = std::size_t(from.size()) * sizeof(float);
  silt::copy_rows_async(slot.data() + at, bytes, Exec::host(), from.data(), bytes, e, bytes, 1, e);
  slot.done(q).record(e);
}

TEST(StagingPool, SlotsAreReusedOnceTheirHandleIsGone) {
  const Exec& e = silt::test::exec();
  StagingPool pool;
  const std::vector<Exec> parts{e, e};
  {
    StagedFrame a = pool.take(1000, 1000, parts, e.is_cuda());
    StagedFrame b = pool.take(1000, 1000, parts, e.is_cuda());
    EXPECT_NE(a.data(), b.data());
    EXPECT_EQ(pool.slots(), 2u);
  }
  const char* first = nullptr;
  for (int frame = 0; frame < 5; ++frame) {
    StagedFrame s = pool.take(800, 800, parts, e.is_cuda());
    if (!first) first = s.data();
    EXPECT_EQ(s.data(), first) << "frame " << frame;
  }
  EXPECT_EQ(pool.slots(), 2u);
  // Too small for every slot: a free one is grown to the reserve, none is added.
  StagedFrame big = pool.take(5000, 7500, parts, e.is_cuda());
  EXPECT_EQ(pool.slots(), 2u);
  StagedFrame next = pool.take(7000, 7000, parts, e.is_cuda());
  EXPECT_EQ(pool.slots(), 2u) << "the other free slot grown";
  StagedFrame third = pool.take(10, 10, parts, e.is_cuda());
  EXPECT_EQ(pool.slots(), 3u) << "none free: a new one";
}

TEST(StagingPool, GetWaitsForEveryPartsCopies) {
  const Exec& e = silt::test::exec();
  constexpr silt::Index kN = 1 << 20;
  const std::vector<float> a(kN, 1.5f), b(kN, -2.0f);
  silt::DeviceBuffer<float> da(e, kN, "staging test a"), db(e, kN, "staging test b");
  da.upload(a);
  db.upload(b);
  StagingPool pool;
  const std::size_t bytes = std::size_t(kN) * sizeof(float);
  for (int frame = 0; frame < 3; ++frame) {
    StagedFrame slot = pool.take(2 * bytes, 2 * bytes, {e, e}, e.is_cuda());
    stage(slot, 0, da, 0);
    stage(slot, 1, db, bytes);
    const auto* v = reinterpret_cast<const float*>(slot.get());
    EXPECT_EQ(v[0], 1.5f);
    EXPECT_EQ(v[kN - 1], 1.5f);
    EXPECT_EQ(v[kN], -2.0f);
    EXPECT_EQ(v[2 * kN - 1], -2.0f);
  }
  EXPECT_EQ(pool.slots(), 1u);
  // Dropped unread: the handle waits for its copies before the slot is taken again.
  {
    StagedFrame dropped = pool.take(2 * bytes, 2 * bytes, {e, e}, e.is_cuda());
    stage(dropped, 0, db, 0);
    stage(dropped, 1, da, bytes);
  }
  StagedFrame again = pool.take(2 * bytes, 2 * bytes, {e, e}, e.is_cuda());
  EXPECT_EQ(pool.slots(), 1u);
  const auto* v = reinterpret_cast<const float*>(again.get());
  EXPECT_EQ(v[kN - 1], -2.0f);
  EXPECT_EQ(v[kN], 1.5f);
}

}  // namespace
