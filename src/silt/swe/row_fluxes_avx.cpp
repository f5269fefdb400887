// packed_edge_fluxes_avx2 (row_fluxes.hpp): 8 float or 4 double lanes. This unit alone is built
// with -mavx2 (no FMA: every operation rounds as in the scalar code) and is called only where the
// CPU has AVX2 (row_fluxes.cpp).
#include "silt/swe/row_fluxes_packed.hpp"

namespace silt::swe::detail {

namespace {
struct Avx2Tag {};
}  // namespace

__attribute__((flatten)) Index packed_edge_fluxes_avx2(const EdgeSide<float>& a,
                                                       const EdgeSide<float>& b, Index n, float g,
                                                       float dry, const FluxRow<float>& f) {
  return packed_edge_fluxes<FloatPack<8, Avx2Tag, float>, 8>(a, b, 0, n, g, dry, f);
}
__attribute__((flatten)) Index packed_edge_fluxes_avx2(const EdgeSide<double>& a,
                                                       const EdgeSide<double>& b, Index n, double g,
                                                       double dry, const FluxRow<double>& f) {
  return packed_edge_fluxes<FloatPack<4, Avx2Tag, double>, 4>(a, b, 0, n, g, dry, f);
}

}  // namespace silt::swe::detail
