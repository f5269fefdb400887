// sse2::, avx2:: and avx512::packed_cell_updates (row_update.hpp): this file is built
// once per instruction set by silt_isa_units (cmake/SiltIsaUnits.cmake), with that set's flags and
// no FMA contraction (every operation rounds as in the scalar code), and called only where the CPU
// has the set (row_update.cpp).
#include "silt/swe/row_update_packed.hpp"

namespace silt::swe::detail::SILT_ISA {

namespace {
struct Tag {};
}  // namespace

__attribute__((flatten)) float packed_cell_updates(const CellRow<float>& c, const FluxRow<float>& x,
                                                   const FluxRow<float>& s, const FluxRow<float>& n,
                                                   Index count, const CellUpdateParams<float>& p,
                                                   unsigned char* left) {
  return packed_cell_updates_width<SILT_ISA_BITS, Tag>(c, x, s, n, count, p, left);
}
__attribute__((flatten)) double packed_cell_updates(
    const CellRow<double>& c, const FluxRow<double>& x, const FluxRow<double>& s,
    const FluxRow<double>& n, Index count, const CellUpdateParams<double>& p, unsigned char* left) {
  return packed_cell_updates_width<SILT_ISA_BITS, Tag>(c, x, s, n, count, p, left);
}

}  // namespace silt::swe::detail::SILT_ISA
