// MPM benchmark on one device (paper 000 §6 / DESIGN.md §3): prints numbers, asserts nothing.
//   (a) the 370,386-particle fixed-corotated cube (E = 1e5 Pa, nu = 0.3, rho = 1000, dx = 1/256 m,
//       8 ppc, dropped at 1 m/s, dt = 1e-4 s): ms per step (Claymore: 0.533 ms on one H200);
//   (b) falling sand at ~55K, 200K, 1M, 3.1M and 12.6M particles: particle-steps per second;
//   (c) the per-step cost at 55K split into launch overhead and work, plain launches vs one CUDA
//       graph per frame: overhead measured on a near-empty scene (64 particles), work as the rest.
// The first line of every case is its roofline: bytes and atomics per particle-step and the time
// they need at 3.98 TB/s and ~100 G atomics/s (the H200 rates of DESIGN.md §4).
// Options toggle the rebuild period, the graph, G2P2G, the sort and vector atomics (ablation).
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>
#include <vector>

#include "silt/core/error.hpp"
#include "silt/core/exec.hpp"
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
  bool graph = true, g2p2g = false, sort = true, vector_atomics = true;
  std::string transfer = "apic";
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
};

/// One warm-up frame (first rebuild, graph capture), then `steps` timed steps in one frame.
Timing run(const Config& c, Scene s, const silt::Exec& exec, int steps, bool graph) {
  silt::mpm::SolverOptions opt;
  opt.cuda_graph = graph;
  opt.sort_particles = c.sort;
  opt.vector_atomics = c.vector_atomics;
  s.frame_dt = kDt * std::max(steps, 2);
  silt::mpm::Solver solver(s, exec, opt);
  solver.advance_frame();
  const silt::mpm::FrameStats st = solver.advance_frame();
  Timing t;
  t.ms_per_step = st.ms_per_step;
  t.steps = st.steps;
  t.particles = st.particles;
  t.blocks = st.active_blocks;
  t.rebuilds = st.rebuilds;
  t.graph = solver.uses_graph();
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

void cube(const Config& c, const silt::Exec& exec, int steps) {
  Scene s = base_scene(c, "cube");
  s.materials = {make_jelly()};
  s.sources = {box_of(370386, 0.3, -1.0)};
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
  const int launches = c.g2p2g ? 4 : 5;  // speed reduction, dt, (P2G), grid update, G2P
  fmt::print("  {} launches per step, + 11 per rebuild every {} steps\n", launches,
             c.rebuild_period);
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
  app.add_option("--vector-atomics", c.vector_atomics, "float4 atomics in P2G (on/off)");
  app.add_option("--transfer", c.transfer, "apic or asflip")
      ->check(CLI::IsMember({"apic", "asflip"}));
  CLI11_PARSE(app, argc, argv);
  try {
    const silt::Exec exec = silt::backend_from_string(c.backend) == silt::Backend::cuda
                                ? silt::Exec::cuda(0)
                                : silt::Exec::host();
    const bool gpu = exec.is_cuda();
    if (c.sizes.empty())
      c.sizes = gpu ? std::vector<std::string>{"55K", "200K", "1M", "3.1M", "12.6M"}
                    : std::vector<std::string>{"55K"};
    const int steps = c.steps > 0 ? c.steps : (gpu ? 200 : 2);
    fmt::print(
        "silt mpm_bench on {}: rebuild period {}, graph {}, g2p2g {}, sort {}, vector "
        "atomics {}, transfer {}\n",
        gpu ? silt::cuda_device_name(exec.device)
            : fmt::format("cpu ({} threads)", silt::host_thread_count()),
        c.rebuild_period, c.graph ? "on" : "off", c.g2p2g ? "on" : "off", c.sort ? "on" : "off",
        c.vector_atomics ? "on" : "off", c.transfer);
    if (c.which == "all" || c.which == "cube") cube(c, exec, steps);
    if (c.which == "all" || c.which == "sand") sand(c, exec, steps);
    if (c.which == "all" || c.which == "overhead") overhead(c, exec, steps);
  } catch (const std::exception& e) {
    fmt::print(stderr, "mpm_bench: {}\n", e.what());
    return 1;
  }
  return 0;
}
