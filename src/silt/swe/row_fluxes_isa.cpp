// sse2::, avx2:: and avx512::packed_edge_fluxes (row_fluxes.hpp): this file is built
// once per instruction set by silt_isa_units (cmake/SiltIsaUnits.cmake), with that set's flags and
// no FMA contraction (every operation rounds as in the scalar code), and called only where the CPU
// has the set (row_fluxes.cpp).
#include "silt/swe/row_fluxes_packed.hpp"

namespace silt::swe::detail::SILT_ISA {

namespace {
struct Tag {};
}  // namespace

__attribute__((flatten)) Index packed_edge_fluxes(const EdgeSide<float>& a,
                                                  const EdgeSide<float>& b, Index n, float g,
                                                  float dry, const FluxRow<float>& f) {
  return packed_edge_fluxes_width<SILT_ISA_BITS, Tag>(a, b, n, g, dry, f);
}
__attribute__((flatten)) Index packed_edge_fluxes(const EdgeSide<double>& a,
                                                  const EdgeSide<double>& b, Index n, double g,
                                                  double dry, const FluxRow<double>& f) {
  return packed_edge_fluxes_width<SILT_ISA_BITS, Tag>(a, b, n, g, dry, f);
}

}  // namespace silt::swe::detail::SILT_ISA
