// The host G2P (mpm/host/g2p.hpp): the packed body (mpm/host/g2p_packed.hpp) on SSE2's 4 lanes, or
// the AVX2 unit's 8 or the AVX-512 unit's 16 where the CPU has them (mpm/host/packs.hpp). Compiled
// by the host compiler in every build (FloatPack is a GCC vector type that nvcc never sees).
#include "silt/mpm/host/g2p.hpp"

#include "silt/core/gated_for.hpp"
#include "silt/mpm/host/g2p_packed.hpp"
#include "silt/mpm/host/packs.hpp"

namespace silt::mpm::detail {

namespace {

struct Sse2Unit {};
/// Particles per pack: SSE2's 4 float lanes (baseline x86-64).
constexpr int kLanes = 4;
using Pack = FloatPack<kLanes, Sse2Unit>;

template <int D>
void g2p(const TransferArgs& a, ParticleView p, GridView g, StepControl* ctl, FaultView fault) {
  const float dt = ctl->dt, t_end = float(ctl->time);
  int* zone_escape = &ctl->zone_escape;
  float* vmax = &ctl->vmax;
  const HostPacks width = host_packs();
  const int lanes = host_pack_lanes(width);
  const Index n = a.particles, packs = n / lanes;
  const auto body = [&](Index b) {
    if (b < packs && width == HostPacks::avx512) {
      avx512::host_g2p_pack(D, a, p, g, b * lanes, dt, t_end, zone_escape, vmax, fault);
    } else if (b < packs && width == HostPacks::avx2) {
      avx2::host_g2p_pack(D, a, p, g, b * lanes, dt, t_end, zone_escape, vmax, fault);
    } else if (b < packs) {
      packed::g2p_pack<Pack, kLanes, D>(a, p, g, b * lanes, dt, t_end, zone_escape, vmax, fault);
    } else {
      for (Index i = packs * lanes; i < n; ++i)
        g2p_particle_body<D>(a, p, g, i, dt, t_end, zone_escape, vmax, fault);
    }
  };
  silt::detail::gated_host_loop("mpm.g2p", packs + (n % lanes ? 1 : 0), &ctl->active, body);
}

}  // namespace

void host_g2p(int dims, const TransferArgs& a, ParticleView p, GridView g, StepControl* ctl,
              FaultView fault) {
  if (dims == 2)
    g2p<2>(a, p, g, ctl, fault);
  else
    g2p<3>(a, p, g, ctl, fault);
}

}  // namespace silt::mpm::detail
