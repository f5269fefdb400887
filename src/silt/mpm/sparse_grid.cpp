#include "silt/mpm/sparse_grid.hpp"

#include <fmt/format.h>

#include <cmath>
#include <unordered_set>

#include "silt/core/error.hpp"
#include "silt/core/parallel_for.hpp"

namespace silt::mpm {

namespace {
constexpr Index kMinBlocks = 16;

Index next_pow2(long long v) {
  long long p = 1;
  while (p < v) p <<= 1;
  SILT_REQUIRE(p <= (1LL << 30), fmt::format("block hash table of {} slots exceeds 2^30", p));
  return static_cast<Index>(p);
}
}  // namespace

SparseGrid::SparseGrid(const Exec& exec, bool with_old_velocity, bool split_force)
    : exec_(exec),
      with_old_(with_old_velocity),
      accum_stride_(split_force ? kAccumChannelsSplit : kAccumChannels) {
  block_key_ = GrowBuffer<BlockKey>(exec, 0, "grid block keys");
  neighbours_ = GrowBuffer<int>(exec, 0, "grid block neighbours");
  block_count_ = GrowBuffer<int>(exec, 0, "grid block counts");
  block_offset_ = GrowBuffer<int>(exec, 0, "grid block offsets");
  cell_count_ = GrowBuffer<int>(exec, 0, "grid cell counts");
  accum_ = GrowBuffer<float>(exec, 0, "grid P2G sums");
  accum_alt_ = GrowBuffer<float>(exec, 0, "grid P2G sums, second");
  vel_ = GrowBuffer<float>(exec, 0, "grid velocity");
  vel_old_ = GrowBuffer<float>(exec, 0, "grid velocity before update");
  ensure(kMinBlocks);
}

bool SparseGrid::ensure(Index blocks) {
  if (blocks < kMinBlocks) blocks = kMinBlocks;
  SILT_REQUIRE(4LL * blocks * kBlockNodes * accum_stride_ < 0x7fffffffLL,
               fmt::format("sparse grid of {} blocks exceeds the 32-bit node index range of one "
                           "device",
                           blocks));
  // Nothing survives a rebuild except particle data, so the grid moves without copying. Every
  // array asks for the same multiple of `blocks`, so all of them grow together.
  const bool moved = block_key_.ensure(blocks, 0);
  if (!moved) return false;
  neighbours_.ensure(27 * blocks, 0);
  block_count_.ensure(blocks, 0);
  block_offset_.ensure(blocks, 0);
  cell_count_.ensure(kBlockNodes * blocks, 0);
  accum_.ensure(accum_stride_ * kBlockNodes * blocks, 0);
  if (double_accum_) accum_alt_.ensure(accum_stride_ * kBlockNodes * blocks, 0);
  vel_.ensure(kVelChannels * kBlockNodes * blocks, 0);
  if (with_old_) vel_old_.ensure(kVelChannels * kBlockNodes * blocks, 0);
  const Index cap = block_key_.capacity();
  if (!exec_.is_cuda()) {
    host_slabs_ = host_thread_count() - 1;
    host_partials_.assign(std::size_t(host_slabs_) * accum_.capacity(), 0.0f);
  }
  const Index slots = next_pow2(2LL * cap);
  if (slots != keys_.size()) {
    keys_ = DeviceBuffer<BlockKey>(exec_, slots, "grid block hash keys");
    values_ = DeviceBuffer<int>(exec_, slots, "grid block hash values");
  }
  ++reallocations_;
  return true;
}

void SparseGrid::set_double_accum(bool on) {
  double_accum_ = on;
  if (on && accum_alt_.capacity() < accum_.capacity()) {
    accum_alt_ = GrowBuffer<float>(exec_, accum_.capacity(), "grid P2G sums, second");
    accum_alt_.buffer().zero();
  }
}

void SparseGrid::zero_accum() {
  accum_.buffer().zero();
  if (accum_alt_.capacity() > 0) accum_alt_.buffer().zero();
}

HostPartials SparseGrid::host_partials() {
  if (host_slabs_ == 0) return {};
  return HostPartials{host_partials_.data(), accum_.capacity(), host_slabs_};
}

GridView SparseGrid::view() {
  GridView g;
  g.hash = BlockHashView{keys_.data(), values_.data(), static_cast<unsigned>(keys_.size() - 1)};
  g.block_key = block_key_.data();
  g.neighbours = neighbours_.data();
  g.block_count = block_count_.data();
  g.block_offset = block_offset_.data();
  g.cell_count = cell_count_.data();
  g.accum = accum_.data();
  g.accum_stride = accum_stride_;
  g.accum_alt = double_accum_ ? accum_alt_.data() : nullptr;
  g.vel = vel_.data();
  g.vel_old = with_old_ ? vel_old_.data() : nullptr;
  g.capacity = block_key_.capacity();
  return g;
}

Index SparseGrid::count_blocks(const std::vector<float>& x, const double origin[3], double dx,
                               int dims) {
  std::unordered_set<BlockKey> occupied, all;
  const std::size_t n = x.size() / 3;
  for (std::size_t i = 0; i < n; ++i) {
    int b[3];
    for (int a = 0; a < 3; ++a) {
      // The particle's nearest node, as the device computes it: base + 1 with
      // base = floor((x - origin) / dx - 0.5).
      const double node = std::floor((x[3 * i + a] - origin[a]) / dx - 0.5) + 1.0;
      b[a] = block_of_node(static_cast<int>(node));
    }
    occupied.insert(pack_block(b[0], b[1], b[2]));
  }
  for (BlockKey k : occupied) {
    int bx, by, bz;
    unpack_block(k, bx, by, bz);
    const int reach_z = dims == 3 ? 1 : 0;  // as the rebuild: no z neighbours in 2D
    for (int dz = -reach_z; dz <= reach_z; ++dz)
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx_ = -1; dx_ <= 1; ++dx_) all.insert(pack_block(bx + dx_, by + dy, bz + dz));
  }
  return static_cast<Index>(all.size());
}

}  // namespace silt::mpm
