// The host P2G and G2P on 16-lane packs for CPUs with AVX-512F (host_packs.hpp picks them). This
// unit alone is built with -mavx512f and -ffp-contract=off: AVX-512F has FMA instructions of its
// own, and no operation may be fused, so that every lane keeps the scalar code's separate
// roundings (the same bits as the SSE2 path and the per-particle bodies). Its pack type is tagged
// with a type of this file's anonymous namespace and the entry points are flattened, so no
// AVX-512 copy of an inline function shared with the baseline units is left for the linker to
// pick (nm shows no weak symbols here).
#include "silt/mpm/host_g2p_packed.hpp"
#include "silt/mpm/host_p2g_packed.hpp"

namespace silt::mpm::detail {

namespace {

struct Avx512Unit {};
constexpr int kLanes = 16;
using Pack = FloatPack<kLanes, Avx512Unit>;

/// The batch's SVDs: svd3 on its one pack (built here for AVX-512).
struct SvdBatch {
  void operator()(const Mat3<Pack> (&f)[1], Svd3<Pack> (&out)[1]) const { out[0] = svd3(f[0]); }
};

}  // namespace

__attribute__((flatten)) void host_p2g_range_avx512(int dims, const TransferArgs& a,
                                                    const ParticleView& p, const GridView& g,
                                                    Index lo, Index hi, float dt, float dt_prev,
                                                    const FaultView& fault, const HostSink& sink) {
  if (dims == 2)
    packed::p2g_range<Pack, kLanes, kLanes, 2>(a, p, g, lo, hi, dt, dt_prev, SvdBatch{}, fault,
                                               sink);
  else
    packed::p2g_range<Pack, kLanes, kLanes, 3>(a, p, g, lo, hi, dt, dt_prev, SvdBatch{}, fault,
                                               sink);
}

__attribute__((flatten)) void host_g2p_pack_avx512(int dims, const TransferArgs& a,
                                                   const ParticleView& p, const GridView& g,
                                                   Index i0, float dt, float t_end,
                                                   int* zone_escape, float* vmax,
                                                   const FaultView& fault) {
  if (dims == 2)
    packed::g2p_pack<Pack, kLanes, 2>(a, p, g, i0, dt, t_end, zone_escape, vmax, fault);
  else
    packed::g2p_pack<Pack, kLanes, 3>(a, p, g, i0, dt, t_end, zone_escape, vmax, fault);
}

}  // namespace silt::mpm::detail
