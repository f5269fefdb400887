// The cost of one output frame on the writer thread at ~1M particles (issue 18): each particle
// writer (PLY, VTP, OpenVDB points), the density/velocity volume and the z-up rotation, timed
// alone on one thread over the same frame. Prints numbers, asserts nothing.
// Roofline first: the bytes each writer produces against the host's STREAM copy bandwidth on one
// thread (core/host_stream.hpp), the least time to move them through memory once; the files go to
// --out (the page cache: no fsync, as the writers do not sync either).
// Each case: median, min and max over --repeats of wall time and of the process CPU time
// (CLOCK_PROCESS_CPUTIME_ID: all threads, OpenVDB runs parts of its point conversion on TBB
// workers; less moved by other processes on a shared machine than wall time).
#include <fmt/format.h>
#include <omp.h>
#include <time.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "silt/core/host_stream.hpp"
#include "silt/io/particles/ply.hpp"
#include "silt/io/particles/up_axis.hpp"
#include "silt/io/particles/vdb.hpp"
#include "silt/io/particles/volume_vdb.hpp"
#include "silt/io/particles/vtp.hpp"

namespace {

namespace fs = std::filesystem;

double process_cpu_s() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

// A block of n^3 cells at 8 particles per cell on a jittered lattice (dx = 1/128 m), as a sand
// column is sampled; smooth velocities with noise, a symmetric stress, ids in order.
silt::mpm::ParticleFrame block(int n, double dx, bool stress) {
  silt::mpm::ParticleFrame f;
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> j(-0.2f, 0.2f), noise(-0.05f, 0.05f);
  int id = 0;
  for (int i = 0; i < 2 * n; ++i)
    for (int k = 0; k < 2 * n; ++k)
      for (int l = 0; l < 2 * n; ++l) {
        const float x = float((i + 0.5 + j(rng)) * dx / 2 + 0.1);
        const float y = float((k + 0.5 + j(rng)) * dx / 2 + 0.1);
        const float z = float((l + 0.5 + j(rng)) * dx / 2 + 0.1);
        f.position.insert(f.position.end(), {x, y, z});
        f.velocity.insert(f.velocity.end(),
                          {0.3f * y + noise(rng), -1.0f - x + noise(rng), 0.1f * z + noise(rng)});
        f.material.push_back(i < n ? 0 : 1);
        f.id.push_back(id++);
        if (stress) {
          const float a = -1000.0f * (1 - y), b = 30.0f * noise(rng);
          f.stress.insert(f.stress.end(), {a, b, 0, b, a, b, 0, b, 0.5f * a});
          f.plastic.push_back(-0.01f * y);
        }
      }
  return f;
}

struct Stats {
  double median, min, max;
};

Stats stats(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return {v[v.size() / 2], v.front(), v.back()};
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"VFX writers: ms per frame at ~1M particles"};
  int cells = 50, repeats = 5;
  std::string out = fs::temp_directory_path().string();
  bool stress = false;
  app.add_option("--cells", cells, "block edge in cells; 8 particles per cell (50: 1,000,000)");
  app.add_option("--repeats", repeats, "runs per case (median reported)");
  app.add_option("--out", out, "folder for the files");
  app.add_flag("--stress", stress, "frames with stress and plastic state (outputs.with_stress)");
  CLI11_PARSE(app, argc, argv);

  const double dx = 1.0 / 128;
  const silt::mpm::ParticleFrame frame = block(cells, dx, stress);
  const std::size_t n = frame.count();
  omp_set_num_threads(1);
  const silt::HostStream stream = silt::measure_host_stream();
  fmt::print("frame: {} particles{}, dx = {} m; one thread; STREAM copy {:.2f} GB/s (1 thread)\n",
             n, stress ? " with stress" : "", dx, stream.bytes_per_s / 1e9);

  silt::io::VolumeGrid grid;
  grid.voxel_size = dx;
  grid.particle_mass = {1600 * dx * dx * dx / 8, 1000 * dx * dx * dx / 8};
  grid.particle_volume = {dx * dx * dx / 8, dx * dx * dx / 8};
  const silt::io::ParticleFileInfo info{"bench", 1, 0.04};
  const fs::path dir = fs::path(out) / fmt::format("silt_vfx_bench_{}", ::getpid());
  fs::create_directories(dir);

  struct Case {
    std::string name, file;
    std::function<void()> run;
  };
  silt::mpm::ParticleFrame turned;
  silt::io::VolumeGrid coarse = grid;
  coarse.voxel_size = 2 * dx;
  std::vector<Case> cases{
      {"ply", "p.ply",
       [&] {
         silt::io::write_particles_ply((dir / "p.ply").string(), frame, info);
       }},
      {"vtp (raw)", "p.vtp",
       [&] {
         silt::io::write_particles_vtp((dir / "p.vtp").string(), frame, info,
                                       silt::io::VtpEncoding::appended_raw);
       }},
      {"up_axis z (copy + rotate)", "",
       [&] {
         turned = frame;
         silt::io::frame_to_up_axis(turned, silt::io::UpAxis::z);
       }},
  };
  if (silt::io::vdb_available()) {
    cases.push_back({"vdb points", "p.vdb", [&] {
                       silt::io::write_particles_vdb((dir / "p.vdb").string(), frame, info, dx);
                     }});
    cases.push_back({"volume (density mass + velocity, h = dx)", "v.vdb", [&] {
                       silt::io::write_volume_vdb((dir / "v.vdb").string(), frame, info, grid);
                     }});
    cases.push_back({"volume (h = 2 dx)", "v2.vdb", [&] {
                       silt::io::write_volume_vdb((dir / "v2.vdb").string(), frame, info, coarse);
                     }});
  }
  fmt::print(
      "| writer | file MB | roofline ms (bytes / STREAM) | wall ms median (min-max) | "
      "process CPU ms median (min-max) | ns/particle (CPU) |\n|---|---|---|---|---|---|\n");
  for (const Case& c : cases) {
    std::vector<double> wall, cpu;
    for (int r = 0; r < repeats; ++r) {
      const auto t0 = std::chrono::steady_clock::now();
      const double c0 = process_cpu_s();
      c.run();
      cpu.push_back(process_cpu_s() - c0);
      wall.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    const double mb =
        c.file.empty() ? 0.0 : double(fs::file_size(dir / c.file)) / 1e6;  // decimal MB
    const double bytes = c.file.empty() ? double(n) * 4 * 14 : mb * 1e6;   // rotate: r+w frame
    const Stats w = stats(wall), p = stats(cpu);
    fmt::print(
        "| {} | {:.1f} | {:.1f} | {:.0f} ({:.0f}-{:.0f}) | {:.0f} ({:.0f}-{:.0f}) | {:.0f} |\n",
        c.name, mb, 1e3 * bytes / stream.bytes_per_s, 1e3 * w.median, 1e3 * w.min, 1e3 * w.max,
        1e3 * p.median, 1e3 * p.min, 1e3 * p.max, 1e9 * p.median / double(n));
  }
  fs::remove_all(dir);
  return 0;
}
