// The CUDA step built the way paper 001 builds it: ghost-cell-decoupled tiles. A thread block owns
// a tile of cells plus one ghost column (west) and one ghost row (south); every thread computes the
// fluxes through the east and north edges of its cell once, into shared memory; after one barrier
// each owned cell adds its four edge fluxes (no recomputation, no atomics between cells). The same
// kernel applies rain, friction and point sources, tracks max depth, raises faults, counts boundary
// inflow and reduces the CFL wave speed, so a step is two launches: the clock (one block) and this.
// It calls exactly the functions of the plain parallel_for path (edges.hpp, cell_update_k.hpp),
// which stays as its test oracle.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

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
  kTileHazard = 8u,     // hazard outputs accumulated in the kernel (SolverView::hazard; float64)
  kTileFeatureSets = 16u
};

/// Whether the tile kernel of T accumulates the hazard fields itself (kTileHazard), so that the
/// step skips phase_hazard: in float64 only. The float32 kernel is compiled with fast math
/// (approximate square root and division, denormals flushed: src/silt/swe/CMakeLists.txt), so its
/// hazard values would not be phase_hazard's bits; its steps keep the separate pass.
template <class T>
inline constexpr bool kTileHazardFolds = sizeof(T) == 8;
/// The feature sets compiled for T: every set in float64, those without kTileHazard in float32.
template <class T>
inline constexpr unsigned kTileFeatureSetsOf = kTileHazardFolds<T> ? kTileFeatureSets : kTileHazard;

/// The TileFeature bits of view v's step.
template <class T>
unsigned tile_features(const SolverView<T>& v);

/// The tile kernel's tiles: kTileX x kTileY threads; each thread owns kTileRows<T> rows (two in
/// float32, one in float64). Tiles overlap by their ghost column and row, so a tile updates
/// tile_cols() x tile_rows<T>() cells.
constexpr int kTileX = 32, kTileY = 8;
template <class T>
constexpr int kTileRows = sizeof(T) == 4 ? 2 : 1;
constexpr Index tile_cols() {
  return kTileX - 1;
}
template <class T>
constexpr Index tile_rows() {
  return Index(kTileY) * kTileRows<T> - 1;
}

/// The tiles of the tile kernel over `box` that update at least one active cell (active(i, j) of
/// the view's local cells), each packed as (by << 16) | bx in launch order (row by row): the
/// compact list that phase_fused_update launches instead of every tile of the box, so that the
/// tiles of a grid's nodata (mask) cost nothing. A skipped tile's cells are inactive, whose state
/// no path changes and whose two buffers agree, so skipping it changes no value. Empty (launch
/// every tile) when the box's tiles do not fit 16 bits a side.
template <class T, class Active>
std::vector<std::uint32_t> active_tiles(Box2 box, Active active) {
  const Index cols = tile_cols(), rows = tile_rows<T>();
  const Index gx = (box.i1 - box.i0 + cols - 1) / cols, gy = (box.j1 - box.j0 + rows - 1) / rows;
  std::vector<std::uint32_t> out;
  if (box.count() == 0 || gx > 0xffff || gy > 0xffff) return out;
  for (Index by = 0; by < gy; ++by)
    for (Index bx = 0; bx < gx; ++bx) {
      bool any = false;
      for (Index j = box.j0 + by * rows; j < std::min(box.j1, box.j0 + (by + 1) * rows) && !any;
           ++j)
        for (Index i = box.i0 + bx * cols; i < std::min(box.i1, box.i0 + (bx + 1) * cols); ++i)
          if (active(i, j)) {
            any = true;
            break;
          }
      if (any) out.push_back((std::uint32_t(by) << 16) | std::uint32_t(bx));
    }
  return out;
}

/// A list of active_tiles() on the device and the box it was made for: phase_fused_update launches
/// the list when its box is that box and it leaves a tile out, every tile of the box otherwise (a
/// list of all the tiles is the grid itself, whose blocks need no load to find their tile).
struct TileList {
  const std::uint32_t* tiles = nullptr;
  unsigned count = 0;
  Box2 box{0, 0, 0, 0};
};

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
                        const char* label = "swe.fused_update", const TileList& list = {});

/// Bytes of parameters a kernel launch may take (CUDA 12.1 and later, on sm_70 and later).
inline constexpr std::size_t kKernelParamBytes = 32764;

/// N views passed by value as the tile kernel's `__grid_constant__` parameter (with the box and
/// the tile list): a block reads its view from the constant bank, never from global memory.
template <class T, int N>
struct TileViews {
  SolverView<T> v[N];
};
/// The members' views of one launch of the batched tile kernel: as many as fit the parameters.
template <class T>
inline constexpr int kTileBatchMax = int((kKernelParamBytes - sizeof(Box2) - sizeof(const void*)) /
                                         sizeof(SolverView<T>));
template <class T>
using TileBatchViews = TileViews<T, kTileBatchMax<T>>;
static_assert(sizeof(TileBatchViews<float>) + sizeof(Box2) + sizeof(const void*) <=
                  kKernelParamBytes,
              "the batched tile kernel's parameters exceed a launch's");
static_assert(sizeof(TileBatchViews<double>) + sizeof(Box2) + sizeof(const void*) <=
                  kKernelParamBytes,
              "the batched tile kernel's parameters exceed a launch's");

/// phase_fused_update over the same box of every view in `views` (members of swe::Batch: the same
/// nx, ny, ring, tile_features(), and a `list` valid for all of them), in launches of
/// kTileBatchMax<T> members each: block (x, y, z) steps tile (x, y) of member z. Each
/// member's cells, bits and counts are those of its own phase_fused_update.
template <class T>
void phase_fused_update_batch(const Exec& exec, const std::vector<SolverView<T>>& views, Box2 box,
                              const char* label = "swe.fused_update.batch",
                              const TileList& list = {});

/// Tile-kernel launches made in this process so far (tests check that a path really ran).
std::uint64_t fused_launch_count();
/// Tile-kernel blocks (tiles) launched in this process so far (tests check that the tiles of
/// inactive cells are skipped).
std::uint64_t fused_tile_count();

}  // namespace silt::swe::detail
