// `silt bench swe --batch K`: K members of each size of the wet dam break of `silt bench swe`,
// stepped together by one swe::Batch (batch.hpp; on CUDA one tile-kernel launch steps every
// member, all on one stream), against which one run of K times the cells compares: the total
// cell-updates/s of the K members (issue 37's target: 64 members of 1M cells at 0.80 of one 64M
// run, `silt bench swe --sizes 64M`). The members differ in Manning n (their own time steps).
// Prints numbers; asserts nothing.
#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <functional>
#include <vector>

#include "bench_swe_common.hpp"
#include "commands.hpp"
#include "silt/core/device_set.hpp"
#include "silt/core/error.hpp"
#include "silt/core/exec.hpp"
#include "silt/swe/batch.hpp"
#include "silt/swe/solver.hpp"

namespace silt::app {

namespace {

struct BatchResult {
  long long cells;  // a member's
  long long steps;  // of each member
  double seconds;
  bool batched;
};

BatchResult run_batch(const Exec& exec, int members, long long cells, swe::Precision p, int steps) {
  Stream stream(exec);  // the members' one stream (the host exec on the CPU)
  swe::SolverOptions options;
  options.stream = stream.exec().stream;
  std::vector<swe::Solver> solvers;
  solvers.reserve(size_t(members));
  for (int k = 0; k < members; ++k) {
    swe::Scene s = bench_swe_scene(cells, p);
    s.name = fmt::format("bench{}", k);
    s.manning.assign(s.manning.size(), 0.02 + 0.0002 * k);
    solvers.emplace_back(s, exec, options);
  }
  swe::Batch batch(
      std::vector<std::reference_wrapper<swe::Solver>>(solvers.begin(), solvers.end()));
  batch.step_many(5);           // warm up: module load, caches, first dt
  (void)solvers.back().time();  // waits for the stream
  const auto t0 = std::chrono::steady_clock::now();
  batch.step_many(steps);
  (void)solvers.back().time();
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return BatchResult{solvers.front().scene().grid.cells(), steps, secs, batch.batched()};
}

}  // namespace

int cmd_bench_swe_batch(const BenchOptions& o) {
  if (o.muscl || o.hancock || o.plain)
    throw Error("silt bench swe --batch: the first-order tile step only (no --muscl, --plain)");
  if (o.devices.size() > 1) throw Error("silt bench swe --batch: one device (--devices N)");
  const Backend backend = backend_from_string(o.backend);
  const int device = o.devices.empty() ? 0 : o.devices.front();
  const bool cuda = backend == Backend::cuda;
  const Exec exec = cuda ? Exec::cuda(device) : Exec::host();
  std::vector<std::string> sizes = o.sizes;
  if (sizes.empty()) sizes = {cuda ? "1M" : "64K"};
  std::vector<std::string> precisions = o.precisions;
  if (precisions.empty()) precisions = {"float32", "float64"};
  fmt::print(
      "silt bench swe --batch {}: backend {}{}\n", o.batch, to_string(backend),
      cuda ? ", " + cuda_device_name(device) : fmt::format(", {} threads", host_thread_count()));
  fmt::print("{:>8} {:>12} {:>9} {:>7} {:>10} {:>14} {:>8}\n", "members", "cells/member",
             "precision", "steps", "ms/step", "G cell-upd/s", "batched");
  for (const auto& size : sizes)
    for (const auto& prec : precisions) {
      const swe::Precision p = bench_precision(prec);
      const long long cells = bench_parse_size(size);
      const int steps = bench_steps(o.steps, cells * o.batch, cuda);
      const BatchResult r = run_batch(exec, o.batch, cells, p, steps);
      const double rate = double(r.cells) * o.batch * double(r.steps) / r.seconds;
      fmt::print("{:>8} {:>12} {:>9} {:>7} {:>10.3f} {:>14.3f} {:>8}\n", o.batch, r.cells, prec,
                 r.steps, 1e3 * r.seconds / double(r.steps), rate / 1e9, r.batched ? "yes" : "no");
      std::fflush(stdout);
    }
  return 0;
}

}  // namespace silt::app
