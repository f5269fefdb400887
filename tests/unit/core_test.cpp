// Core: launch abstraction, reductions, atomics, buffers and fault flags, on the backend chosen by
// --backend (the same checks run on the CPU in CI and on the GPU machine with label gpu).
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>

#include "silt/core/buffer.hpp"
#include "silt/core/device_set.hpp"
#include "silt/core/error.hpp"
#include "silt/core/fault.hpp"
#include "silt/core/loop_graph.hpp"
#include "silt/core/parallel_for.hpp"
#include "test_support.hpp"

namespace silt {
// Launching code sits in free functions: nvcc does not allow extended lambdas inside gtest's
// private TestBody().
namespace {

using test::exec;

void ParallelFor_VisitsEveryIndexOnce1D() {
  const Index n = 100003;  // not a multiple of any block size
  DeviceBuffer<int> hits(exec(), n, "hits");
  hits.zero();
  int* h = hits.data();
  parallel_for(
      exec(), "test.hit1d", n, SILT_LAMBDA(Index i) { atomic_add(&h[i], 1); });
  const auto v = hits.download();
  EXPECT_TRUE(test::all_near(v, std::vector<int>(n, 1), 0));
}
TEST(ParallelFor, VisitsEveryIndexOnce1D) {
  ParallelFor_VisitsEveryIndexOnce1D();
}

void ParallelFor_VisitsEveryIndexOnce2DBox() {
  const Index nx = 131, ny = 77;
  DeviceBuffer<int> hits(exec(), Grid2<int>::alloc_size(nx, ny, 1), "hits");
  hits.zero();
  Grid2<int> g{hits.data(), nx, ny, 1};
  // Interior only: the halo ring must stay untouched.
  parallel_for(
      exec(), "test.hit2d", Box2{0, nx, 0, ny},
      SILT_LAMBDA(Index i, Index j) { atomic_add(&g(i, j), 1 + i + 1000 * j); });
  const auto v = hits.download();
  for (Index j = -1; j <= ny; ++j)
    for (Index i = -1; i <= nx; ++i) {
      const bool inside = i >= 0 && i < nx && j >= 0 && j < ny;
      ASSERT_EQ(v[g.offset(i, j)], inside ? 1 + i + 1000 * j : 0) << "cell " << i << "," << j;
    }
}
TEST(ParallelFor, VisitsEveryIndexOnce2DBox) {
  ParallelFor_VisitsEveryIndexOnce2DBox();
}

void ParallelFor_VisitsEveryIndexOnce3DBox() {
  const Box3 b{2, 19, 1, 12, 3, 9};
  const Index n = 20 * 13 * 10;
  DeviceBuffer<int> hits(exec(), n, "hits");
  hits.zero();
  Grid3<int> g{hits.data(), 20, 13, 10};
  parallel_for(
      exec(), "test.hit3d", b,
      SILT_LAMBDA(Index i, Index j, Index k) { atomic_add(&g(i, j, k), 1); });
  const auto v = hits.download();
  int total = std::accumulate(v.begin(), v.end(), 0);
  EXPECT_EQ(total, b.count());
  EXPECT_EQ(v[g.offset(2, 1, 3)], 1);
  EXPECT_EQ(v[g.offset(1, 1, 3)], 0);
  EXPECT_EQ(v[g.offset(18, 11, 8)], 1);
  EXPECT_EQ(v[g.offset(19, 11, 8)], 0);
}
TEST(ParallelFor, VisitsEveryIndexOnce3DBox) {
  ParallelFor_VisitsEveryIndexOnce3DBox();
}

void Reduce_MinMaxSumMatchSerial() {
  const Index n = 1 << 20;
  std::vector<double> host(n);
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> d(-1e3, 1e3);
  for (auto& x : host) x = d(rng);
  DeviceBuffer<double> buf(exec(), n, "values");
  buf.upload(host);
  const double* p = buf.data();
  const double mn = parallel_reduce_min<double>(
      exec(), "test.min", n, SILT_LAMBDA(Index i) { return p[i]; });
  const double mx = parallel_reduce_max<double>(
      exec(), "test.max", n, SILT_LAMBDA(Index i) { return p[i]; });
  const double sum = parallel_reduce_sum<double>(
      exec(), "test.sum", n, SILT_LAMBDA(Index i) { return p[i]; });
  EXPECT_EQ(mn, *std::min_element(host.begin(), host.end()));
  EXPECT_EQ(mx, *std::max_element(host.begin(), host.end()));
  // Summation order differs between backends: 1e-9 relative is ~1e4 ulps of the sum's magnitude.
  const double ref = std::accumulate(host.begin(), host.end(), 0.0);
  EXPECT_NEAR(sum, ref, 1e-9 * n * 1e3);
}
TEST(Reduce, MinMaxSumMatchSerial) {
  Reduce_MinMaxSumMatchSerial();
}

void Reduce_FloatMinMaxOfNegativeValues() {
  const Index n = 5000;
  DeviceBuffer<float> buf(exec(), n, "values");
  std::vector<float> host(n);
  for (Index i = 0; i < n; ++i) host[i] = -1.5f - 0.25f * float((i * 37) % n);
  buf.upload(host);
  const float* p = buf.data();
  EXPECT_EQ(parallel_reduce_max<float>(
                exec(), "test.fmax", n, SILT_LAMBDA(Index i) { return p[i]; }),
            -1.5f);
  EXPECT_EQ(parallel_reduce_min<float>(
                exec(), "test.fmin", n, SILT_LAMBDA(Index i) { return p[i]; }),
            -1.5f - 0.25f * float(n - 1));
}
TEST(Reduce, FloatMinMaxOfNegativeValues) {
  Reduce_FloatMinMaxOfNegativeValues();
}

void Atomic_ScatterAddIsExact() {
  // Many threads add integer-valued floats into a few slots: the sums are exact in float, so any
  // lost update shows as a mismatch.
  const Index n = 1 << 18, slots = 7;
  DeviceBuffer<float> acc(exec(), slots, "acc");
  acc.zero();
  float* a = acc.data();
  parallel_for(
      exec(), "test.scatter", n, SILT_LAMBDA(Index i) { atomic_add(&a[i % slots], float(i % 3)); });
  std::vector<double> ref(slots, 0.0);
  for (Index i = 0; i < n; ++i) ref[i % slots] += i % 3;
  EXPECT_TRUE(test::all_near(acc.download(), ref, 0.0));
}
TEST(Atomic, ScatterAddIsExact) {
  Atomic_ScatterAddIsExact();
}

void Buffer_UploadDownloadRoundTrip() {
  std::vector<double> v(1000);
  std::iota(v.begin(), v.end(), 0.5);
  DeviceBuffer<double> b(exec(), 1000, "roundtrip");
  b.upload(v);
  EXPECT_EQ(b.download(), v);
  b.set(17, -3.0);
  EXPECT_EQ(b.get(17), -3.0);
  DeviceBuffer<double> moved = std::move(b);
  EXPECT_EQ(b.size(), 0);
  EXPECT_EQ(moved.get(999), 999.5);
}
TEST(Buffer, UploadDownloadRoundTrip) {
  Buffer_UploadDownloadRoundTrip();
}

void GrowBuffer_GrowsFourTimesWhenHalfFullAndKeepsContents() {
  GrowBuffer<int> g(exec(), 16, "grow");
  std::vector<int> first(8);
  std::iota(first.begin(), first.end(), 100);
  g.buffer().upload(first);
  EXPECT_FALSE(g.ensure(8, 8));  // exactly half full: no reallocation
  EXPECT_EQ(g.capacity(), 16);
  EXPECT_TRUE(g.ensure(9, 8));  // more than half: 4x the request
  EXPECT_EQ(g.capacity(), 36);
  EXPECT_EQ(g.reallocations(), 1);
  std::vector<int> back(8);
  g.buffer().download(back.data(), 8);
  EXPECT_EQ(back, first);
  EXPECT_FALSE(g.ensure(18, 9));
}
TEST(GrowBuffer, GrowsFourTimesWhenHalfFullAndKeepsContents) {
  GrowBuffer_GrowsFourTimesWhenHalfFullAndKeepsContents();
}

void Fault_FirstWriterWins() {
  FaultFlags flags(exec());
  FaultView f = flags.view();
  EXPECT_FALSE(flags.read());
  parallel_for(
      exec(), "test.fault", 1000, SILT_LAMBDA(Index i) {
        if (i == 421 || i == 977) f.raise(3, i, 7);
      });
  const Fault got = flags.read();
  EXPECT_EQ(got.code, 3);
  EXPECT_TRUE(got.index == 421 || got.index == 977) << got.index;
  EXPECT_EQ(got.aux, 7);
  flags.clear();
  EXPECT_FALSE(flags.read());
}
TEST(Fault, FirstWriterWins) {
  Fault_FirstWriterWins();
}

void Exec_BackendNamesAreCheckedWithAClearMessage() {
  EXPECT_EQ(backend_from_string("cpu"), Backend::cpu);
  try {
    backend_from_string("gpu");
    FAIL() << "no exception";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'gpu'"), std::string::npos) << e.what();
  }
}
TEST(Exec, BackendNamesAreCheckedWithAClearMessage) {
  Exec_BackendNamesAreCheckedWithAClearMessage();
}

// A recording that fails part-way (a phase throws) gives silt::Error and leaves the stream to
// plain launches.
void LoopGraph_AFailedRecordingThrowsAndLeavesTheStreamUsable() {
  Stream stream(exec());
  const Exec e = stream.exec();
  const LoopGraph::Pre none = [](const LoopHandles&) {
  };
  const LoopGraph::Pre fails = [](const LoopHandles&) {
    throw Error("a phase failed");
  };
  const LoopGraph::Phase nothing = [] {
  };
  const LoopGraph::Phase branch_fails = [] {
    throw Error("a branch failed");
  };
  EXPECT_THROW(LoopGraph(e, fails, nothing, none, 2), Error);      // the loop body's capture
  EXPECT_THROW(LoopGraph(e, none, nothing, fails, 2), Error);      // after the IF node
  EXPECT_THROW(LoopGraph(e, none, branch_fails, none, 2), Error);  // an IF node's body
  DeviceBuffer<int> a(e, 64, "after a failed recording");
  int* p = a.data();
  parallel_for(
      e, "after", 64, SILT_LAMBDA(Index i) { p[i] = int(i) * 3; });
  fence(e);
  const std::vector<int> h = a.download();
  for (int i = 0; i < 64; ++i) ASSERT_EQ(h[std::size_t(i)], 3 * i);
}
TEST(LoopGraph, AFailedRecordingThrowsAndLeavesTheStreamUsable) {
  if (!exec().is_cuda() || !LoopGraph::supported()) GTEST_SKIP() << "CUDA graphs only";
  LoopGraph_AFailedRecordingThrowsAndLeavesTheStreamUsable();
}

}  // namespace
}  // namespace silt
