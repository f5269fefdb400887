// The set-up of an MPM scene, alone (issue 19): sampling each source, then the whole solver
// construction (sampling again, the parts, the grid, the particles' upload), timed from inside, and
// nothing else, so that farm-bench can time the whole process from outside as well.
//   mpm_setup_bench scenes/mpm_snow_obstacle.json --set domain.dx=0.00293 [--backend cuda]
// Prints numbers, asserts nothing.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <string>
#include <vector>

#include <omp.h>

#include "silt/core/error.hpp"
#include "silt/core/exec.hpp"
#include "silt/io/mpm/scene_file.hpp"
#include "silt/mpm/sampling/sample_source.hpp"
#include "silt/mpm/solver.hpp"

namespace {
double since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}
}  // namespace

int main(int argc, char** argv) {
  std::string scene, backend = "cpu";
  std::vector<std::string> overrides;
  bool solver_only = false;
  CLI::App app{"silt MPM set-up benchmark (prints numbers, asserts nothing)"};
  app.add_option("scene", scene, "MPM scene file")->required();
  app.add_option("--set", overrides, "override a scene value: path=value (repeatable)");
  app.add_option("--backend", backend, "cpu, cuda or auto");
  app.add_flag("--solver-only", solver_only, "only the solver's construction (for farm-bench)");
  CLI11_PARSE(app, argc, argv);
  try {
    const auto t0 = std::chrono::steady_clock::now();
    const silt::io::MpmJob job = silt::io::load_mpm_job(scene, overrides);
    const double read = since(t0);
    const bool cuda = silt::backend_from_string(backend) == silt::Backend::cuda;
    const silt::Exec exec = cuda ? silt::Exec::cuda(0) : silt::Exec::host();
    if (!solver_only)
      for (const auto& s : job.scene.sources) {
        const auto t1 = std::chrono::steady_clock::now();
        const auto pts = silt::mpm::sample_source(s, job.scene.dx, job.scene.dimensions);
        fmt::print("source '{}': {} particles sampled in {:.3f} s\n", s.name, pts.size(),
                   since(t1));
      }
    const auto t2 = std::chrono::steady_clock::now();
    silt::mpm::Solver solver(job.scene, exec);
    fmt::print("scene read {:.3f} s, solver built in {:.3f} s ({} particles, {} threads, {})\n",
               read, since(t2), solver.particle_count(), omp_get_max_threads(), backend);
  } catch (const silt::Error& e) {
    fmt::print(stderr, "error: {}\n", e.what());
    return 1;
  }
  return 0;
}
