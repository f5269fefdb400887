#include "silt/swe/muscl_tile.hpp"

#include <atomic>

#include "silt/core/error.hpp"
#include "silt/swe/kernels/cfl_k.hpp"
#include "silt/swe/kernels/muscl_k.hpp"
#include "silt/swe/muscl_cell.hpp"
#include "silt/swe/muscl_edges.hpp"

#if SILT_HAS_CUDA
#include <cuda_runtime.h>

#include "silt/core/launch.hpp"
#include "silt/swe/block_max.hpp"
#endif

namespace silt::swe::detail {

namespace {
std::atomic<std::uint64_t> g_muscl_tile_launches{0};
}  // namespace

std::uint64_t muscl_tile_launch_count() {
  return g_muscl_tile_launches.load(std::memory_order_relaxed);
}

#if SILT_HAS_CUDA
namespace {

// Threads of a block (32 x 8) and the tile each updates, OX x OY cells: the shared memory of a
// tile (staged cells, slopes and fluxes) stays within the 48 KB of a static allocation, 45.5 KB in
// float32 (32 x 12 cells) and 36.6 KB in float64 (32 x 4); the registers are capped for three
// blocks per SM in float32 and two in float64 (docs/NOTES.md, "The muscl tile kernel").
constexpr int kThreadsX = 32, kThreadsY = 8, kThreads = kThreadsX * kThreadsY;
constexpr int kOX = 32;
template <class T>
constexpr int kOY = sizeof(T) == 4 ? 12 : 4;
template <class T>
constexpr int kMinBlocks = sizeof(T) == 4 ? 3 : 2;

// A tile in shared memory. Staged cells (x, y) for x in [-2, OX + 2), y in [-2, OY + 2) at
// [y + 2][x + 2]: depth, the primitive velocities and concentration (normal_state_k's quotients,
// once per cell), the bed and whether the cell is active (0 also beyond the view). Slopes along
// x of cells x in [-1, OX + 1), y in [0, OY) at [y][x + 1]; along y of cells x in [0, OX), y in
// [-1, OY + 1) at [y + 1][x]. Fluxes through the west edge of cell (x, y), x in [0, OX], at fx
// [y][x]; through its south edge, y in [0, OY], at fy[y][x]. Structures of arrays, the field
// first.
template <class T, int OX, int OY>
struct MusclTile {
  static constexpr int SX = OX + 4, SY = OY + 4;
  T h[SY][SX], u[SY][SX], v[SY][SX], c[SY][SX], z[SY][SX];
  unsigned char active[SY][SX];
  T sx[5][OY][OX + 2], sy[5][OY + 2][OX];
  T fx[5][OY][OX + 1], fy[5][OY + 1][OX];
};

template <class T, int W, int H>
__device__ SILT_FORCEINLINE void put_slopes(T (&a)[5][H][W], int y, int x, const Slopes<T>& s) {
  a[0][y][x] = s.h;
  a[1][y][x] = s.z;
  a[2][y][x] = s.un;
  a[3][y][x] = s.ut;
  a[4][y][x] = s.c;
}
template <class T, int W, int H>
__device__ SILT_FORCEINLINE Slopes<T> get_slopes(const T (&a)[5][H][W], int y, int x) {
  return Slopes<T>{a[0][y][x], a[1][y][x], a[2][y][x], a[3][y][x], a[4][y][x]};
}
template <class T, int W, int H>
__device__ SILT_FORCEINLINE void put_flux(T (&a)[5][H][W], int y, int x, const EdgeFlux<T>& f) {
  a[0][y][x] = f.h;
  a[1][y][x] = f.un_left;
  a[2][y][x] = f.un_right;
  a[3][y][x] = f.ut;
  a[4][y][x] = f.c;
}
template <class T, int W, int H>
__device__ SILT_FORCEINLINE EdgeFlux<T> get_flux(const T (&a)[5][H][W], int y, int x) {
  return EdgeFlux<T>{a[0][y][x], a[1][y][x], a[2][y][x], a[3][y][x], a[4][y][x]};
}

// The staged cells as cell_slopes_of() reads them (muscl_edges.hpp's ViewCells over the tile):
// local coordinates, the tile's first cell at (0, 0).
template <class T, int OX, int OY>
struct StagedCells {
  const MusclTile<T, OX, OY>& t;
  SILT_HD bool is_active(Index x, Index y) const { return t.active[y + 2][x + 2] != 0; }
  SILT_HD NormalState<T> normal(Index x, Index y, Dir d) const {
    const T h = t.h[y + 2][x + 2], u = t.u[y + 2][x + 2], v = t.v[y + 2][x + 2],
            c = t.c[y + 2][x + 2];
    return d == Dir::x ? NormalState<T>{h, u, v, c} : NormalState<T>{h, v, u, c};
  }
  SILT_HD T z(Index x, Index y) const { return t.z[y + 2][x + 2]; }
};

// Stages cell (i, j) of e at local (x, y): its primitive state as normal_state_k() derives it
// (the same quotients), or an inactive cell beyond the cells the view holds.
template <class T, int OX, int OY>
__device__ SILT_FORCEINLINE void stage_cell(MusclTile<T, OX, OY>& t, int x, int y,
                                            const EdgeView<T>& e, Index i, Index j) {
  const bool inside = i >= -e.ext && j >= -e.ext && i < e.nx + e.ext && j < e.ny + e.ext;
  const Index off = inside ? e.h.offset(i, j) : 0;  // offset 0 lies in the allocation
  const CellState<T> s{__ldg(e.h.ptr + off), __ldg(e.hu.ptr + off), __ldg(e.hv.ptr + off),
                       __ldg(e.hc.ptr + off)};
  t.active[y + 2][x + 2] = inside && __ldg(e.active.ptr + off) != 0;
  t.h[y + 2][x + 2] = s.h;
  t.u[y + 2][x + 2] = velocity_k(s.h, s.hu, e.dry);
  t.v[y + 2][x + 2] = velocity_k(s.h, s.hv, e.dry);
  t.c[y + 2][x + 2] = concentration_k(s.h, s.hc);
  t.z[y + 2][x + 2] = __ldg(e.z.ptr + off);
}

// The flux of an edge with an inactive side (the boundary flux of muscl_edge_flux, from global
// memory), out of line: few edges take it, and inlined it would hold registers in every tile.
template <class T>
__device__ __noinline__ EdgeFlux<T> general_muscl_flux(const EdgeView<T>& e, Index i, Index j,
                                                       Dir d) {
  return muscl_edge_flux(e, i, j, d);
}

// Infiltration of one cell (ForcingView::infiltrate), out of line as in fused_step.cpp.
template <class T>
__device__ __noinline__ void tile_infiltrate(const ForcingView<T>& f, CellState<T>& s, Index off,
                                             bool active, double dt, T dry) {
  f.infiltrate(s, off, active, dt, dry);
}

// The flux through the west (d = x) or south (d = y) edge of staged cell (x, y), as
// muscl_edge_flux: between two active cells muscl_flux_k on the staged states and slopes, none
// between two inactive ones, else the general flux of global cell (i, j).
template <class T, int OX, int OY>
__device__ SILT_FORCEINLINE EdgeFlux<T> tile_edge_flux(const MusclTile<T, OX, OY>& t,
                                                       const EdgeView<T>& e, int x, int y, Dir d,
                                                       Index i, Index j) {
  const StagedCells<T, OX, OY> cells{t};
  const int xl = d == Dir::x ? x - 1 : x, yl = d == Dir::x ? y : y - 1;
  const bool left = cells.is_active(xl, yl), right = cells.is_active(x, y);
  if (left && right) {
    const Slopes<T> sl = d == Dir::x ? get_slopes(t.sx, yl, xl + 1) : get_slopes(t.sy, yl + 1, xl);
    const Slopes<T> sr = d == Dir::x ? get_slopes(t.sx, y, x + 1) : get_slopes(t.sy, y + 1, x);
    return muscl_flux_k(cells.normal(xl, yl, d), cells.z(xl, yl), sl, cells.normal(x, y, d),
                        cells.z(x, y), sr, e.g, e.dry);
  }
  if (!left && !right) return EdgeFlux<T>{T(0), T(0), T(0), T(0), T(0)};
  return general_muscl_flux(e, i, j, d);
}

// Phases 0-2 of a tile whose first cell is global (i0, j0), nxb x nyb of its cells in the box:
// stage the cells, their slopes, the edge fluxes; a barrier after each.
template <class T, int OX, int OY>
__device__ SILT_FORCEINLINE void tile_fluxes(MusclTile<T, OX, OY>& t, const EdgeView<T>& e,
                                             Index i0, Index j0, int nxb, int nyb, int tid) {
  constexpr int SX = OX + 4, SY = OY + 4;
  for (int k = tid; k < SX * SY; k += kThreads) {
    const int x = k % SX - 2, y = k / SX - 2;
    if (x < nxb + 2 && y < nyb + 2) stage_cell(t, x, y, e, i0 + x, j0 + y);
  }
  __syncthreads();
  const StagedCells<T, OX, OY> cells{t};
  for (int k = tid; k < OY * (OX + 2); k += kThreads) {
    const int x = k % (OX + 2) - 1, y = k / (OX + 2);
    if (x <= nxb && y < nyb && cells.is_active(x, y))
      put_slopes(t.sx, y, x + 1, cell_slopes_of(cells, x, y, Dir::x, e.dry));
  }
  for (int k = tid; k < (OY + 2) * OX; k += kThreads) {
    const int x = k % OX, y = k / OX - 1;
    if (x < nxb && y <= nyb && cells.is_active(x, y))
      put_slopes(t.sy, y + 1, x, cell_slopes_of(cells, x, y, Dir::y, e.dry));
  }
  __syncthreads();
  for (int k = tid; k < OY * (OX + 1); k += kThreads) {
    const int x = k % (OX + 1), y = k / (OX + 1);
    if (x <= nxb && y < nyb)
      put_flux(t.fx, y, x, tile_edge_flux(t, e, x, y, Dir::x, i0 + x, j0 + y));
  }
  for (int k = tid; k < (OY + 1) * OX; k += kThreads) {
    const int x = k % OX, y = k / OX;
    if (x < nxb && y <= nyb)
      put_flux(t.fy, y, x, tile_edge_flux(t, e, x, y, Dir::y, i0 + x, j0 + y));
  }
  __syncthreads();
}

// One launch of a stage. kFinal: Heun's final stage (U^n from v.e, fluxes of src = U*), else
// stage 1 (src = v.e = U^n). kCfl (final only): the CFL speed of the new state. Block (bx, by)
// updates the box's cells box.i0 + [bx OX, (bx + 1) OX) x box.j0 + [by OY, (by + 1) OY).
template <bool kFinal, bool kCfl, class T, int OX, int OY>
__global__ void __launch_bounds__(kThreads, kMinBlocks<T>)
    muscl_tile_kernel(const __grid_constant__ SolverView<T> v,
                      const __grid_constant__ EdgeView<T> src, const Box2 box) {
  __shared__ MusclTile<T, OX, OY> t;
  const int tid = threadIdx.y * kThreadsX + threadIdx.x;
  const Index i0 = box.i0 + static_cast<Index>(blockIdx.x) * OX;
  const Index j0 = box.j0 + static_cast<Index>(blockIdx.y) * OY;
  const int nxb = box.i1 - i0 < OX ? box.i1 - i0 : OX, nyb = box.j1 - j0 < OY ? box.j1 - j0 : OY;
  const double dt = v.clock[kDt];
  // A no-op step (dt == 0) carries the state over; the same for the whole grid.
  const bool step = dt > 0.0;
  if (step) tile_fluxes(t, src, i0, j0, nxb, nyb, tid);
  T speed = T(0);
  for (int k = tid; k < OX * OY; k += kThreads) {
    const int x = k % OX, y = k / OX;
    if (x >= nxb || y >= nyb) continue;
    const Index i = i0 + x, j = j0 + y;
    const bool update = step && v.e.active(i, j);
    CellState<T> s = v.e.cell(i, j);
    if (update) {
      const CellState<T> s2 =
          muscl_update_cell(v, src, i, j, dt, get_flux(t.fx, y, x), get_flux(t.fx, y, x + 1),
                            get_flux(t.fy, y, x), get_flux(t.fy, y + 1, x));
      s = kFinal ? heun_average_k(s, s2, v.e.dry) : s2;
    }
    if constexpr (kFinal) {
      if (v.forcing.model != kNoInfiltration)
        tile_infiltrate(v.forcing, s, v.e.h.offset(i, j), update, dt, v.e.dry);
      if (update && s.h > v.max_depth(i, j)) v.max_depth(i, j) = s.h;
      if (kCfl && update && v.e.owns(i, j)) {
        const T w = wave_speed_k(s.h, s.hu, s.hv, v.e.g, v.e.dry);
        speed = w > speed ? w : speed;
      }
    }
    v.h_new(i, j) = s.h;
    v.hu_new(i, j) = s.hu;
    v.hv_new(i, j) = s.hv;
    v.hc_new(i, j) = s.hc;
  }
  if constexpr (kCfl) {
    __shared__ T warp_speed[kThreads / 32];
    if (step) block_max_to<T, kThreadsX, kThreadsY>(speed, warp_speed, v.smax);
  }
}

template <bool kFinal, bool kCfl, class T>
void launch(const Exec& exec, const SolverView<T>& v, const EdgeView<T>& src, Box2 box,
            const char* label) {
  const Index ext = v.e.ext;
  SILT_REQUIRE(box.i0 >= -ext && box.j0 >= -ext && box.i1 <= v.e.nx + ext && box.j1 <= v.e.ny + ext,
               "swe muscl tile kernel: box reaches beyond the halo");
  SILT_REQUIRE(src.ext == ext && src.nx == v.e.nx && src.ny == v.e.ny,
               "swe muscl tile kernel: states of different layouts");
  if (box.count() == 0) return;
  constexpr int OX = kOX, OY = kOY<T>;
  const dim3 block(kThreadsX, kThreadsY);
  const dim3 grid(static_cast<unsigned>((box.i1 - box.i0 + OX - 1) / OX),
                  static_cast<unsigned>((box.j1 - box.j0 + OY - 1) / OY));
  silt::launch_kernel(exec, label, grid, block, 0, &muscl_tile_kernel<kFinal, kCfl, T, OX, OY>, v,
                      src, box);
  g_muscl_tile_launches.fetch_add(1, std::memory_order_relaxed);
}

}  // namespace

template <class T>
void phase_muscl_tile_stage(const Exec& exec, const SolverView<T>& v, Box2 box, const char* label) {
  launch<false, false>(exec, v, v.e, box, label);
}

template <class T>
void phase_muscl_tile_final(const Exec& exec, const SolverView<T>& v, const EdgeView<T>& star,
                            Box2 box, bool with_cfl, const char* label) {
  if (with_cfl)
    launch<true, true>(exec, v, star, box, label);
  else
    launch<true, false>(exec, v, star, box, label);
}
#else
template <class T>
void phase_muscl_tile_stage(const Exec&, const SolverView<T>&, Box2, const char*) {
  throw Error("the muscl shallow-water tile kernel needs the CUDA backend");
}
template <class T>
void phase_muscl_tile_final(const Exec&, const SolverView<T>&, const EdgeView<T>&, Box2, bool,
                            const char*) {
  throw Error("the muscl shallow-water tile kernel needs the CUDA backend");
}
#endif

#define SILT_SWE_MUSCL_TILE(T)                                                                     \
  template void phase_muscl_tile_stage<T>(const Exec&, const SolverView<T>&, Box2, const char*);   \
  template void phase_muscl_tile_final<T>(const Exec&, const SolverView<T>&, const EdgeView<T>&,   \
                                          Box2, bool, const char*);
SILT_SWE_MUSCL_TILE(float)
SILT_SWE_MUSCL_TILE(double)
#undef SILT_SWE_MUSCL_TILE

}  // namespace silt::swe::detail
