// MPM benchmark on one device (paper 000 §6 / DESIGN.md §3): prints numbers, asserts nothing.
//   (a) the 370,386-particle fixed-corotated cube (E = 1e5 Pa, nu = 0.3, rho = 1000, dx = 1/256 m,
//       8 ppc, dropped at 1 m/s, dt = 1e-4 s): ms per step (Claymore: 0.533 ms on one H200);
//   (b) falling sand at ~55K, 200K, 1M, 3.1M and 12.6M particles: particle-steps per second;
//   (c) the per-step cost at 55K split into launch overhead and work, plain launches vs one CUDA
//       graph per frame: overhead measured on a near-empty scene (64 particles), work as the rest.
// The first line of every case is its roofline: bytes and atomics per particle-step and the time
// they need at 3.98 TB/s and ~100 G atomics/s (the H200 rates of DESIGN.md §4).
// Options set the rebuild period, the graph, G2P2G, the transfer and the deterministic mode. --ablation prints markdown
// tables for the cube and 1M sand: the default configuration against each principle rolled back
// that remains a setting (bench/README.md; the retired ones are in bench/results); --quick
// shortens it.
// --devices 0,1 (several): (d) MPM on several parts (paper 000 §5): falling sand at 55K, 389K,
// 1M, 3.1M and 12.6M particles, ms/step on one device and on the listed parts (frames as one CUDA
// graph per GPU with one synchronisation a step, and plain launches), and the efficiency
// t1 / (n tn). --devices 0,0 puts both parts on one GPU (the exchange's cost, not a speed-up). On
// the CPU backend the devices are CPU partitions.
// On the CPU backend the roofline is the machine's own: the STREAM copy bandwidth measured at the
// start on the OpenMP threads (McCalpin 1995), no atomics (P2G scatters into per-thread grids,
// mpm/host/scatter.hpp), and every rate is also given per core (per OpenMP thread).
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include <omp.h>

#include "silt/core/error.hpp"
#include "silt/core/exec.hpp"
#include "silt/core/host_stream.hpp"
#include "silt/mpm/host/packs.hpp"
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
  bool graph = true, g2p2g = false;
  bool deterministic = false;  // performance.deterministic (fixed-point P2G)
  std::string transfer = "apic";
  int warmup_steps = 0;  // steps run before the timed frame (mixing)
  bool ablation = false, quick = false;
  bool multi_quick = false;  // [d]: the default only
  std::string ablation_sand = "1M";
  std::vector<int> devices;  // several: the multi-GPU case (d)
  // The roofline's rates: the H200's (DESIGN.md §4), or on the CPU the measured stream bandwidth
  // and no atomics.
  double bytes_per_second = kHbmBytesPerSecond;
  double atomics_per_second = kAtomicsPerSecond;
  int host_threads = 0;  // CPU backend: OpenMP threads (0 on CUDA)
};

/// Device memory traffic and atomics of one step per particle (and per grid node), counted from
/// the kernels' loads and stores (see transfer_body.hpp, rebuild.cpp); neighbour nodes are assumed
/// to hit in L2, as the particles are sorted by block.
struct Roofline {
  double particle_bytes = 0, node_bytes = 0, atomics = 0;
  double bytes_per_second = 0, atomics_per_second = 0;

  Roofline(const Config& c, const Scene& s)
      : bytes_per_second(c.bytes_per_second), atomics_per_second(c.atomics_per_second) {
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
    // One float4 atomic per stencil node and 4 channels (27 nodes, 9 in 2D).
    atomics = (s.dimensions == 2 ? 9.0 : 27.0) * (split ? 2 : 1);
    if (c.host_threads > 0) {
      // CPU: plain adds into per-thread grids, whose sum reads and clears one grid per thread
      // beyond the first.
      atomics = 0;
      node_bytes += 2 * stride * (c.host_threads - 1);
    }
  }
  /// "<title> roofline: ...": the first line of every case.
  std::string line(const std::string& title, double particles, double blocks) const {
    const double bytes = particles * particle_bytes + blocks * 64 * node_bytes;
    const double t_mem = bytes / bytes_per_second,
                 t_atom = atomics > 0 ? particles * atomics / atomics_per_second : 0.0;
    const std::string atomic_time = atomics > 0
                                        ? fmt::format(", {:.1f} us at {:.3g} G atomics/s",
                                                      1e6 * t_atom, 1e-9 * atomics_per_second)
                                        : "";
    return fmt::format(
        "{} roofline: {:.0f} B + {:.0f} atomics per particle-step, {:.0f} B per grid node ({:.0f} "
        "blocks): {:.1f} us at {}{} -> >= {:.1f} us/step",
        title, particle_bytes, atomics, node_bytes, blocks, 1e6 * t_mem,
        bytes_per_second >= 1e12 ? fmt::format("{:.2f} TB/s", 1e-12 * bytes_per_second)
                                 : fmt::format("{:.3g} GB/s", 1e-9 * bytes_per_second),
        atomic_time, 1e6 * std::max(t_mem, t_atom));
  }
};

/// A material of the benchmarks: Young's modulus in Pa, density in kg/m^3, Poisson ratio 0.3.
silt::mpm::Material make_material(const char* name, silt::mpm::MaterialKind kind,
                                  double youngs_modulus, double density) {
  silt::mpm::Material m;
  m.name = name;
  m.kind = kind;
  m.youngs_modulus = youngs_modulus;
  m.poisson_ratio = 0.3;
  m.density = density;
  return m;
}

silt::mpm::Material make_jelly() {
  return make_material("jelly", silt::mpm::MaterialKind::fixed_corotated, 1e5, 1000);
}

silt::mpm::Material make_sand() {
  silt::mpm::Material m =
      make_material("sand", silt::mpm::MaterialKind::drucker_prager, 3.5e5, 1600);
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
  s.deterministic = c.deterministic;
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

/// One warm-up frame (first rebuild, graph capture), then `steps` timed steps in one frame.
Timing run(const Config& c, Scene s, const silt::Exec& exec, int steps, bool graph) {
  silt::mpm::SolverOptions opt;
  opt.cuda_graph = graph;
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

/// Cases (b) and (e): one falling-sand run per size of --sizes, its roofline and its rate.
void sand_sizes(const Config& c, const silt::Exec& exec, int steps,
                const std::function<Scene(double)>& scene, const std::string& title) {
  for (const std::string& size : c.sizes) {
    const Scene s = scene(parse_count(size));
    const Timing t = run(c, s, exec, steps, c.graph);
    fmt::print("{}\n", Roofline(c, s).line(fmt::format(fmt::runtime(title), size),
                                           double(t.particles), double(t.blocks)));
    const double rate = double(t.particles) / (1e-3 * t.ms_per_step);
    fmt::print(
        "  {} particles: {:.3g} particle-steps/s{}, {:.3f} ms/step over {} steps ({} "
        "rebuilds, {} blocks, {})\n",
        t.particles, rate,
        c.host_threads > 0 ? fmt::format(" ({:.3g} per core)", rate / c.host_threads) : "",
        t.ms_per_step, t.steps, t.rebuilds, t.blocks, t.graph ? "graph" : "plain launches");
  }
}

void sand(const Config& c, const silt::Exec& exec, int steps) {
  sand_sizes(
      c, exec, steps, [&c](double n) { return sand_scene(c, n); },
      "[b] falling sand {} (Drucker-Prager, dx 1/256 m, dt 1e-4 s)");
}

/// The 2D plane-strain counterpart of (b): a falling square of sand at 4 particles per cell (2 x 2)
/// in an 8 m x 8 m domain at dx = 1/256 m.
Scene sand2d_scene(const Config& c, double particles) {
  Scene s = base_scene(c, "sand2d");
  s.dimensions = 2;
  s.domain_max = {8, 8, 0};
  s.materials = {make_sand()};
  const double side = std::sqrt(particles / 4.0) * kDx;
  silt::mpm::Source src;
  src.name = "square";
  src.box_min = {4 - side / 2, 1, 0};
  src.box_max = {4 + side / 2, 1 + side, 0};
  src.particles_per_cell = 4;
  s.sources = {src};
  s.gravity = {0, -9.81, 0};
  return s;
}

void sand2d(const Config& c, const silt::Exec& exec, int steps) {
  sand_sizes(
      c, exec, steps, [&c](double n) { return sand2d_scene(c, n); },
      "[e] 2D falling sand {} (plane strain, Drucker-Prager, dx 1/256 m, dt 1e-4 s)");
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
      {fmt::format("G2P2G {}", final_config.g2p2g ? "off" : "on"),
       [](Config& c) {
         c.g2p2g = !c.g2p2g;
       }},
  };
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
  std::int64_t particles = 0, blocks = 0, shared = 0;
  std::string layout;
  bool graph = false;
};

MultiTiming run_multi(Scene s, const std::vector<silt::Exec>& execs, int steps, bool graph) {
  silt::mpm::SolverOptions o;
  o.cuda_graph = graph;
  o.log = [](const std::string& m) {
    std::fprintf(stderr, "%s\n", m.c_str());
  };
  s.frame_dt = kDt * std::max(steps, 2);
  silt::mpm::Solver solver(s, execs, o);
  solver.advance_frame();  // warm-up: first rebuild, grid growth, graph capture
  MultiTiming t;
  const silt::mpm::FrameStats st = solver.advance_frame();
  t.ms_per_step = st.ms_per_step;
  t.particles = st.particles;
  t.blocks = st.active_blocks;
  for (const auto& i : solver.part_info()) t.shared += i.shared_blocks;
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
      "\n[d] falling sand on {} parts ({}; dx 1/256 m, dt 1e-4 s): one device ({}) vs the "
      "parts\n",
      n, gpu ? "GPUs" : "CPU partitions", c.graph ? "graph" : "plain launches");
  fmt::print(
      "| particles | 1 device ms/step | {n} parts (default) | eff. | {n} parts, plain launches | "
      "eff. | blocks | shared |\n",
      fmt::arg("n", n));
  fmt::print("|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  for (const std::string& size : c.sizes) {
    const Scene s = sand_scene(c, parse_count(size));
    try {
      const double t1 = run(c, s, execs.front(), steps, c.graph).ms_per_step;
      std::string plain_ms = "-", plain_eff = "-";
      if (gpu && !c.multi_quick) {
        const MultiTiming p = run_multi(s, execs, steps, false);
        plain_ms = fmt::format("{:.4f}", p.ms_per_step);
        plain_eff = efficiency(t1, n, p.ms_per_step);
      }
      // The default last, so that a profile's last frame is the default's.
      const MultiTiming f = run_multi(s, execs, steps, c.graph);
      fmt::print("| {} ({}) | {:.4f} | {:.4f}{} | {} | {} | {} | {} | {} |\n", size, f.particles,
                 t1, f.ms_per_step, f.graph ? " (graphs)" : "", efficiency(t1, n, f.ms_per_step),
                 plain_ms, plain_eff, f.blocks, f.shared);
      std::fflush(stdout);
    } catch (const std::exception& e) {
      fmt::print("| {} | failed: {} | | | | | | |\n", size, e.what());
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  Config c;
  CLI::App app{"silt MPM benchmark (prints numbers, asserts nothing)"};
  app.add_option("--backend", c.backend, "cpu, cuda or auto")
      ->check(CLI::IsMember({"cpu", "cuda", "auto"}));
  app.add_option("--case", c.which, "all, cube, sand, sand2d or overhead")
      ->check(CLI::IsMember({"all", "cube", "sand", "sand2d", "overhead"}));
  app.add_option("--sizes", c.sizes, "sand particle counts, e.g. 55K,200K,1M")->delimiter(',');
  app.add_option("--steps", c.steps, "timed steps per case (default: 200 cuda, 2 cpu)");
  app.add_option("--rebuild-period", c.rebuild_period, "steps between rebuilds (1: every step)");
  app.add_option("--graph", c.graph, "one CUDA graph per frame (on/off)");
  app.add_option("--g2p2g", c.g2p2g, "fused G2P2G (on/off)");
  app.add_option(
      "--deterministic", c.deterministic,
      "fixed-point P2G, performance.deterministic (on/off; bench/deterministic_cost.sh)");
  app.add_option("--warmup-steps", c.warmup_steps,
                 "steps to run before the timed frame (a mixed, settled state)");
  app.add_flag("--ablation", c.ablation,
               "markdown tables: the options' configuration vs each principle rolled back");
  app.add_flag("--quick", c.quick, "ablation: 50 timed steps per row (default 200)");
  app.add_option("--ablation-sand", c.ablation_sand, "sand size of the ablation (default 1M)");
  app.add_option("--devices", c.devices,
                 "several: MPM on these GPUs (one GPU listed twice: two parts on it; CPU "
                 "partitions on the cpu backend), case [d]")
      ->delimiter(',');
  app.add_flag("--multi-quick", c.multi_quick,
               "[d]: only one device against the default (graphs, one synchronisation a step)");
  app.add_option("--transfer", c.transfer, "apic or asflip")
      ->check(CLI::IsMember({"apic", "asflip"}));
  std::string host_packs = "widest";
  app.add_option("--host-packs", host_packs,
                 "cpu backend: the widest packs of the host P2G and G2P (sse2, avx2, avx512; "
                 "default the CPU's widest; every width gives the same results)")
      ->check(CLI::IsMember({"widest", "sse2", "avx2", "avx512"}));
  CLI11_PARSE(app, argc, argv);
  if (host_packs != "widest")
    silt::mpm::detail::limit_host_packs(host_packs == "sse2" ? silt::mpm::detail::HostPacks::sse2
                                        : host_packs == "avx2"
                                            ? silt::mpm::detail::HostPacks::avx2
                                            : silt::mpm::detail::HostPacks::avx512);
  try {
    const bool cuda = silt::backend_from_string(c.backend) == silt::Backend::cuda;
    const silt::Exec exec =
        cuda ? silt::Exec::cuda(c.devices.empty() ? 0 : c.devices.front()) : silt::Exec::host();
    const bool gpu = exec.is_cuda();
    if (c.sizes.empty())
      c.sizes = gpu ? std::vector<std::string>{"55K", "200K", "1M", "3.1M", "12.6M"}
                    : std::vector<std::string>{"55K"};
    const int steps = c.steps > 0 ? c.steps : (gpu ? (c.quick ? 50 : 200) : 2);
    if (!gpu) {
      c.host_threads = silt::host_thread_count();
      c.bytes_per_second = silt::measure_host_stream().bytes_per_s;
      c.atomics_per_second = 0;
    }
    fmt::print(
        "silt mpm_bench on {}: rebuild period {}, graph {}, g2p2g {}, transfer {}, warm-up {} "
        "steps{}\n",
        gpu ? silt::cuda_device_name(exec.device)
            : fmt::format("cpu ({} threads, {}-lane packs)", silt::host_thread_count(),
                          silt::mpm::detail::host_pack_lanes(silt::mpm::detail::host_packs())),
        c.rebuild_period, c.graph ? "on" : "off", c.g2p2g ? "on" : "off", c.transfer,
        c.warmup_steps, c.deterministic ? ", deterministic" : "");
    if (!gpu)
      fmt::print(
          "cpu roofline: STREAM copy {:.3g} GB/s (read + write) on {} threads, {:.3g} GB/s per "
          "core\n",
          1e-9 * c.bytes_per_second, c.host_threads, 1e-9 * c.bytes_per_second / c.host_threads);
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
    if (c.which == "all" || c.which == "sand2d") sand2d(c, exec, steps);
    if (c.which == "all" || c.which == "overhead") overhead(c, exec, steps);
  } catch (const std::exception& e) {
    fmt::print(stderr, "mpm_bench: {}\n", e.what());
    return 1;
  }
  return 0;
}
