// `silt bench swe`: cell-updates per second of the shallow-water step on a wet dam-break scene of
// 1M, 16M and 64M cells (CUDA) or 64K and 1M cells (CPU) in float32 and float64, with the achieved
// bytes/s against the roofline: the measured HBM copy bandwidth of the H200 on CUDA, the host's
// STREAM copy bandwidth measured at the start of the run on the CPU (which also prints the
// throughput per thread). Prints numbers; asserts nothing.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <memory>

#include "bench_swe_common.hpp"
#include "commands.hpp"
#include "silt/core/error.hpp"
#include "silt/core/exec.hpp"
#include "silt/core/host_stream.hpp"
#include "silt/swe/solver.hpp"

namespace silt::app {

namespace {

// Measured on the H200 (DESIGN.md §4): device-to-device copy, bytes read + written.
constexpr double kHbmBytesPerSecond = 3.98e12;

// Device-memory traffic of one cell update when neighbour reads hit the cache: read h, hu, hv, hc,
// z, Manning n and the max depth, write h, hu, hv, hc and the max depth (11 values of the solver's
// precision), plus the one-byte active mask.
constexpr int kValuesPerCellUpdate = 11;
constexpr int kMaskBytesPerCellUpdate = 1;
// The second-order step (--muscl), its two stages' tile kernels (muscl_tile.hpp): stage 1 reads
// h, hu, hv, hc, z and n and writes U* (10 values); the final stage reads U*, z, n, U^n and the
// max depth and writes h, hu, hv, hc and the max depth (16 values); each reads the mask.
constexpr int kMusclValuesPerCellUpdate = 26;
constexpr int kMusclMaskBytesPerCellUpdate = 2;
double bytes_per_cell_update(int real_bytes, bool muscl) {
  return muscl ? double(kMusclValuesPerCellUpdate) * real_bytes + kMusclMaskBytesPerCellUpdate
               : double(kValuesPerCellUpdate) * real_bytes + kMaskBytesPerCellUpdate;
}

long long parse_size(const std::string& s) {
  if (s.empty()) throw Error("empty size");
  double mult = 1;
  std::string num = s;
  const char last = s.back();
  if (last == 'M' || last == 'm') mult = 1 << 20, num = s.substr(0, s.size() - 1);
  if (last == 'K' || last == 'k') mult = 1 << 10, num = s.substr(0, s.size() - 1);
  try {
    return static_cast<long long>(std::stod(num) * mult);
  } catch (const std::exception&) {
    throw Error(fmt::format("--sizes: cannot read '{}' (use e.g. 1M, 16M, 64M)", s));
  }
}

// A wet dam break on a flat bed over a square grid: the whole domain is wet (every cell does the
// full work), with a moving front so no cell is trivially at rest.
swe::Scene bench_scene(long long cells, swe::Precision precision) {
  swe::Scene s;
  s.name = "bench";
  const Index n = static_cast<Index>(std::lround(std::sqrt(double(cells))));
  s.grid = swe::Grid{n, n, 1.0, 0.0, 0.0};
  const size_t total = size_t(n) * size_t(n);
  s.bed.assign(total, 0.0);
  s.depth.assign(total, 1.0);
  s.manning.assign(total, 0.02);
  s.concentration.assign(total, 0.0);
  for (Index j = 0; j < n; ++j)
    for (Index i = 0; i < n / 2; ++i) {
      s.depth[size_t(j) * n + i] = 2.0;
      s.concentration[size_t(j) * n + i] = 1.0;
    }
  s.precision = precision;
  return s;
}

struct Result {
  std::string backend, precision;
  long long cells;
  long long steps;
  double seconds;
  double cell_updates_per_s() const { return double(cells) * steps / seconds; }
};

Result run_case(const Exec& exec, long long cells, swe::Precision p, int steps, bool plain,
                bool muscl, bool hancock) {
  swe::SolverOptions options;
  options.plain_phases = plain;
  swe::Scene scene = bench_scene(cells, p);
  if (muscl) {
    scene.scheme = swe::Scheme::muscl;
    scene.cfl = 0.25;
  }
  if (hancock) {  // one launch reading and writing what the first order's does
    scene.scheme = swe::Scheme::muscl_hancock;
    scene.cfl = 0.25;
  }
  swe::Solver solver(scene, exec, options);
  const long long real_cells = solver.scene().grid.cells();
  for (int i = 0; i < 5; ++i) solver.step();  // warm up: module load, caches, first dt
  (void)solver.time();                        // waits for the device
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < steps; ++i) solver.step();
  (void)solver.time();
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return Result{to_string(exec.backend), p == swe::Precision::f32 ? "float32" : "float64",
                real_cells, steps, secs};
}

}  // namespace

// Shared with the other variants (bench_swe_common.hpp).
long long bench_parse_size(const std::string& s) {
  return parse_size(s);
}
swe::Scene bench_swe_scene(long long cells, swe::Precision precision) {
  return bench_scene(cells, precision);
}
swe::Precision bench_precision(const std::string& name) {
  if (name != "float32" && name != "float64")
    throw Error(fmt::format("--precision: '{}' is not float32 or float64", name));
  return name == "float32" ? swe::Precision::f32 : swe::Precision::f64;
}
int bench_steps(int requested, long long cells, bool cuda) {
  // About 4e10 cell updates a case on a GPU, 200 times fewer on a CPU.
  if (requested > 0) return requested;
  return static_cast<int>(std::clamp(4e10 / double(cells) / (cuda ? 1 : 200), 5.0, 2000.0));
}
int cmd_bench_swe_multi(const BenchOptions& o);
int cmd_bench_swe_batch(const BenchOptions& o);

int cmd_bench_swe(const BenchOptions& o) {
  if (o.batch > 0) return cmd_bench_swe_batch(o);
  if (o.devices.size() > 1 || partition::World::get().distributed()) return cmd_bench_swe_multi(o);
  const Backend backend = backend_from_string(o.backend);
  const int device = o.devices.empty() ? 0 : o.devices.front();
  const bool cuda = backend == Backend::cuda;
  const Exec exec = cuda ? Exec::cuda(device) : Exec::host();
  std::vector<std::string> sizes = o.sizes;
  if (sizes.empty())
    sizes =
        cuda ? std::vector<std::string>{"1M", "16M", "64M"} : std::vector<std::string>{"64K", "1M"};
  std::vector<std::string> precisions = o.precisions;
  if (precisions.empty()) precisions = {"float32", "float64"};

  const int threads = host_thread_count();
  fmt::print("silt bench swe: backend {}{}{}\n", to_string(backend),
             cuda ? ", " + cuda_device_name(device) : fmt::format(", {} threads", threads),
             o.hancock  ? ", scheme muscl_hancock (tiles; a step is one launch)"
             : !o.muscl ? ""
             : o.plain  ? ", scheme muscl (plain phases; a step is two stages)"
                        : ", scheme muscl (tiles; a step is two stages)");
  double roof = kHbmBytesPerSecond;
  if (!cuda) {
    const HostStream st = measure_host_stream();
    roof = st.bytes_per_s;
    fmt::print("host stream (copy, {} threads, 2 x {} MiB): {:.2f} GB/s read+written\n", st.threads,
               st.array_bytes >> 20, st.bytes_per_s / 1e9);
  }
  fmt::print(
      "roofline: {:.0f} B (float32) / {:.0f} B (float64) read+written per cell update; at "
      "{:.2f} GB/s that is {:.2f} G cell-updates/s in float32, {:.2f} G in float64\n",
      bytes_per_cell_update(4, o.muscl), bytes_per_cell_update(8, o.muscl), roof / 1e9,
      roof / bytes_per_cell_update(4, o.muscl) / 1e9,
      roof / bytes_per_cell_update(8, o.muscl) / 1e9);
  if (cuda)
    fmt::print("{:>10} {:>9} {:>7} {:>10} {:>14} {:>10} {:>9}\n", "cells", "precision", "steps",
               "ms/step", "G cell-upd/s", "GB/s", "% roof");
  else
    fmt::print("{:>10} {:>9} {:>7} {:>10} {:>14} {:>16} {:>10} {:>9}\n", "cells", "precision",
               "steps", "ms/step", "M cell-upd/s", "M/s per thread", "GB/s", "% roof");
  std::vector<Result> results;
  for (const auto& size : sizes)
    for (const auto& prec : precisions) {
      const swe::Precision p = bench_precision(prec);
      const long long cells = parse_size(size);
      const int steps = bench_steps(o.steps, cells, cuda);
      const Result r = run_case(exec, cells, p, steps, o.plain, o.muscl, o.hancock);
      const double bytes = bytes_per_cell_update(p == swe::Precision::f32 ? 4 : 8, o.muscl);
      const double gbs = r.cell_updates_per_s() * bytes / 1e9;
      if (cuda)
        fmt::print("{:>10} {:>9} {:>7} {:>10.3f} {:>14.3f} {:>10.0f} {:>8.1f}%\n", r.cells,
                   r.precision, r.steps, 1e3 * r.seconds / r.steps, r.cell_updates_per_s() / 1e9,
                   gbs, 100 * gbs * 1e9 / roof);
      else
        fmt::print("{:>10} {:>9} {:>7} {:>10.3f} {:>14.2f} {:>16.2f} {:>10.2f} {:>8.1f}%\n",
                   r.cells, r.precision, r.steps, 1e3 * r.seconds / r.steps,
                   r.cell_updates_per_s() / 1e6, r.cell_updates_per_s() / 1e6 / threads, gbs,
                   100 * gbs * 1e9 / roof);
      std::fflush(stdout);
      results.push_back(r);
    }
  if (!o.csv.empty()) {
    std::ofstream f(o.csv);
    if (!f) throw Error(fmt::format("cannot write '{}'", o.csv));
    f << "backend,precision,cells,steps,seconds,cell_updates_per_s\n";
    for (const auto& r : results)
      f << fmt::format("{},{},{},{},{:.6f},{:.6e}\n", r.backend, r.precision, r.cells, r.steps,
                       r.seconds, r.cell_updates_per_s());
  }
  return 0;
}

}  // namespace silt::app
