// The launches of a second-order step (physics.scheme = "muscl"; kernels/muscl_k.hpp): Heun's two
// stages, each the first-order cell update (update_cell_k: rain, wet/dry, friction) on the edge
// fluxes of muscl_edges.hpp. The engine runs them between the clock and the plain phases that
// follow an update (boundary flow, sources, CFL). Free functions, instantiated for float and
// double in muscl_step.cpp, as phases.hpp.
#pragma once

#include "silt/core/exec.hpp"
#include "silt/core/parallel_for.hpp"
#include "silt/swe/views.hpp"

namespace silt::swe::detail {

/// Stage 1 over box: U* = U^n + dt L(U^n) from v.e's state into v's next-state grids (the third
/// state buffer). A no-op step copies U^n. Faults are raised for owned cells only, as in
/// phase_update_box.
template <class T>
void phase_muscl_stage(const Exec& exec, const SolverView<T>& v, Box2 box, const char* label);

/// Stage 2 over box: U^{n+1} = (U^n + U* + dt L(U*)) / 2, U^n from v.e, U* from star (with its
/// fluxes), into v's next-state grids; then infiltration and the maximum depth as
/// phase_update_box. A no-op step carries U^n over.
template <class T>
void phase_muscl_final(const Exec& exec, const SolverView<T>& v, const EdgeView<T>& star, Box2 box,
                       const char* label);

/// One MUSCL-Hancock step over box (physics.scheme = "muscl_hancock"; kernels/muscl_hancock_k.hpp)
/// from v.e's state U^n into v's next-state grids: each edge's flux between predicted face states
/// (each cell's prediction recomputed for every edge that reads it), the update, the boundary
/// volume of the owned flow edges, infiltration and the maximum depth. The tile kernel's oracle
/// (phase_hancock_tile). On a split run box may reach r halo layers out when r + 2 are valid.
template <class T>
void phase_hancock(const Exec& exec, const SolverView<T>& v, Box2 box, const char* label);

}  // namespace silt::swe::detail
