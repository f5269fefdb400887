// SVDs of several particles' F at once on the host (SIMD across particles): svd3 on FloatPack
// lanes, each lane the bits of svd3<float> for its matrix (float_pack.hpp). 4 lanes on baseline
// x86-64 (SSE2); 8 where the CPU has AVX, from a translation unit built for it
// (mpm/host/svd_isa.cpp) and picked at run time. Host compiler only (mpm/host/p2g.cpp,
// mpm/host/svd_isa.cpp).
#pragma once

#include "silt/core/math/float_pack.hpp"
#include "silt/core/math/mat.hpp"
#include "silt/core/math/svd3.hpp"

namespace silt::mpm::detail {

/// Matrices per call of host_svd3 (the widest pack).
constexpr int kHostSvdLanes = 8;

/// out[l] = svd3(f[l]) for l < W, computed on W lanes together (Tag: FloatPack's).
template <int W, class Tag = void>
inline void svd3_lanes(const Mat3f* f, Svd3<float>* out) {
  Mat3<FloatPack<W, Tag>> p;
  for (int l = 0; l < W; ++l)
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c) p.m[r][c].set(l, f[l].m[r][c]);
  const Svd3<FloatPack<W, Tag>> d = svd3(p);
  for (int l = 0; l < W; ++l) {
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c) {
        out[l].u.m[r][c] = d.u.m[r][c][l];
        out[l].v.m[r][c] = d.v.m[r][c][l];
      }
    for (int k = 0; k < 3; ++k) out[l].sigma[k] = d.sigma[k][l];
  }
}

/// svd3_lanes<8> built for AVX (mpm/host/svd_isa.cpp); call only where host_svd_has_avx().
namespace avx {
void svd3_lanes8(const Mat3f* f, Svd3<float>* out);
}  // namespace avx
/// Whether this CPU (and its OS) runs AVX.
bool host_svd_has_avx();

/// out[l] = svd3(f[l]) for the kHostSvdLanes matrices f: one AVX pack of 8, or two SSE2 packs.
inline void host_svd3(const Mat3f* f, Svd3<float>* out, bool avx) {
  if (avx) {
    avx::svd3_lanes8(f, out);
  } else {
    svd3_lanes<4>(f, out);
    svd3_lanes<4>(f + 4, out + 4);
  }
}

}  // namespace silt::mpm::detail
