// Shallow water over MPI ranks (run by ctest as `mpirun -np 2 swe_mpi_test --backend=cpu`): a
// split run with one and with two subdomains per rank against the single-device run each rank
// also computes (first order, and muscl_hancock). Fields are gathered to rank 0 and match bit for bit; probes and totals reach
// every rank; a fault in one rank's subdomain stops both ranks with the same message naming it.
// Every Solver call is collective, so every rank runs every statement below in the same order
// (EXPECT only: an ASSERT returning early on one rank would leave the other waiting).
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "silt/core/error.hpp"
#include "silt/partition/world.hpp"
#include "silt/swe/solver.hpp"
#include "swe_multi_scene.hpp"
#include "test_support.hpp"

namespace silt::swe {
namespace {

using multi_test::make_north_strip_overflow;
using multi_test::split_basin;
using partition::World;

Split host_split(int per_rank, int halo) {
  Split s;
  s.halo = halo;
  s.execs.assign(size_t(per_rank), Exec::host());
  return s;
}

size_t differing(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) return std::max(a.size(), b.size());
  size_t bad = 0;
  for (size_t k = 0; k < a.size(); ++k) bad += std::memcmp(&a[k], &b[k], sizeof(double)) != 0;
  return bad;
}

void compare(Precision p, int per_rank, int halo, Scheme scheme = Scheme::first_order) {
  const World& w = World::get();
  Scene scene = split_basin(p);
  if (scheme != Scheme::first_order) {
    scene.scheme = scheme;
    scene.cfl = 0.25;
  }
  Solver one(scene, Exec::host());
  Solver split(scene, host_split(per_rank, halo));
  const std::string what = split.layout();
  for (double t : {1.5, 6.0}) {
    one.advance_to(t);
    split.advance_to(t);
    EXPECT_EQ(split.time(), one.time()) << what;
    EXPECT_EQ(split.steps(), one.steps()) << what;
    const Fields a = split.fields(), b = one.fields();
    EXPECT_EQ(a.nx, b.nx);
    EXPECT_EQ(a.ny, b.ny);
    if (w.is_root()) {
      EXPECT_EQ(differing(a.h, b.h), 0u) << "h, " << what << ", t = " << t;
      EXPECT_EQ(differing(a.hu, b.hu), 0u) << "hu, " << what << ", t = " << t;
      EXPECT_EQ(differing(a.hv, b.hv), 0u) << "hv, " << what << ", t = " << t;
      EXPECT_EQ(differing(a.hc, b.hc), 0u) << "hc, " << what << ", t = " << t;
      EXPECT_EQ(differing(a.max_depth, b.max_depth), 0u) << "max_depth, " << what;
    } else {
      EXPECT_TRUE(a.h.empty()) << "fields are gathered to rank 0 only";
    }
    const Index nx = scene.grid.nx;
    const std::vector<Index> cells = {0, 3 + 20 * nx, nx * scene.grid.ny - 1, 18 + 14 * nx};
    const auto pa = split.probe(cells), pb = one.probe(cells);
    for (size_t k = 0; k < cells.size(); ++k) {
      EXPECT_EQ(pa[k].h, pb[k].h) << "probe " << k << " on rank " << w.rank();
      EXPECT_EQ(pa[k].u, pb[k].u) << "probe " << k << " on rank " << w.rank();
      EXPECT_EQ(pa[k].c, pb[k].c) << "probe " << k << " on rank " << w.rank();
    }
    const Totals ta = split.totals(), tb = one.totals();
    constexpr double kSumOrder = 1e-9;  // the same cells summed in another order
    EXPECT_NEAR(ta.volume, tb.volume, kSumOrder * tb.volume);
    EXPECT_NEAR(ta.net_inflow_volume, tb.net_inflow_volume,
                kSumOrder * (1 + std::abs(tb.net_inflow_volume)));
  }
}

TEST(SweMpi, TwoRanksMatchOneDevice) {
  EXPECT_EQ(World::get().size(), 2) << "run with mpirun -np 2";
  compare(Precision::f64, 1, 1);
  compare(Precision::f32, 1, 2);
}

TEST(SweMpi, TwoSubdomainsPerRankMatchOneDevice) {
  compare(Precision::f64, 2, 1);  // 4 subdomains: 2 x 2 blocks over 2 ranks
  compare(Precision::f32, 2, 3);
}

// MUSCL-Hancock's ghost cell expansion (engine_muscl.cpp: two layers read beyond the updated
// cells; a halo of 1 is widened to 2) over ranks.
TEST(SweMpi, MusclHancockMatchesOneDevice) {
  compare(Precision::f64, 1, 1, Scheme::muscl_hancock);
  compare(Precision::f64, 2, 3, Scheme::muscl_hancock);
  compare(Precision::f32, 1, 2, Scheme::muscl_hancock);
}

TEST(SweMpi, FaultOnOneRankStopsBoth) {
  const World& w = World::get();
  // Velocities of 1e30 m/s overflow float in the north strip only, which rank 1 owns.
  Scene s = split_basin(Precision::f32);
  make_north_strip_overflow(s);
  Split split = host_split(1, 1);
  split.shape = SplitShape::strips;
  Solver solver(s, split);
  std::string message;
  try {
    solver.advance_to(1.0);
  } catch (const SplitFault& e) {
    message = e.what();
  }
  EXPECT_NE(message.find("NaN"), std::string::npos) << "rank " << w.rank() << ": " << message;
  EXPECT_NE(message.find("subdomain 1 of 2 (rank 1 of 2, cpu)"), std::string::npos) << message;
  EXPECT_NE(message.find("step 1,"), std::string::npos) << message;
  // Both ranks agree on the message, and went back to the last good check.
  const std::vector<double> lengths = [&] {
    const double n = double(message.size());
    return w.allgather(&n, 1);
  }();
  EXPECT_EQ(lengths.front(), lengths.back());
  EXPECT_EQ(solver.time(), 0.0);
  // The solver still answers collectives after the fault.
  EXPECT_EQ(solver.totals().net_inflow_volume, 0.0);
}

}  // namespace
}  // namespace silt::swe
