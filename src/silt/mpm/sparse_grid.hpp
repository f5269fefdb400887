// The sparse background grid (paper 000 §4.1): 4x4x4-node blocks allocated only around particles,
// found through a device hash table over block coordinates (block_hash.hpp). Blocks are numbered
// densely 0..num_blocks-1 at each rebuild; a block's 64 nodes are contiguous (x fastest). For the
// steps between rebuilds every block keeps the indices of its 27 neighbours (itself included), so
// P2G and G2P reach a node through its particle's block without touching the hash: the free zone
// of paper 000 §4.2.1. Memory is proportional to the active blocks: the block arrays grow 4x when
// more than half full, between frames only.
#pragma once

#include <vector>

#include "silt/core/buffer.hpp"
#include "silt/core/exec.hpp"
#include "silt/core/gated_for.hpp"
#include "silt/core/parallel_for.hpp"
#include "silt/mpm/block_hash.hpp"
#include "silt/mpm/fixed_sums.hpp"

namespace silt::mpm {

/// Floats per node in the P2G accumulator (mass, momentum x y z; twice that with split force
/// channels: force x y z and padding) and in the velocity arrays.
constexpr int kAccumChannels = 4;
constexpr int kAccumChannelsSplit = 8;
constexpr int kVelChannels = 4;  // v x y z, then padding (16-byte nodes)

/// Index of the neighbour (dx, dy, dz) in {-1, 0, 1}^3 within a block's 27 entries.
SILT_HD SILT_FORCEINLINE int neighbour_slot(int dx, int dy, int dz) {
  return (dx + 1) + 3 * (dy + 1) + 9 * (dz + 1);
}
/// Node (lx, ly, lz) in [0, 4)^3 within a block.
SILT_HD SILT_FORCEINLINE int node_in_block(int lx, int ly, int lz) {
  return lx + kBlockEdge * (ly + kBlockEdge * lz);
}

/// The block a particle is binned into at a rebuild: the block of its nearest node, the centre
/// base + 1 of its quadratic B-spline stencil base .. base + 2.
SILT_HD SILT_FORCEINLINE void home_block(const int base[3], int hb[3]) {
  for (int a = 0; a < 3; ++a) hb[a] = block_of_node(base[a] + 1);
}

/// The free zone of paper 000 §4.2.1: the stencil base .. base + 2 must lie in the 3x3x3 blocks
/// around the home block hb, i.e. 4 hb - 4 <= base and base + 2 <= 4 hb + 7 per axis. A particle
/// binned at its nearest node can drift at least 3 cells in any direction before it leaves.
/// margin > 0: the zone shrunk by that many cells on every side (a guard that acts a step late).
SILT_HD SILT_FORCEINLINE bool in_free_zone(const int base[3], const int hb[3], int margin = 0) {
  bool inside = true;
  for (int a = 0; a < 3; ++a)
    inside = inside && base[a] >= kBlockEdge * hb[a] - kBlockEdge + margin &&
             base[a] <= kBlockEdge * hb[a] + 2 * kBlockEdge - 3 - margin;
  return inside;
}

/// Where the background grid lies: node 0 at `origin`, nodes `dx` apart. Set once from the scene
/// (Part::build_tables) and copied by value into every argument struct whose kernels need it.
struct GridGeometry {
  float origin[3] = {};  // m, position of node 0 (the domain's lower corner)
  float dx = 0;          // m
  float inv_dx = 0;      // 1/m
};

/// Raw pointers into the grid, passed to kernels by value.
struct GridView {
  BlockHashView hash;
  BlockKey* block_key = nullptr;  // [capacity] coordinates of block b, packed
  int* neighbours = nullptr;      // [27 capacity] block index of each neighbour, -1 when absent
  int* block_count = nullptr;     // [capacity] particles binned into the block (rebuild scratch)
  int* block_offset = nullptr;    // [capacity] first sorted particle of the block (rebuild scratch)
  int* cell_count = nullptr;      // [64 capacity] particles per cell of a block (rebuild scratch,
                                  // cell-ordered sorts)
  float* accum = nullptr;         // [stride * 64 capacity] P2G sums: mass (kg), momentum (kg m/s),
                                  // with split force also force (N)
  int accum_stride = kAccumChannels;  // floats per node in accum (4 or 8)
  /// A second accumulator like accum, or null: steps alternate between the two
  /// (StepControl::accum_parity), so that other GPUs can read one step's sums while this GPU
  /// already scatters the next (several GPUs with one synchronisation per step).
  float* accum_alt = nullptr;
  /// performance.deterministic: the P2G sums as fixed-point integers (fixed_sums.hpp) in
  /// accum's layout, and a second array like accum_alt; null otherwise (accum holds them).
  long long* fixed = nullptr;
  long long* fixed_alt = nullptr;
  FixedScale scale;          // the units of fixed
  float* vel = nullptr;      // [4 * 64 capacity] grid velocity after the update, m/s
  float* vel_old = nullptr;  // [4 * 64 capacity] velocity before forces (ASFLIP), or null
  Index capacity = 0;        // blocks
};

/// The P2G accumulator of a step with the given StepControl::accum_parity.
SILT_HD SILT_FORCEINLINE float* accum_of(const GridView& g, int parity) {
  return parity != 0 && g.accum_alt ? g.accum_alt : g.accum;
}

/// The fixed-point P2G sums of a step with the given parity (null unless deterministic).
SILT_HD SILT_FORCEINLINE long long* fixed_of(const GridView& g, int parity) {
  return parity != 0 && g.fixed_alt ? g.fixed_alt : g.fixed;
}

/// Zeroes a node's P2G sums in the accumulator of `parity` (the fixed-point one when there is one).
SILT_HD SILT_FORCEINLINE void clear_node_sums(const GridView& g, int parity, Index node) {
  if (g.fixed) {
    long long* q = fixed_of(g, parity) + Index(g.accum_stride) * node;
    for (int c = 0; c < g.accum_stride; ++c) q[c] = 0;
  } else {
    float* q = accum_of(g, parity) + Index(g.accum_stride) * node;
    for (int c = 0; c < g.accum_stride; ++c) q[c] = 0.0f;
  }
}

/// The host backend's per-thread P2G grids (SparseGrid::host_partials, mpm/host/scatter.hpp): slab
/// t - 1 belongs to OpenMP thread t of the scatter; they are zero between scatters. Empty: the
/// host scatter runs on one thread. Unused on CUDA.
struct HostPartials {
  float* data = nullptr;
  long long* fixed = nullptr;  // the same slabs of fixed-point sums (deterministic mode)
  Index slab = 0;              // floats per slab: accum_stride * 64 * block capacity
  int slabs = 0;
};

class SparseGrid {
 public:
  SparseGrid() = default;
  /// with_old_velocity: keep the pre-update grid velocity (ASFLIP needs it); split_force: the
  /// stress force in its own accumulator channels (ASFLIP, G2P2G); fixed: P2G sums in fixed
  /// point with these units (performance.deterministic), or null.
  SparseGrid(const Exec& exec, bool with_old_velocity, bool split_force = false,
             const FixedScale* fixed = nullptr);

  /// Makes room for `blocks` active blocks (4x growth when more than half full); the hash table
  /// keeps at least twice as many slots as block capacity, so probe runs stay short. Between
  /// frames only. Returns true when storage moved.
  bool ensure(Index blocks);

  Index block_capacity() const { return block_key_.capacity(); }
  Index table_capacity() const { return keys_.size(); }
  int reallocations() const { return reallocations_; }
  /// The numbered blocks' coordinates (device memory; GridView::block_key).
  const BlockKey* block_keys() const { return block_key_.data(); }
  GridView view();
  /// Keeps a second P2G accumulator (GridView::accum_alt); off by default.
  void set_double_accum(bool on);
  /// Zeroes every P2G accumulator (stream-ordered).
  void zero_accum();
  /// The host backend's per-thread P2G grids, one slab per OpenMP thread beyond the first
  /// (host_thread_count() at the last ensure), each as large as the accumulator; empty on CUDA.
  HostPartials host_partials();

  /// Exact number of blocks a rebuild allocates for these particle positions (xyz, m): the blocks
  /// holding each particle's nearest node and their 26 neighbours (8, in the plane, for dims = 2).
  /// Host code, for initial sizing.
  static Index count_blocks(const std::vector<float>& x, const double origin[3], double dx,
                            int dims = 3);

 private:
  Exec exec_{};
  bool with_old_ = false;
  bool double_accum_ = false;
  bool fixed_on_ = false;
  FixedScale scale_;
  int accum_stride_ = kAccumChannels;
  int reallocations_ = 0;
  DeviceBuffer<BlockKey> keys_;
  DeviceBuffer<int> values_;
  GrowBuffer<BlockKey> block_key_;
  GrowBuffer<int> neighbours_, block_count_, block_offset_, cell_count_;
  GrowBuffer<float> accum_, accum_alt_, vel_, vel_old_;
  GrowBuffer<long long> fixed_, fixed_alt_;  // deterministic mode only
  std::vector<float> host_partials_;         // zero between scatters (mpm/host/scatter.hpp)
  std::vector<long long> host_fixed_partials_;
  int host_slabs_ = 0;
};

}  // namespace silt::mpm
