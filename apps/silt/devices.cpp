// Which devices a run or benchmark uses, shared by `silt run` and `silt bench`.
#include <fmt/format.h>

#include "commands.hpp"
#include "silt/core/error.hpp"

namespace silt::app {

Exec cuda_device(int d) {
  if (d < 0 || d >= cuda_device_count())
    throw Error(fmt::format("--devices: CUDA device {} does not exist ({} visible)", d,
                            cuda_device_count()));
  return Exec::cuda(d);
}

// Shallow water: one subdomain per listed device (on the CPU backend, as many CPU partitions as
// devices listed). Under mpirun with several ranks: a rank listing several devices drives them all
// (one rank per machine); a rank listing one device d takes device (d + local rank) modulo the
// devices it sees (one rank per GPU).
std::vector<Exec> choose_execs(const std::string& backend, const std::vector<int>& devices,
                               const partition::World& world, bool repeats) {
  const Backend b = backend_from_string(backend);
  if (devices.empty()) throw Error("--devices: no device given");
  std::vector<Exec> execs;
  if (b == Backend::cpu) return std::vector<Exec>(devices.size(), Exec::host());
  if (devices.size() == 1 && world.distributed()) {
    const int n = cuda_device_count();
    return {cuda_device(n > 0 ? (devices.front() + world.local_rank()) % n : 0)};
  }
  for (const int d : devices) {
    for (const Exec& e : execs)
      if (!repeats && e.device == d)
        throw Error(fmt::format("--devices: device {} listed twice", d));
    execs.push_back(cuda_device(d));
  }
  return execs;
}

int halo_layers(int from_cli, bool cuda) {
  if (from_cli > 0) return from_cli;
  return cuda ? kCudaHalo : 1;
}

}  // namespace silt::app
