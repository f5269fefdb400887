// The host P2G with its SVDs on batches of particles (host_p2g.hpp, host_svd.hpp). Compiled by
// the host compiler in every build (FloatPack is a GCC vector type that nvcc never sees), with
// -fno-math-errno so the packs' square roots are vector instructions (src/silt/mpm/CMakeLists.txt).
#include "silt/mpm/host_p2g.hpp"

#include <algorithm>

#include "silt/mpm/host_scatter.hpp"
#include "silt/mpm/host_svd.hpp"
#include "silt/mpm/transfer_body.hpp"

namespace silt::mpm::detail {

namespace {

/// material_stress's SVD of a particle, taken from its batch's (the same F, the same bits).
struct BatchSvd3 {
  const Svd3<float>* d;
  Svd3<float> operator()(const Mat3f&) const { return *d; }
};

/// The SVDs of the F that P2G's material models take, for particles [i0, i0 + n), n <= the
/// batch (none when no particle needs one; lanes without a particle that needs one decompose the
/// identity and are not read).
void batch_svd(const TransferArgs& a, const ParticleView& p, Index i0, int n, float dt_prev,
               bool avx, Svd3<float> (&out)[kHostSvdLanes]) {
  Mat3f f[kHostSvdLanes];
  bool needed = false;
  for (int l = 0; l < kHostSvdLanes; ++l) {
    f[l] = Mat3f::identity();
    if (l >= n || !material_uses_svd(a.classes[p.material[i0 + l]].material)) continue;
    needed = true;
    f[l] = p2g_deformation(p, i0 + l, dt_prev);
  }
  if (needed) host_svd3(f, out, avx);
}

template <int D>
void p2g(const TransferArgs& a, ParticleView p, GridView g, StepControl* ctl, FaultView fault,
         const int* gate, bool advance_f, Index blocks, HostPartials parts) {
  const float dt = ctl->dt, dt_prev = advance_f ? ctl->dt_prev : 0.0f;
  static const bool avx = host_svd_has_avx();
  host_scatter("mpm.p2g", a.particles, gate, accum_of(g, ctl->accum_parity), g.accum_stride,
               blocks * kBlockNodes, parts, [&](Index lo, Index hi, const HostSink& sink) {
                 for (Index i0 = lo; i0 < hi; i0 += kHostSvdLanes) {
                   const int n = int(std::min<Index>(kHostSvdLanes, hi - i0));
                   Svd3<float> d[kHostSvdLanes];
                   batch_svd(a, p, i0, n, dt_prev, avx, d);
                   for (int l = 0; l < n; ++l)
                     p2g_particle_body<D>(a, p, g, i0 + l, dt, dt_prev, fault, sink,
                                          BatchSvd3{&d[l]});
                 }
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
