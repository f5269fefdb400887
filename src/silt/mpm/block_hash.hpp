// The device hash table that finds a sparse-grid block from its integer coordinates (paper 000
// §4.1: the grid is a set of 4x4x4-node blocks; only blocks near particles exist). Open addressing
// with linear probing over packed 64-bit keys; a slot is claimed with one 64-bit atomicCAS, so the
// table is built by a plain parallel_for over particles on either backend. The table is only used
// while the particle-block mapping is rebuilt; the steps in between go through the per-block
// neighbour table (sparse_grid.hpp), never through the hash.
#pragma once

#include "silt/core/atomic.hpp"
#include "silt/core/config.hpp"

namespace silt::mpm {

using BlockKey = unsigned long long;

/// Marks an unused slot (no valid key packs to all ones: the bias keeps each field < 2^21 - 1).
constexpr BlockKey kEmptyKey = ~0ull;
/// Nodes per block edge (4), per block (64), and log2 of the edge.
constexpr int kBlockEdge = 4;
constexpr int kBlockLog2 = 2;
constexpr int kBlockNodes = kBlockEdge * kBlockEdge * kBlockEdge;
/// Each block coordinate is stored in 21 bits with this bias: blocks -2^20 .. 2^20 - 2 per axis,
/// i.e. +-4 million cells, far beyond any domain (the scene's walls bound it; checked on setup).
constexpr int kBlockCoordBits = 21;
constexpr int kBlockCoordBias = 1 << 20;
constexpr int kBlockCoordMax = kBlockCoordBias - 2;

/// floor(n / 4) for negative n too (node index -> block coordinate).
SILT_HD SILT_FORCEINLINE int block_of_node(int n) {
  return n >> kBlockLog2;
}  // arithmetic shift

SILT_HD SILT_FORCEINLINE BlockKey pack_block(int bx, int by, int bz) {
  return (BlockKey(unsigned(bx + kBlockCoordBias)) << (2 * kBlockCoordBits)) |
         (BlockKey(unsigned(by + kBlockCoordBias)) << kBlockCoordBits) |
         BlockKey(unsigned(bz + kBlockCoordBias));
}

SILT_HD SILT_FORCEINLINE void unpack_block(BlockKey k, int& bx, int& by, int& bz) {
  constexpr BlockKey mask = (BlockKey(1) << kBlockCoordBits) - 1;
  bx = int((k >> (2 * kBlockCoordBits)) & mask) - kBlockCoordBias;
  by = int((k >> kBlockCoordBits) & mask) - kBlockCoordBias;
  bz = int(k & mask) - kBlockCoordBias;
}

/// 64-bit mix (the splitmix64 finaliser): neighbouring blocks land in unrelated slots, so linear
/// probing sees short runs.
SILT_HD SILT_FORCEINLINE unsigned hash_block(BlockKey k) {
  k ^= k >> 30;
  k *= 0xbf58476d1ce4e5b9ull;
  k ^= k >> 27;
  k *= 0x94d049bb133111ebull;
  k ^= k >> 31;
  return unsigned(k);
}

/// View of the table passed to kernels by value. capacity is a power of two (mask = capacity - 1).
struct BlockHashView {
  BlockKey* keys = nullptr;  // [capacity], kEmptyKey when free
  int* values = nullptr;     // [capacity], per-slot payload (the block index once numbered)
  unsigned mask = 0;

  /// Inserts k (or finds it); returns its slot, or -1 when the table is full. *inserted (when
  /// given) is true for exactly one of the callers that insert k concurrently: the one that
  /// claimed the slot.
  SILT_HD int insert(BlockKey k, bool* inserted = nullptr) const {
    unsigned s = hash_block(k) & mask;
    for (unsigned probe = 0; probe <= mask; ++probe, s = (s + 1) & mask) {
      // Read first: most inserts hit a key that is already there (many particles per block), and
      // a plain load is far cheaper than a contended CAS.
      const BlockKey seen = keys[s];
      if (seen == k) return int(s);
      if (seen == kEmptyKey) {
        const BlockKey prev = atomic_cas(&keys[s], kEmptyKey, k);
        if (prev == kEmptyKey) {
          if (inserted) *inserted = true;
          return int(s);
        }
        if (prev == k) return int(s);
      }
    }
    return -1;
  }

  /// Slot of k, or -1 when absent.
  SILT_HD int find(BlockKey k) const {
    unsigned s = hash_block(k) & mask;
    for (unsigned probe = 0; probe <= mask; ++probe, s = (s + 1) & mask) {
      const BlockKey seen = keys[s];
      if (seen == k) return int(s);
      if (seen == kEmptyKey) return -1;
    }
    return -1;
  }
};

}  // namespace silt::mpm
