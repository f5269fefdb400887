// Copies between the host and a device from several host threads (core/memory.cpp copy_bytes):
// one thread's read-back, waiting for its stream's long work, must not hold the other threads'
// copies on their own streams (issue 37: ensemble members in flight waited ~0.3 s in each set-up
// for the other members' frames). On the GPU machine only.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "silt/core/buffer.hpp"
#include "silt/core/device_set.hpp"
#include "test_support.hpp"

#if SILT_HAS_CUDA && defined(__CUDACC__)
#include <cuda_runtime.h>

namespace {

// Spins until *go is set from the host (or `limit_ns` passes), then writes whether it saw it.
__global__ void wait_for_host(const volatile int* go, int* saw, long long limit_ns) {
  unsigned long long t0 = 0, t = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  int seen = 0;
  do {
    seen = *go;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  } while (!seen && (long long)(t - t0) < limit_ns);
  *saw = seen;
}

// Thread A reads back a buffer behind a kernel that runs until the host says so; the host says so
// only after thread B's upload, on another stream, has returned. If A's copy held B's while it
// waited for the kernel, the kernel would run out its 20 s and report it never saw the signal.
TEST(Copy, AReadBackWaitingForItsStreamLeavesOtherStreamsCopiesFree) {
  if (!silt::test::on_gpu()) GTEST_SKIP() << "copies with a GPU: run with --backend=cuda";
  const silt::Stream a(silt::test::exec()), b(silt::test::exec());
  int* go = nullptr;
  ASSERT_EQ(cudaHostAlloc(reinterpret_cast<void**>(&go), sizeof(int), cudaHostAllocMapped),
            cudaSuccess);
  *go = 0;
  int* go_dev = nullptr;
  ASSERT_EQ(cudaHostGetDevicePointer(reinterpret_cast<void**>(&go_dev), go, 0), cudaSuccess);
  silt::DeviceBuffer<int> result(a.exec(), 1 << 18, "test.result");
  result.zero();
  wait_for_host<<<1, 1, 0, a.exec().stream>>>(go_dev, result.data(), 20'000'000'000LL);
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  std::atomic<bool> reading{false};
  std::vector<int> back;
  std::thread reader([&] {
    reading = true;
    back = result.download();  // waits for the kernel
  });
  while (!reading) std::this_thread::yield();
  std::this_thread::sleep_for(std::chrono::milliseconds(100));  // the reader is in its copy
  const std::vector<float> up(1 << 18, 1.0f);
  silt::DeviceBuffer<float> other(b.exec(), 1 << 18, "test.other");
  other.upload(up);  // B's copy: must not wait for A's kernel
  *reinterpret_cast<volatile int*>(go) = 1;
  reader.join();
  cudaFreeHost(go);
  ASSERT_FALSE(back.empty());
  EXPECT_EQ(back[0], 1) << "the upload on stream B waited for thread A's read-back, which waited "
                           "for A's kernel: copies from different threads are serialised";
}

}  // namespace
#endif
