// The host P2G (mpm/host/p2g.hpp): the packed body (mpm/host/p2g_packed.hpp) on SSE2's 4 lanes, or
// the AVX2 unit's 8 or the AVX-512 unit's 16 where the CPU has them (mpm/host/packs.hpp). Compiled
// by the host compiler in every build (FloatPack is a GCC vector type that nvcc never sees), with
// -fno-math-errno so the packs' square roots are vector instructions (src/silt/mpm/CMakeLists.txt).
#include "silt/mpm/host/p2g.hpp"

#include "silt/mpm/host/p2g_packed.hpp"
#include "silt/mpm/host/packs.hpp"

namespace silt::mpm::detail {

namespace {

struct Sse2Unit {};
/// Particles whose scatter arithmetic shares one pack: SSE2's 4 lanes (baseline x86-64).
constexpr int kLanes = 4;
using Pack = FloatPack<kLanes, Sse2Unit>;

/// The batch's SVDs: one AVX pack of 8 where the CPU has AVX (mpm/host/svd_isa.cpp; its matrices
/// and results move through memory), else svd3 on the two SSE2 packs.
struct HostSvdBatch {
  static constexpr int kPacks = kHostSvdLanes / kLanes;
  bool avx;
  void operator()(const Mat3<Pack> (&f)[kPacks], Svd3<Pack> (&out)[kPacks]) const {
    if (!avx) {
      for (int k = 0; k < kPacks; ++k) out[k] = svd3(f[k]);
      return;
    }
    Mat3f fl[kHostSvdLanes];
    Svd3<float> dl[kHostSvdLanes];
    for (int l = 0; l < kHostSvdLanes; ++l)
      for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) fl[l].m[r][c] = f[l / kLanes].m[r][c][l % kLanes];
    avx::svd3_lanes8(fl, dl);
    for (int l = 0; l < kHostSvdLanes; ++l)
      for (int r = 0; r < 3; ++r) {
        out[l / kLanes].sigma[r].set(l % kLanes, dl[l].sigma[r]);
        for (int c = 0; c < 3; ++c) {
          out[l / kLanes].u.m[r][c].set(l % kLanes, dl[l].u.m[r][c]);
          out[l / kLanes].v.m[r][c].set(l % kLanes, dl[l].v.m[r][c]);
        }
      }
  }
};

template <int D>
void p2g(const TransferArgs& a, ParticleView p, GridView g, StepControl* ctl, FaultView fault,
         const int* gate, bool advance_f, Index blocks, HostPartials parts) {
  const float dt = ctl->dt, dt_prev = advance_f ? ctl->dt_prev : 0.0f;
  static const bool avx = host_svd_has_avx();
  const HostPacks packs = host_packs();
  host_scatter("mpm.p2g", a.particles, gate, g, ctl->accum_parity, blocks * kBlockNodes, parts,
               fault, [&](Index lo, Index hi, const HostSink& sink) {
                 if (packs == HostPacks::avx512)
                   avx512::host_p2g_range(D, a, p, g, lo, hi, dt, dt_prev, fault, sink);
                 else if (packs == HostPacks::avx2)
                   avx2::host_p2g_range(D, a, p, g, lo, hi, dt, dt_prev, fault, sink);
                 else
                   packed::p2g_range<Pack, kLanes, kHostSvdLanes, D>(
                       a, p, g, lo, hi, dt, dt_prev, HostSvdBatch{avx}, fault, sink);
               });
}

}  // namespace

bool host_svd_has_avx() {
  return __builtin_cpu_supports("avx");
}

void host_p2g(int dims, const TransferArgs& a, ParticleView p, GridView g, StepControl* ctl,
              FaultView fault, const int* gate, bool advance_f, Index blocks, HostPartials parts) {
  if (dims == 2)
    p2g<2>(a, p, g, ctl, fault, gate, advance_f, blocks, parts);
  else
    p2g<3>(a, p, g, ctl, fault, gate, advance_f, blocks, parts);
}

}  // namespace silt::mpm::detail
