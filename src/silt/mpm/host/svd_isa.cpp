// svd3_lanes<8> for CPUs with AVX but not AVX2 (mpm/host/svd.hpp): this file is built for AVX by
// silt_isa_units (cmake/SiltIsaUnits.cmake), without FMA, so every lane keeps svd3<float>'s
// separate roundings. Its pack type is tagged with a type of this file's anonymous namespace, so
// every function instantiated for it has internal linkage: no AVX copy of an inline function can
// stand in for a baseline one at link time (nm shows no weak symbols here).
#include "silt/mpm/host/svd.hpp"

namespace silt::mpm::detail::SILT_ISA {

namespace {
struct Unit {};
}  // namespace

void svd3_lanes8(const Mat3f* f, Svd3<float>* out) {
  svd3_lanes<SILT_ISA_BITS / 32, Unit>(f, out);
}

}  // namespace silt::mpm::detail::SILT_ISA
