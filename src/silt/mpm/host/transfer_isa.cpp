// The host P2G and G2P on packs of SILT_ISA_BITS / 32 lanes (mpm/host/packs.hpp picks them): this
// file is built once for AVX2 (8 lanes) and once for AVX-512F (16) by silt_isa_units
// (cmake/SiltIsaUnits.cmake), with that set's flags and no FMA contraction, so that every lane
// keeps the scalar code's separate roundings (the same bits as the SSE2 path and the per-particle
// bodies). Its pack type is tagged with a type of this file's anonymous namespace and the entry
// points are flattened, so no wider copy of an inline function shared with the baseline units is
// left for the linker to pick (nm shows no weak symbols here).
#include "silt/mpm/host/g2p_packed.hpp"
#include "silt/mpm/host/p2g_packed.hpp"

namespace silt::mpm::detail::SILT_ISA {

namespace {

struct Unit {};
constexpr int kLanes = SILT_ISA_BITS / 32;
using Pack = FloatPack<kLanes, Unit>;

/// The batch's SVDs: svd3 on its one pack (built here for this instruction set).
struct SvdBatch {
  void operator()(const Mat3<Pack> (&f)[1], Svd3<Pack> (&out)[1]) const { out[0] = svd3(f[0]); }
};

}  // namespace

__attribute__((flatten)) void host_p2g_range(int dims, const TransferArgs& a, const ParticleView& p,
                                             const GridView& g, Index lo, Index hi, float dt,
                                             float dt_prev, const FaultView& fault,
                                             const HostSink& sink) {
  if (dims == 2)
    packed::p2g_range<Pack, kLanes, kLanes, 2>(a, p, g, lo, hi, dt, dt_prev, SvdBatch{}, fault,
                                               sink);
  else
    packed::p2g_range<Pack, kLanes, kLanes, 3>(a, p, g, lo, hi, dt, dt_prev, SvdBatch{}, fault,
                                               sink);
}

__attribute__((flatten)) void host_g2p_pack(int dims, const TransferArgs& a, const ParticleView& p,
                                            const GridView& g, Index i0, float dt, float t_end,
                                            int* zone_escape, float* vmax, const FaultView& fault) {
  if (dims == 2)
    packed::g2p_pack<Pack, kLanes, 2>(a, p, g, i0, dt, t_end, zone_escape, vmax, fault);
  else
    packed::g2p_pack<Pack, kLanes, 3>(a, p, g, i0, dt, t_end, zone_escape, vmax, fault);
}

}  // namespace silt::mpm::detail::SILT_ISA
