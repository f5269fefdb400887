// `silt bench swe --devices 0,1` (or `mpirun -np 2 silt bench swe --devices 0`: one GPU per
// rank): the shallow-water step split over several GPUs, CPU partitions or ranks against one
// device, on the wet dam break of `silt bench swe` at 4M, 16M, 64M and 256M cells. For each size:
// cell-updates/s on one device with the tile kernel (the CPU: the row step; --plain: the plain
// phases), then split over all devices on the same path, with the halo exchange and the dt
// reduction timed on their own. Parallel efficiency = rate on N devices / (N x rate on one, same
// path). Parts that share a device are measured against what the devices can do:
// --devices 0,0 puts both parts on one GPU, and CPU partitions of one rank share its threads, so
// there the efficiency is the split's rate against one part's, the split path's own cost
// (exchange, reduction, edge strips), not a speed-up.
// Prints numbers; asserts nothing.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "bench_swe_common.hpp"
#include "commands.hpp"
#include "silt/core/error.hpp"
#include "silt/core/exec.hpp"
#include "silt/partition/world.hpp"
#include "silt/run/devices.hpp"
#include "silt/swe/solver.hpp"

namespace silt::app {

namespace {

struct Timing {
  long long cells = 0, steps = 0;
  double seconds = 0;
  swe::CommTimes comm;
  double rate() const { return seconds > 0 ? double(cells) * double(steps) / seconds : 0; }
  double ms_per_step() const { return steps > 0 ? 1e3 * seconds / double(steps) : 0; }
};

Timing time_steps(swe::Solver& solver, int steps) {
  // Warm up: module load, caches, the first dt.
  solver.step(16);
  (void)solver.time();  // waits for every device
  const auto t0 = std::chrono::steady_clock::now();
  solver.step(steps);
  (void)solver.time();
  Timing t;
  t.cells = solver.scene().grid.cells();
  t.steps = steps;
  t.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return t;
}

// The split benchmark on this rank's parts: the header, a row per case (one part, then all), and
// the CSV.
class MultiBench {
 public:
  explicit MultiBench(const BenchOptions& o)
      : o_(o),
        world_(partition::World::get()),
        execs_(run::choose_execs({o.backend, o.devices, true}, world_)),
        cuda_(execs_.front().is_cuda()),
        root_(world_.is_root()),
        n_(int(execs_.size()) * world_.size()),
        halo_(run::halo_layers(o.halo, cuda_)) {
    // What the split could at best reach: one part's rate on each distinct GPU of each rank. CPU
    // partitions of one rank share its threads, as parts listed on one GPU (0,0) share that GPU.
    std::vector<int> gpus;
    for (const Exec& e : execs_)
      if (std::find(gpus.begin(), gpus.end(), e.device) == gpus.end()) gpus.push_back(e.device);
    ideal_ = (cuda_ ? int(gpus.size()) : 1) * world_.size();
    if (!o.csv.empty() && root_) {
      csv_.open(o.csv);
      if (!csv_) throw Error(fmt::format("cannot write '{}'", o.csv));
      csv_ << "precision,cells,devices,ranks,halo,path,steps,seconds,cell_updates_per_s,"
              "efficiency,exchange_s,reduce_s,exchange_bytes\n";
    }
  }

  bool cuda() const { return cuda_; }

  void header() const {
    if (!root_) return;
    const bool shared = ideal_ < n_;
    fmt::print("silt bench swe: {} {} ({}){}, halo {} layer{}\n", n_,
               cuda_ ? "CUDA devices" : "CPU partitions",
               cuda_ ? cuda_device_name(execs_.front().device)
                     : fmt::format("{} threads", host_thread_count()),
               world_.distributed() ? fmt::format(", {} MPI ranks of {} device{}", world_.size(),
                                                  execs_.size(), execs_.size() == 1 ? "" : "s")
                                    : "",
               halo_, halo_ == 1 ? "" : "s");
    fmt::print(
        "'1 fused': one device with the tile kernel (the CPU: '1 rows', the row step); 'N split': "
        "the same in each subdomain (the default). --plain: the plain phases on one subdomain and "
        "on N. Every rank times its own device for the baseline. exchange and reduce are timed "
        "on their own (devices waited for).{}\n",
        shared ? fmt::format(" The {} parts share {}{} {}{}: efficiency is the split's rate "
                             "against {} x one part's (100% = a split that costs nothing).",
                             n_, cuda_ ? "" : "the threads of ", ideal_, cuda_ ? "GPU" : "rank",
                             ideal_ == 1 ? "" : "s", ideal_)
               : "");
    fmt::print("{:>10} {:>9} {:>13} {:>6} {:>10} {:>13} {:>10} {:>11} {:>10} {:>10}\n", "cells",
               "precision", "path", "steps", "ms/step", "G cell-upd/s", "efficiency", "exchange ms",
               "reduce ms", "halo MB");
  }

  // One device, every rank its own (no MPI), then all of them, on the same path. Not plain: the
  // tile kernel on GPUs, the row step on the CPU (as `silt run` steps). first: print the layout.
  void run_case(const std::string& size, const std::string& prec, bool first) {
    const long long cells = bench_parse_size(size);
    const int steps = bench_steps(o_.steps, cells, cuda_);
    const swe::Scene scene = bench_swe_scene(cells, bench_precision(prec));
    const bool fused = !o_.plain;
    swe::SolverOptions options;
    options.plain_phases = !fused;
    Timing one;
    {
      swe::Solver one_part(scene, execs_.front(), options);  // freed before the split run
      one = time_steps(one_part, steps);
    }
    row(prec, !fused ? "1 plain" : cuda_ ? "1 fused" : "1 rows", 1, one, 0);
    swe::Split s;
    s.execs = execs_;
    s.halo = halo_;
    swe::Solver solver(scene, s, options);
    Timing all = time_steps(solver, steps);
    all.comm = solver.measure_communication(20);
    if (root_ && first) fmt::print("split layout: {}\n", solver.layout());
    row(prec, fmt::format("{} split{}", n_, fused ? "" : " plain"), n_, all,
        all.rate() / (ideal_ * one.rate()));
  }

 private:
  void row(const std::string& prec, const std::string& path, int devices, const Timing& t,
           double efficiency) {
    if (!root_) return;
    const bool split = devices > 1;
    fmt::print("{:>10} {:>9} {:>13} {:>6} {:>10.3f} {:>13.3f} {:>10} {:>11} {:>10} {:>10}\n",
               t.cells, prec, path, t.steps, t.ms_per_step(), t.rate() / 1e9,
               efficiency > 0 ? fmt::format("{:.1f}%", 100 * efficiency) : "",
               split ? fmt::format("{:.3f}", 1e3 * t.comm.exchange_s) : "",
               split ? fmt::format("{:.3f}", 1e3 * t.comm.reduce_s) : "",
               split ? fmt::format("{:.2f}", t.comm.exchange_bytes / 1e6) : "");
    std::fflush(stdout);
    if (csv_)
      csv_ << fmt::format("{},{},{},{},{},{},{},{:.6f},{:.6e},{:.4f},{:.6e},{:.6e},{:.0f}\n", prec,
                          t.cells, devices, world_.size(), halo_, path, t.steps, t.seconds,
                          t.rate(), efficiency, t.comm.exchange_s, t.comm.reduce_s,
                          t.comm.exchange_bytes);
  }

  const BenchOptions& o_;
  const partition::World& world_;
  const std::vector<Exec> execs_;
  const bool cuda_, root_;
  const int n_;  // parts over every rank
  const int halo_;
  int ideal_ = 1;  // distinct devices: the most the split can be faster than one part
  std::ofstream csv_;
};

}  // namespace

int cmd_bench_swe_multi(const BenchOptions& o) {
  MultiBench bench(o);
  std::vector<std::string> sizes = o.sizes;
  if (sizes.empty())
    sizes = bench.cuda() ? std::vector<std::string>{"4M", "16M", "64M", "256M"}
                         : std::vector<std::string>{"1M"};
  std::vector<std::string> precisions = o.precisions;
  if (precisions.empty()) precisions = {"float32", "float64"};
  bench.header();
  for (const auto& size : sizes)
    for (const auto& prec : precisions)
      bench.run_case(size, prec, size == sizes.front() && prec == precisions.front());
  return 0;
}

}  // namespace silt::app
