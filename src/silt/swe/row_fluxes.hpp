// The row step's edge fluxes (row_step.hpp), several edges at a time: the staged cells' values of
// W edges side by side in FloatPack lanes (core/math/float_pack.hpp), one well_balanced_flux_k for
// all of them. Each lane computes exactly the scalar flux of its edge (the kernels' branches are
// any()/select() on lanes), so the row step's results are those of the plain phases to the bit
// (SweSolver.RowStepMatchesThePlainPathBitForBit, tests/unit/swe_pack_test.cpp). Host only: the
// packs are GCC vector types that nvcc never parses, so row_fluxes.cpp and row_fluxes_isa.cpp (once
// per wider instruction set, cmake/SiltIsaUnits.cmake) are built by the host compiler in every
// build; the widest the CPU has is
// picked at run time: AVX-512F (16 float or 8 double lanes), AVX2 (8 or 4) or SSE2 (4 or 2).
#pragma once

#include "silt/core/config.hpp"
#include "silt/swe/kernels/bed_source_k.hpp"
#include "silt/swe/row_step.hpp"
#include "silt/swe/views.hpp"

namespace silt::swe::detail {

/// x edge fluxes of row j: f[k] is the west edge of cell i0 + k, k in [0, i1 - i0].
template <class T>
void row_x_fluxes(const EdgeView<T>& e, Index j, Index i0, Index i1, const StagedRow<T>& r,
                  const FluxRow<T>& f);

/// y edge fluxes between rows j - 1 (below) and j (above): f[k] for the edge south of cell i0 + k,
/// k in [0, i1 - i0).
template <class T>
void row_y_fluxes(const EdgeView<T>& e, Index j, Index i0, Index i1, const StagedRow<T>& below,
                  const StagedRow<T>& above, const FluxRow<T>& f);

/// One side of a run of edges, in the edges' normal frame: un is the staged u for x edges and v
/// for y edges (the rotation of normal_state_k). Element k belongs to edge k.
template <class T>
struct EdgeSide {
  const T *h, *un, *ut, *c, *z, *sqrt_h, *celerity;
  const unsigned char* active;
};

/// The fluxes of edges [0, m) between sides a (left) and b (right), m the largest multiple of the
/// pack width <= n, into f[0, m); returns m. A pack's lanes whose sides are not both active hold
/// values to be replaced (edge_flux's general case); a pack with no such pair is skipped.
/// One pair per instruction set, each built from row_fluxes_isa.cpp: sse2, avx2 and avx512.
/// AVX-512F's packs are 16 float / 8 double lanes, then one of 8 / 4 where that many edges remain:
/// the same m as the AVX2 form (the largest multiple of 8 / 4 <= n).
namespace sse2 {
Index packed_edge_fluxes(const EdgeSide<float>& a, const EdgeSide<float>& b, Index n, float g,
                         float dry, const FluxRow<float>& f);
Index packed_edge_fluxes(const EdgeSide<double>& a, const EdgeSide<double>& b, Index n, double g,
                         double dry, const FluxRow<double>& f);
}  // namespace sse2
namespace avx2 {
Index packed_edge_fluxes(const EdgeSide<float>& a, const EdgeSide<float>& b, Index n, float g,
                         float dry, const FluxRow<float>& f);
Index packed_edge_fluxes(const EdgeSide<double>& a, const EdgeSide<double>& b, Index n, double g,
                         double dry, const FluxRow<double>& f);
}  // namespace avx2
namespace avx512 {
Index packed_edge_fluxes(const EdgeSide<float>& a, const EdgeSide<float>& b, Index n, float g,
                         float dry, const FluxRow<float>& f);
Index packed_edge_fluxes(const EdgeSide<double>& a, const EdgeSide<double>& b, Index n, double g,
                         double dry, const FluxRow<double>& f);
}  // namespace avx512

}  // namespace silt::swe::detail
