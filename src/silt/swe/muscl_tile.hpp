// The second-order step's stages (physics.scheme = "muscl") as CUDA tile kernels, built as the
// first-order tile kernel (fused_step.hpp, after paper 001's ghost-cell decoupling) but with a
// ring of two: a block stages its tile of cells plus two ghost layers in shared memory, computes
// each cell's limited slopes (x and y) once, each edge's flux once, then updates its cells. One
// launch per stage: stage 1 (U* = U^n + dt L(U^n)) and the final stage (Heun's average,
// infiltration, maximum depth and, in a scene without point sources, the CFL speed). They call
// the functions of the plain phases (muscl_step.hpp: muscl_edges.hpp, muscl_cell.hpp), which stay
// as their test oracle; the engine picks them by the first order's rule (fused_step_available).
#pragma once

#include <cstdint>

#include "silt/core/exec.hpp"
#include "silt/core/parallel_for.hpp"
#include "silt/swe/views.hpp"

namespace silt::swe::detail {

/// Stage 1 over box, as phase_muscl_stage: from v.e's state into v's next-state grids (the third
/// state buffer). The box may reach into a split run's halo (ghost cell expansion) with two valid
/// layers beyond it; only owned cells raise faults.
template <class T>
void phase_muscl_tile_stage(const Exec& exec, const SolverView<T>& v, Box2 box, const char* label);

/// The final stage over box, as phase_muscl_final: U^n from v.e, U* and its fluxes from star, into
/// v's next-state grids, then infiltration and the maximum depth. with_cfl: also the largest wave
/// speed of the owned active cells' new state into *v.smax (phase_cfl_step's maximum, to the bit),
/// which the caller then leaves out; only where nothing changes the state after this stage (no
/// point sources).
template <class T>
void phase_muscl_tile_final(const Exec& exec, const SolverView<T>& v, const EdgeView<T>& star,
                            Box2 box, bool with_cfl, const char* label);

/// One MUSCL-Hancock step over box (physics.scheme = "muscl_hancock"; kernels/muscl_hancock_k.hpp):
/// from v.e's state U^n into v's next-state grids, in one launch: slopes, the half-step predictor,
/// each edge's flux between predicted face states, the first-order cell update (muscl_cell.hpp),
/// infiltration, the maximum depth and, with with_cfl, the CFL speed as phase_muscl_tile_final.
/// A split run's box reaches r halo layers out when r + 2 are valid (ghost cell expansion, as a
/// muscl stage).
template <class T>
void phase_hancock_tile(const Exec& exec, const SolverView<T>& v, Box2 box, bool with_cfl,
                        const char* label);

/// Muscl tile-kernel launches made in this process so far (tests check that the path really ran).
std::uint64_t muscl_tile_launch_count();

}  // namespace silt::swe::detail
