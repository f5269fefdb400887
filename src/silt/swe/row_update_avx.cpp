// packed_cell_updates_avx2 (row_update.hpp): 8 float or 4 double lanes. This unit alone is built
// with -mavx2 (no FMA: every operation rounds as in the scalar code) and is called only where the
// CPU has AVX2 (row_update.cpp).
#include "silt/swe/row_update_packed.hpp"

namespace silt::swe::detail {

namespace {
struct Avx2Tag {};
}  // namespace

__attribute__((flatten)) float packed_cell_updates_avx2(
    const CellRow<float>& c, const FluxRow<float>& x, const FluxRow<float>& s,
    const FluxRow<float>& n, Index count, const CellUpdateParams<float>& p, unsigned char* left) {
  return packed_cell_updates<FloatPack<8, Avx2Tag, float>, 8>(c, x, s, n, 0, count, p, left);
}
__attribute__((flatten)) double packed_cell_updates_avx2(
    const CellRow<double>& c, const FluxRow<double>& x, const FluxRow<double>& s,
    const FluxRow<double>& n, Index count, const CellUpdateParams<double>& p, unsigned char* left) {
  return packed_cell_updates<FloatPack<4, Avx2Tag, double>, 4>(c, x, s, n, 0, count, p, left);
}

}  // namespace silt::swe::detail
