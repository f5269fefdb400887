// MPM benchmark on one device (paper 000 §6 / DESIGN.md §3): prints numbers, asserts nothing.
//   (a) the 370,386-particle fixed-corotated cube (E = 1e5 Pa, nu = 0.3, rho = 1000, dx = 1/256 m,
//       8 ppc, dropped at 1 m/s, dt = 1e-4 s): ms per step (Claymore: 0.533 ms on one H200);
//   (b) falling sand at ~55K, 200K, 1M, 3.1M and 12.6M particles: particle-steps per second;
//   (c) the per-step cost at 55K split into launch overhead and work, plain launches vs one CUDA
//       graph per frame: overhead measured on a near-empty scene (64 particles), work as the rest.
// The first line of every case is its roofline: bytes and atomics per particle-step and the time
// they need at 3.98 TB/s and ~100 G atomics/s (the H200 rates of DESIGN.md §4).
// Options toggle the rebuild period, the graph, G2P2G, the sort, vector atomics, shared-memory P2G
// and the transfer launch shape. --ablation prints markdown tables for the cube and 1M sand: the
// configuration given by the options ("final") against each principle rolled back one at a time
// (bench/README.md); --quick shortens it.
// --devices 0,1 (several): (d) MPM on several GPUs (mpm::MultiSolver, paper 000 §5): falling sand
// at 55K, 389K, 1M, 3.1M and 12.6M particles, ms/step on one GPU (Solver, graph as configured) and
// on the listed GPUs with the event barrier, the system-scope atomic barrier, and the atomic
// barrier with the agreement in-kernel and one CUDA graph per GPU per frame, and peer copies of
// the shared sums instead of in-kernel peer reads (event barrier); the efficiency
// t1 / (n tn), and an instrumented run splitting the step into agreement, rebuild, P2G, barrier,
// tagging, grid update with the shared-block reduction, and G2P (each phase waited for, so the
// phases add up to more than the plain step). On the CPU backend the devices are CPU partitions.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "silt/core/error.hpp"
#include "silt/core/exec.hpp"
#include "silt/mpm/multi_solver.hpp"
#include "silt/mpm/solver.hpp"

namespace {

using silt::mpm::Scene;

constexpr double kHbmBytesPerSecond = 3.98e12;  // DESIGN.md §4, device copy read + write
constexpr double kAtomicsPerSecond = 1.0e11;    // ~104 G/s scattered global float atomicAdd
constexpr double kDx = 1.0 / 256;               // m
constexpr double kDt = 1e-4;                    // s

struct Config {
  std::string backend = "auto";
  std::string which = "all";
  std::vector<std::string> sizes;
  int steps = 0;  // 0: per-backend default
  int rebuild_period = 8;
  bool graph = true, g2p2g = false, sort = true, vector_atomics = true, shared_p2g = false;
  bool warp_reduce = true;
  std::string launch = "256x3";  // SolverOptions::transfer_launch
  std::string transfer = "apic";
  std::string sort_order = "cell";  // within a block: block, cell or interleaved
  int warmup_steps = 0;             // steps run before the timed frame (mixing)
  int sort_every = 16;              // sort at every n-th rebuild
  int graph_unroll = 2;             // steps per iteration of the frame graph's loop
  bool ablation = false, quick = false;
  bool multi_quick = false;  // [d]: the default and its two-synchronisation ablation only
  std::string ablation_sand = "1M";
  std::vector<int> devices;  // several: the multi-GPU case (d)
};

/// Device memory traffic and atomics of one step per particle (and per grid node), counted from
/// the kernels' loads and stores (see transfer_body.hpp, rebuild.cpp); neighbour nodes are assumed
/// to hit in L2, as the particles are sorted by block.
struct Roofline {
  double particle_bytes = 0, node_bytes = 0, atomics = 0;

  Roofline(const Config& c, const Scene& s) {
    const bool asflip = s.transfer == silt::mpm::Transfer::asflip;
    const bool split = asflip || c.g2p2g;
    const double state = 12 + 12 + 36 + 36 + 4 + 4 + 4 + 4;  // x v C F plastic material id block
    particle_bytes = 12;                                     // max-speed reduction reads v
    if (c.g2p2g) {
      particle_bytes += 12 + 36 + 4 + 4 + 4 + (asflip ? 12 : 0);  // read x F plastic mat block
      particle_bytes += 12 + 12 + 36 + 36 + 4;                    // write x v C F plastic
    } else {
      particle_bytes += 12 + 12 + 36 + 36 + 4 + 4 + 4 + 40;  // P2G: read x v C F pl mat blk, write
      particle_bytes += 12 + 4 + (asflip ? 48 : 0) + 60;     // G2P: read x blk (v F), write x v C
    }
    // Rebuild (mark, bin, scatter, copy back), every rebuild_period steps.
    particle_bytes += (12 + 12 + 8 + 2 * 2 * state + 4) / double(c.rebuild_period);
    const double stride = split ? 32 : 16;
    node_bytes = 2 * stride + 16 + (asflip ? 16 : 0);  // read + clear accum, write velocities
    atomics = 27.0 * (c.vector_atomics ? 1 : 4) * (split ? 2 : 1);
  }
  /// "<title> roofline: ...": the first line of every case.
  std::string line(const std::string& title, double particles, double blocks) const {
    const double bytes = particles * particle_bytes + blocks * 64 * node_bytes;
    const double t_mem = bytes / kHbmBytesPerSecond,
                 t_atom = particles * atomics / kAtomicsPerSecond;
    return fmt::format(
        "{} roofline: {:.0f} B + {:.0f} atomics per particle-step, {:.0f} B per grid node ({:.0f} "
        "blocks): {:.1f} us at 3.98 TB/s, {:.1f} us at 100 G atomics/s -> >= {:.1f} us/step",
        title, particle_bytes, atomics, node_bytes, blocks, 1e6 * t_mem, 1e6 * t_atom,
        1e6 * std::max(t_mem, t_atom));
  }
};

silt::mpm::Material make_jelly() {
  silt::mpm::Material m;
  m.name = "jelly";
  m.kind = silt::mpm::MaterialKind::fixed_corotated;
  m.youngs_modulus = 1e5;
  m.poisson_ratio = 0.3;
  m.density = 1000;
  return m;
}

silt::mpm::Material make_sand() {
  silt::mpm::Material m;
  m.name = "sand";
  m.kind = silt::mpm::MaterialKind::drucker_prager;
  m.youngs_modulus = 3.5e5;
  m.poisson_ratio = 0.3;
  m.density = 1600;
  m.friction_angle = 30;
  return m;
}

Scene base_scene(const Config& c, const std::string& name) {
  Scene s;
  s.name = name;
  s.dx = kDx;
  s.domain_min = {0, 0, 0};
  s.domain_max = {1, 1, 1};
  s.fixed_dt = kDt;
  s.rebuild_period = c.rebuild_period;
  s.g2p2g = c.g2p2g;
  s.transfer = c.transfer == "asflip" ? silt::mpm::Transfer::asflip : silt::mpm::Transfer::apic;
  return s;
}

/// A box of `particles` particles at 8 per cell (2 x 2 x 2 lattice), side in cells rounded.
silt::mpm::Source box_of(double particles, double y0, double vy) {
  const double side = std::cbrt(particles / 8.0) * kDx;
  silt::mpm::Source src;
  src.name = "box";
  src.box_min = {0.5 - side / 2, y0, 0.5 - side / 2};
  src.box_max = {0.5 + side / 2, y0 + side, 0.5 + side / 2};
  src.velocity = {0, vy, 0};
  src.particles_per_cell = 8;
  return src;
}

struct Timing {
  double ms_per_step = 0;
  long long steps = 0, particles = 0, blocks = 0;
  int rebuilds = 0;
  bool graph = false;
  silt::mpm::StepLaunches launches;  // from the solver's configuration
};

silt::mpm::TransferLaunch parse_launch(const std::string& name) {
  for (int l = 0; l < silt::mpm::kTransferLaunches; ++l)
    if (name == silt::mpm::to_string(silt::mpm::TransferLaunch(l)))
      return silt::mpm::TransferLaunch(l);
  throw silt::Error(fmt::format("--launch: unknown shape '{}'", name));
}

silt::mpm::SortOrder parse_sort_order(const std::string& name) {
  for (const auto o :
       {silt::mpm::SortOrder::block, silt::mpm::SortOrder::cell, silt::mpm::SortOrder::interleaved})
    if (name == silt::mpm::to_string(o)) return o;
  throw silt::Error(fmt::format("--sort-order: unknown order '{}'", name));
}

/// One warm-up frame (first rebuild, graph capture), then `steps` timed steps in one frame.
Timing run(const Config& c, Scene s, const silt::Exec& exec, int steps, bool graph) {
  silt::mpm::SolverOptions opt;
  opt.cuda_graph = graph;
  opt.sort_particles = c.sort;
  opt.sort_order = parse_sort_order(c.sort_order);
  opt.sort_every = c.sort_every;
  opt.graph_steps_per_iteration = c.graph_unroll;
  opt.vector_atomics = c.vector_atomics;
  opt.warp_reduce = c.warp_reduce;
  opt.shared_p2g = c.shared_p2g;
  opt.transfer_launch = parse_launch(c.launch);
  s.frame_dt = kDt * std::max(steps, 2);
  silt::mpm::Solver solver(s, exec, opt);
  solver.advance_frame();
  for (int k = 0; k < c.warmup_steps / std::max(steps, 2); ++k) solver.advance_frame();
  const silt::mpm::FrameStats st = solver.advance_frame();
  Timing t;
  t.ms_per_step = st.ms_per_step;
  t.steps = st.steps;
  t.particles = st.particles;
  t.blocks = st.active_blocks;
  t.rebuilds = st.rebuilds;
  t.graph = solver.uses_graph();
  t.launches = solver.launches();
  return t;
}

double parse_count(std::string s) {
  double mult = 1;
  const char last = s.empty() ? ' ' : s.back();
  if (last == 'K' || last == 'k') mult = 1e3, s.pop_back();
  if (last == 'M' || last == 'm') mult = 1e6, s.pop_back();
  try {
    return std::stod(s) * mult;
  } catch (const std::exception&) {
    throw silt::Error(fmt::format("--sizes: cannot read '{}' (use e.g. 55K,200K,1M)", s));
  }
}

Scene cube_scene(const Config& c) {
  Scene s = base_scene(c, "cube");
  s.materials = {make_jelly()};
  s.sources = {box_of(370386, 0.3, -1.0)};
  return s;
}

void cube(const Config& c, const silt::Exec& exec, int steps) {
  const Scene s = cube_scene(c);
  const Timing t = run(c, s, exec, steps, c.graph);
  fmt::print("{}\n", Roofline(c, s).line("[a] fixed-corotated cube (dx 1/256 m, dt 1e-4 s, dropped "
                                         "at 1 m/s)",
                                         double(t.particles), double(t.blocks)));
  fmt::print("  {} particles: {:.3f} ms/step over {} steps ({} rebuilds, {} blocks, {})\n",
             t.particles, t.ms_per_step, t.steps, t.rebuilds, t.blocks,
             t.graph ? "graph" : "plain launches");
}

Scene sand_scene(const Config& c, double particles) {
  Scene s = base_scene(c, "sand");
  s.materials = {make_sand()};
  s.sources = {box_of(particles, 0.3, 0.0)};
  s.gravity = {0, -9.81, 0};
  return s;
}

void sand(const Config& c, const silt::Exec& exec, int steps) {
  for (const std::string& size : c.sizes) {
    const Scene s = sand_scene(c, parse_count(size));
    const Timing t = run(c, s, exec, steps, c.graph);
    fmt::print("{}\n", Roofline(c, s).line(fmt::format("[b] falling sand {} (Drucker-Prager, dx "
                                                       "1/256 m, dt 1e-4 s)",
                                                       size),
                                           double(t.particles), double(t.blocks)));
    fmt::print(
        "  {} particles: {:.3g} particle-steps/s, {:.3f} ms/step over {} steps ({} "
        "rebuilds, {} blocks, {})\n",
        t.particles, double(t.particles) / (1e-3 * t.ms_per_step), t.ms_per_step, t.steps,
        t.rebuilds, t.blocks, t.graph ? "graph" : "plain launches");
  }
}

void overhead(const Config& c, const silt::Exec& exec, int steps) {
  const Scene big = sand_scene(c, 55e3), tiny = sand_scene(c, 64);
  const Timing probe = run(c, big, exec, steps, false);
  fmt::print("{}\n", Roofline(c, big).line("[c] launch overhead vs work at 55K sand",
                                           double(probe.particles), double(probe.blocks)));
  fmt::print("  {} launches per step, + {} per rebuild every {} steps\n", probe.launches.per_step,
             probe.launches.per_rebuild, c.rebuild_period);
  for (const bool graph : {false, true}) {
    if (graph && !exec.is_cuda()) continue;
    const Timing empty = run(c, tiny, exec, steps, graph);
    const Timing full = run(c, big, exec, steps, graph);
    const char* mode = full.graph ? "graph" : "plain";
    fmt::print(
        "  {:5s}: {:.1f} us/step at {} particles = {:.1f} us overhead ({} particles) + "
        "{:.1f} us work\n",
        mode, 1e3 * full.ms_per_step, full.particles, 1e3 * empty.ms_per_step, empty.particles,
        1e3 * (full.ms_per_step - empty.ms_per_step));
  }
}

/// One row of the ablation: a name and the change it makes to the final configuration.
struct Variant {
  std::string name;
  std::function<void(Config&)> change;
};

std::vector<Variant> ablation_variants(const Config& final_config) {
  std::vector<Variant> v = {
      {"final",
       [](Config&) {
       }},
      {"rebuild every step (period 1)",
       [](Config& c) {
         c.rebuild_period = 1;
       }},
      {"no CUDA graph (plain launches)",
       [](Config& c) {
         c.graph = false;
       }},
      {"no sort",
       [](Config& c) {
         c.sort = false;
       }},
      {"sort order block",
       [](Config& c) {
         c.sort_order = "block";
       }},
      {"sort order interleaved",
       [](Config& c) {
         c.sort_order = "interleaved";
       }},
      {"scalar atomics",
       [](Config& c) {
         c.vector_atomics = false;
       }},
      {"no warp pre-reduction in P2G",
       [](Config& c) {
         c.warp_reduce = false;
       }},
      {fmt::format("G2P2G {}", final_config.g2p2g ? "off" : "on"),
       [](Config& c) {
         c.g2p2g = !c.g2p2g;
       }},
      {fmt::format("shared-memory P2G {}", final_config.shared_p2g ? "off" : "on"),
       [](Config& c) {
         c.shared_p2g = !c.shared_p2g;
       }},
  };
  for (int l = 0; l < silt::mpm::kTransferLaunches; ++l) {
    const std::string name = silt::mpm::to_string(silt::mpm::TransferLaunch(l));
    if (name == final_config.launch) continue;
    v.push_back({"launch " + name, [name](Config& c) {
                   c.launch = name;
                 }});
  }
  return v;
}

/// Markdown table: ms/step of every variant and its ratio to the final configuration.
void ablation_table(const Config& final_config, const std::string& title,
                    const std::function<Scene(const Config&)>& scene, const silt::Exec& exec,
                    int steps) {
  fmt::print("\n### {}\n\n", title);
  fmt::print("| variant | ms/step | / final | particles | blocks | rebuilds | launches |\n");
  fmt::print("|---|---:|---:|---:|---:|---:|---|\n");
  double final_ms = 0;
  for (const Variant& v : ablation_variants(final_config)) {
    Config c = final_config;
    v.change(c);
    try {
      const Timing t = run(c, scene(c), exec, steps, c.graph);
      if (final_ms == 0) final_ms = t.ms_per_step;
      fmt::print("| {} | {:.3f} | {:.2f} | {} | {} | {} | {} |\n", v.name, t.ms_per_step,
                 t.ms_per_step / final_ms, t.particles, t.blocks, t.rebuilds,
                 t.graph ? "graph" : "plain");
    } catch (const std::exception& e) {
      fmt::print("| {} | failed: {} | | | | | |\n", v.name, e.what());
    }
    std::fflush(stdout);
  }
}

Scene cube_scene(const Config& c);
Scene sand_scene(const Config& c, double particles);

void ablation(const Config& c, const silt::Exec& exec, int steps) {
  fmt::print("\n## Ablation ({} timed steps per row after one warm-up frame)\n", steps);
  ablation_table(
      c, "[a] fixed-corotated cube, 370K particles", [](const Config& v) { return cube_scene(v); },
      exec, steps);
  const double n = parse_count(c.ablation_sand);
  ablation_table(
      c, fmt::format("[b] falling sand {}", c.ablation_sand),
      [n](const Config& v) { return sand_scene(v, n); }, exec, steps);
}

struct MultiTiming {
  double ms_per_step = 0;
  long long steps = 0;
  std::int64_t particles = 0, blocks = 0, shared = 0;
  silt::mpm::PhaseTimes phases;
  std::string layout;
  bool graph = false;
};

MultiTiming run_multi(const Config& c, Scene s, const std::vector<silt::Exec>& execs, int steps,
                      silt::mpm::PartBarrier barrier, bool time_phases, bool graph = false,
                      bool copies = false, int syncs = 1, bool reduce = true) {
  silt::mpm::MultiOptions o;
  o.solver.sort_particles = c.sort;
  o.solver.sort_order = parse_sort_order(c.sort_order);
  o.solver.sort_every = c.sort_every;
  o.solver.graph_steps_per_iteration = c.graph_unroll;
  o.solver.vector_atomics = c.vector_atomics;
  o.solver.warp_reduce = c.warp_reduce;
  o.solver.shared_p2g = c.shared_p2g;
  o.solver.transfer_launch = parse_launch(c.launch);
  o.barrier = barrier;
  o.solver.log = [](const std::string& m) {
    std::fprintf(stderr, "%s\n", m.c_str());
  };
  o.time_phases = time_phases;
  o.cuda_graph = graph;
  o.peer_copies = copies;
  // Graph steps: 1 synchronisation (the default), 2 (agreement before the step), or the
  // 7-launch step with 2 (7).
  o.fused_sync = syncs != 7;
  o.single_sync = syncs == 1;
  o.reduce_shared = reduce;
  s.frame_dt = kDt * std::max(steps, 2);
  silt::mpm::MultiSolver solver(s, execs, o);
  solver.advance_frame();  // warm-up: first rebuild, grid growth
  solver.reset_phase_times();
  MultiTiming t;
  const silt::mpm::FrameStats st = solver.advance_frame();
  t.ms_per_step = st.ms_per_step;
  t.steps = st.steps;
  t.particles = st.particles;
  t.blocks = st.active_blocks;
  for (const auto& i : solver.part_info()) t.shared += i.shared_blocks;
  t.phases = solver.phase_times();
  t.layout = solver.layout();
  t.graph = solver.uses_graph();
  return t;
}

std::string efficiency(double one_ms, int n, double ms) {
  return fmt::format("{:.1f}%", 100 * one_ms / (n * ms));
}

void multi(const Config& c, const std::vector<silt::Exec>& execs, int steps) {
  const int n = int(execs.size());
  const bool gpu = execs.front().is_cuda();
  fmt::print(
      "\n[d] falling sand on {} {} (dx 1/256 m, dt 1e-4 s): one device (Solver, {}) vs "
      "mpm::MultiSolver\n",
      n, gpu ? "GPUs" : "CPU partitions", c.graph ? "graph" : "plain launches");
  if (c.multi_quick) {
    // The default (graphs, one synchronisation a step) and the step with two.
    // And the default without the shared-block sum (wrong physics): what the peer reads and
    // the waits of the blocks holding shared blocks cost.
    fmt::print(
        "| particles | 1 device ms/step | {n} x graphs, 1 sync (default) | eff. | {n} x graphs, "
        "2 syncs | eff. | default without the shared sum | blocks | shared |\n",
        fmt::arg("n", n));
    fmt::print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (const std::string& size : c.sizes) {
      const Scene s = sand_scene(c, parse_count(size));
      try {
        using silt::mpm::PartBarrier;
        const double t1 = run(c, s, execs.front(), steps, c.graph).ms_per_step;
        // The default last, so that a profile's last frame is the default's.
        const MultiTiming u =
            run_multi(c, s, execs, steps, PartBarrier::atomic, false, true, false, 2);
        const MultiTiming r =
            run_multi(c, s, execs, steps, PartBarrier::atomic, false, true, false, 1, false);
        const MultiTiming f = run_multi(c, s, execs, steps, PartBarrier::atomic, false, true);
        fmt::print("| {} ({}) | {:.4f} | {:.4f}{} | {} | {:.4f}{} | {} | {:.4f} | {} | {} |\n",
                   size, f.particles, t1, f.ms_per_step, f.graph ? "" : " (no graph)",
                   efficiency(t1, n, f.ms_per_step), u.ms_per_step, u.graph ? "" : " (no graph)",
                   efficiency(t1, n, u.ms_per_step), r.ms_per_step, f.blocks, f.shared);
        std::fflush(stdout);
      } catch (const std::exception& e) {
        fmt::print("| {} | failed: {} | | | | | | | |\n", size, e.what());
      }
    }
    return;
  }
  fmt::print(
      "| particles | 1 device ms/step | {n} x event | eff. | {n} x atomic | eff. | {n} x "
      "atomic + graphs | eff. | {n} x peer copies | eff. | blocks | shared |\n",
      fmt::arg("n", n));
  fmt::print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  std::vector<std::pair<std::string, MultiTiming>> instrumented;
  for (const std::string& size : c.sizes) {
    const Scene s = sand_scene(c, parse_count(size));
    try {
      using silt::mpm::PartBarrier;
      const Timing one = run(c, s, execs.front(), steps, c.graph);
      const double t1 = one.ms_per_step;
      const MultiTiming ev = run_multi(c, s, execs, steps, PartBarrier::event, false);
      std::string atomic_ms = "-", atomic_eff = "-", graph_ms = "-", graph_eff = "-";
      if (gpu) {
        const MultiTiming at = run_multi(c, s, execs, steps, PartBarrier::atomic, false);
        atomic_ms = fmt::format("{:.3f}", at.ms_per_step);
        atomic_eff = efficiency(t1, n, at.ms_per_step);
        const MultiTiming gr = run_multi(c, s, execs, steps, PartBarrier::atomic, false, true);
        graph_ms = fmt::format("{:.3f}{}", gr.ms_per_step, gr.graph ? "" : " (no graph)");
        graph_eff = efficiency(t1, n, gr.ms_per_step);
      }
      const MultiTiming cp = run_multi(c, s, execs, steps, PartBarrier::event, false, false, true);
      fmt::print("| {} ({}) | {:.3f} | {:.3f} | {} | {} | {} | {} | {} | {:.3f} | {} | {} | {} |\n",
                 size, ev.particles, t1, ev.ms_per_step, efficiency(t1, n, ev.ms_per_step),
                 atomic_ms, atomic_eff, graph_ms, graph_eff, cp.ms_per_step,
                 efficiency(t1, n, cp.ms_per_step), ev.blocks, ev.shared);
      std::fflush(stdout);
      instrumented.emplace_back(size, run_multi(c, s, execs, steps, PartBarrier::event, true));
    } catch (const std::exception& e) {
      fmt::print("| {} | failed: {} | | | | | | | | | | |\n", size, e.what());
    }
  }
  fmt::print("\nInstrumented (event barrier; each phase waited for on every part), ms per step:\n");
  fmt::print(
      "| particles | agree+dt | rebuild | P2G | barrier | tag | grid update + reduction | "
      "G2P | sum |\n");
  fmt::print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  for (const auto& [size, t] : instrumented) {
    const silt::mpm::PhaseTimes& p = t.phases;
    const double k = t.steps > 0 ? 1.0 / double(t.steps) : 0.0;
    const double sum = p.agree + p.rebuild + p.p2g + p.sync + p.tag + p.update + p.g2p;
    fmt::print("| {} | {:.3f} | {:.3f} | {:.3f} | {:.3f} | {:.3f} | {:.3f} | {:.3f} | {:.3f} |\n",
               size, k * p.agree, k * p.rebuild, k * p.p2g, k * p.sync, k * p.tag, k * p.update,
               k * p.g2p, k * sum);
  }
  fmt::print(
      "peer copies: shared sums packed and copied (cudaMemcpyPeerAsync), block lists linked "
      "on the host, one host wait per step; the other columns read peers in-kernel.\n");
}

}  // namespace

int main(int argc, char** argv) {
  Config c;
  CLI::App app{"silt MPM benchmark (prints numbers, asserts nothing)"};
  app.add_option("--backend", c.backend, "cpu, cuda or auto")
      ->check(CLI::IsMember({"cpu", "cuda", "auto"}));
  app.add_option("--case", c.which, "all, cube, sand or overhead")
      ->check(CLI::IsMember({"all", "cube", "sand", "overhead"}));
  app.add_option("--sizes", c.sizes, "sand particle counts, e.g. 55K,200K,1M")->delimiter(',');
  app.add_option("--steps", c.steps, "timed steps per case (default: 200 cuda, 2 cpu)");
  app.add_option("--rebuild-period", c.rebuild_period, "steps between rebuilds (1: every step)");
  app.add_option("--graph", c.graph, "one CUDA graph per frame (on/off)");
  app.add_option("--g2p2g", c.g2p2g, "fused G2P2G (on/off)");
  app.add_option("--sort", c.sort, "sort particles by block at rebuilds (on/off)");
  app.add_option("--sort-order", c.sort_order,
                 "order within a block when sorting: block, cell or interleaved")
      ->check(CLI::IsMember({"block", "cell", "interleaved"}));
  app.add_option("--sort-every", c.sort_every, "sort at every n-th rebuild only (default 16)")
      ->check(CLI::PositiveNumber);
  app.add_option("--graph-unroll", c.graph_unroll,
                 "steps per iteration of the frame graph's device-side loop (default 2)")
      ->check(CLI::PositiveNumber);
  app.add_option("--warmup-steps", c.warmup_steps,
                 "steps to run before the timed frame (a mixed, settled state)");
  app.add_option("--vector-atomics", c.vector_atomics, "float4 atomics in P2G (on/off)");
  app.add_option("--warp-reduce", c.warp_reduce,
                 "P2G: lanes sharing a stencil base sum with shuffles before the atomics (on/off)");
  app.add_option("--shared-p2g", c.shared_p2g,
                 "P2G staged in shared memory, flushed with global atomics (on/off)");
  app.add_option("--launch", c.launch,
                 "P2G/G2P launch shape: standard, 128x4, 256x2, 256x3, 256x4, 128x8 "
                 "(threads x min blocks per SM; default 256x3)");
  app.add_flag("--ablation", c.ablation,
               "markdown tables: the options' configuration vs each principle rolled back");
  app.add_flag("--quick", c.quick, "ablation: 50 timed steps per row (default 200)");
  app.add_option("--ablation-sand", c.ablation_sand, "sand size of the ablation (default 1M)");
  app.add_option("--devices", c.devices,
                 "several: MPM on these GPUs (CPU partitions on the cpu backend), case [d]")
      ->delimiter(',');
  app.add_flag("--multi-quick", c.multi_quick,
               "[d]: only one device against the default (graphs, one synchronisation a step) and "
               "the step with two");
  app.add_option("--transfer", c.transfer, "apic or asflip")
      ->check(CLI::IsMember({"apic", "asflip"}));
  CLI11_PARSE(app, argc, argv);
  try {
    const bool cuda = silt::backend_from_string(c.backend) == silt::Backend::cuda;
    const silt::Exec exec =
        cuda ? silt::Exec::cuda(c.devices.empty() ? 0 : c.devices.front()) : silt::Exec::host();
    const bool gpu = exec.is_cuda();
    if (c.sizes.empty())
      c.sizes = gpu ? std::vector<std::string>{"55K", "200K", "1M", "3.1M", "12.6M"}
                    : std::vector<std::string>{"55K"};
    const int steps = c.steps > 0 ? c.steps : (gpu ? (c.quick ? 50 : 200) : 2);
    fmt::print(
        "silt mpm_bench on {}: rebuild period {}, graph {}, g2p2g {}, sort {} ({}, every {}), "
        "vector "
        "atomics {}, warp reduce {}, shared P2G {}, launch {}, transfer {}, warm-up {} steps\n",
        gpu ? silt::cuda_device_name(exec.device)
            : fmt::format("cpu ({} threads)", silt::host_thread_count()),
        c.rebuild_period, c.graph ? "on" : "off", c.g2p2g ? "on" : "off", c.sort ? "on" : "off",
        c.sort_order, c.sort_every, c.vector_atomics ? "on" : "off", c.warp_reduce ? "on" : "off",
        c.shared_p2g ? "on" : "off", c.launch, c.transfer, c.warmup_steps);
    parse_launch(c.launch);
    if (c.ablation) {
      ablation(c, exec, steps);
      return 0;
    }
    if (c.devices.size() > 1) {
      if (gpu && c.sizes.size() == 5 && c.sizes[1] == "200K") c.sizes[1] = "389K";
      std::vector<silt::Exec> execs;
      for (const int d : c.devices) execs.push_back(gpu ? silt::Exec::cuda(d) : silt::Exec::host());
      multi(c, execs, steps);
      return 0;
    }
    if (c.which == "all" || c.which == "cube") cube(c, exec, steps);
    if (c.which == "all" || c.which == "sand") sand(c, exec, steps);
    if (c.which == "all" || c.which == "overhead") overhead(c, exec, steps);
  } catch (const std::exception& e) {
    fmt::print(stderr, "mpm_bench: {}\n", e.what());
    return 1;
  }
  return 0;
}
