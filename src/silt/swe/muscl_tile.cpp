#include "silt/swe/muscl_tile.hpp"

#include <atomic>
#include <cstddef>
#include <memory>
#include <type_traits>
#include <utility>

#include "silt/core/atomic.hpp"
#include "silt/core/error.hpp"
#include "silt/swe/kernels/cfl_k.hpp"
#include "silt/swe/kernels/muscl_hancock_k.hpp"
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

namespace {

// Threads of a CUDA block (32 x 8) and the tile each updates, OX x OY cells: the shared memory of
// a tile (staged cells, slopes and fluxes) stays within the 48 KB of a static allocation, 45.5 KB
// in float32 (32 x 12 cells) and 36.6 KB in float64 (32 x 4); the registers are capped for three
// blocks per SM in float32 and two in float64 (docs/NOTES.md, "The muscl tile kernels"); the
// MUSCL-Hancock tiles' sizes are their own (kHancockOY). On the host a tile is one iteration of an
// OpenMP loop, its memory on the thread's stack (muscl's) or heap (MUSCL-Hancock's).
constexpr int kThreadsX = 32, kThreadsY = 8, kThreads = kThreadsX * kThreadsY;
constexpr int kOX = 32;
template <class T>
constexpr int kOY = sizeof(T) == 4 ? 12 : 4;
template <class T>
constexpr int kMinBlocks = sizeof(T) == 4 ? 3 : 2;
// The MUSCL-Hancock tile kernel's: 32 x 16 cells at four blocks per SM in float32 (~51 KB; 64
// registers, some spilled), 32 x 12 at two in float64 (~75 KB; up to 128 registers), in dynamic
// shared memory. Measured at 64M cells on an H100 (bench/results/swe-hancock-variants-2026-12-06f-
// h100.md), with the x fluxes still in shared memory: float32 rows 12 / 16 / 20 at three blocks
// 14.08 / 14.85 / 15.98 G cell-updates/s (24 at two: 11.99); float64 rows 4 / 8 / 12 / 14 at two
// blocks 3.68 / 4.58 / 5.73 / 5.68 G. Taller tiles spend fewer of their cells on the ghost ring;
// more blocks per SM hide more latency (two to three: +35%). Without the x fluxes' array
// (hancock_update_phase) four float32 tiles of 32 x 18 fit an SM: 17.74 G against 16.07 G at 32 x
// 20 and three blocks, float64 6.13 G against 5.75 G (H100, the same call;
// bench/results/swe-hancock-xreg4-2026-12-07b-h100.md). At four blocks on an H200, rows 14 / 15 /
// 16 / 17 / 18 gave 17.93 / 17.89 / 18.19 / 17.61 / 17.64 G: at 16 rows the update (the x edges'
// phase) is two whole rounds of the block's threads (swe-hancock-tile-height-2026-12-07b-h200.md);
// on an H100 32 x 16 gave 18.33 G against 17.74 G, its GPU tests passing
// (swe-hancock-oy16-2026-12-07c-h100.md), and 32 x 13 17.86 G against 18.22 G
// (swe-hancock-combined-2026-12-07d-h100.md).
template <class T>
constexpr int kHancockOY = sizeof(T) == 4 ? 16 : 12;
template <class T>
constexpr int kHancockMinBlocks = sizeof(T) == 4 ? 4 : 2;

#if defined(__CUDA_ARCH__)
#define SILT_MUSCL_TILE_NOINLINE __noinline__
#else
#define SILT_MUSCL_TILE_NOINLINE
#endif

// A read through the read-only path on the device.
template <class U>
SILT_HD SILT_FORCEINLINE U load(const U* p) {
#if defined(__CUDA_ARCH__)
  return __ldg(p);
#else
  return *p;
#endif
}

// A tile. Staged cells (x, y) for x in [-2, OX + 2), y in [-2, OY + 2) at [y + 2][x + 2]: depth,
// the primitive velocities and concentration (normal_state_k's quotients, once per cell), the bed
// and whether the cell is active (0 also beyond the view). Slopes along x of cells x in [-1, OX +
// 1), y in [0, OY) at [y][x + 1]; along y of cells x in [0, OX), y in [-1, OY + 1) at [y + 1][x].
// Fluxes through the west edge of cell (x, y), x in [0, OX], at fx[y][x]; through its south edge,
// y in [0, OY], at fy[y][x]. Structures of arrays, the field first.
template <class T, int OX, int OY>
struct MusclTile {
  static constexpr int SX = OX + 4, SY = OY + 4, W = OX, H = OY;
  static constexpr bool kManning = false;  // no Manning n staged (stage_cell)
  T h[SY][SX], u[SY][SX], v[SY][SX], c[SY][SX], z[SY][SX];
  unsigned char active[SY][SX];
  T sx[5][OY][OX + 2], sy[5][OY + 2][OX];
  T fx[5][OY][OX + 1], fy[5][OY + 1][OX];
  // The staged primitive state h, u, v, c (HancockTile's shares its memory with the fluxes).
  SILT_HD MusclTile& staged() { return *this; }
  SILT_HD const MusclTile& staged() const { return *this; }
  // The fluxes fx, fy.
  SILT_HD MusclTile& fluxes() { return *this; }
  SILT_HD const MusclTile& fluxes() const { return *this; }
};

// Where a tile lies: its first cell (i0, j0) and the nxb x nyb of its cells in the box.
struct TilePlace {
  Index i0, j0;
  int nxb, nyb;
};
template <int OX, int OY>
SILT_HD SILT_FORCEINLINE TilePlace tile_place(Box2 box, Index bx, Index by) {
  const Index i0 = box.i0 + bx * OX, j0 = box.j0 + by * OY;
  return TilePlace{i0, j0, box.i1 - i0 < OX ? int(box.i1 - i0) : OX,
                   box.j1 - j0 < OY ? int(box.j1 - j0) : OY};
}

template <class T, int W, int H>
SILT_HD SILT_FORCEINLINE void put_slopes(T (&a)[5][H][W], int y, int x, const Slopes<T>& s) {
  a[0][y][x] = s.h;
  a[1][y][x] = s.z;
  a[2][y][x] = s.un;
  a[3][y][x] = s.ut;
  a[4][y][x] = s.c;
}
template <class T, int W, int H>
SILT_HD SILT_FORCEINLINE Slopes<T> get_slopes(const T (&a)[5][H][W], int y, int x) {
  return Slopes<T>{a[0][y][x], a[1][y][x], a[2][y][x], a[3][y][x], a[4][y][x]};
}
template <class T, int W, int H>
SILT_HD SILT_FORCEINLINE void put_flux(T (&a)[5][H][W], int y, int x, const EdgeFlux<T>& f) {
  a[0][y][x] = f.h;
  a[1][y][x] = f.un_left;
  a[2][y][x] = f.un_right;
  a[3][y][x] = f.ut;
  a[4][y][x] = f.c;
}
template <class T, int W, int H>
SILT_HD SILT_FORCEINLINE EdgeFlux<T> get_flux(const T (&a)[5][H][W], int y, int x) {
  return EdgeFlux<T>{a[0][y][x], a[1][y][x], a[2][y][x], a[3][y][x], a[4][y][x]};
}
template <class T, int H>
SILT_HD SILT_FORCEINLINE EdgeFlux<T> get_col(const T (&a)[5][H], int y) {
  return EdgeFlux<T>{a[0][y], a[1][y], a[2][y], a[3][y], a[4][y]};
}

// The staged cells as cell_slopes_of() reads them (muscl_edges.hpp's ViewCells over the tile):
// local coordinates, the tile's first cell at (0, 0).
template <class T, class Tile>
struct StagedCells {
  const Tile& t;
  SILT_HD bool is_active(Index x, Index y) const { return t.active[y + 2][x + 2] != 0; }
  SILT_HD NormalState<T> normal(Index x, Index y, Dir d) const {
    const auto& s = t.staged();
    const T h = s.h[y + 2][x + 2], u = s.u[y + 2][x + 2], v = s.v[y + 2][x + 2],
            c = s.c[y + 2][x + 2];
    return d == Dir::x ? NormalState<T>{h, u, v, c} : NormalState<T>{h, v, u, c};
  }
  SILT_HD T z(Index x, Index y) const { return t.z[y + 2][x + 2]; }
};

// A staged cell as read from global memory: its state, bed and activity.
template <class T>
struct StagedLoad {
  CellState<T> s;
  T z;
  bool active;
};
// Cell (i, j) of e from global memory (off: its offset, 0 beyond the cells the view holds, which
// lies in the allocation; inside: whether it is one of them; an inactive cell if not). The offset
// widened as unsigned (offsets are >= 0): a signed int's sign extension took two more
// instructions per cell on the device (SHF, SEL).
template <class T>
SILT_HD SILT_FORCEINLINE StagedLoad<T> load_staged(const EdgeView<T>& e, Index off, bool inside) {
  const std::size_t o = unsigned(off);
  return StagedLoad<T>{
      CellState<T>{load(e.h.ptr + o), load(e.hu.ptr + o), load(e.hv.ptr + o), load(e.hc.ptr + o)},
      load(e.z.ptr + o), inside && load(e.active.ptr + o) != 0};
}
// Stores a loaded cell at local (x, y): its primitive state as normal_state_k() derives it (the
// same quotients).
template <class T, class Tile>
SILT_HD SILT_FORCEINLINE void store_staged(Tile& t, int x, int y, const EdgeView<T>& e,
                                           const StagedLoad<T>& c) {
  const CellState<T>& s = c.s;
  t.active[y + 2][x + 2] = c.active;
  auto& st = t.staged();
  st.h[y + 2][x + 2] = s.h;
#if defined(__CUDA_ARCH__)
  if constexpr (std::is_same_v<T, float>) {
    // One reciprocal for the three quotients: with fast math a float quotient q / h is q times
    // the approximate reciprocal of h (MUFU.RCP, FMUL), so these are velocity_k's and
    // concentration_k's values to the bit; ptxas took the reciprocal three times.
    const T r = T(1) / s.h;
    st.u[y + 2][x + 2] = s.h > e.dry ? s.hu * r : T(0);
    st.v[y + 2][x + 2] = s.h > e.dry ? s.hv * r : T(0);
    st.c[y + 2][x + 2] = s.h > T(0) ? s.hc * r : T(0);
  } else
#endif
  {
    st.u[y + 2][x + 2] = velocity_k(s.h, s.hu, e.dry);
    st.v[y + 2][x + 2] = velocity_k(s.h, s.hv, e.dry);
    st.c[y + 2][x + 2] = concentration_k(s.h, s.hc);
  }
  t.z[y + 2][x + 2] = c.z;
}

// Whether a MUSCL-Hancock tile stages the Manning n of its cell (x, y) (manning: the field, else
// null): the cells the predictor or the update read, x in [-1, OX], y in [-1, OY], at
// t.n[y + 1][x + 1].
template <class T, class Tile>
SILT_HD SILT_FORCEINLINE bool stages_manning(const T* manning, int x, int y) {
  if constexpr (Tile::kManning)
    return manning && x >= -1 && x <= Tile::W && y >= -1 && y <= Tile::H;
  else
    return false;
}
template <class T, class Tile>
SILT_HD SILT_FORCEINLINE void store_manning(Tile& t, int x, int y, T n) {
  if constexpr (Tile::kManning) t.n[y + 1][x + 1] = n;
}

// Whether e holds cell (i, j) (its own cells and the ext layers around them): a tile stages any
// other as an inactive cell, loaded from offset 0, which lies in the allocation. As unsigned
// ranges: one compare a direction.
template <class T>
SILT_HD SILT_FORCEINLINE bool view_holds(const EdgeView<T>& e, Index i, Index j) {
  return unsigned(i + e.ext) < unsigned(e.nx + 2 * e.ext) &&
         unsigned(j + e.ext) < unsigned(e.ny + 2 * e.ext);
}

// Stages cell (i, j) of e at local (x, y), or an inactive cell beyond the cells the view holds;
// its Manning n where the tile stages it (stages_manning).
template <class T, class Tile>
SILT_HD SILT_FORCEINLINE void stage_cell(Tile& t, int x, int y, const EdgeView<T>& e, Index i,
                                         Index j, const T* manning) {
  const bool inside = view_holds(e, i, j);
  const Index off = inside ? e.h.offset(i, j) : 0;  // offset 0 lies in the allocation
  store_staged(t, x, y, e, load_staged(e, off, inside));
  if (stages_manning<T, Tile>(manning, x, y)) store_manning(t, x, y, load(manning + off));
}

// The flux of an edge with an inactive side (the boundary flux of muscl_edge_flux, from global
// memory), out of line on the device: few edges take it, and inlined it would hold registers in
// every tile.
template <class T>
SILT_HD SILT_MUSCL_TILE_NOINLINE EdgeFlux<T> general_muscl_flux(const EdgeView<T>& e, Index i,
                                                                Index j, Dir d) {
  return muscl_edge_flux(e, i, j, d);
}

// Infiltration of one cell (ForcingView::infiltrate), out of line as in fused_step.cpp. The state
// goes in and out by value: a reference to the caller's state put it on the stack, stored and
// loaded back around the call in every cell (3 local stores and 3 loads per cell of the
// MUSCL-Hancock tile kernel, infiltration or not).
template <class T>
SILT_HD SILT_MUSCL_TILE_NOINLINE CellState<T> tile_infiltrate(const ForcingView<T>& f,
                                                              CellState<T> s, Index off,
                                                              bool active, double dt, T dry) {
  f.infiltrate(s, off, active, dt, dry);
  return s;
}

// The flux through the west (d = x) or south (d = y) edge of staged cell (x, y), as
// muscl_edge_flux: between two active cells muscl_flux_k on the staged states and slopes, none
// between two inactive ones, else the general flux of global cell (i, j).
template <class T, int OX, int OY>
SILT_HD SILT_FORCEINLINE EdgeFlux<T> tile_edge_flux(const MusclTile<T, OX, OY>& t,
                                                    const EdgeView<T>& e, int x, int y, Dir d,
                                                    Index i, Index j) {
  const StagedCells<T, MusclTile<T, OX, OY>> cells{t};
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

// The phases of a tile, each over its items k = first, first + stride, ... (a CUDA block's
// threads: first = the thread, stride = the block's threads; the host: 0 and 1), a barrier
// between them. Phase 0: stage the cells the slopes read.
template <class T, class Tile>
SILT_HD void stage_phase(Tile& t, const EdgeView<T>& e, const TilePlace& at, int first, int stride,
                         const T* manning = nullptr) {
  constexpr int SX = Tile::SX, SY = Tile::SY;
  for (int k = first; k < SX * SY; k += stride) {
    const int x = k % SX - 2, y = k / SX - 2;
    if (x < at.nxb + 2 && y < at.nyb + 2) stage_cell(t, x, y, e, at.i0 + x, at.j0 + y, manning);
  }
}

// MUSCL-Hancock phase 0: stage_phase's cells, as two item lists a warp reads coalesced: first the
// tile's OX columns of each of its SY staged rows (item k: row k / OX - 2, x = k % OX, so with OX
// = 32 a warp is a row's 32 cells from the tile's first column, 128 contiguous bytes a field),
// then the ring's 4 columns (x = -2, -1, OX, OX + 1) of each row (stage_phase's 36 x 20 items
// of a float32 tile put most warps' loads across two rows, from 2 cells before the tile's first
// column). Each thread takes kStageBatch items at a time (all of a float32 tile's: 720 items, 3
// x 256), their global loads before any of their shared stores: stage_phase's threads waited for
// global memory once per item (2-3 a thread), each item's loads after the previous item's
// stores. The same cells and values as stage_phase; more instructions than its loop (308 a
// thread for 3 items with Manning n, 241 without; +48 and +16 per owned cell of ~1,214).
// kStride: the items' stride, a block's threads on the device (first < kStride: the compiler
// then knows which of a thread's items are rows), 1 on the host.
constexpr int kStageBatch = 3;
template <int kStride, class T, class Tile>
SILT_HD void hancock_stage_phase(Tile& t, const EdgeView<T>& e, const TilePlace& at, int first,
                                 const T* manning) {
  constexpr int SX = Tile::SX, SY = Tile::SY, OX = SX - 4;
  static_assert((OX & (OX - 1)) == 0, "hancock_stage_phase: rows of a power of two");
  constexpr int NR = SY * OX, N = NR + SY * 4;
#if defined(__CUDA_ARCH__)
  __builtin_assume(first >= 0 && first < kStride);
#endif
  // Staged: x < nxb + 2, y < nyb + 2; beyond the view's cells an inactive cell: view_holds(e,
  // i0 + x, j0 + y) with its ranges moved to the tile's origin once (as view_holds inline, ~3
  // more instructions an item).
  const int xe = at.nxb + 2, ye = at.nyb + 2;
  const int xlo = -e.ext - at.i0, ylo = -e.ext - at.j0;
  const unsigned xn = unsigned(e.nx + 2 * e.ext), yn = unsigned(e.ny + 2 * e.ext);
  // Cell (x, y)'s offset from the tile's origin's (Grid2::offset is linear in i and j): one
  // multiply-add an item, where offset(i, j) took three more instructions.
  const Index origin = e.h.offset(at.i0, at.j0), pitch = e.h.stride();
  for (int k0 = first; k0 < N; k0 += kStageBatch * kStride) {
    StagedLoad<T> c[kStageBatch];
    T n[kStageBatch];
    int xs[kStageBatch], ys[kStageBatch];
    bool live[kStageBatch];
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
    for (int b = 0; b < kStageBatch; ++b) {
      const int k = k0 + b * kStride, r = k - NR;
      const int x = k < NR ? int(unsigned(k) % OX) : (r & 3) < 2 ? (r & 3) - 2 : OX - 2 + (r & 3);
      const int y = (k < NR ? int(unsigned(k) / OX) : r >> 2) - 2;
      xs[b] = x;
      ys[b] = y;
      live[b] = k < N && x < xe && y < ye;
      if (live[b]) {
        const bool inside = unsigned(x - xlo) < xn && unsigned(y - ylo) < yn;
        const Index off = inside ? origin + y * pitch + x : Index(0);
        c[b] = load_staged(e, off, inside);
        if (stages_manning<T, Tile>(manning, x, y)) n[b] = load(manning + unsigned(off));
      }
    }
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
    for (int b = 0; b < kStageBatch; ++b) {
      if (!live[b]) continue;
      store_staged(t, xs[b], ys[b], e, c[b]);
      if (stages_manning<T, Tile>(manning, xs[b], ys[b])) store_manning(t, xs[b], ys[b], n[b]);
    }
  }
}

// Phase 1: the slopes of each active cell that an edge of the tile's cells reads, once.
template <class T, int OX, int OY>
SILT_HD void slope_phase(MusclTile<T, OX, OY>& t, const EdgeView<T>& e, const TilePlace& at,
                         int first, int stride) {
  const StagedCells<T, MusclTile<T, OX, OY>> cells{t};
  for (int k = first; k < OY * (OX + 2); k += stride) {
    const int x = k % (OX + 2) - 1, y = k / (OX + 2);
    if (x <= at.nxb && y < at.nyb && cells.is_active(x, y))
      put_slopes(t.sx, y, x + 1, cell_slopes_of(cells, x, y, Dir::x, e.dry));
  }
  for (int k = first; k < (OY + 2) * OX; k += stride) {
    const int x = k % OX, y = k / OX - 1;
    if (x < at.nxb && y <= at.nyb && cells.is_active(x, y))
      put_slopes(t.sy, y + 1, x, cell_slopes_of(cells, x, y, Dir::y, e.dry));
  }
}

// Phase 2: each edge of the tile's cells once (tile_edge_flux of the tile's kind).
template <class T, class Tile>
SILT_HD void flux_phase(Tile& t, const EdgeView<T>& e, const TilePlace& at, int first, int stride) {
  constexpr int OX = Tile::W, OY = Tile::H;
  for (int k = first; k < OY * (OX + 1); k += stride) {
    const int x = k % (OX + 1), y = k / (OX + 1);
    if (x <= at.nxb && y < at.nyb)
      put_flux(t.fluxes().fx, y, x, tile_edge_flux(t, e, x, y, Dir::x, at.i0 + x, at.j0 + y));
  }
  for (int k = first; k < (OY + 1) * OX; k += stride) {
    const int x = k % OX, y = k / OX;
    if (x < at.nxb && y <= at.nyb)
      put_flux(t.fluxes().fy, y, x, tile_edge_flux(t, e, x, y, Dir::y, at.i0 + x, at.j0 + y));
  }
}

// Phase 3: the tile's cells of the box, as phase_muscl_stage (kFinal false: src is v.e, U^n) or
// phase_muscl_final (kFinal: U^n from v.e, the fluxes of src = U*, Heun's average). step: dt > 0
// (else the state is carried over and the fluxes were not computed). Returns the largest wave
// speed of the owned cells' new state with kCfl (phase_cfl_step's), else 0.
template <bool kFinal, bool kCfl, class T, class Tile>
SILT_HD T update_phase(const Tile& t, const SolverView<T>& v, const EdgeView<T>& src,
                       const TilePlace& at, bool step, double dt, int first, int stride) {
  constexpr int OX = Tile::W, OY = Tile::H;
  T speed = T(0);
  for (int k = first; k < OX * OY; k += stride) {
    const int x = k % OX, y = k / OX;
    if (x >= at.nxb || y >= at.nyb) continue;
    const Index i = at.i0 + x, j = at.j0 + y;
    const Index off = v.e.h.offset(i, j);  // every field's (muscl_update_cell)
    const bool update = step && v.e.active.ptr[off] != 0;
    CellState<T> s{v.e.h.ptr[off], v.e.hu.ptr[off], v.e.hv.ptr[off], v.e.hc.ptr[off]};
    if (update) {
      // The stage's src is v.e (U^n, read above); the final stage's is U*.
      const CellState<T> s1 =
          kFinal ? CellState<T>{src.h.ptr[off], src.hu.ptr[off], src.hv.ptr[off], src.hc.ptr[off]}
                 : s;
      const auto& f = t.fluxes();
      const EdgeFlux<T> w = get_flux(f.fx, y, x), ea = get_flux(f.fx, y, x + 1),
                        so = get_flux(f.fy, y, x), n = get_flux(f.fy, y + 1, x);
      const CellState<T> s2 = muscl_update_cell(v, src, i, j, s1, dt, w, ea, so, n);
      s = kFinal ? heun_average_k(s, s2, v.e.dry) : s2;
    }
    if constexpr (kFinal) {
      if (v.forcing.model != kNoInfiltration)
        s = tile_infiltrate(v.forcing, s, off, update, dt, v.e.dry);
      if (update && s.h > v.max_depth.ptr[off]) v.max_depth.ptr[off] = s.h;
      if (kCfl && update && v.e.owns(i, j)) {
        const T w = wave_speed_k(s.h, s.hu, s.hv, v.e.g, v.e.dry);
        speed = w > speed ? w : speed;
      }
    }
    store_new(v, off, s);
  }
  return speed;
}

// The MUSCL-Hancock step's tile (physics.scheme = "muscl_hancock", one launch a step): the staged
// cells as MusclTile's (x in [-2, OX + 2), y in [-2, OY + 2) at [y + 2][x + 2]); the slopes along
// x and along y and the predicted primitive state (ph, pu, pv, pc) of each cell whose predicted
// face an edge of the tile's cells reads (x in [-1, OX], y in [0, OY), and x in [0, OX), y in
// [-1, OY]: the ring of one without its corners), at [y + 1][x + 1]. Fluxes: through the south
// edge of cell (x, y), y in [0, OY], at fy[y][x] (MusclTile's), and through the east edge of the
// tile's last column, x = OX, at fe[y]; every other x edge is the update's, computed by the thread
// that updates the cell (hancock_update_phase), not stored. The slopes and the predictor are one
// phase (a cell's predictor reads only its own slopes and the staged cells, which it leaves as
// they are); the fluxes share the memory of the staged h, u, v, c, which no phase after the
// predictor reads (the flux phases read the predicted state and the staged bed and activity).
template <class T, int OX, int OY>
struct HancockTile {
  static constexpr int SX = OX + 4, SY = OY + 4, W = OX, H = OY;
  static constexpr bool kManning = true;
  struct Staged {
    T h[SY][SX], u[SY][SX], v[SY][SX], c[SY][SX];
  };
  struct Fluxes {
    T fy[5][OY + 1][OX], fe[5][OY];
  };
  union {
    Staged staged_;
    Fluxes fluxes_;
  };
  T z[SY][SX];
  T sx[5][OY + 2][OX + 2], sy[5][OY + 2][OX + 2];
  T ph[OY + 2][OX + 2], pu[OY + 2][OX + 2], pv[OY + 2][OX + 2], pc[OY + 2][OX + 2];
  // Manning n of each predicted cell, at ph's places (with a Manning field; not in the union: the
  // update reads it). Staged with the state, among the stage's loads, for the predictor and the
  // update, which loaded it from global memory just before its use (a wait of its own per
  // predicted and per updated cell). 2.4 KB in float32: four tiles of 32 x 16 take 207 of an
  // SM's 228 KB.
  T n[OY + 2][OX + 2];
  unsigned char active[SY][SX];
  SILT_HD Staged& staged() { return staged_; }
  SILT_HD const Staged& staged() const { return staged_; }
  SILT_HD Fluxes& fluxes() { return fluxes_; }
  SILT_HD const Fluxes& fluxes() const { return fluxes_; }
};
// kHancockMinBlocks blocks per SM: each its tile and 1 KB reserved, within an SM's 228 KB.
template <class T>
constexpr bool hancock_tile_fits() {
  const std::size_t tile = sizeof(HancockTile<T, kOX, kHancockOY<T>>) + 1024;
  return std::size_t(kHancockMinBlocks<T>) * tile <= 228 * 1024;
}
static_assert(hancock_tile_fits<float>(), "hancock tile, float32");
static_assert(hancock_tile_fits<double>(), "hancock tile, float64");

// The predicted cells as the flux phase reads them (StagedCells' shape): the predicted primitive
// state, the staged bed and activity.
template <class T, int OX, int OY>
struct PredictedCells {
  const HancockTile<T, OX, OY>& t;
  SILT_HD bool is_active(Index x, Index y) const { return t.active[y + 2][x + 2] != 0; }
  SILT_HD NormalState<T> normal(Index x, Index y, Dir d) const {
    const T h = t.ph[y + 1][x + 1], u = t.pu[y + 1][x + 1], v = t.pv[y + 1][x + 1],
            c = t.pc[y + 1][x + 1];
    return d == Dir::x ? NormalState<T>{h, u, v, c} : NormalState<T>{h, v, u, c};
  }
  SILT_HD T z(Index x, Index y) const { return t.z[y + 2][x + 2]; }
};

// The predicted cells as one item list (predict_phase): first the tile's cells, row by row (item
// k < OX OY: x = k % OX, y = k / OX), then the ring of one without its corners, each side whole:
// the row below (y = -1) and the row above the tile's nyb rows (y = nyb), x in [0, OX), then the
// column west of it (x = -1) and the column east of its nxb columns (x = nxb), y in [0, OY).
// Item k's cell (x, y); whether the tile at `at` predicts it (x < nxb and y < nyb where they are
// not the ring's). With OX = 32 a warp's items are one side's (float32: 512 tile cells, 64 ring
// row cells and 32 column cells, 19 warps' items, none idle but a partial tile's); the 34 x 18
// list of the ring and the tile (corners skipped) took 20, and a division by 34 an item: 64M
// cells float32 19.49 -> 20.55 G cell-updates/s on an H100 (bench/results/
// swe-hancock-predict-items-2026-12-07e-h100.md).
template <int OX, int OY>
constexpr int kPredictItems = (OX * OY) + 2 * (OX + OY);
template <int OX, int OY>
SILT_HD SILT_FORCEINLINE bool predicted_item(int k, const TilePlace& at, int& x, int& y) {
  static_assert((OX & (OX - 1)) == 0, "predicted_item: rows of a power of two");
  if (k < OX * OY) {
    x = int(unsigned(k) % OX);
    y = int(unsigned(k) / OX);
    return x < at.nxb && y < at.nyb;
  }
  const int r = k - OX * OY;
  if (r < 2 * OX) {
    x = int(unsigned(r) % OX);
    y = r < OX ? -1 : at.nyb;
    return x < at.nxb;
  }
  const int c = r - 2 * OX;
  y = c < OY ? c : c - OY;
  x = c < OY ? -1 : at.nxb;
  return y < at.nyb;
}

// The boundary flux of a MUSCL-Hancock edge (muscl_boundary_flux on the active cell's predicted
// state), out of line on the device as general_muscl_flux.
template <class T>
SILT_HD SILT_MUSCL_TILE_NOINLINE EdgeFlux<T> hancock_boundary_flux(const EdgeView<T>& e, Index i,
                                                                   Index j, Dir d,
                                                                   const NormalState<T>& c, T z,
                                                                   const Slopes<T>& s, bool right) {
  return muscl_boundary_flux(e, i, j, d, c, z, s, right);
}

// The boundary flux through the west (d = x) or south (d = y) edge of staged cell (x, y) of a
// MUSCL-Hancock tile, whose active side is cell (x, y) (right) or its west/south neighbour.
template <class T, int OX, int OY>
SILT_HD SILT_FORCEINLINE EdgeFlux<T> hancock_tile_boundary_flux(const HancockTile<T, OX, OY>& t,
                                                                const EdgeView<T>& e, int x, int y,
                                                                Dir d, Index i, Index j,
                                                                bool right) {
  const PredictedCells<T, OX, OY> cells{t};
  const int xc = right || d == Dir::y ? x : x - 1, yc = right || d == Dir::x ? y : y - 1;
  const Slopes<T> s =
      d == Dir::x ? get_slopes(t.sx, yc + 1, xc + 1) : get_slopes(t.sy, yc + 1, xc + 1);
  return hancock_boundary_flux(e, i, j, d, cells.normal(xc, yc, d), cells.z(xc, yc), s, right);
}

// The flux through the west (d = x) or south (d = y) edge of staged cell (x, y) of a
// MUSCL-Hancock tile: between two active cells muscl_flux_k on the predicted states and their
// slopes; none between two inactive ones; else the boundary flux of the active cell's predicted
// face state. (U^n's face state there, as the muscl stage takes it, made the boundary cell a
// forward-Euler step of a MUSCL reconstruction, which is unstable: SWASHES's subcritical
// MacDonald channel grew an inflow of -63 m/s at its level boundary within 22 s.)
template <class T, int OX, int OY>
SILT_HD SILT_FORCEINLINE EdgeFlux<T> tile_edge_flux(const HancockTile<T, OX, OY>& t,
                                                    const EdgeView<T>& e, int x, int y, Dir d,
                                                    Index i, Index j) {
  const PredictedCells<T, OX, OY> cells{t};
  const int xl = d == Dir::x ? x - 1 : x, yl = d == Dir::x ? y : y - 1;
  const bool left = cells.is_active(xl, yl), right = cells.is_active(x, y);
  if (left && right) {
    const Slopes<T> sl =
        d == Dir::x ? get_slopes(t.sx, yl + 1, xl + 1) : get_slopes(t.sy, yl + 1, xl + 1);
    const Slopes<T> sr =
        d == Dir::x ? get_slopes(t.sx, y + 1, x + 1) : get_slopes(t.sy, y + 1, x + 1);
    return muscl_flux_k(cells.normal(xl, yl, d), cells.z(xl, yl), sl, cells.normal(x, y, d),
                        cells.z(x, y), sr, e.g, e.dry);
  }
  if (!left && !right) return EdgeFlux<T>{T(0), T(0), T(0), T(0), T(0)};
  return hancock_tile_boundary_flux(t, e, x, y, d, i, j, right);
}

// x read where it is used (a volatile load): the phases read the step's constants from shared
// memory at each use, where the compiler would otherwise hold them in registers across a phase
// and spill them (float32: 5 local loads per predicted cell).
template <class T>
SILT_HD SILT_FORCEINLINE T fresh(const T& x) {
  return *static_cast<const volatile T*>(&x);
}

// The constants of a MUSCL-Hancock step, from the clock once per block (thread 0, into shared
// memory: in every thread, its three float64 divisions were ~130 instructions a thread) or per
// launch on the host, so that a float32 tile's cells take no float64 arithmetic (but a raster's
// rain): the predictor's parameters and the update's (their rain 0), and the uniform rain over
// half the step and over the step, as rain_depth() computes them without a raster (raster: each
// cell's from rain_depth()). The same values as the plain phase's per cell (hancock_state,
// muscl_update_cell).
template <class T>
struct HancockStep {
  HancockParams<T> hp;
  CellUpdateParams<T> up;
  T rain_half, rain;
  bool raster;
};
template <class T>
SILT_HD SILT_FORCEINLINE HancockStep<T> hancock_step(const SolverView<T>& v, double dt) {
  const EdgeView<T>& e = v.e;
  const bool raster = v.forcing.rain_a != nullptr;
  return HancockStep<T>{
      HancockParams<T>{e.g, T(0.5 * dt / v.dx), T(0.5 * v.dx / dt), T(0.5 * dt), T(0), T(0), e.dry},
      muscl_update_params(v, e, dt), raster ? T(0) : v.rain_depth(0, 0.5 * dt),
      raster ? T(0) : v.rain_depth(0, dt), raster};
}

// The predictor's flux differences along x and y of staged cell (x, y), global (i, j), beside a
// boundary (hancock_cell_difference, the boundary fluxes from global memory), out of line on the
// device: few cells take it. It reads the cell from the tile and returns by value, so that the
// hot path keeps its state in registers (references to its locals put them on the stack: 26
// local loads and stores per cell).
template <class T>
struct FluxDifferences {
  FluxDifference<T> x, y;
};
template <class T, int OX, int OY>
SILT_HD SILT_MUSCL_TILE_NOINLINE FluxDifferences<T> hancock_boundary_differences(
    const HancockTile<T, OX, OY>& t, const EdgeView<T>& e, int x, int y, Index i, Index j) {
  const StagedCells<T, HancockTile<T, OX, OY>> cells{t};
  const T z = cells.z(x, y);
  return FluxDifferences<T>{
      hancock_cell_difference(e, i, j, Dir::x, cells.normal(x, y, Dir::x), z,
                              get_slopes(t.sx, y + 1, x + 1), cells.is_active(x - 1, y),
                              cells.is_active(x + 1, y)),
      hancock_cell_difference(e, i, j, Dir::y, cells.normal(x, y, Dir::y), z,
                              get_slopes(t.sy, y + 1, x + 1), cells.is_active(x, y - 1),
                              cells.is_active(x, y + 1))};
}

// A staged cell and its four neighbours (the cells its slopes read), each loaded once, in
// StagedCells' shape for cell_slopes_of: the centre (x0, y0) and its west, east, south and north
// neighbours (after inlining the offsets the slopes ask for are constants, so each access picks
// its cell at compile time; a boundary slope's runtime choice of neighbour is a select). Through
// StagedCells each slope's branch loaded its own copies (the centre, the neighbours' activity and
// bed twice or more).
template <class T>
struct StencilCells {
  struct Cell {
    T h, u, v, c, z;
    bool active;
  };
  Cell C, W, E, S, N;
  int x0, y0;
  template <class Tile>
  static SILT_HD SILT_FORCEINLINE Cell load(const Tile& t, int x, int y) {
    const auto& s = t.staged();
    return Cell{s.h[y + 2][x + 2], s.u[y + 2][x + 2], s.v[y + 2][x + 2],
                s.c[y + 2][x + 2], t.z[y + 2][x + 2], t.active[y + 2][x + 2] != 0};
  }
  template <class Tile>
  SILT_HD SILT_FORCEINLINE StencilCells(const Tile& t, int x, int y)
      : C(load(t, x, y)),
        W(load(t, x - 1, y)),
        E(load(t, x + 1, y)),
        S(load(t, x, y - 1)),
        N(load(t, x, y + 1)),
        x0(x),
        y0(y) {}
  SILT_HD SILT_FORCEINLINE Cell at(Index i, Index j) const {
    const int di = int(i) - x0, dj = int(j) - y0;
    return di < 0 ? W : di > 0 ? E : dj < 0 ? S : dj > 0 ? N : C;
  }
  SILT_HD bool is_active(Index i, Index j) const { return at(i, j).active; }
  SILT_HD NormalState<T> normal(Index i, Index j, Dir d) const {
    const Cell k = at(i, j);
    return d == Dir::x ? NormalState<T>{k.h, k.u, k.v, k.c} : NormalState<T>{k.h, k.v, k.u, k.c};
  }
  SILT_HD T z(Index i, Index j) const { return at(i, j).z; }
};

// MUSCL-Hancock phase 1: each predicted cell's slopes along x and y (muscl's cell_slopes_of, into
// the tile for the flux phase) and its half-step state (hancock_predict_k, into ph, pu, pv, pc),
// with half the step's rain and friction (their fields from global memory).
template <class T, int OX, int OY>
SILT_HD void predict_phase(HancockTile<T, OX, OY>& t, const SolverView<T>& sv, const TilePlace& at,
                           const HancockStep<T>& hs, int first, int stride) {
  const EdgeView<T>& e = sv.e;
  for (int k = first; k < kPredictItems<OX, OY>; k += stride) {
    int x, y;
    if (!predicted_item<OX, OY>(k, at, x, y) || t.active[y + 2][x + 2] == 0) continue;
    const StencilCells<T> cells(t, x, y);
    const Slopes<T> sx = cell_slopes_of(cells, x, y, Dir::x, e.dry),
                    sy = cell_slopes_of(cells, x, y, Dir::y, e.dry);
    put_slopes(t.sx, y + 1, x + 1, sx);
    put_slopes(t.sy, y + 1, x + 1, sy);
    const NormalState<T> c = cells.normal(x, y, Dir::x);
    const Index i = at.i0 + x, j = at.j0 + y;
    // A cell beside a boundary: its faces there take the boundary flux.
    const bool inner = cells.W.active && cells.E.active && cells.S.active && cells.N.active;
    FluxDifference<T> fx, fy;
    if (inner) {
      fx = hancock_flux_difference_k(c, sx, e.g);
      fy = hancock_flux_difference_k(NormalState<T>{c.h, c.ut, c.un, c.c}, sy, e.g);
    } else {
      const FluxDifferences<T> b = hancock_boundary_differences(t, e, x, y, i, j);
      fx = b.x;
      fy = b.y;
    }
    // Rain and Manning n after the flux differences: live across the boundary cells' out-of-line
    // call, ptxas kept them on the stack (a local store and load each per predicted cell at 64
    // registers; float64 too).
    const T rain =
        hs.raster ? sv.rain_depth(e.h.offset(i, j), 0.5 * sv.clock[kDt]) : fresh(hs.rain_half);
    // n read here (fresh): read earlier, ptxas kept it on the stack across the boundary call.
    const T manning = sv.manning.ptr ? fresh(t.n[y + 1][x + 1]) : T(0);
    const HancockParams<T> hp{
        e.g, fresh(hs.hp.k), fresh(hs.hp.limit), fresh(hs.hp.half_dt), rain, manning, e.dry};
    const NormalState<T> p = hancock_predict_k(c, sx, sy, fx, fy, hp);
    t.ph[y + 1][x + 1] = p.h;
    t.pu[y + 1][x + 1] = p.un;
    t.pv[y + 1][x + 1] = p.ut;
    t.pc[y + 1][x + 1] = p.c;
  }
}

// MUSCL-Hancock phase 2: the south edge of each of the tile's cells and the north edge of its top
// row (fy), and the east edge of its last column (fe; a full tile's only: a narrower tile's east
// edge is the update's, as its other x edges). The column's edges go to the block's last threads
// (first from the end: thread 0 on the host), which the y edges leave with one item fewer.
template <class T, int OX, int OY>
SILT_HD void hancock_flux_phase(HancockTile<T, OX, OY>& t, const EdgeView<T>& e,
                                const TilePlace& at, int first, int stride) {
  auto& f = t.fluxes();
  for (int k = first; k < (OY + 1) * OX; k += stride) {
    const int x = k % OX, y = k / OX;
    if (x < at.nxb && y <= at.nyb)
      put_flux(f.fy, y, x, tile_edge_flux(t, e, x, y, Dir::y, at.i0 + x, at.j0 + y));
  }
  if (at.nxb == OX) {
    for (int y = stride - 1 - first; y < at.nyb; y += stride) {
      const EdgeFlux<T> g = tile_edge_flux(t, e, OX, y, Dir::x, at.i0 + OX, at.j0 + y);
      f.fe[0][y] = g.h;
      f.fe[1][y] = g.un_left;
      f.fe[2][y] = g.un_right;
      f.fe[3][y] = g.ut;
      f.fe[4][y] = g.c;
    }
  }
}

// The flux of the lane above (lane + 1) of the warp on the device (every lane must call it); f
// itself on the host.
template <class T>
SILT_HD SILT_FORCEINLINE EdgeFlux<T> next_lane_flux(const EdgeFlux<T>& f) {
#if defined(__CUDA_ARCH__)
  constexpr unsigned kAll = 0xffffffffu;
  return EdgeFlux<T>{__shfl_down_sync(kAll, f.h, 1), __shfl_down_sync(kAll, f.un_left, 1),
                     __shfl_down_sync(kAll, f.un_right, 1), __shfl_down_sync(kAll, f.ut, 1),
                     __shfl_down_sync(kAll, f.c, 1)};
#else
  return f;
#endif
}

// MUSCL-Hancock phase 3: the tile's cells of the box, as phase_hancock (update_phase's final
// stage without Heun's average) on the step's constants hs; dt (float64: the boundary volume,
// infiltration, a raster's rain) read from the clock where a cell takes it. step: dt > 0 (else
// the state is carried over and the fluxes were not computed). Returns the largest wave speed of
// the owned cells' new state with kCfl, else 0. The x edges but the last column's (fe) are
// computed here: on the device a warp is a row of the tile (OX = 32, the items in order), lane x
// computes the west edge of cell x (x <= nxb) and takes its east edge from lane x + 1 (lane 31
// from fe); on the host (first 0, stride 1: a row's cells in order) each cell computes its east
// edge and hands it to the next cell as its west edge. Each edge once, the same flux either way.
template <bool kCfl, class T, int OX, int OY>
SILT_HD T hancock_update_phase(const HancockTile<T, OX, OY>& t, const SolverView<T>& v,
                               const TilePlace& at, bool step, const HancockStep<T>& hs, int first,
                               int stride) {
  static_assert(OX == 32, "hancock_update_phase: a warp is a row of the tile");
  T speed = T(0);
  CellUpdateParams<T> p{T(0), T(0), T(0), v.e.g, v.e.dry, T(0)};
#if !defined(__CUDA_ARCH__)
  EdgeFlux<T> carry{T(0), T(0), T(0), T(0), T(0)};  // the previous cell's east edge
#endif
  for (int k = first; k < OX * OY; k += stride) {
    const int x = k % OX, y = k / OX;
    if (y >= at.nyb) continue;  // the whole warp on the device
    const bool own = x < at.nxb;
    const Index i = at.i0 + x, j = at.j0 + y;
    const Index off = v.e.h.offset(i, j);  // every field's (muscl_update_cell)
    // Whether the cell is active from the staged tile (an owned cell lies within the view, so
    // its staged activity is v.e.active's; not read without a step, which stages nothing): the
    // global byte's compare came right after its load, so each item waited for global memory
    // before its x edge. Its global loads (the state, the maximum depth) at the item's start,
    // used after the x edge (~200 instructions), and Manning n from the tile: the friction's and
    // the maximum's loads came after the update's arithmetic, each a wait of its own.
    const bool update = own && step && t.active[y + 2][x + 2] != 0;
    CellState<T> s{T(0), T(0), T(0), T(0)};
    T max_depth = T(0);
    if (own) s = CellState<T>{v.e.h.ptr[off], v.e.hu.ptr[off], v.e.hv.ptr[off], v.e.hc.ptr[off]};
    if (update) max_depth = v.max_depth.ptr[off];  // no other thread writes it in the launch
    EdgeFlux<T> w{T(0), T(0), T(0), T(0), T(0)}, ea = w;
    if (step) {
#if defined(__CUDA_ARCH__)
      if (x <= at.nxb) w = tile_edge_flux(t, v.e, x, y, Dir::x, i, j);
      ea = next_lane_flux(w);
      if (x == OX - 1 && own) ea = get_col(t.fluxes().fe, y);
#else
      if (own) {
        w = x == 0 ? tile_edge_flux(t, v.e, 0, y, Dir::x, i, j) : carry;
        ea = x + 1 < OX ? tile_edge_flux(t, v.e, x + 1, y, Dir::x, i + 1, j)
                        : get_col(t.fluxes().fe, y);
        carry = ea;
      }
#endif
    }
    if (!own) continue;
    if (update) {
      const auto& f = t.fluxes();
      const EdgeFlux<T> so = get_flux(f.fy, y, x), n = get_flux(f.fy, y + 1, x);
      p.dtdx = fresh(hs.up.dtdx);
      p.dt = fresh(hs.up.dt);
      p.rain_depth = hs.raster ? v.rain_depth(off, v.clock[kDt]) : fresh(hs.rain);
      s = muscl_update_cell_n(v, v.e, i, j, s, p, v.manning.ptr ? t.n[y + 1][x + 1] : T(0), w, ea,
                              so, n);
      // The boundary volume, from the fluxes the update took (predicted face states, which the
      // plain phase_boundary_flow cannot see), as the fused tile kernel.
      const Index gi = i + v.e.i0, gj = j + v.e.j0;
      if (v.e.owns(i, j) && (gi == 0 || gj == 0 || gi == v.e.gnx - 1 || gj == v.e.gny - 1)) {
        const double dt = v.clock[kDt];
        const double q = boundary_inflow(v.e, gi, gj, w, ea, so, n, v.edge_flow(), dt * v.dx);
        if (q != 0.0) atomic_add(v.clock + kInflow, q * dt * v.dx);
      }
    }
    if (v.forcing.model != kNoInfiltration)
      s = tile_infiltrate(v.forcing, s, off, update, v.clock[kDt], v.e.dry);
    if (update && s.h > max_depth) v.max_depth.ptr[off] = s.h;
    if (kCfl && update && v.e.owns(i, j)) {
      const T ws = wave_speed_k(s.h, s.hu, s.hv, v.e.g, v.e.dry);
      speed = ws > speed ? ws : speed;
    }
    store_new(v, off, s);
  }
  return speed;
}

// The tiles over the box: (tiles x, tiles y).
template <class T, int OX = kOX, int OY = kOY<T>>
std::pair<Index, Index> tile_grid(Box2 box) {
  return {(box.i1 - box.i0 + OX - 1) / OX, (box.j1 - box.j0 + OY - 1) / OY};
}

#if SILT_HAS_CUDA
// One launch of a stage; block (bx, by) is tile (bx, by) of the box.
template <bool kFinal, bool kCfl, class T, int OX, int OY>
__global__ void __launch_bounds__(kThreads, kMinBlocks<T>)
    muscl_tile_kernel(const __grid_constant__ SolverView<T> v,
                      const __grid_constant__ EdgeView<T> src, const Box2 box) {
  __shared__ MusclTile<T, OX, OY> t;
  const int tid = threadIdx.y * kThreadsX + threadIdx.x;
  const TilePlace at = tile_place<OX, OY>(box, blockIdx.x, blockIdx.y);
  const double dt = v.clock[kDt];
  // A no-op step (dt == 0) carries the state over; the same for the whole grid.
  const bool step = dt > 0.0;
  if (step) {
    stage_phase(t, src, at, tid, kThreads);
    __syncthreads();
    slope_phase(t, src, at, tid, kThreads);
    __syncthreads();
    flux_phase(t, src, at, tid, kThreads);
    __syncthreads();
  }
  const T speed = update_phase<kFinal, kCfl>(t, v, src, at, step, dt, tid, kThreads);
  if constexpr (kCfl) {
    __shared__ T warp_speed[kThreads / 32];
    if (step) block_max_to<T, kThreadsX, kThreadsY>(speed, warp_speed, v.smax);
  }
}

// One launch of a MUSCL-Hancock step; block (bx, by) is tile (bx, by) of the box.
template <bool kCfl, class T, int OX, int OY>
__global__ void __launch_bounds__(kThreads, kHancockMinBlocks<T>)
    hancock_tile_kernel(const __grid_constant__ SolverView<T> v, const Box2 box) {
  extern __shared__ __align__(16) unsigned char tile_memory[];
  // The tile's address in a register for the whole kernel: as a constant ptxas rematerialised it
  // in every loop body (S2R of the CTA's shared window, then three integer instructions, 2-3
  // times per item of each phase). The empty asm hides where it points; the assumption gives the
  // state space back, so the phases keep their shared loads and stores.
  unsigned char* memory = tile_memory;
  asm volatile("" : "+l"(memory));
  __builtin_assume(__isShared(memory));
  HancockTile<T, OX, OY>& t = *reinterpret_cast<HancockTile<T, OX, OY>*>(memory);
  const int tid = threadIdx.y * kThreadsX + threadIdx.x;
  const TilePlace at = tile_place<OX, OY>(box, blockIdx.x, blockIdx.y);
  const double dt = v.clock[kDt];
  const bool step = dt > 0.0;
  // The step's constants, once per block (the stage's barrier publishes them).
  __shared__ HancockStep<T> hs;
  if (tid == 0) hs = hancock_step(v, dt);
  if (step) {
    // float64 keeps stage_phase: three items' loads at once (30 registers of doubles) took its
    // spills at 128 registers from 24 / 108 to 36 / 148 B (stores / loads).
    if constexpr (sizeof(T) == 4)
      hancock_stage_phase<kThreads>(t, v.e, at, tid, v.manning.ptr);
    else
      stage_phase(t, v.e, at, tid, kThreads, v.manning.ptr);
    __syncthreads();
    predict_phase(t, v, at, hs, tid, kThreads);
    __syncthreads();
    hancock_flux_phase(t, v.e, at, tid, kThreads);
    __syncthreads();
  }
  const T speed = hancock_update_phase<kCfl>(t, v, at, step, hs, tid, kThreads);
  if constexpr (kCfl) {
    __shared__ T warp_speed[kThreads / 32];
    if (step) block_max_to<T, kThreadsX, kThreadsY>(speed, warp_speed, v.smax);
  }
}

// Lets kKernel take bytes of dynamic shared memory on exec's device (current: the engine activates
// it before its launches). Above 48 KB CUDA asks for cudaFuncAttributeMaxDynamicSharedMemorySize,
// set once per device and kernel (the record keyed by the kernel, a template argument).
template <auto kKernel>
void allow_dynamic_shared(const Exec& exec, std::size_t bytes) {
  if (bytes <= 48 * 1024) return;
  static std::atomic<std::uint64_t> done{0};  // bit d: set on device d (d < 64; beyond, each time)
  const std::uint64_t bit = exec.device < 64 ? std::uint64_t(1) << exec.device : 0;
  if ((done.load(std::memory_order_acquire) & bit) != 0) return;
  SILT_CUDA_CHECK(
      cudaFuncSetAttribute(kKernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)));
  done.fetch_or(bit, std::memory_order_release);
}

template <bool kCfl, class T>
void launch_hancock_cuda(const Exec& exec, const SolverView<T>& v, Box2 box, const char* label) {
  constexpr int OX = kOX, OY = kHancockOY<T>;
  const auto [nbx, nby] = tile_grid<T, OX, OY>(box);
  constexpr auto kernel = &hancock_tile_kernel<kCfl, T, OX, OY>;
  constexpr std::size_t bytes = sizeof(HancockTile<T, OX, OY>);
  allow_dynamic_shared<kernel>(exec, bytes);
  silt::launch_kernel(exec, label, dim3(unsigned(nbx), unsigned(nby)), dim3(kThreadsX, kThreadsY),
                      bytes, kernel, v, box);
}

template <bool kFinal, bool kCfl, class T>
void launch_cuda(const Exec& exec, const SolverView<T>& v, const EdgeView<T>& src, Box2 box,
                 const char* label) {
  const auto [nbx, nby] = tile_grid<T>(box);
  silt::launch_kernel(exec, label, dim3(unsigned(nbx), unsigned(nby)), dim3(kThreadsX, kThreadsY),
                      0, &muscl_tile_kernel<kFinal, kCfl, T, kOX, kOY<T>>, v, src, box);
}
#endif

// The host's tiles: one per iteration of an OpenMP loop, the phases one after the other.
template <bool kFinal, bool kCfl, class T>
void run_host(const SolverView<T>& v, const EdgeView<T>& src, Box2 box) {
  constexpr int OX = kOX, OY = kOY<T>;
  const auto [nbx, nby] = tile_grid<T>(box);
  const long long n = static_cast<long long>(nbx) * nby;
  const double dt = v.clock[kDt];
  const bool step = dt > 0.0;
#pragma omp parallel for schedule(dynamic, 4)
  for (long long b = 0; b < n; ++b) {
    MusclTile<T, OX, OY> t;
    const TilePlace at = tile_place<OX, OY>(box, Index(b % nbx), Index(b / nbx));
    if (step) {
      stage_phase(t, src, at, 0, 1);
      slope_phase(t, src, at, 0, 1);
      flux_phase(t, src, at, 0, 1);
    }
    const T speed = update_phase<kFinal, kCfl>(t, v, src, at, step, dt, 0, 1);
    if (kCfl && speed > T(0)) atomic_max(v.smax, speed);
  }
}

// The host's MUSCL-Hancock tiles, as run_host.
// Each thread's tile on the heap, allocated once a launch and not zeroed (the phases write what
// they read): 53-75 KB would overflow a thread stack of 64 KB (OMP_STACKSIZE).
template <bool kCfl, class T>
void run_hancock_host(const SolverView<T>& v, Box2 box) {
  constexpr int OX = kOX, OY = kHancockOY<T>;
  const auto [nbx, nby] = tile_grid<T, OX, OY>(box);
  const long long n = static_cast<long long>(nbx) * nby;
  const double dt = v.clock[kDt];
  const bool step = dt > 0.0;
  const HancockStep<T> hs = hancock_step(v, dt);
#pragma omp parallel
  {
    const std::unique_ptr<HancockTile<T, OX, OY>> tile(new HancockTile<T, OX, OY>);
    HancockTile<T, OX, OY>& t = *tile;
#pragma omp for schedule(dynamic, 4)
    for (long long b = 0; b < n; ++b) {
      const TilePlace at = tile_place<OX, OY>(box, Index(b % nbx), Index(b / nbx));
      if (step) {
        if constexpr (sizeof(T) == 4)
          hancock_stage_phase<1>(t, v.e, at, 0, v.manning.ptr);
        else
          stage_phase(t, v.e, at, 0, 1, v.manning.ptr);
        predict_phase(t, v, at, hs, 0, 1);
        hancock_flux_phase(t, v.e, at, 0, 1);
      }
      const T speed = hancock_update_phase<kCfl>(t, v, at, step, hs, 0, 1);
      if (kCfl && speed > T(0)) atomic_max(v.smax, speed);
    }
  }
}

template <bool kCfl, class T>
void launch_hancock(const Exec& exec, const SolverView<T>& v, Box2 box, const char* label) {
  const Index ext = v.e.ext;
  SILT_REQUIRE(box.i0 >= -ext && box.j0 >= -ext && box.i1 <= v.e.nx + ext && box.j1 <= v.e.ny + ext,
               "swe muscl-hancock tile kernel: box reaches beyond the halo");
  if (box.count() == 0) return;
#if SILT_HAS_CUDA
  if (exec.is_cuda()) {
    launch_hancock_cuda<kCfl>(exec, v, box, label);
    g_muscl_tile_launches.fetch_add(1, std::memory_order_relaxed);
    return;
  }
#endif
  (void)exec;
  (void)label;
  run_hancock_host<kCfl>(v, box);
  g_muscl_tile_launches.fetch_add(1, std::memory_order_relaxed);
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
#if SILT_HAS_CUDA
  if (exec.is_cuda()) {
    launch_cuda<kFinal, kCfl>(exec, v, src, box, label);
    g_muscl_tile_launches.fetch_add(1, std::memory_order_relaxed);
    return;
  }
#endif
  (void)exec;
  (void)label;
  run_host<kFinal, kCfl>(v, src, box);
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

template <class T>
void phase_hancock_tile(const Exec& exec, const SolverView<T>& v, Box2 box, bool with_cfl,
                        const char* label) {
  if (with_cfl)
    launch_hancock<true>(exec, v, box, label);
  else
    launch_hancock<false>(exec, v, box, label);
}

#undef SILT_MUSCL_TILE_NOINLINE

#define SILT_SWE_MUSCL_TILE(T)                                                                   \
  template void phase_muscl_tile_stage<T>(const Exec&, const SolverView<T>&, Box2, const char*); \
  template void phase_muscl_tile_final<T>(const Exec&, const SolverView<T>&, const EdgeView<T>&, \
                                          Box2, bool, const char*);                              \
  template void phase_hancock_tile<T>(const Exec&, const SolverView<T>&, Box2, bool, const char*);
SILT_SWE_MUSCL_TILE(float)
SILT_SWE_MUSCL_TILE(double)
#undef SILT_SWE_MUSCL_TILE

}  // namespace silt::swe::detail
