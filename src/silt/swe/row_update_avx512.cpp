// packed_cell_updates_avx512 (row_update.hpp): 16 float or 8 double lanes, then one pack of half
// that width (8 / 4 lanes, 256-bit) where at least that many cells remain, so that a row's tail
// left to the cell-by-cell pass is no longer than with AVX2's packs. This unit alone is built with
// -mavx512f -ffp-contract=off and is called only where the CPU has AVX-512F (row_update.cpp):
// AVX-512F brings FMA instructions, and g++ would otherwise fuse a * b + c with them; without
// fusion every operation rounds as in the scalar code.
#include <algorithm>

#include "silt/swe/row_update_packed.hpp"

namespace silt::swe::detail {

namespace {
struct Avx512Tag {};
}  // namespace

__attribute__((flatten)) float packed_cell_updates_avx512(
    const CellRow<float>& c, const FluxRow<float>& x, const FluxRow<float>& s,
    const FluxRow<float>& n, Index count, const CellUpdateParams<float>& p, unsigned char* left) {
  const Index half = count - count % 16;
  const float a =
      packed_cell_updates<FloatPack<16, Avx512Tag, float>, 16>(c, x, s, n, 0, count, p, left);
  const float b =
      packed_cell_updates<FloatPack<8, Avx512Tag, float>, 8>(c, x, s, n, half, count, p, left);
  return std::max(a, b);  // speeds are >= +0 and not NaN
}
__attribute__((flatten)) double packed_cell_updates_avx512(
    const CellRow<double>& c, const FluxRow<double>& x, const FluxRow<double>& s,
    const FluxRow<double>& n, Index count, const CellUpdateParams<double>& p, unsigned char* left) {
  const Index half = count - count % 8;
  const double a =
      packed_cell_updates<FloatPack<8, Avx512Tag, double>, 8>(c, x, s, n, 0, count, p, left);
  const double b =
      packed_cell_updates<FloatPack<4, Avx512Tag, double>, 4>(c, x, s, n, half, count, p, left);
  return std::max(a, b);  // speeds are >= +0 and not NaN
}

}  // namespace silt::swe::detail
