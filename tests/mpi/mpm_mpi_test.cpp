// MPM over MPI ranks (run by ctest as `mpirun -np 2 mpm_mpi_test --backend=cpu`): mpm::Solver with
// one part per rank against the one-device run every rank also computes, within the tolerances of
// mpm_multi_scene.hpp (the shared blocks' P2G sums cross ranks through host buffers); a fountain
// keeps the ranks balanced; a fault stops both ranks with one message.
// Every call on a split Solver is collective: every rank runs every statement below in the same
// order (EXPECT only: an ASSERT returning early on one rank would leave the other waiting).
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "mpm_multi_scene.hpp"
#include "silt/mpm/solver.hpp"
#include "silt/partition/world.hpp"
#include "test_support.hpp"

namespace silt::test::mpm {
namespace {

using partition::World;
using silt::mpm::Solver;
using silt::mpm::SolverOptions;

struct Compared {
  std::string diff;  // empty when within tolerance (rank 0)
  std::string log;
};

Compared compare(const Scene& s, int frames) {
  const World& w = World::get();
  Solver one(s, Exec::host());
  Solver multi(s, std::vector<Exec>{Exec::host()}, {}, w);
  EXPECT_EQ(multi.parts(), w.size());
  for (int f = 0; f < frames; ++f) {
    one.advance_frame();
    multi.advance_frame();
  }
  EXPECT_EQ(multi.particle_count(), one.particle_count());
  const std::string layout = multi.layout();
  const silt::mpm::ParticleFrame a = multi.particles(), b = one.particles();
  Compared c;
  if (w.is_root()) {
    EXPECT_EQ(std::int64_t(a.count()), one.particle_count());
    c.diff = compare_integrals(integrals(a), integrals(b));
    c.log = s.name + ", rank 0 " + layout + ": " + differences(integrals(a), integrals(b));
  } else {
    EXPECT_EQ(a.count(), 0u) << "particles are gathered to rank 0 only";
  }
  return c;
}

TEST(MpmMpi, TwoRanksMatchOnePartition) {
  EXPECT_EQ(World::get().size(), 2) << "run with mpirun -np 2";
  for (const Scene& s : {multi_sand_column(), multi_thin_slab()}) {
    const Compared c = compare(s, 5);
    EXPECT_EQ(c.diff, "") << s.name;
    if (!c.log.empty()) std::printf("%s\n", c.log.c_str());
  }
}

// The fountain of mpm_multi_scene.hpp on two ranks: particles emitted on rank 0's side move to
// rank 1 when the counts drift apart (coordinates gathered to rank 0 for the cuts, particles
// point to point), every rank sees balanced counts after every frame, and the run matches one
// partition.
TEST(MpmMpi, FountainStaysBalancedOnTwoRanks) {
  const World& w = World::get();
  const Scene s = multi_fountain();
  const int frames = 10;
  Solver one(s, Exec::host());
  const SolverOptions o;
  Solver multi(s, std::vector<Exec>{Exec::host()}, o, w);
  std::string counts;
  for (int f = 1; f <= frames; ++f) {
    one.advance_frame();
    multi.advance_frame();
    const std::vector<std::int64_t> c = multi.part_counts();
    EXPECT_EQ(balance_violation(c, o.balance_tolerance), "")
        << "rank " << w.rank() << ", frame " << f;
    counts += (f > 1 ? ", " : "") + counts_text(c);
  }
  EXPECT_GE(multi.rebalances(), 1) << "the fountain never unbalanced the ranks";
  EXPECT_EQ(multi.particle_count(), one.particle_count());
  const silt::mpm::ParticleFrame a = multi.particles(), b = one.particles();
  if (w.is_root()) {
    EXPECT_EQ(std::int64_t(a.count()), one.particle_count());
    for (std::size_t k = 0; k < a.count(); ++k)
      if (a.id[k] != int(k)) {
        ADD_FAILURE() << "particle " << k << " has id " << a.id[k];
        break;
      }
    EXPECT_EQ(compare_integrals(integrals(a), integrals(b)), "");
    std::printf("%s, %d ranks: %d rebalances; counts after each frame: %s\n  %s\n", s.name.c_str(),
                w.size(), multi.rebalances(), counts.c_str(),
                differences(integrals(a), integrals(b)).c_str());
  }
}

TEST(MpmMpi, FaultStopsBothRanksWithOneMessage) {
  const World& w = World::get();
  Scene s = multi_elastic_cube();
  s.name = "mpi_fault";
  s.fixed_dt = 0.02;  // far beyond the CFL limit
  Solver multi(s, std::vector<Exec>{Exec::host()}, {}, w);
  std::string message;
  try {
    for (int f = 0; f < 10; ++f) multi.advance_frame();
  } catch (const silt::mpm::PartFault& e) {
    message = e.what();
  }
  EXPECT_NE(message.find("MPI rank"), std::string::npos) << "rank " << w.rank() << ": " << message;
  EXPECT_NE(message.find("of 2"), std::string::npos) << message;
  if (w.is_root()) std::printf("rank 0: %s\n", message.c_str());
  const double n = double(message.size());
  const std::vector<double> lengths = w.allgather(&n, 1);
  EXPECT_EQ(lengths.front(), lengths.back()) << "the ranks disagree on the message";
}

}  // namespace
}  // namespace silt::test::mpm
