// svd3_lanes<8> for CPUs with AVX (host_svd.hpp), this file alone built with -mavx (and no FMA, so
// every lane keeps svd3<float>'s separate roundings). Its pack type is tagged with a type of this
// file's anonymous namespace, so every function instantiated for it has internal linkage: no AVX
// copy of an inline function can stand in for a baseline one at link time (nm shows no weak
// symbols here).
#include "silt/mpm/host_svd.hpp"

namespace silt::mpm::detail {

namespace {
struct AvxUnit {};
}  // namespace

void svd3_lanes8_avx(const Mat3f* f, Svd3<float>* out) {
  svd3_lanes<8, AvxUnit>(f, out);
}

}  // namespace silt::mpm::detail
