#include "silt/swe/fused_step.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <memory>
#include <utility>

#include "silt/core/error.hpp"
#include "silt/swe/edges.hpp"
#include "silt/swe/kernels/cell_update_k.hpp"
#include "silt/swe/kernels/cfl_k.hpp"
#include "silt/swe/point_source.hpp"

#if SILT_HAS_CUDA
#include <cuda_runtime.h>

#include "silt/core/launch.hpp"
#include "silt/swe/block_max.hpp"
#endif

namespace silt::swe::detail {

bool fused_step_available(const Exec& exec) {
  return SILT_HAS_CUDA && exec.is_cuda();
}

namespace {
std::atomic<std::uint64_t> g_fused_launches{0}, g_fused_tiles{0};
}  // namespace

std::uint64_t fused_launch_count() {
  return g_fused_launches.load(std::memory_order_relaxed);
}

std::uint64_t fused_tile_count() {
  return g_fused_tiles.load(std::memory_order_relaxed);
}

template <class T>
unsigned tile_features(const SolverView<T>& v) {
  unsigned f = 0;
  if (v.forcing.rain_a != nullptr || v.forcing.model != kNoInfiltration) f |= kTileForcing;
  if (v.n_flow_cells > 0) f |= kTileFlowEdges;
  if (v.n_sources > 0) f |= kTileSources;
  if (kTileHazardFolds<T> && v.hazard.params.fields != 0) f |= kTileHazard;
  return f;
}

#if SILT_HAS_CUDA
namespace {

// The tile's cells as the edge fluxes need them, computed once per cell (paper 001, Fig. 4: each
// thread stages its cell, then computes its east and north edge fluxes): the velocities and the
// concentration with one division (primitive_state_k(), within two ulps of what normal_state_k()
// derives for edge_flux()) and the depth roots (depth_roots_k()), so that no edge side divides or
// takes a square root of its cell again. Structure of arrays: no bank conflicts.
template <class T, int TX, int TY>
struct TileCells {
  T h[TY + 1][TX + 1], u[TY + 1][TX + 1], v[TY + 1][TX + 1], c[TY + 1][TX + 1], z[TY + 1][TX + 1];
  T sqrt_h[TY + 1][TX + 1], celerity[TY + 1][TX + 1];  // depth_roots_k(h): once per cell
  unsigned char active[TY + 1][TX + 1];                // 0: inactive or outside the grid
};

// The tile's edge fluxes, [0][y][x] through the east edge of its cell (x, y) and [1][y][x] through
// the north edge, as a structure of arrays with TileCells' pitch TX + 1: a thread's staged cells
// and its four edges then lie at fixed offsets from one index, and every shared access takes that
// one register plus a constant (an array of EdgeFlux structs had its own index, which the compiler
// recomputed at each use under the register cap).
template <class T, int TX, int TY>
struct TileFluxes {
  T h[2][TY][TX + 1], un_left[2][TY][TX + 1], un_right[2][TY][TX + 1], ut[2][TY][TX + 1],
      c[2][TY][TX + 1];
  __device__ SILT_FORCEINLINE EdgeFlux<T> at(int d, int y, int x) const {
    return EdgeFlux<T>{h[d][y][x], un_left[d][y][x], un_right[d][y][x], ut[d][y][x], c[d][y][x]};
  }
  __device__ SILT_FORCEINLINE void set(int d, int y, int x, const EdgeFlux<T>& f) {
    h[d][y][x] = f.h;
    un_left[d][y][x] = f.un_left;
    un_right[d][y][x] = f.un_right;
    ut[d][y][x] = f.ut;
    c[d][y][x] = f.c;
  }
};

// Returns whether the cell is active. kChecked: test that (i, j) lies in the view (false: the
// caller knows that it does). Every read is issued before the active test, through the read-only
// path: a cell's loads wait on one round trip to L2 rather than two (its active flag, then its
// state), and the compiler may move them ahead of the tile's stores. A cell outside the view reads
// offset 0 (in the allocation); an inactive cell's staged values are never read.
template <bool kChecked = true, class T, int TX, int TY>
__device__ SILT_FORCEINLINE bool stage_cell(TileCells<T, TX, TY>& t, int ty, int tx,
                                            const EdgeView<T>& e, Index i, Index j) {
  // The cells a view can read: owned cells and its halo of ext layers (ext = 0 on one device).
  const bool inside =
      !kChecked || (i >= -e.ext && j >= -e.ext && i < e.nx + e.ext && j < e.ny + e.ext);
  const Index off = inside ? e.h.offset(i, j) : 0;
  const bool act = inside && __ldg(e.active.ptr + off) != 0;
  const T h = __ldg(e.h.ptr + off);
  const CellState<T> s{h, __ldg(e.hu.ptr + off), __ldg(e.hv.ptr + off), __ldg(e.hc.ptr + off)};
  const T z = __ldg(e.z.ptr + off);
  t.active[ty][tx] = act;
  const NormalState<T> p = primitive_state_k(s, e.dry);
  t.h[ty][tx] = h;
  t.u[ty][tx] = p.un;
  t.v[ty][tx] = p.ut;
  t.c[ty][tx] = p.c;
  t.z[ty][tx] = z;
  const DepthRoots<T> r = depth_roots_k(h, e.g);
  t.sqrt_h[ty][tx] = r.sqrt_h;
  t.celerity[ty][tx] = r.celerity;
  return act;
}

// Flux through the edge between staged cells a (left) and b (right); x_normal picks the rotation
// of normal_state_k(). Both active, or (wall) exactly one, where edge_flux() would take a plain
// wall: an inactive cell inside the grid, on no boundary line. A wall is boundary_flux()'s on the
// active side's staged state (within two ulps of normal_state_k()'s, as an inner edge's sides
// are): both sides read the active cell, the inactive side's normal velocity mirrored
// (wall_ghost_k), and nothing crosses it. One evaluation of the flux serves both, so that the
// kernel inlines the Riemann solver once for its general tiles (a second copy for the walls
// changed how nvcc shared products between the solo and the batched kernels:
// bench/results/swe-batch-bits-sass-2026-12-06g-cpu.md).
template <class T, int TX, int TY>
__device__ SILT_FORCEINLINE EdgeFlux<T> staged_flux(const TileCells<T, TX, TY>& t, int ay, int ax,
                                                    int by, int bx, bool x_normal, bool wall, T g,
                                                    T dry) {
  const bool mirror_b = wall && t.active[ay][ax];  // the wall's ghost is b: both sides read a
  const bool mirror_a = wall && !mirror_b;         // ... is a: both read b
  if (mirror_b) {
    by = ay;
    bx = ax;
  } else if (mirror_a) {
    ay = by;
    ax = bx;
  }
  const auto side = [&](int y, int x, bool mirror) {
    const NormalState<T> s = x_normal ? NormalState<T>{t.h[y][x], t.u[y][x], t.v[y][x], t.c[y][x]}
                                      : NormalState<T>{t.h[y][x], t.v[y][x], t.u[y][x], t.c[y][x]};
    return mirror ? wall_ghost_k(s) : s;
  };
  EdgeFlux<T> f =
      well_balanced_flux_k(side(ay, ax, mirror_a), t.z[ay][ax], side(by, bx, mirror_b), t.z[by][bx],
                           DepthRoots<T>{t.sqrt_h[ay][ax], t.celerity[ay][ax]},
                           DepthRoots<T>{t.sqrt_h[by][bx], t.celerity[by][bx]}, g, dry);
  if (wall) {  // as boundary_edge_flux_k: the mirror makes these zero up to round-off
    f.h = T(0);
    f.ut = T(0);
    f.c = T(0);
  }
  return f;
}

// The general edge flux (edges.hpp: a segment of the domain edge or of a boundary line), out of
// line: few edges of a tile take it, and inlined it made the kernel three times longer.
template <class T>
__device__ __noinline__ EdgeFlux<T> general_edge_flux(const EdgeView<T>& e, Index i, Index j,
                                                      Dir d) {
  return edge_flux(e, i, j, d);
}

// Phase 1 of the tile kernel for one thread: the flux through the east edge of its cell (not in
// the ghost row, which needs only north edges) and through its north edge (not in the ghost
// column). kGeneral: some staged cell of the tile is inactive, so an edge may take the general
// path; a tile whose staged cells are all active (the wet interior of a scene) is compiled
// without that call and the registers its ABI holds. On the general path, an edge between two
// inactive cells takes edge_flux()'s zero flux, and a mask wall (one side inactive, inside the
// grid, in a scene without boundary lines: n_mask == 0) the same staged_flux() as an inner edge,
// both without the call; only the grid's own edge and boundary lines call general_edge_flux.
template <bool kGeneral, class T, int TX, int TY>
__device__ SILT_FORCEINLINE void tile_fluxes(const TileCells<T, TX, TY>& cells,
                                             TileFluxes<T, TX, TY>& flux, const EdgeView<T>& e,
                                             int ty, int tx, Index i, Index j, bool in_box) {
  if (ty > 0 && in_box) {
    const bool a = cells.active[ty][tx], b = cells.active[ty][tx + 1];
    const Index gi = i + 1 + e.i0;  // the edge's global position
    const bool wall = kGeneral && a != b && e.n_mask == 0 && gi > 0 && gi < e.gnx;
    if (!kGeneral || (a && b) || wall) {
      flux.set(0, ty, tx, staged_flux(cells, ty, tx, ty, tx + 1, true, wall, e.g, e.dry));
    } else if constexpr (kGeneral) {
      if (!a && !b)
        flux.set(0, ty, tx, EdgeFlux<T>{T(0), T(0), T(0), T(0), T(0)});
      else
        flux.set(0, ty, tx, general_edge_flux(e, i + 1, j, Dir::x));
    }
  }
  if (tx > 0 && in_box) {
    const bool a = cells.active[ty][tx], b = cells.active[ty + 1][tx];
    const Index gj = j + 1 + e.j0;
    const bool wall = kGeneral && a != b && e.n_mask == 0 && gj > 0 && gj < e.gny;
    if (!kGeneral || (a && b) || wall) {
      flux.set(1, ty, tx, staged_flux(cells, ty, tx, ty + 1, tx, false, wall, e.g, e.dry));
    } else if constexpr (kGeneral) {
      if (!a && !b)
        flux.set(1, ty, tx, EdgeFlux<T>{T(0), T(0), T(0), T(0), T(0)});
      else
        flux.set(1, ty, tx, general_edge_flux(e, i, j + 1, Dir::y));
    }
  }
}

// Infiltration of one cell (ForcingView::infiltrate), out of line: its double-precision Green-Ampt
// and Horton steps would otherwise add registers to every scene's kernel, infiltrating or not.
template <class T>
__device__ __noinline__ void tile_infiltrate(const ForcingView<T>& f, CellState<T>& s, Index off,
                                             bool active, double dt, T dry) {
  f.infiltrate(s, off, active, dt, dry);
}

// The step's scalars in T, read from the clock and converted once per block rather than per
// thread (in float32 each is a float64 load and conversion).
template <class T>
struct StepScalars {
  T dtdx;        // dt / dx, s/m
  T dt;          // s
  T rain_depth;  // uniform rain falling during the step, m
};

// What phase 2 reads of cell (i, j): its state at the start of the step and Manning n through the
// read-only path, and its maximum depth so far. Read for both of a thread's rows before either is
// updated, so that their trips to L2 overlap.
template <class T>
struct CellReads {
  CellState<T> s;
  T manning;    // s m^-1/3 (0: frictionless)
  T max_depth;  // m
};
template <class T>
__device__ SILT_FORCEINLINE CellReads<T> read_cell(const SolverView<T>& v, Index i, Index j) {
  const EdgeView<T>& e = v.e;
  const Index off = e.h.offset(i, j);
  return CellReads<T>{CellState<T>{__ldg(e.h.ptr + off), __ldg(e.hu.ptr + off),
                                   __ldg(e.hv.ptr + off), __ldg(e.hc.ptr + off)},
                      v.manning.ptr ? __ldg(v.manning.ptr + off) : T(0), v.max_depth.ptr[off]};
}

// The hazard fields of an owned active cell after its update (kTileHazard, float64), on the new
// state s at the end of a step of dt (s) ending at t (s): exactly phase_hazard's hazard_cell
// (hazard.cpp) on the state it would read, the same accumulate_hazard_k on the same values, and
// only what changed stored. Only the fields of z.params.fields are loaded and stored (the others
// are null): the same for every thread of the launch, so no warp diverges on it.
template <class T>
__device__ SILT_FORCEINLINE void tile_hazard(const HazardFold<T>& z, Index off,
                                             const CellState<T>& s, double t, double dt) {
  if (!(s.h > z.params.wet_depth)) return;
  const unsigned f = z.params.fields;
  HazardCell<T> before{T(0), T(0), T(0), T(0), -1.0, 0.0};
  if (f & kHazardMaxSpeed) before.max_speed = z.max_speed[off];
  if (f & kHazardMaxDepthSpeed) before.max_depth_speed = z.max_depth_speed[off];
  if (f & kHazardMaxConc) before.max_conc = z.max_conc[off];
  if (f & kHazardMaxRating) before.max_rating = z.max_rating[off];
  if (f & kHazardFirstWet) before.first_wet = z.first_wet[off];
  if (f & kHazardWetTime) before.wet_time = z.wet_time[off];
  const HazardCell<T> a = accumulate_hazard_k(before, s.h, s.hu, s.hv, s.hc, t, dt, z.params);
  if (a.max_speed != before.max_speed) z.max_speed[off] = a.max_speed;
  if (a.max_depth_speed != before.max_depth_speed) z.max_depth_speed[off] = a.max_depth_speed;
  if (a.max_conc != before.max_conc) z.max_conc[off] = a.max_conc;
  if (a.max_rating != before.max_rating) z.max_rating[off] = a.max_rating;
  if (a.first_wet != before.first_wet) z.first_wet[off] = a.first_wet;
  if (f & kHazardWetTime) z.wet_time[off] = a.wet_time;
}

// Phase 2 of the tile kernel for one cell of the box (in: what read_cell read): the edge update from the staged fluxes, the
// boundary inflow, max depth and point sources, and the new state. A halo cell repeats its owner's
// update (ghost cell expansion) but reports nothing: faults, inflow and the CFL speed are the
// owner's (as phase_update_box, phase_boundary_flow, phase_sources and phase_cfl_step count
// them). Returns the cell's wave speed for the CFL (0 when not owned or inactive). F: the
// TileFeature bits compiled in; tile_features(v) guarantees that the others are unused.
// edge_tile: whether the tile reaches the grid's edge (kTileFlowEdges; false: none of its cells
// lies on the edge, so none tests its own position).
template <unsigned F, class T, int TX, int TY>
__device__ SILT_FORCEINLINE T update_tile_cell(const SolverView<T>& v,
                                               const TileCells<T, TX, TY>& cells,
                                               const TileFluxes<T, TX, TY>& flux,
                                               const StepScalars<T>& step, int ty, int tx, Index i,
                                               Index j, const CellReads<T>& in, bool edge_tile) {
  const EdgeView<T>& e = v.e;
  T speed = T(0);
  const bool owned = e.owns(i, j);
  const Index off = e.h.offset(i, j);
  CellState<T> s = in.s;
  const double dt = v.clock[kDt];
  if (cells.active[ty][tx]) {
    // dt / dx and, without rain rasters, the uniform rain depth (as the CPU row step applies it)
    // from the clock, which computes them once per step with the same double operations: no
    // division and no double held per thread.
    const T rain = (F & kTileForcing) ? v.rain_depth(off, dt) : step.rain_depth;
    const CellUpdateParams<T> p{step.dtdx, step.dt, rain, e.g, e.dry, in.manning};
    const EdgeFlux<T> w = flux.at(0, ty, tx - 1), ea = flux.at(0, ty, tx),
                      so = flux.at(1, ty - 1, tx), n = flux.at(1, ty, tx);
    const int code = update_cell_k(s, w, ea, so, n, p);
    if constexpr ((F & kTileForcing) != 0) {
      if (v.forcing.model != kNoInfiltration) tile_infiltrate(v.forcing, s, off, true, dt, e.dry);
    }
    if (code != kFaultNone && owned)
      v.fault.raise(code, e.global_index(i, j), int(v.clock[kSteps]));
    if constexpr ((F & kTileFlowEdges) != 0) {
      const Index gi = i + e.i0, gj = j + e.j0;
      if (edge_tile && owned && dt > 0.0 &&
          (gi == 0 || gj == 0 || gi == e.gnx - 1 || gj == e.gny - 1)) {
        const double q = boundary_inflow(e, gi, gj, w, ea, so, n, v.edge_flow(), dt * v.dx);
        if (q != 0.0) atomic_add(v.clock + kInflow, q * dt * v.dx);
      }
    }
    // Max depth as the plain path records it: after the edge update, and again after sources.
    T md = in.max_depth;
    if (s.h > md) md = s.h;
    if constexpr ((F & kTileSources) != 0) {
      for (Index k = first_source(v, i, j); k < v.n_sources && dt > 0.0; ++k) {
        const SourceCell src = v.sources[k];
        if (src.i != i || src.j != j) break;  // sorted by (j, i): the cell's sources are done
        double dh, dhc;
        const double volume = point_source_k(v, src, dt, s.h, s.hc, dh, dhc);
        s.h += T(dh);
        s.hc += T(dhc);
        if (owned) {
          atomic_add(v.clock + kInflow, volume);
          *v.source_flow(src) += volume;  // the source's own slot, written by its cell's thread
        }
        if (!(s.h > e.dry)) s.hu = s.hv = T(0);
      }
      if (s.h > md) md = s.h;
    }
    if (md != in.max_depth) v.max_depth.ptr[off] = md;
    if (owned) speed = wave_speed_k(s.h, s.hu, s.hv, e.g, e.dry);
    // The hazard of the state the step leaves (after sources), at the clock's time and dt that
    // phase_hazard would read after the step: the kernel runs only for dt > 0, as it accumulates.
    if constexpr ((F & kTileHazard) != 0) {
      if (owned) tile_hazard(v.hazard, off, s, v.clock[kTime], dt);
    }
  } else if constexpr ((F & kTileForcing) != 0) {
    if (v.forcing.model != kNoInfiltration)
      v.forcing.F_new[off] = v.forcing.F[off];  // an inactive cell keeps its F
  }
  v.h_new.ptr[off] = s.h;
  v.hu_new.ptr[off] = s.hu;
  v.hv_new.ptr[off] = s.hv;
  v.hc_new.ptr[off] = s.hc;
  return speed;
}

// The tile: kTileX x kTileY threads, registers capped so that kMinBlocksPerSm<T> blocks fit on an
// SM (fused_step.hpp, phase_fused_update, says why these values). Each thread owns kTileRows<T>
// rows of the tile, kTileY apart: two in float32, where the tile of 32 x 17 staged cells still
// leaves six blocks' shared memory in an SM (6 x 37.4 KB of 228 KB), so that the ghost row, the
// staging of the north row and east column and the block's CFL reduction are shared by 31 x 15
// cells instead of 31 x 7; one in float64, whose cells take twice the bytes. The register caps,
// measured on the H200 at 64M cells whenever the kernel changed shape: float32 at five blocks (48
// registers) 41.2 G cell-updates/s against 38.6 G at six (40 registers) since its reads were
// issued ahead (bench/results/swe-tile-2026-12-02h-h200.md; before that six was the faster, 32.6
// against 29.6 G); float64 at four (64 registers) 18.2 G against 15.7 G at three, and 15.2 G
// against 14.9 G at five and 9.5 G at six (bench/results/swe-f64-blocks-2026-12-02-h200.md).
template <class T>
constexpr int kMinBlocksPerSm = sizeof(T) == 4 ? 5 : 4;

// The tile kernel: one instantiation per set F of TileFeature bits (tile_kernels), the features'
// code compiled in only where F has them; R: rows per thread. N views travel in its parameters:
// N = 1, one part's update box (phase_fused_update); N = kTileBatchMax<T>, the members of
// a batch over the same box (phase_fused_update_batch), block (x, y, z) being tile (x, y) of
// member z. The view is then a uniform index into the constant bank, never a load from global
// memory (a global load of the tile's position spilled the float64 kernel, docs/NOTES.md "The dam
// break's slower step"). One body: the member only chooses the view.
template <class T, int TX, int TY, int R, int MinBlocks, unsigned F, int N>
__global__ void __launch_bounds__(TX* TY, MinBlocks)
    fused_update_kernel(const __grid_constant__ TileViews<T, N> views, const Box2 box,
                        const std::uint32_t* __restrict__ tiles) {
  const SolverView<T>& v = views.v[N == 1 ? 0u : blockIdx.z];
  constexpr int NY = TY * R;  // rows of the tile, its ghost row included
  // One shared object, so that the compiler addresses the staged cells and the edge fluxes of a
  // thread from one base.
  __shared__ struct {
    TileCells<T, TX, NY> cells;
    TileFluxes<T, TX, NY> flux;
  } tile;
  auto& cells = tile.cells;
  auto& flux = tile.flux;
  __shared__ T warp_speed[TX * TY / 32];
  __shared__ StepScalars<T> step;
  // The tile's ghost column and row (i - tx and j0 below), written by thread 0 before the first
  // barrier and read back after it where they are needed (the general edge path, phase 2). With a
  // tile list they come from a load, which the register allocator cannot redo as it redoes a read
  // of blockIdx; held in registers across the edge fluxes, they made the float64 fluxes spill
  // (ptxas, sm_90, features 0: 24/28 -> 36/64 bytes of spill stores/loads with the list).
  __shared__ Index origin[2];
  // Whether the tile's updated cells (columns 1..TX - 1, rows 1..NY - 1 from its origin) reach
  // the grid's edge (kTileFlowEdges): thread 0 decides once for the block, so that the cells of
  // the other tiles skip the test of their own position (update_tile_cell).
  __shared__ bool edge_tile;

  const EdgeView<T>& e = v.e;
  const int tx = threadIdx.x, ty = threadIdx.y;
  // Tiles overlap by the ghost column and row: block (bx, by) updates the box's cells
  // box.i0 + [bx (TX - 1), (bx + 1)(TX - 1)) x box.j0 + [by (NY - 1), (by + 1)(NY - 1)). The box
  // may reach into a subdomain's halo (ghost cell expansion), never beyond it less one layer, so
  // the ghost column, row and the east/north staged cells stay inside the halo. Row y of the tile
  // is j = j0 + y; thread (tx, ty) owns the tile's column tx and its rows ty + r TY, r < R.
  // With a tile list (active_tiles()) block b is the list's tile b; without, the grid's own.
  unsigned bx = blockIdx.x, by = blockIdx.y;
  if (tiles != nullptr) {
    const std::uint32_t t = __ldg(tiles + blockIdx.x);
    bx = t & 0xffffu;
    by = t >> 16;
  }
  const Index i = box.i0 + static_cast<Index>(bx) * (TX - 1) + tx - 1;
  const Index j0 = box.j0 + static_cast<Index>(by) * (NY - 1) - 1;
  // Cells this thread updates in row y of a tile whose row 0 is row tj0 and whose thread column
  // is ti (i, j0; the ghost column and row only stage and compute fluxes).
  const auto in_box_at = [&](Index ti, Index tj0, int y) {
    return tx > 0 && y > 0 && ti < box.i1 && tj0 + y < box.j1;
  };

  // A no-op step (dt == 0: past the target, or after a fault) only carries the state over to the
  // other buffer; phase_clock left *v.smax as it was. The same for every thread of the grid, so
  // the early return skips every __syncthreads of the block alike.
  if (!(v.clock[kDt] > 0.0)) {
    for (int r = 0; r < R; ++r) {
      const int y = ty + r * TY;
      if (!in_box_at(i, j0, y)) continue;
      const Index off = e.h.offset(i, j0 + y);
      v.h_new.ptr[off] = e.h.ptr[off];
      v.hu_new.ptr[off] = e.hu.ptr[off];
      v.hv_new.ptr[off] = e.hv.ptr[off];
      v.hc_new.ptr[off] = e.hc.ptr[off];
      if constexpr ((F & kTileForcing) != 0) {
        if (v.forcing.model != kNoInfiltration) v.forcing.F_new[off] = v.forcing.F[off];
      }
    }
    return;
  }

  // Phase 0: stage the tile's cells: each thread its own, then the first TX + NY threads the row
  // north of the tile and the column east of it, so that two warps of eight take a second cell
  // (rather than every warp's last lane and the last warp).
  static_assert(TX == 32 && NY <= TX, "the north row is one warp, the east column in the next");
  const int tid = ty * TX + tx;
  if (tid == 0) {
    step = StepScalars<T>{T(v.clock[kDtDx]), T(v.clock[kDt]), T(v.clock[kRainDepth])};
    origin[0] = i - tx;
    origin[1] = j0;
    if constexpr ((F & kTileFlowEdges) != 0) {
      const Index gi0 = i - tx + e.i0, gj0 = j0 + e.j0;
      edge_tile = gi0 + 1 <= 0 || gj0 + 1 <= 0 || gi0 + (TX - 1) >= e.gnx - 1 ||
                  gj0 + (NY - 1) >= e.gny - 1;
    }
  }
  // A tile whose staged cells all lie in the view (the same for the whole block: every tile but
  // those at the edge of the view) stages its rows without the bounds test of each cell.
  const Index i_first = i - tx;  // the ghost column
  const bool tile_inside =
      i_first >= -e.ext && j0 >= -e.ext && i_first + TX < e.nx + e.ext && j0 + NY < e.ny + e.ext;
  bool act = true;
  if (tile_inside) {
#pragma unroll
    for (int r = 0; r < R; ++r)
      act = stage_cell<false>(cells, ty + r * TY, tx, e, i, j0 + ty + r * TY) && act;
  } else {
#pragma unroll
    for (int r = 0; r < R; ++r)
      act = stage_cell<true>(cells, ty + r * TY, tx, e, i, j0 + ty + r * TY) && act;
  }
  if (tid < TX + NY) {
    const bool north = tid < TX;
    const int sy = north ? NY : tid - TX, sx = north ? tid : TX;
    if (tile_inside)
      act = stage_cell<false>(cells, sy, sx, e, i - tx + sx, j0 + sy) && act;
    else
      act = stage_cell<true>(cells, sy, sx, e, i - tx + sx, j0 + sy) && act;
  }
  // The same for every thread of the block: whether an edge of the tile may take the general path.
  const bool all_active = __syncthreads_and(act);

  // Phase 1: each edge of the tile once. Which rows have edges is decided here; the tile's
  // position is read back from `origin` where it is needed (the general path, phase 2).
  bool edges_in_row[R];
#pragma unroll
  for (int r = 0; r < R; ++r) edges_in_row[r] = i < box.i1 && j0 + ty + r * TY < box.j1;
  // A tile with every staged cell active (the wet interior) computes its fluxes in a copy without
  // the general edge flux's call, nor the cells' indices.
  if (all_active) {
#pragma unroll
    for (int r = 0; r < R; ++r)
      tile_fluxes<false>(cells, flux, e, ty + r * TY, tx, Index(0), Index(0), edges_in_row[r]);
  } else {
#pragma unroll
    for (int r = 0; r < R; ++r) {
      const int y = ty + r * TY;
      tile_fluxes<true>(cells, flux, e, y, tx, origin[0] + tx, origin[1] + y, edges_in_row[r]);
    }
  }
  // Phase 2's reads of its cells' state, issued before the barrier: their trip to L2 overlaps
  // the wait for the tile's other fluxes. i and j0 again, from shared memory.
  const Index ic = origin[0] + tx, jc = origin[1];
  CellReads<T> reads[R];
#pragma unroll
  for (int r = 0; r < R; ++r)
    if (in_box_at(ic, jc, ty + r * TY)) reads[r] = read_cell(v, ic, jc + ty + r * TY);
  __syncthreads();

  // Phase 2: the box's cells (update_tile_cell), then the CFL speed of the new state.
  const bool edge = (F & kTileFlowEdges) != 0 && edge_tile;
  T speed = T(0);
#pragma unroll
  for (int r = 0; r < R; ++r) {
    const int y = ty + r * TY;
    if (!in_box_at(ic, jc, y)) continue;
    const T s = update_tile_cell<F>(v, cells, flux, step, y, tx, ic, jc + y, reads[r], edge);
    speed = s > speed ? s : speed;
  }
  block_max_to<T, TX, TY>(speed, warp_speed, v.smax);
}

// The tile kernel of each feature set, indexed by its TileFeature bits.
template <class T, unsigned... F>
constexpr auto tile_kernels(std::integer_sequence<unsigned, F...>) {
  using Kernel = void (*)(TileViews<T, 1>, Box2, const std::uint32_t*);
  return std::array<Kernel, sizeof...(F)>{
      &fused_update_kernel<T, kTileX, kTileY, kTileRows<T>, kMinBlocksPerSm<T>, F, 1>...};
}

// The batched tile kernel of each feature set, indexed by its TileFeature bits.
template <class T, unsigned... F>
constexpr auto tile_batch_kernels(std::integer_sequence<unsigned, F...>) {
  using Kernel = void (*)(TileBatchViews<T>, Box2, const std::uint32_t*);
  return std::array<Kernel, sizeof...(F)>{
      &fused_update_kernel<T, kTileX, kTileY, kTileRows<T>, kMinBlocksPerSm<T>, F,
                           kTileBatchMax<T>>...};
}

// The checks of a view before the tile kernel steps box of it.
template <class T>
void check_view(const SolverView<T>& v, Box2 box) {
  // The kernel indexes every field with the state's offset: they must share its layout.
  SILT_REQUIRE(v.h_new.stride() == v.e.h.stride() && v.e.z.stride() == v.e.h.stride() &&
                   v.max_depth.stride() == v.e.h.stride() &&
                   v.e.active.stride() == v.e.h.stride() && v.e.h.halo == v.h_new.halo &&
                   v.e.z.halo == v.e.h.halo && v.e.active.halo == v.e.h.halo &&
                   v.max_depth.halo == v.e.h.halo &&
                   (!v.manning.ptr ||
                    (v.manning.stride() == v.e.h.stride() && v.manning.halo == v.e.h.halo)),
               "swe fused kernel: fields with different layouts");
  // The box lies in the cells the view holds (owned cells and halo). Reads one cell beyond it
  // (the tile's ghost column and row, its east and north neighbours) are bounded by stage_cell
  // and EdgeView::is_active; ghost cell expansion keeps the box one layer inside the valid halo.
  const Index ext = v.e.ext;
  SILT_REQUIRE(box.i0 >= -ext && box.j0 >= -ext && box.i1 <= v.e.nx + ext && box.j1 <= v.e.ny + ext,
               "swe fused kernel: box reaches beyond the halo");
}

// The blocks of one view's launch over box: every tile of the box, or the list when it was made
// for this box (the whole grid of one part) and leaves a tile out. A list of every tile (a grid
// without nodata) is the grid in the same order, launched as the grid: each block then takes its
// tile from blockIdx, without a load ahead of its first reads. grid.x == 0: nothing to launch.
template <class T>
dim3 tile_grid(Box2 box, const TileList& list, bool& listed) {
  constexpr int TX = kTileX, NY = kTileY * kTileRows<T>;
  listed = false;
  if (box.count() == 0) return dim3(0, 0);
  const dim3 all(static_cast<unsigned>((box.i1 - box.i0 + TX - 2) / (TX - 1)),
                 static_cast<unsigned>((box.j1 - box.j0 + NY - 2) / (NY - 1)));
  listed = list.tiles != nullptr && list.box.i0 == box.i0 && list.box.i1 == box.i1 &&
           list.box.j0 == box.j0 && list.box.j1 == box.j1 &&
           std::uint64_t(list.count) < std::uint64_t(all.x) * all.y;
  // A list without a tile: no active cell, nothing changes (no tile is launched).
  if (listed && list.count == 0) return dim3(0, 0);
  return listed ? dim3(list.count, 1) : all;
}

template <class T>
void launch(const Exec& exec, const SolverView<T>& v, Box2 box, const char* label,
            const TileList& list) {
  check_view(v, box);
  bool listed = false;
  const dim3 grid = tile_grid<T>(box, list, listed);
  if (grid.x == 0) return;
  static constexpr auto kernels =
      tile_kernels<T>(std::make_integer_sequence<unsigned, kTileFeatureSetsOf<T>>{});
  silt::launch_kernel(exec, label, grid, dim3(kTileX, kTileY), 0, kernels[tile_features(v)],
                      TileViews<T, 1>{{v}}, box, listed ? list.tiles : nullptr);
  g_fused_launches.fetch_add(1, std::memory_order_relaxed);
  g_fused_tiles.fetch_add(std::uint64_t(grid.x) * grid.y, std::memory_order_relaxed);
}

// Members' views in chunks of kTileBatchMax<T>, one launch a chunk.
template <class T>
void launch_batch(const Exec& exec, const std::vector<SolverView<T>>& views, Box2 box,
                  const char* label, const TileList& list) {
  if (views.empty()) return;
  const unsigned features = tile_features(views.front());
  for (const SolverView<T>& v : views) {
    check_view(v, box);
    SILT_REQUIRE(tile_features(v) == features,
                 "swe batched fused kernel: members' features differ");
  }
  bool listed = false;
  dim3 grid = tile_grid<T>(box, list, listed);
  if (grid.x == 0) return;
  static constexpr auto kernels =
      tile_batch_kernels<T>(std::make_integer_sequence<unsigned, kTileFeatureSetsOf<T>>{});
  // 32 KB of parameters: kept off the stack, reused by the thread's later launches.
  thread_local std::unique_ptr<TileBatchViews<T>> params;
  if (!params) params = std::make_unique<TileBatchViews<T>>();
  constexpr int kMax = kTileBatchMax<T>;
  for (size_t first = 0; first < views.size(); first += kMax) {
    const int n = int(std::min(views.size() - first, size_t(kMax)));
    std::copy(views.begin() + std::ptrdiff_t(first), views.begin() + std::ptrdiff_t(first) + n,
              params->v);
    grid.z = unsigned(n);
    silt::launch_kernel(exec, label, grid, dim3(kTileX, kTileY), 0, kernels[features], *params, box,
                        listed ? list.tiles : nullptr);
    g_fused_launches.fetch_add(1, std::memory_order_relaxed);
    g_fused_tiles.fetch_add(std::uint64_t(grid.x) * grid.y * grid.z, std::memory_order_relaxed);
  }
}

}  // namespace

template <class T>
void phase_fused_update(const Exec& exec, const SolverView<T>& v, std::optional<Box2> box,
                        const char* label, const TileList& list) {
  launch(exec, v, box ? *box : Box2{0, v.e.nx, 0, v.e.ny}, label, list);
}
template <class T>
void phase_fused_update_batch(const Exec& exec, const std::vector<SolverView<T>>& views, Box2 box,
                              const char* label, const TileList& list) {
  launch_batch(exec, views, box, label, list);
}
#else
template <class T>
void phase_fused_update(const Exec&, const SolverView<T>&, std::optional<Box2>, const char*,
                        const TileList&) {
  throw Error("the fused shallow-water kernel needs the CUDA backend");
}
template <class T>
void phase_fused_update_batch(const Exec&, const std::vector<SolverView<T>>&, Box2, const char*,
                              const TileList&) {
  throw Error("the fused shallow-water kernel needs the CUDA backend");
}
#endif

template unsigned tile_features<float>(const SolverView<float>&);
template unsigned tile_features<double>(const SolverView<double>&);
template void phase_fused_update<float>(const Exec&, const SolverView<float>&, std::optional<Box2>,
                                        const char*, const TileList&);
template void phase_fused_update<double>(const Exec&, const SolverView<double>&,
                                         std::optional<Box2>, const char*, const TileList&);
template void phase_fused_update_batch<float>(const Exec&, const std::vector<SolverView<float>>&,
                                              Box2, const char*, const TileList&);
template void phase_fused_update_batch<double>(const Exec&, const std::vector<SolverView<double>>&,
                                               Box2, const char*, const TileList&);

}  // namespace silt::swe::detail
