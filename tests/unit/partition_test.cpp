// Domain decomposition (balanced cuts, strips or blocks, neighbours, errors) and the halo
// exchange between subdomains of one process: on the CPU and, with --backend=cuda, between CUDA
// buffers (on several GPUs when visible). The scalar reduction of a step (max and sums).
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <vector>

#include "silt/core/buffer.hpp"
#include "silt/core/error.hpp"
#include "silt/partition/decompose.hpp"
#include "silt/partition/halo_exchange.hpp"
#include "silt/partition/scalar_reduce.hpp"
#include "test_support.hpp"

namespace silt::partition {
namespace {

using silt::test::exec;

TEST(Partition, BalancedCutsFollowTheWeights) {
  // Weight 3 in the first 10 cells, 1 in the last 30: two halves of weight 30 each.
  std::vector<double> w(40, 1.0);
  std::fill(w.begin(), w.begin() + 10, 3.0);
  EXPECT_EQ(balanced_cuts(w, 2, 1), (std::vector<Index>{0, 10, 40}));
  EXPECT_EQ(balanced_cuts(w, 3, 1), (std::vector<Index>{0, 7, 20, 40}));
  EXPECT_EQ(balanced_cuts(std::vector<double>(12, 1.0), 3, 1), (std::vector<Index>{0, 4, 8, 12}));
  // All the weight in one cell: the minimum width still holds.
  std::vector<double> spike(10, 0.0);
  spike[0] = 1.0;
  const auto c = balanced_cuts(spike, 4, 2);
  for (size_t k = 1; k < c.size(); ++k) EXPECT_GE(c[k] - c[k - 1], 2) << k;
  EXPECT_EQ(c.back(), 10);
  EXPECT_THROW(balanced_cuts(std::vector<double>(5, 1.0), 3, 2), Error);
}

TEST(Partition, StripsUnlessBlocksExchangeLess) {
  // Two or three parts of a square: strips of whole rows.
  Decomposition d = split(100, 100, {}, SplitOptions{2, 1, Shape::automatic});
  EXPECT_EQ(d.px, 1);
  EXPECT_EQ(d.py, 2);
  EXPECT_EQ(d.y_cuts, (std::vector<Index>{0, 50, 100}));
  EXPECT_EQ(split(100, 100, {}, SplitOptions{3, 1, Shape::automatic}).px, 1);
  // Four parts of a square: 2 x 2 blocks exchange 400 cells per layer, strips 600.
  d = split(100, 100, {}, SplitOptions{4, 1, Shape::automatic});
  EXPECT_EQ(d.px, 2);
  EXPECT_EQ(d.py, 2);
  EXPECT_EQ(d.halo_cells_per_layer(), 400);
  EXPECT_EQ(split(100, 100, {}, SplitOptions{4, 1, Shape::strips}).halo_cells_per_layer(), 600);
  // A wide grid: columns.
  d = split(400, 20, {}, SplitOptions{2, 1, Shape::automatic});
  EXPECT_EQ(d.px, 2);
  EXPECT_EQ(d.py, 1);
  EXPECT_EQ(split(400, 20, {}, SplitOptions{2, 1, Shape::strips}).py, 2);
}

TEST(Partition, CutsBalanceActiveCells) {
  // The northern half is inactive (nodata): the cut moves north of the middle so that the two
  // strips hold about the same work.
  const Index nx = 50, ny = 100;
  std::vector<std::uint8_t> active(size_t(nx * ny), 1);
  for (Index j = 50; j < ny; ++j)
    for (Index i = 0; i < nx; ++i) active[size_t(j * nx + i)] = 0;
  const Decomposition d = split(nx, ny, active, SplitOptions{2, 1, Shape::strips});
  EXPECT_GT(d.y_cuts[1], 20);
  EXPECT_LT(d.y_cuts[1], 35);
  EXPECT_LT(d.imbalance(), 1.05);
  const Decomposition even = split(nx, ny, {}, SplitOptions{2, 1, Shape::strips});
  EXPECT_EQ(even.y_cuts[1], 50);
}

TEST(Partition, NeighboursAndOwners) {
  const Decomposition d = split(30, 20, {}, SplitOptions{6, 1, Shape::blocks});
  ASSERT_EQ(d.size(), 6);
  for (const Subdomain& s : d.parts) {
    EXPECT_EQ(s.neighbour[kSelf], s.id);
    for (int dj = -1; dj <= 1; ++dj)
      for (int di = -1; di <= 1; ++di) {
        const int n = s.neighbour[size_t(direction(di, dj))];
        const bool inside =
            s.bx + di >= 0 && s.bx + di < d.px && s.by + dj >= 0 && s.by + dj < d.py;
        EXPECT_EQ(n >= 0, inside) << s.id << " " << di << "," << dj;
        if (n >= 0) {
          EXPECT_EQ(d.parts[size_t(n)].bx, s.bx + di);
          EXPECT_EQ(d.parts[size_t(n)].by, s.by + dj);
        }
      }
  }
  long long cells = 0;
  for (const Subdomain& s : d.parts) cells += s.cells.count();
  EXPECT_EQ(cells, 600);
  for (Index j = 0; j < 20; ++j)
    for (Index i = 0; i < 30; ++i) EXPECT_TRUE(d.owner(i, j).contains(i, j)) << i << "," << j;
  EXPECT_THROW(d.owner(30, 0), Error);
}

TEST(Partition, TooManyPartsIsAnError) {
  try {
    split(10, 5, {}, SplitOptions{3, 2, Shape::strips});
    FAIL() << "5 rows cannot hold 3 strips of 2 rows";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("halo of 2"), std::string::npos) << e.what();
  }
  EXPECT_THROW(split(10, 5, {}, SplitOptions{0, 1, Shape::strips}), Error);
  EXPECT_THROW(split(10, 5, {}, SplitOptions{2, 0, Shape::strips}), Error);
}

// Fills every subdomain's owned cells with their global index (as double) and its ring with -1,
// exchanges, and checks each halo cell of width k against the global index of the cell it mirrors.
void check_exchange(Index nx, Index ny, int parts, int halo, Shape shape) {
  const Decomposition d = split(nx, ny, {}, SplitOptions{parts, halo, shape});
  const int ring = halo + 1;  // a ring wider than the halo: its outer layer must stay untouched
  const int devices = std::max(1, cuda_device_count());
  LocalParts local;
  local.per_rank = parts;
  std::vector<DeviceBuffer<double>> bufs;
  std::vector<std::vector<void*>> storage;
  for (const Subdomain& s : d.parts) {
    const Exec e = exec().is_cuda() ? Exec::cuda(s.id % devices) : Exec::host();
    local.ids.push_back(s.id);
    local.compute.push_back(e);
    local.halo_lane.push_back(e);
    const Grid2<double> g{nullptr, s.nx(), s.ny(), ring};
    std::vector<double> host(size_t(Grid2<double>::alloc_size(s.nx(), s.ny(), ring)), -1.0);
    for (Index j = 0; j < s.ny(); ++j)
      for (Index i = 0; i < s.nx(); ++i)
        host[size_t(g.offset(i, j))] = double((j + s.cells.j0) * nx + i + s.cells.i0);
    bufs.emplace_back(e, Index(host.size()), "halo test");
    bufs.back().upload(host);
    storage.push_back({bufs.back().data()});
  }
  HaloExchange x(d, local, ring, 1, sizeof(double), World::get());
  x.begin(storage);
  x.finish();
  for (const Subdomain& s : d.parts) {
    const std::vector<double> got = bufs[size_t(s.id)].download();
    const Grid2<const double> g{got.data(), s.nx(), s.ny(), ring};
    for (Index j = -ring; j < s.ny() + ring; ++j)
      for (Index i = -ring; i < s.nx() + ring; ++i) {
        const Index gi = i + s.cells.i0, gj = j + s.cells.j0;
        const bool owned = i >= 0 && j >= 0 && i < s.nx() && j < s.ny();
        const bool in_halo = i >= -halo && j >= -halo && i < s.nx() + halo && j < s.ny() + halo;
        const bool in_grid = gi >= 0 && gj >= 0 && gi < nx && gj < ny;
        const double want = owned || (in_halo && in_grid) ? double(gj * nx + gi) : -1.0;
        ASSERT_EQ(g(i, j), want) << "part " << s.id << " cell " << i << "," << j << " ("
                                 << d.describe() << ")";
      }
  }
  EXPECT_GT(x.bytes_per_exchange(), 0u);
}

TEST(Partition, HaloExchangeFillsStripsAndBlocks) {
  check_exchange(13, 11, 2, 1, Shape::strips);
  check_exchange(13, 11, 3, 2, Shape::strips);
  check_exchange(13, 11, 4, 1, Shape::blocks);
  check_exchange(17, 14, 6, 2, Shape::blocks);  // corners from diagonal neighbours
  check_exchange(13, 11, 2, 3, Shape::blocks);
}

TEST(Partition, ScalarReduceTakesMaxAndSums) {
  const int parts = 3, length = 3;
  const int devices = std::max(1, cuda_device_count());
  std::vector<Exec> execs;
  std::vector<DeviceBuffer<double>> bufs;
  std::vector<double*> ptrs;
  for (int p = 0; p < parts; ++p) {
    execs.push_back(exec().is_cuda() ? Exec::cuda(p % devices) : Exec::host());
    bufs.emplace_back(execs.back(), length, "reduce test");
    bufs.back().upload(std::vector<double>{1.5 * (p == 1 ? 4 : p), double(p + 1), double(2 * p)});
    ptrs.push_back(bufs.back().data());
  }
  ScalarReduce r(execs, length, 1, World::get());
  for (int round = 0; round < 3; ++round) {
    r.run(ptrs);
    for (int p = 0; p < parts; ++p)
      EXPECT_EQ(bufs[size_t(p)].download(), (std::vector<double>{6.0, 6.0, 6.0}))
          << "round " << round << " part " << p;
    for (int p = 0; p < parts; ++p)
      bufs[size_t(p)].upload(std::vector<double>{double(p + round), 1.0, 0.0});
    r.run(ptrs);
    for (int p = 0; p < parts; ++p)
      EXPECT_EQ(bufs[size_t(p)].download(), (std::vector<double>{2.0 + round, 3.0, 0.0}));
    for (int p = 0; p < parts; ++p)
      bufs[size_t(p)].upload(
          std::vector<double>{1.5 * (p == 1 ? 4 : p), double(p + 1), double(2 * p)});
  }
}

}  // namespace
}  // namespace silt::partition
