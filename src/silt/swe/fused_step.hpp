// The CUDA step built the way paper 001 builds it: ghost-cell-decoupled tiles. A thread block owns
// a tile of cells plus one ghost column (west) and one ghost row (south); every thread computes the
// fluxes through the east and north edges of its cell once, into shared memory; after one barrier
// each owned cell adds its four edge fluxes (no recomputation, no atomics between cells). The same
// kernel applies rain, friction and point sources, tracks max depth, raises faults, counts boundary
// inflow and reduces the CFL wave speed, so a step is two launches: the clock (one block) and this.
// It calls exactly the functions of the plain parallel_for path (edges.hpp, cell_update_k.hpp),
// which stays as its test oracle.
#pragma once

#include <cstdint>
#include <optional>

#include "silt/core/exec.hpp"
#include "silt/core/parallel_for.hpp"
#include "silt/swe/views.hpp"

namespace silt::swe::detail {

/// True when the fused tile kernel is available for this exec (CUDA backend compiled in).
bool fused_step_available(const Exec& exec);

/// Features of a step that the tile kernel compiles in only where a view uses them (bits): a scene
/// without them runs an instantiation without their reads, calls and the registers these hold, so
/// the plain wet step does not pay for them (docs/NOTES.md, "Features the tile kernel compiles
/// in"). phase_fused_update launches the instantiation of tile_features(v).
enum TileFeature : unsigned {
  kTileForcing = 1u,    // rain rasters or infiltration (SolverView::forcing)
  kTileFlowEdges = 2u,  // owned cells on flow segments (n_flow_cells > 0): boundary inflow counted
  kTileSources = 4u,    // point sources among the view's cells (n_sources > 0)
  kTileFeatureSets = 8u
};

/// The TileFeature bits of view v's step.
template <class T>
unsigned tile_features(const SolverView<T>& v);

/// Flux + update + sources + max depth + faults + boundary inflow + CFL reduction in one launch.
/// Replaces phase_update, phase_boundary_flow, phase_sources and phase_cfl of the plain path.
/// box: the local cells to update (default: the whole local grid, i.e. one device's step). For a
/// subdomain of a split run it may reach into the halo (ghost cell expansion, or the interior and
/// edge strips of an overlapped exchange, as phase_update_box); halo cells are updated but only
/// owned cells raise faults (global index), count boundary and source inflow (global edge
/// positions) and enter the CFL maximum, so several launches over disjoint boxes add up to one.
/// Tiles of 32 x 8 threads with registers capped for 5 resident blocks per SM in float32 and 4 in
/// float64: the fastest shapes measured on the H200 (docs/NOTES.md, bench/results/
/// swe-tile-2026-12-02h-h200.md and swe-f64-blocks-2026-12-02-h200.md). In float32 each
/// thread owns two rows of a 32 x 16 tile (docs/NOTES.md, "The tile kernel's own instructions").
template <class T>
void phase_fused_update(const Exec& exec, const SolverView<T>& v,
                        std::optional<Box2> box = std::nullopt,
                        const char* label = "swe.fused_update");

/// Tile-kernel launches made in this process so far (tests check that a path really ran).
std::uint64_t fused_launch_count();

}  // namespace silt::swe::detail
