#include "silt/swe/fused_step.hpp"

#include <cstdlib>
#include <string>

#include "silt/core/error.hpp"
#include "silt/swe/edges.hpp"
#include "silt/swe/kernels/cell_update_k.hpp"
#include "silt/swe/kernels/cfl_k.hpp"
#include "silt/swe/point_source.hpp"

#if SILT_HAS_CUDA
#include <cuda_runtime.h>

#include "silt/core/parallel_for.hpp"
#endif

namespace silt::swe::detail {

bool fused_step_available(const Exec& exec) {
  return SILT_HAS_CUDA && exec.is_cuda();
}

TileShape default_tile_shape() {
  static const TileShape shape = [] {
    const char* v = std::getenv("SILT_SWE_TILE");
    return v && std::string(v) == "32x16" ? TileShape::t32x16 : TileShape::t32x8;
  }();
  return shape;
}

#if SILT_HAS_CUDA
namespace {

// Volume that crossed the domain edge of owned cell (i, j) this step through flow segments (open,
// level, discharge), counted positive into the domain: the fused form of phase_boundary_flow.
template <class T>
__device__ double boundary_inflow(const EdgeView<T>& e, Index i, Index j, const EdgeFlux<T>& w,
                                  const EdgeFlux<T>& ea, const EdgeFlux<T>& s,
                                  const EdgeFlux<T>& n) {
  double q = 0.0;
  auto flows = [&](int side, Index pos) {
    const int seg = e.segment(side, pos);
    return seg >= 0 && e.seg_kind[seg] != kWall;
  };
  if (i == 0 && flows(kWest, j)) q += double(w.h);
  if (i == e.nx - 1 && flows(kEast, j)) q -= double(ea.h);
  if (j == 0 && flows(kSouth, i)) q += double(s.h);
  if (j == e.ny - 1 && flows(kNorth, i)) q -= double(n.h);
  return q;
}

template <class T, int TX, int TY>
__global__ void __launch_bounds__(TX* TY) fused_update_kernel(SolverView<T> v) {
  // fx[ty][tx]: flux through the east edge of the thread's cell; fy: through its north edge.
  __shared__ EdgeFlux<T> fx[TY][TX];
  __shared__ EdgeFlux<T> fy[TY][TX];
  __shared__ T warp_speed[TX * TY / 32];

  const EdgeView<T>& e = v.e;
  const int tx = threadIdx.x, ty = threadIdx.y;
  // Tiles overlap by the ghost column and row: block (bx, by) owns cells
  // [bx (TX - 1), (bx + 1)(TX - 1)) x [by (TY - 1), (by + 1)(TY - 1)).
  const Index i = static_cast<Index>(blockIdx.x) * (TX - 1) + tx - 1;
  const Index j = static_cast<Index>(blockIdx.y) * (TY - 1) + ty - 1;

  // Phase 1: each edge of the tile once. The ghost row needs only north edges, the ghost column
  // only east edges.
  if (ty > 0 && j < e.ny && i < e.nx) fx[ty][tx] = edge_flux(e, i + 1, j, Dir::x);
  if (tx > 0 && i < e.nx && j < e.ny) fy[ty][tx] = edge_flux(e, i, j + 1, Dir::y);
  __syncthreads();

  // Phase 2: owned cells.
  T speed = T(0);
  const bool owned = tx > 0 && ty > 0 && i < e.nx && j < e.ny;
  if (owned) {
    CellState<T> s = e.cell(i, j);
    const double dt = v.clock[kDt];
    if (e.active(i, j)) {
      const CellUpdateParams<T> p{T(dt / v.dx), T(dt), T(v.clock[kRain] * dt),
                                  e.g,          e.dry, v.manning.ptr ? v.manning(i, j) : T(0)};
      const EdgeFlux<T>&w = fx[ty][tx - 1], &ea = fx[ty][tx], &so = fy[ty - 1][tx], &n = fy[ty][tx];
      const int code = update_cell_k(s, w, ea, so, n, p);
      if (code != kFaultNone) v.fault.raise(code, j * e.nx + i, int(v.clock[kSteps]));
      if (v.n_flow_cells > 0 && dt > 0.0 && (i == 0 || j == 0 || i == e.nx - 1 || j == e.ny - 1)) {
        const double q = boundary_inflow(e, i, j, w, ea, so, n);
        if (q != 0.0) atomic_add(v.clock + kInflow, q * dt * v.dx);
      }
      // Max depth as the plain path records it: after the edge update, and again after sources.
      T& md = v.max_depth(i, j);
      if (s.h > md) md = s.h;
      for (Index k = 0; k < v.n_sources && dt > 0.0; ++k) {
        const SourceCell src = v.sources[k];
        if (src.i != i || src.j != j) continue;
        double dh, dhc;
        const double volume = point_source_k(v, src, dt, s.h, s.hc, dh, dhc);
        s.h += T(dh);
        s.hc += T(dhc);
        atomic_add(v.clock + kInflow, volume);
        if (!(s.h > e.dry)) s.hu = s.hv = T(0);
      }
      if (s.h > md) md = s.h;
      speed = wave_speed_k(s.h, s.hu, s.hv, e.g, e.dry);
    }
    v.h_new(i, j) = s.h;
    v.hu_new(i, j) = s.hu;
    v.hv_new(i, j) = s.hv;
    v.hc_new(i, j) = s.hc;
  }

  // CFL: block maximum of the new state's wave speed, one atomic per block.
  const int lane = (ty * TX + tx) & 31, warp = (ty * TX + tx) >> 5;
  for (int o = 16; o > 0; o >>= 1) {
    const T other = __shfl_down_sync(0xffffffffu, speed, o);
    speed = other > speed ? other : speed;
  }
  if (lane == 0) warp_speed[warp] = speed;
  __syncthreads();
  if (warp == 0) {
    speed = lane < TX * TY / 32 ? warp_speed[lane] : T(0);
    for (int o = 16; o > 0; o >>= 1) {
      const T other = __shfl_down_sync(0xffffffffu, speed, o);
      speed = other > speed ? other : speed;
    }
    if (lane == 0 && speed > T(0)) atomic_max(v.smax, speed);
  }
}

template <class T, int TX, int TY>
void launch(const Exec& exec, const SolverView<T>& v) {
  const dim3 block(TX, TY);
  const dim3 grid(static_cast<unsigned>((v.e.nx + TX - 2) / (TX - 1)),
                  static_cast<unsigned>((v.e.ny + TY - 2) / (TY - 1)));
  silt::detail::range_push("swe.fused_update");
  fused_update_kernel<T, TX, TY><<<grid, block, 0, exec.stream>>>(v);
  silt::detail::range_pop();
  silt::detail::check_launch(exec, "swe.fused_update");
}

}  // namespace

template <class T>
void phase_fused_update(const Exec& exec, const SolverView<T>& v, TileShape shape) {
  if (shape == TileShape::t32x16)
    launch<T, 32, 16>(exec, v);
  else
    launch<T, 32, 8>(exec, v);
}
#else
template <class T>
void phase_fused_update(const Exec&, const SolverView<T>&, TileShape) {
  throw Error("the fused shallow-water kernel needs the CUDA backend");
}
#endif

template void phase_fused_update<float>(const Exec&, const SolverView<float>&, TileShape);
template void phase_fused_update<double>(const Exec&, const SolverView<double>&, TileShape);

}  // namespace silt::swe::detail
