// packed_edge_fluxes_avx512 (row_fluxes.hpp): 16 float or 8 double lanes, then one pack of half
// that width (8 / 4 lanes, 256-bit) where at least that many edges remain, so that a row's tail
// left to the edge-by-edge pass is no longer than with AVX2's packs. This unit alone is built with
// -mavx512f -ffp-contract=off and is called only where the CPU has AVX-512F (row_fluxes.cpp):
// AVX-512F brings FMA instructions, and g++ would otherwise fuse a * b + c with them; without
// fusion every operation rounds as in the scalar code.
#include "silt/swe/row_fluxes_packed.hpp"

namespace silt::swe::detail {

namespace {
struct Avx512Tag {};
}  // namespace

__attribute__((flatten)) Index packed_edge_fluxes_avx512(const EdgeSide<float>& a,
                                                         const EdgeSide<float>& b, Index n, float g,
                                                         float dry, const FluxRow<float>& f) {
  const Index m = packed_edge_fluxes<FloatPack<16, Avx512Tag, float>, 16>(a, b, 0, n, g, dry, f);
  return packed_edge_fluxes<FloatPack<8, Avx512Tag, float>, 8>(a, b, m, n, g, dry, f);
}
__attribute__((flatten)) Index packed_edge_fluxes_avx512(const EdgeSide<double>& a,
                                                         const EdgeSide<double>& b, Index n,
                                                         double g, double dry,
                                                         const FluxRow<double>& f) {
  const Index m = packed_edge_fluxes<FloatPack<8, Avx512Tag, double>, 8>(a, b, 0, n, g, dry, f);
  return packed_edge_fluxes<FloatPack<4, Avx512Tag, double>, 4>(a, b, m, n, g, dry, f);
}

}  // namespace silt::swe::detail
