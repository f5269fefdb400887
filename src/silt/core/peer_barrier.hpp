// A barrier between the GPUs of one process without the host (paper 000 §5: one inter-GPU
// synchronisation per step, a system-scope atomic barrier where it measures faster than
// cudaStreamWaitEvent). Each party owns an inbox in its own memory; the others write their arrival
// into it over the peer link (posted stores) and it polls locally, so a barrier costs one one-way
// write per party and no remote read. Party p's arrival at epoch e fills word[p][e & 1][*]: each
// 8-byte word holds e's low 32 bits over 32 bits of payload and is stored whole (8-byte stores are
// single-copy atomic), so a word that shows the epoch shows its payload too, and an arrival needs
// no fence between values and flag. The two sets let a fast party arrive at e + 1 while a slow one
// still reads e. Device code only; a party that never arrives ends the wait after ~10 s.
#pragma once

#include "silt/core/config.hpp"

namespace silt {

/// Most parties of one barrier (kernel arguments carry one inbox pointer per party).
constexpr int kMaxPeers = 16;
/// 32-bit payload words an arrival carries.
constexpr int kPeerWords = 3;

struct PeerInbox {
  unsigned long long word[kMaxPeers][2][kPeerWords];
};

/// One party's view of a barrier, passed to kernels by value. The inboxes and *passed start zeroed.
struct PeerBarrier {
  PeerInbox* inbox[kMaxPeers] = {};      // every party's inbox (the others' over the peer link)
  unsigned long long* passed = nullptr;  // this party's arrivals so far, in its own memory
  int parties = 0;
  int self = 0;
};

#if SILT_HAS_CUDA
namespace detail {
/// ~10 s at 2 GHz: a party that has not arrived by then never will (a fault, not a hang).
constexpr long long kPeerWaitCycles = 20000000000LL;
}  // namespace detail

/// A load with acquire semantics at system scope: what the writer released before the word is
/// visible to this thread's later loads, and to its block's after a __syncthreads.
__device__ SILT_FORCEINLINE unsigned long long load_acquire_sys(const unsigned long long* p) {
  unsigned long long v;
  asm volatile("ld.acquire.sys.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}

/// One thread: this party's next arrival, with payload w, into every party's inbox. Everything
/// this party did before (stream order) is released to the others first. Returns the epoch.
__device__ SILT_FORCEINLINE unsigned long long peer_arrive(const PeerBarrier& b,
                                                           const unsigned (&w)[kPeerWords]) {
  const unsigned long long epoch = *b.passed + 1;
  *b.passed = epoch;
  asm volatile("fence.acq_rel.sys;" ::: "memory");
  const unsigned long long tag = (epoch & 0xffffffffull) << 32;
  for (int q = 0; q < b.parties; ++q)
    for (int k = 0; k < kPeerWords; ++k)
      *reinterpret_cast<volatile unsigned long long*>(&b.inbox[q]->word[b.self][epoch & 1][k]) =
          tag | w[k];
  return epoch;
}

/// One thread: waits until every party's first `words` words of epoch are in this party's inbox
/// (one pass reads them all, the loads in flight together). False after ~10 s.
__device__ SILT_FORCEINLINE bool peer_wait(const PeerBarrier& b, unsigned long long epoch,
                                           int words) {
  const unsigned tag = unsigned(epoch & 0xffffffffull);
  const long long start = clock64();
  for (;;) {
    // The set of epoch's parity holds epoch - 2 until a party arrives, never epoch + 2 (that
    // party would have to pass a barrier this one has not arrived at).
    bool all = true;
#pragma unroll
    for (int p = 0; p < kMaxPeers; ++p) {
      if (p >= b.parties) break;
      const unsigned long long* w = b.inbox[b.self]->word[p][epoch & 1];
      for (int k = 0; k < kPeerWords; ++k)
        if (k < words) all = all && unsigned(load_acquire_sys(w + k) >> 32) == tag;
    }
    if (all) return true;
    if (clock64() - start > detail::kPeerWaitCycles) return false;
  }
}

/// Payload word k of party p's arrival at epoch (after peer_wait returned true).
__device__ SILT_FORCEINLINE unsigned peer_payload(const PeerBarrier& b, unsigned long long epoch,
                                                  int p, int k) {
  return unsigned(load_acquire_sys(&b.inbox[b.self]->word[p][epoch & 1][k]));
}

/// Spins until *flag (device memory of this GPU, written by another block) reaches target. False
/// after ~10 s.
__device__ SILT_FORCEINLINE bool wait_at_least(const unsigned long long* flag,
                                               unsigned long long target) {
  const long long start = clock64();
  bool ok = true;
  while (*reinterpret_cast<const volatile unsigned long long*>(flag) < target) {
    if (clock64() - start > detail::kPeerWaitCycles) {
      ok = false;
      break;
    }
  }
  __threadfence();
  return ok;
}
#endif

}  // namespace silt
