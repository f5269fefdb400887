// The CUDA backend against the CPU backend on scenes with every kind of forcing (discharge,
// level and open boundaries, rain, friction, a source and a sink; every flow boundary; all of
// them on infiltrating soil): the same
// steps, and fields that agree to round-off in float64 and within the error of fast float math in float32. Runs only with
// --backend=cuda (label gpu); the CPU alone has nothing to compare with.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "silt/swe/solver.hpp"
#include "swe_channel.hpp"
#include "swe_scene_builder.hpp"
#include "test_support.hpp"

#if SILT_HAS_CUDA
#include <cuda_runtime.h>
#endif

namespace silt::swe {
namespace {

struct Agreement {
  long long cpu_steps, gpu_steps;
  double max_abs_h, max_abs_hu, max_abs_hc, rel_volume;
};

Agreement compare(const Scene& s, double t_end) {
  Solver cpu(s, Exec::host());
  Solver gpu(s, test::exec());
  cpu.advance_to(t_end);
  gpu.advance_to(t_end);
  const Fields a = cpu.fields(), b = gpu.fields();
  Agreement r{cpu.steps(), gpu.steps(), 0, 0, 0, 0};
  for (size_t k = 0; k < a.h.size(); ++k) {
    r.max_abs_h = std::max(r.max_abs_h, std::abs(a.h[k] - b.h[k]));
    r.max_abs_hu =
        std::max({r.max_abs_hu, std::abs(a.hu[k] - b.hu[k]), std::abs(a.hv[k] - b.hv[k])});
    r.max_abs_hc = std::max(r.max_abs_hc, std::abs(a.hc[k] - b.hc[k]));
  }
  r.rel_volume = std::abs(cpu.totals().volume - gpu.totals().volume) / cpu.totals().volume;
  return r;
}

void expect_agreement(const Scene& s) {
  if (!test::on_gpu())
    GTEST_SKIP() << "compares the CUDA backend with the CPU: run with --backend=cuda";
  const Precision p = s.precision;
  const Agreement r = compare(s, 6.0);
  std::printf(
      "%s, %s: steps cpu %lld gpu %lld; max |dh| %.3e m, max |dhu| %.3e m^2/s, max |dhc| %.3e "
      "kg/m^2, volume rel %.3e\n",
      s.name.c_str(), p == Precision::f64 ? "float64" : "float32", r.cpu_steps, r.gpu_steps,
      r.max_abs_h, r.max_abs_hu, r.max_abs_hc, r.rel_volume);
  // float64: both backends run the same functions; only contraction (FMA on the GPU, none on the
  // host) differs, ~1e-16 per operation over ~100 steps on 0.5 m of water.
  // float32: the tile kernel uses fast math (approximate division and square root, ~2 ulp); 1e-3 m
  // is ~100 ulp of the depths here and still far below any physical difference.
  const double tol_h = p == Precision::f64 ? 1e-10 : 1e-3;
  const double tol_q = p == Precision::f64 ? 1e-10 : 2e-3;
  if (p == Precision::f64) {
    EXPECT_EQ(r.cpu_steps, r.gpu_steps);
  }
  EXPECT_LE(r.max_abs_h, tol_h);
  EXPECT_LE(r.max_abs_hu, tol_q);
  EXPECT_LE(r.max_abs_hc, tol_q);
  EXPECT_LE(r.rel_volume, p == Precision::f64 ? 1e-12 : 1e-5);
}

void cuda_matches_cpu_f64() {
  expect_agreement(scenes::forced_basin(Precision::f64));
}
void cuda_matches_cpu_f32() {
  expect_agreement(scenes::forced_basin(Precision::f32));
}
// Every flow boundary (supercritical inflows, discharge, normal-depth, rating and critical
// outflows) through the tile kernel against the CPU's row step.
void flow_boundaries_f64() {
  expect_agreement(channel::flow_boundaries_basin(Precision::f64));
}
void flow_boundaries_f32() {
  expect_agreement(channel::flow_boundaries_basin(Precision::f32));
}
// The forced basin on Green-Ampt soil: the tile kernel with every feature compiled in
// (infiltration, flow-boundary inflow, sources; fused_step.hpp's TileFeature), as the other
// cases run the sets without infiltration.
Scene basin_on_soil(Precision p) {
  Scene s = scenes::forced_basin(p);
  s.name = "budget on soil";
  s.infiltration.model = InfiltrationModel::green_ampt;
  s.infiltration.a.assign(s.bed.size(), 1e-5);         // Ks, m/s
  s.infiltration.b.assign(s.bed.size(), 0.11 * 0.30);  // psi dtheta, m
  return s;
}
void every_feature_f64() {
  expect_agreement(basin_on_soil(Precision::f64));
}
void every_feature_f32() {
  expect_agreement(basin_on_soil(Precision::f32));
}
// A finer forced basin (120 x 80 cells) with an inactive block inside: the tile kernel's tiles
// away from the domain edge are all active (its flux copy without the general edge flux) and those
// around the block are not, and in float32 each thread owns two rows of a tile (fused_step.cpp);
// the 30 x 20 basin's tiles all touch the domain edge.
Scene fine_basin_with_island(Precision p) {
  Scene s = scenes::forced_basin(p, 120, 80);
  s.name = "fine budget with an island";
  s.active.assign(s.bed.size(), 1);
  scenes::for_cells(s, [&](Index i, Index j, double, double, size_t k) {
    if (i >= 70 && i < 76 && j >= 40 && j < 47) s.active[k] = 0;
  });
  return s;
}
void interior_tiles_f64() {
  expect_agreement(fine_basin_with_island(Precision::f64));
}
void interior_tiles_f32() {
  expect_agreement(fine_basin_with_island(Precision::f32));
}

TEST(SweBackends, CudaMatchesCpuFloat64) {
  cuda_matches_cpu_f64();
}
TEST(SweBackends, CudaMatchesCpuFloat32WithinFastMathError) {
  cuda_matches_cpu_f32();
}
TEST(SweBackends, FlowBoundariesCudaMatchesCpuFloat64) {
  flow_boundaries_f64();
}
TEST(SweBackends, FlowBoundariesCudaMatchesCpuFloat32WithinFastMathError) {
  flow_boundaries_f32();
}
TEST(SweBackends, EveryFeatureCudaMatchesCpuFloat64) {
  every_feature_f64();
}
TEST(SweBackends, EveryFeatureCudaMatchesCpuFloat32WithinFastMathError) {
  every_feature_f32();
}
TEST(SweBackends, InteriorTilesCudaMatchesCpuFloat64) {
  interior_tiles_f64();
}
TEST(SweBackends, InteriorTilesCudaMatchesCpuFloat32WithinFastMathError) {
  interior_tiles_f32();
}

// The members of an ensemble step on host threads of their own (run/member_pool.cpp). A solver
// of one part must queue its steps on a stream of its own: on the device's legacy default stream,
// which every thread of the process shares, the members' steps ran one after another and each
// member's waits (its clock reads, sums and uploads) waited for every member's queued steps
// (issue 37). Queues 200 steps of a 1M-cell grid (milliseconds of work) without waiting, then asks
// whether the legacy stream is idle.
TEST(SweBackends, OnePartStepsOnAStreamOfItsOwn) {
  if (!test::on_gpu()) GTEST_SKIP() << "the CUDA backend's streams: run with --backend=cuda";
#if SILT_HAS_CUDA
  Scene s = scenes::make_scene("dam", 1024, 1024, 1.0, Precision::f64);
  scenes::for_cells(
      s, [&](Index, Index, double x, double, size_t k) { s.depth[k] = x < 512 ? 10.0 : 1.0; });
  Solver solver(s, test::exec());
  constexpr long long kSteps = 200;
  solver.step(kSteps);  // queued, not waited for
  const cudaError_t legacy = cudaStreamQuery(cudaStreamLegacy);
  (void)cudaGetLastError();  // cudaErrorNotReady is not an error to keep
  EXPECT_EQ(legacy, cudaSuccess) << "the solver's steps are on the legacy default stream ("
                                 << cudaGetErrorName(legacy) << ")";
  EXPECT_EQ(solver.steps(), kSteps);
#endif
}

}  // namespace
}  // namespace silt::swe
