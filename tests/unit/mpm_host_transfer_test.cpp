// The host backend's P2G and G2P on packs of particles (mpm/host/p2g.cpp, mpm/host/g2p.cpp) against
// the per-particle bodies they stand for (transfer_body.hpp: p2g_particle_body into a HostSink,
// g2p_particle_body), on one thread: the same grid sums, F, plastic state, x, v and C, bit for
// bit, for two sands (their own parameters, and stored volume-correction states, in neighbouring
// lanes: the sand model runs on the packs), jelly and water particles mixed within packs, fused
// and split force, APIC and ASFLIP, in 3D and 2D, on SSE2's packs of 4 and, where the CPU has
// them, the AVX2 unit's 8 lanes and the AVX-512 unit's 16 (mpm/host/packs.hpp). Why bit for bit:
// the CPU suite's split tests and the scenes' files of one thread compare exactly (docs/NOTES.md,
// "SIMD across particles").
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "silt/core/fault.hpp"
#include "silt/mpm/host/packs.hpp"
#include "silt/mpm/host/scatter.hpp"
#include "silt/mpm/particles.hpp"
#include "silt/mpm/pipeline.hpp"
#include "silt/mpm/rebuild.hpp"
#include "silt/mpm/scene_params.hpp"
#include "silt/mpm/sparse_grid.hpp"
#include "silt/mpm/transfer_body.hpp"

namespace silt::mpm {
namespace {

/// Not a multiple of the batches or packs (4, 8, 16): the last batch and pack are partial.
constexpr int kParticles = 1003;

/// Index of the first element where a and b differ bitwise, or -1.
long long first_difference(const float* a, const float* b, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i)
    if (std::memcmp(a + i, b + i, sizeof(float)) != 0) return static_cast<long long>(i);
  return -1;
}

#define EXPECT_SAME_BITS(a, b, n, what)                                                     \
  do {                                                                                      \
    const long long at = first_difference(a, b, n);                                         \
    EXPECT_EQ(at, -1) << what << " differs at " << at << ": " << (at >= 0 ? (a)[at] : 0.0f) \
                      << " (packs) vs " << (at >= 0 ? (b)[at] : 0.0f) << " (per particle)"; \
  } while (0)

std::vector<ParticleClass> classes() {
  std::vector<ParticleClass> out;
  for (MaterialKind kind : {MaterialKind::drucker_prager, MaterialKind::fixed_corotated,
                            MaterialKind::fluid, MaterialKind::drucker_prager}) {
    Material m;
    m.kind = kind;
    m.youngs_modulus = 3.5e5, m.poisson_ratio = 0.3, m.density = 1600;
    if (!out.empty() && kind == MaterialKind::drucker_prager) {
      // A second sand in the same packs: its own moduli, friction and cohesion per lane.
      m.youngs_modulus = 8e5, m.poisson_ratio = 0.25, m.friction_angle = 40, m.cohesion = 0.002;
    }
    ParticleClass c;
    c.material = make_material_params<float>(m);
    c.volume0 = 1.0f / 8.0f;  // dx = 1, 8 per cell
    c.mass = float(m.density) * c.volume0;
    out.push_back(c);
  }
  return out;
}

/// Caps the host packs for one scope (mpm/host/packs.hpp), then lifts the cap.
struct PacksCap {
  explicit PacksCap(detail::HostPacks widest) { detail::limit_host_packs(widest); }
  ~PacksCap() { detail::limit_host_packs(detail::HostPacks::avx512); }
  PacksCap(const PacksCap&) = delete;
  PacksCap& operator=(const PacksCap&) = delete;
};

/// D dimensions; split_force and asflip: ASFLIP's transfer, its stress force in its own channels.
template <int D>
void run_packs(bool split_force, bool asflip) {
  const Exec host = Exec::host();
  std::mt19937 rng(7 + D + 2 * split_force + 4 * asflip);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f), pos(4.6f, 11.4f);
  const std::vector<ParticleClass> table = classes();
  NewParticles add;
  for (int i = 0; i < kParticles; ++i) {
    for (int d = 0; d < 3; ++d) {
      add.x.push_back(d == 2 && D == 2 ? 0.0f : pos(rng));
      add.v.push_back(u(rng));
    }
    const int material = int(rng() % table.size());
    add.material.push_back(material);
    add.plastic.push_back(material_initial_plastic(table[std::size_t(material)].material));
  }
  ParticleStore store(host, kParticles);
  store.append(add);
  SparseGrid grid(host, asflip, split_force);
  const double origin[3] = {0, 0, 0};
  grid.ensure(SparseGrid::count_blocks(add.x, origin, 1.0, D));
  StepControl ctl;
  ctl.rebuild = 1;
  FaultFlags faults(host);
  RebuildArgs ra;
  ra.particles = kParticles;
  ra.dims = D;
  ra.geo.dx = 1.0f, ra.geo.inv_dx = 1.0f;
  enqueue_rebuild(host, ra, store.view(), store.sort_view(), grid.view(), &ctl, faults.view());
  ASSERT_FALSE(faults.read()) << "rebuild fault " << faults.read().code;

  // C and F of a deforming state (F near the identity, so that sand yields in some particles).
  const ParticleView p = store.view();
  const GridView g = grid.view();
  for (int i = 0; i < kParticles; ++i)
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c) {
        p.c[9 * i + 3 * r + c] = 5.0f * u(rng);
        p.f[9 * i + 3 * r + c] = (r == c ? 1.0f : 0.0f) + 0.05f * u(rng);
      }
  // Sand that separated earlier (a volume-correction state below 0) in every other particle.
  for (int i = 0; i < kParticles; i += 2)
    if (table[std::size_t(p.material[i])].material.model == MaterialKind::drucker_prager)
      p.plastic[i] = -0.02f * std::fabs(u(rng));
  TransferArgs a;
  a.particles = kParticles;
  a.dims = D;
  a.geo = ra.geo;
  for (int d = 0; d < 3; ++d) a.clamp_lo[d] = 0.0f, a.clamp_hi[d] = 16.0f;
  a.classes = table.data();
  float wave_max = 0.0f;
  a.wave_max = &wave_max;
  a.asflip = asflip, a.flip = 0.95f, a.advect = 1.0f;
  a.split_force = split_force;
  ctl.rebuild = 0;
  ctl.active = 1;
  ctl.dt = 1e-3f, ctl.dt_prev = 2e-3f, ctl.time = 0.5;
  const std::size_t n = std::size_t(kParticles);
  const std::size_t floats =
      std::size_t(ctl.num_blocks) * kBlockNodes * std::size_t(g.accum_stride);

  // P2G: per particle into a grid of the test's, then the packs into the grid's accumulator.
  const std::vector<float> f0(p.f, p.f + 9 * n), plastic0(p.plastic, p.plastic + n);
  std::vector<float> accum_ref(floats, 0.0f);
  for (int i = 0; i < kParticles; ++i)
    detail::p2g_particle_body<D>(a, p, g, i, ctl.dt, ctl.dt_prev, faults.view(),
                                 detail::HostSink{accum_ref.data(), g.accum_stride});
  const std::vector<float> f_ref(p.f, p.f + 9 * n), plastic_ref(p.plastic, p.plastic + n);
  const float wave_ref = wave_max;
  std::copy(f0.begin(), f0.end(), p.f), std::copy(plastic0.begin(), plastic0.end(), p.plastic);
  std::fill(g.accum, g.accum + floats, 0.0f);
  wave_max = 0.0f;
  const int gate = 1;
  enqueue_p2g(host, a, p, g, &ctl, faults.view(), &gate, true);
  ASSERT_FALSE(faults.read()) << "P2G fault " << faults.read().code;
  EXPECT_SAME_BITS(g.accum, accum_ref.data(), floats, "grid sum");
  EXPECT_SAME_BITS(p.f, f_ref.data(), 9 * n, "F");
  EXPECT_SAME_BITS(p.plastic, plastic_ref.data(), n, "plastic state");
  EXPECT_SAME_BITS(&wave_max, &wave_ref, 1, "wave speed");
  // Sand in tension yields somewhere in the set: the comparison covers the plastic branch too.
  EXPECT_NE(first_difference(p.plastic, plastic0.data(), n), -1);

  // G2P: grid velocities of every node, then per particle against the packs.
  const std::size_t nodes = std::size_t(ctl.num_blocks) * kBlockNodes;
  for (std::size_t q = 0; q < kVelChannels * nodes; ++q) {
    g.vel[q] = u(rng);
    if (g.vel_old) g.vel_old[q] = u(rng);
  }
  const std::vector<float> x0(p.x, p.x + 3 * n), v0(p.v, p.v + 3 * n), c0(p.c, p.c + 9 * n);
  for (int i = 0; i < kParticles; ++i)
    detail::g2p_particle_body<D>(a, p, g, i, ctl.dt, float(ctl.time), &ctl.zone_escape, &ctl.vmax,
                                 faults.view());
  const std::vector<float> x_ref(p.x, p.x + 3 * n), v_ref(p.v, p.v + 3 * n),
      c_ref(p.c, p.c + 9 * n);
  const float vmax_ref = ctl.vmax;
  std::copy(x0.begin(), x0.end(), p.x), std::copy(v0.begin(), v0.end(), p.v);
  std::copy(c0.begin(), c0.end(), p.c);
  ctl.vmax = 0.0f;
  enqueue_g2p(host, a, p, g, &ctl, faults.view());
  ASSERT_FALSE(faults.read()) << "G2P fault " << faults.read().code;
  EXPECT_SAME_BITS(p.x, x_ref.data(), 3 * n, "x");
  EXPECT_SAME_BITS(p.v, v_ref.data(), 3 * n, "v");
  EXPECT_SAME_BITS(p.c, c_ref.data(), 9 * n, "C");
  EXPECT_SAME_BITS(&ctl.vmax, &vmax_ref, 1, "largest speed");
}

/// run_packs on every width up to the CPU's widest (mpm/host/packs.hpp).
template <int D>
void run_case(bool split_force, bool asflip) {
  for (const detail::HostPacks w :
       {detail::HostPacks::sse2, detail::HostPacks::avx2, detail::HostPacks::avx512}) {
    const PacksCap cap(w);
    if (detail::host_packs() != w) continue;  // the CPU has no such packs
    SCOPED_TRACE(::testing::Message() << detail::host_pack_lanes(w) << "-lane packs");
    run_packs<D>(split_force, asflip);
  }
}

TEST(HostTransfer, PacksMatchThePerParticleBodies) {
  run_case<3>(false, false);
}
TEST(HostTransfer, PacksMatchThePerParticleBodiesAsflipSplitForce) {
  run_case<3>(true, true);
}
TEST(HostTransfer, PacksMatchThePerParticleBodies2D) {
  run_case<2>(false, false);
}
TEST(HostTransfer, PacksMatchThePerParticleBodies2DAsflipSplitForce) {
  run_case<2>(true, true);
}

}  // namespace
}  // namespace silt::mpm
