// The MPM pipeline's data structures on the chosen backend: the block hash (parallel inserts with
// 64-bit CAS), the rebuild (block allocation with the free zone, numbering, neighbour table,
// counting sort by block), the free-zone test, and the particle store's full-state transfer.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <set>

#include "silt/core/buffer.hpp"
#include "silt/core/fault.hpp"
#include "silt/core/parallel_for.hpp"
#include "silt/mpm/block_hash.hpp"
#include "silt/mpm/particles.hpp"
#include "silt/mpm/rebuild.hpp"
#include "silt/mpm/sparse_grid.hpp"
#include "test_support.hpp"

namespace silt::mpm {
namespace {

using test::exec;

TEST(BlockKey, PacksAndUnpacksNegativeCoordinates) {
  const int coords[][3] = {{0, 0, 0}, {-1, 2, -3}, {kBlockCoordMax, -kBlockCoordBias, 7}};
  for (const auto& c : coords) {
    int x, y, z;
    unpack_block(pack_block(c[0], c[1], c[2]), x, y, z);
    EXPECT_EQ(x, c[0]);
    EXPECT_EQ(y, c[1]);
    EXPECT_EQ(z, c[2]);
    EXPECT_NE(pack_block(c[0], c[1], c[2]), kEmptyKey);
  }
  EXPECT_EQ(block_of_node(-1), -1);  // floor division for negative nodes
  EXPECT_EQ(block_of_node(-4), -1);
  EXPECT_EQ(block_of_node(-5), -2);
  EXPECT_EQ(block_of_node(7), 1);
}

TEST(FreeZone, AllowsThreeCellsOfDrift) {
  const int hb[3] = {2, 2, 2};  // nodes 8..11; the zone covers nodes 4..15
  int base[3] = {4, 4, 4};      // lowest stencil inside: nodes 4..6
  EXPECT_TRUE(in_free_zone(base, hb));
  base[1] = 3;
  EXPECT_FALSE(in_free_zone(base, hb));
  base[1] = 13;  // nodes 13..15
  EXPECT_TRUE(in_free_zone(base, hb));
  base[1] = 14;
  EXPECT_FALSE(in_free_zone(base, hb));
}

/// Inserts keys[i] for all i in parallel (each key many times); returns the slot of each key.
std::vector<int> insert_all(const std::vector<BlockKey>& keys, Index slots) {
  DeviceBuffer<BlockKey> table(exec(), slots, "keys");
  DeviceBuffer<int> values(exec(), slots, "values");
  DeviceBuffer<BlockKey> in(exec(), Index(keys.size()), "in");
  DeviceBuffer<int> out(exec(), Index(keys.size()), "out");
  in.upload(keys);
  BlockHashView h{table.data(), values.data(), unsigned(slots - 1)};
  parallel_for(
      exec(), "test.hash.clear", slots, SILT_LAMBDA(Index i) { h.keys[i] = kEmptyKey; });
  const BlockKey* k = in.data();
  int* o = out.data();
  parallel_for(
      exec(), "test.hash.insert", Index(keys.size()),
      SILT_LAMBDA(Index i) { o[i] = h.insert(k[i]); });
  // find() must return the slot insert() claimed.
  parallel_for(
      exec(), "test.hash.find", Index(keys.size()), SILT_LAMBDA(Index i) {
        if (h.find(k[i]) != o[i]) o[i] = -2;
      });
  return out.download();
}

TEST(BlockHash, ParallelInsertsClaimOneSlotPerKey) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> coord(-40, 40);
  std::vector<BlockKey> distinct;
  for (int i = 0; i < 3000; ++i) distinct.push_back(pack_block(coord(rng), coord(rng), coord(rng)));
  std::vector<BlockKey> keys;
  for (int rep = 0; rep < 20; ++rep) keys.insert(keys.end(), distinct.begin(), distinct.end());
  std::shuffle(keys.begin(), keys.end(), rng);
  const std::vector<int> slot = insert_all(keys, 8192);
  std::map<BlockKey, int> first;
  std::set<int> used;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    ASSERT_GE(slot[i], 0) << "insert or find failed for key " << keys[i];
    auto it = first.emplace(keys[i], slot[i]).first;
    ASSERT_EQ(it->second, slot[i]) << "one key got two slots";
    used.insert(slot[i]);
  }
  EXPECT_EQ(used.size(), first.size()) << "two keys share a slot";
}

TEST(BlockHash, ReportsAFullTable) {
  std::vector<BlockKey> keys;
  for (int i = 0; i < 40; ++i) keys.push_back(pack_block(i, 0, 0));
  const std::vector<int> slot = insert_all(keys, 32);
  EXPECT_EQ(std::count(slot.begin(), slot.end(), -1), 8);
}

struct RebuildResult {
  std::vector<float> x;
  std::vector<int> id, block, neighbours, count;
  std::vector<BlockKey> keys;
  int num_blocks = 0;
  Fault fault;
};

/// Runs one rebuild over particles at x (m) with node 0 at the origin and dx = 1.
RebuildResult rebuild(const std::vector<float>& x, Index grid_blocks, int dims = 3) {
  const Index n = Index(x.size() / 3);
  ParticleStore store(exec(), n);
  NewParticles add;
  add.x = x;
  add.v.assign(x.size(), 0.0f);
  add.plastic.assign(std::size_t(n), 0.0f);
  add.material.assign(std::size_t(n), 0);
  store.append(add);
  SparseGrid grid(exec(), false);
  grid.ensure(grid_blocks);
  DeviceBuffer<StepControl> ctl(exec(), 1, "ctl");
  StepControl c;
  c.rebuild = 1;
  ctl.set(0, c);
  FaultFlags faults(exec());
  RebuildArgs args;
  args.particles = n;
  args.dims = dims;
  args.geo.inv_dx = 1.0f;
  enqueue_rebuild(exec(), args, store.view(), store.sort_view(), grid.view(), ctl.data(),
                  faults.view());
  RebuildResult r;
  r.fault = faults.read();
  r.num_blocks = ctl.get(0).num_blocks;
  r.x = store.download_x();
  r.id = store.download_id();
  const GridView g = grid.view();
  r.block.resize(std::size_t(n));
  detail::copy_bytes(r.block.data(), Exec::host(), store.view().block, exec(), sizeof(int) * n);
  const Index nb = std::min(r.num_blocks, g.capacity);
  r.keys.resize(std::size_t(nb));
  r.neighbours.resize(27 * std::size_t(nb));
  r.count.resize(std::size_t(nb));
  detail::copy_bytes(r.keys.data(), Exec::host(), g.block_key, exec(), sizeof(BlockKey) * nb);
  detail::copy_bytes(r.neighbours.data(), Exec::host(), g.neighbours, exec(),
                     sizeof(int) * 27 * nb);
  detail::copy_bytes(r.count.data(), Exec::host(), g.block_count, exec(), sizeof(int) * nb);
  return r;
}

std::vector<float> random_particles(int n, float lo, float hi, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(lo, hi);
  std::vector<float> x(3 * std::size_t(n));
  for (float& v : x) v = u(rng);
  return x;
}

// 2D: particles in the plane z = 0 get their blocks and the 8 neighbours in the plane, none
// above or below it (2D stencils never leave the plane); the host count sizes it exactly.
TEST(Rebuild, PlaneStrainMarksNoNeighboursAlongZ) {
  std::vector<float> x = random_particles(2000, -9.0f, 7.0f, 3);
  for (std::size_t i = 2; i < x.size(); i += 3) x[i] = 0.0f;
  const double origin[3] = {0, 0, 0};
  const Index planar = SparseGrid::count_blocks(x, origin, 1.0, 2);
  const Index spatial = SparseGrid::count_blocks(x, origin, 1.0, 3);
  EXPECT_EQ(3 * planar, spatial);  // every block of the plane, and a layer above and below
  const RebuildResult r = rebuild(x, planar, 2);
  ASSERT_FALSE(r.fault) << "fault " << r.fault.code;
  EXPECT_EQ(r.num_blocks, planar);
  for (int b = 0; b < r.num_blocks; ++b) {
    int bx, by, bz;
    unpack_block(r.keys[std::size_t(b)], bx, by, bz);
    EXPECT_EQ(bz, 0) << "block " << b;
  }
}

// count_blocks maps the blocks' box when the particles fill it and keeps a set of blocks when
// they are spread thin over a large box: both give the rebuild's count (the box map of two clouds
// 4,000 blocks apart on each axis would be ~6e10 bytes).
TEST(Rebuild, CountBlocksOfCloudsFarApart) {
  std::vector<float> x = random_particles(500, -9.0f, 7.0f, 4);
  const std::size_t near_count = x.size();
  const double origin[3] = {0, 0, 0};
  const Index one = SparseGrid::count_blocks(x, origin, 1.0);
  const std::vector<float> far = random_particles(500, 16000.0f, 16016.0f, 5);
  x.insert(x.end(), far.begin(), far.end());
  std::vector<float> shifted(x.begin() + std::ptrdiff_t(near_count), x.end());
  for (float& v : shifted) v -= 16000.0f;  // the far cloud moved to the origin's block grid
  const Index other = SparseGrid::count_blocks(shifted, origin, 1.0);
  EXPECT_EQ(SparseGrid::count_blocks(x, origin, 1.0), one + other);
  const RebuildResult r = rebuild(x, one + other);
  ASSERT_FALSE(r.fault) << "fault " << r.fault.code;
  EXPECT_EQ(r.num_blocks, one + other);
}

TEST(Rebuild, BinsSortsAndLinksBlocks) {
  // Two clouds with a gap, partly at negative coordinates.
  std::vector<float> x = random_particles(3000, -9.0f, 7.0f, 1);
  const std::vector<float> far = random_particles(1000, 30.0f, 38.0f, 2);
  x.insert(x.end(), far.begin(), far.end());
  const double origin[3] = {0, 0, 0};
  const Index expected_blocks = SparseGrid::count_blocks(x, origin, 1.0);
  const RebuildResult r = rebuild(x, expected_blocks);
  ASSERT_FALSE(r.fault) << "fault " << r.fault.code;
  ASSERT_EQ(r.num_blocks, expected_blocks);

  std::map<BlockKey, int> index;
  for (int b = 0; b < r.num_blocks; ++b) index[r.keys[std::size_t(b)]] = b;
  ASSERT_EQ(int(index.size()), r.num_blocks) << "a block was numbered twice";
  // Every particle is binned into its nearest node's block; particles are a permutation of the
  // input, and each block's particles are contiguous.
  const std::size_t n = r.id.size();
  std::vector<int> seen(n, 0), count(std::size_t(r.num_blocks), 0);
  std::set<int> closed;
  for (std::size_t i = 0; i < n; ++i) {
    const int id = r.id[i];
    ASSERT_TRUE(id >= 0 && std::size_t(id) < n);
    ++seen[std::size_t(id)];
    for (int a = 0; a < 3; ++a) ASSERT_EQ(r.x[3 * i + a], x[3 * std::size_t(id) + a]);
    int hb[3];
    for (int a = 0; a < 3; ++a) hb[a] = block_of_node(int(std::floor(r.x[3 * i + a] - 0.5f)) + 1);
    const int b = r.block[i];
    ASSERT_EQ(r.keys[std::size_t(b)], pack_block(hb[0], hb[1], hb[2])) << "particle " << id;
    ++count[std::size_t(b)];
    if (i > 0 && r.block[i - 1] != b) {
      closed.insert(r.block[i - 1]);
      ASSERT_EQ(closed.count(b), 0u) << "block " << b << " is split in the sorted order";
    }
  }
  EXPECT_TRUE(std::all_of(seen.begin(), seen.end(), [](int s) { return s == 1; }));
  EXPECT_EQ(count, r.count);
  // Neighbour table: index of the block at each offset, -1 exactly where no block exists.
  for (int b = 0; b < r.num_blocks; ++b) {
    int bx, by, bz;
    unpack_block(r.keys[std::size_t(b)], bx, by, bz);
    for (int dz = -1; dz <= 1; ++dz)
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
          const auto it = index.find(pack_block(bx + dx, by + dy, bz + dz));
          const int want = it == index.end() ? -1 : it->second;
          ASSERT_EQ(r.neighbours[27 * std::size_t(b) + std::size_t(neighbour_slot(dx, dy, dz))],
                    want)
              << "block " << b << " offset " << dx << "," << dy << "," << dz;
          // Blocks holding particles have all 26 neighbours (the free zone).
          if (count[std::size_t(b)] > 0) {
            ASSERT_GE(want, 0);
          }
        }
  }
}

TEST(Rebuild, RaisesOverflowWithTheNeededCount) {
  // Home blocks 3 x 3 x 2 (nodes 1..11 and 1..7) plus their neighbours: 5 x 5 x 4 = 100 blocks,
  // more than the 64 a grid sized for 16 holds, fewer than its 128 hash slots.
  std::vector<float> x = random_particles(2000, 0.6f, 11.4f, 3);
  for (std::size_t i = 2; i < x.size(); i += 3) x[i] = 0.6f + (x[i] - 0.6f) * (6.8f / 10.8f);
  const RebuildResult r = rebuild(x, 16);
  EXPECT_EQ(r.fault.code, kFaultBlockOverflow);
  EXPECT_EQ(r.fault.index, 64);  // the capacity, for the message
  EXPECT_EQ(r.num_blocks, 100);  // the count needed
}

TEST(Rebuild, RaisesHashFullWhenTheTableIsExhausted) {
  const std::vector<float> x = random_particles(2000, 0.0f, 40.0f, 4);
  const RebuildResult r = rebuild(x, 16);
  EXPECT_EQ(r.fault.code, kFaultHashFull);
}

/// n particles whose every attribute differs from the others' (ids from first_id, in steps of 3).
HostParticles distinct_particles(std::size_t n, int first_id) {
  HostParticles p;
  for (std::size_t i = 0; i < n; ++i) {
    const float s = float(i);
    for (int a = 0; a < 3; ++a) {
      p.x.push_back(0.5f + 0.01f * s + 0.1f * float(a));
      p.v.push_back(-0.25f * s + float(a));
    }
    for (int k = 0; k < 9; ++k) {
      p.c.push_back(0.001f * s - 0.1f * float(k));
      p.f.push_back((k % 4 == 0 ? 1.0f : 0.0f) + 1e-4f * s * float(k + 1));
    }
    p.plastic.push_back(-0.04f + 1e-3f * s);
    p.material.push_back(int(i % 3));
    p.id.push_back(first_id + 3 * int(i));
  }
  return p;
}

void expect_same(const HostParticles& a, const HostParticles& b) {
  EXPECT_EQ(a.x, b.x);
  EXPECT_EQ(a.v, b.v);
  EXPECT_EQ(a.c, b.c);
  EXPECT_EQ(a.f, b.f);
  EXPECT_EQ(a.plastic, b.plastic);
  EXPECT_EQ(a.material, b.material);
  EXPECT_EQ(a.id, b.id);
}

// What a multi-part run moves between parts: every attribute comes back bit for bit, the ids are
// kept, a store that has to grow counts the move (CUDA graphs are re-recorded on it), and the
// particles wait for a rebuild to be binned.
TEST(ParticleStore, ReplaceKeepsEveryAttributeAndCountsMoves) {
  ParticleStore store(exec(), 64);
  NewParticles add;
  add.x.assign(30, 1.0f);
  add.v.assign(30, 0.0f);
  add.plastic.assign(10, 0.0f);
  add.material.assign(10, 0);
  store.append(add);
  const int moves = store.reallocations();
  // 200 particles exceed half the capacity of 64: the storage moves.
  const HostParticles big = distinct_particles(200, 7);
  EXPECT_TRUE(store.replace(big));
  EXPECT_EQ(store.reallocations(), moves + 1);
  EXPECT_EQ(store.size(), 200);
  expect_same(store.download_all(), big);
  std::vector<int> block(200, 0);
  detail::copy_bytes(block.data(), Exec::host(), store.view().block, exec(), sizeof(int) * 200);
  EXPECT_EQ(block, std::vector<int>(200, -1)) << "replaced particles wait for a rebuild";
  // Fewer particles fit where they are.
  const HostParticles few = distinct_particles(5, 1000);
  EXPECT_FALSE(store.replace(few));
  EXPECT_EQ(store.reallocations(), moves + 1);
  expect_same(store.download_all(), few);
  // Particles appended later without ids get ones that no replaced particle holds.
  store.append(add);
  const std::vector<int> id = store.download_id();
  ASSERT_EQ(id.size(), 15u);
  for (std::size_t i = 5; i < id.size(); ++i) EXPECT_GT(id[i], 1012);
  // An empty set empties the store.
  EXPECT_FALSE(store.replace(HostParticles{}));
  EXPECT_EQ(store.size(), 0);
  EXPECT_TRUE(store.download_all().id.empty());
}

}  // namespace
}  // namespace silt::mpm
