// Which devices a run uses, and the words that name them and the build: one choice for the CLI,
// the Python package and the benchmarks (docs/run-layer.md).
#pragma once

#include <string>
#include <thread>
#include <vector>

#include "silt/core/exec.hpp"
#include "silt/partition/world.hpp"

namespace silt::run {

/// A list of devices as a front end took it: `option` names it in errors ("--devices" on the
/// command line, "devices" in Python).
struct DeviceRequest {
  std::string backend = "auto";  // cpu, cuda or auto
  std::vector<int> devices{0};
  /// A device may be listed several times (MPM: several parts on one GPU; `silt bench swe`: the
  /// split path's own cost on one GPU; Python: any part count).
  bool repeats = false;
  std::string option = "--devices";
};

/// One part per listed device (on the CPU backend, as many CPU partitions as devices listed).
/// Under mpirun with several ranks: a rank listing several devices drives them all (one rank per
/// machine); a rank listing one device d takes device (d + local rank) modulo the devices it sees
/// (one rank per GPU).
std::vector<Exec> choose_execs(const DeviceRequest& request, const partition::World& world);

/// Makes the CUDA contexts of the devices `request` chooses on a thread of its own, so that the
/// ~0.5 s a context takes (a process's first cudaSetDevice on an H100: bench/results/
/// cuda-api-times-mpm-k1-2026-12-06c-h100.txt) passes while the command reads its scene and
/// checks its members, not after. Nothing on the CPU backend or for a request that choose_execs
/// refuses (the command's own choice says why); an error of the thread's is left for the run's
/// own first CUDA call to report. Waits for the thread when it goes.
class DeviceStart {
 public:
  DeviceStart(const DeviceRequest& request, const partition::World& world);
  ~DeviceStart();
  DeviceStart(const DeviceStart&) = delete;
  DeviceStart& operator=(const DeviceStart&) = delete;

 private:
  std::thread thread_;
};

/// Exec::cuda(d), or an error naming `option` when device d does not exist.
Exec cuda_device(int d, const std::string& option = "--devices");

/// "cpu (8 threads)", "cuda device 0 (NVIDIA H200)", "2 cuda devices (0: ...; 1: ...)", with
/// " on each of N MPI ranks" under mpirun: the backend written next to the outputs.
std::string describe_execs(const std::vector<Exec>& execs, const partition::World& world);

/// "silt 0.1.0 (abc1234, Release, GNU 13.3.0, CUDA arch 90)": the build named in checkpoints,
/// resolved scenes and `silt --version`.
std::string build_id();

/// Halo layers of a split run (ghost cell expansion: exchanged every k steps): `requested` when
/// positive, else kCudaHalo on CUDA subdomains and 1 on CPU partitions.
int halo_layers(int requested, bool cuda);
/// The default halo of split runs on GPUs: 4 layers exchanged every 4 steps measured best on two
/// H200s (docs/NOTES.md, "Several devices"); on CPU partitions the recomputed overlap costs more
/// than it saves.
constexpr int kCudaHalo = 4;

}  // namespace silt::run
