#include "silt/run/devices.hpp"

#include <fmt/format.h>

#include "silt/core/error.hpp"

namespace silt::run {

Exec cuda_device(int d, const std::string& option) {
  if (d < 0 || d >= cuda_device_count())
    throw Error(fmt::format("{}: CUDA device {} does not exist ({} visible)", option, d,
                            cuda_device_count()));
  return Exec::cuda(d);
}

std::vector<Exec> choose_execs(const DeviceRequest& r, const partition::World& world) {
  const Backend b = backend_from_string(r.backend);
  if (r.devices.empty()) throw Error(fmt::format("{}: no device given", r.option));
  if (b == Backend::cpu) return std::vector<Exec>(r.devices.size(), Exec::host());
  if (r.devices.size() == 1 && world.distributed()) {
    const int n = cuda_device_count();
    return {cuda_device(n > 0 ? (r.devices.front() + world.local_rank()) % n : 0, r.option)};
  }
  std::vector<Exec> execs;
  for (const int d : r.devices) {
    for (const Exec& e : execs)
      if (!r.repeats && e.device == d)
        throw Error(fmt::format("{}: device {} listed twice", r.option, d));
    execs.push_back(cuda_device(d, r.option));
  }
  return execs;
}

DeviceStart::DeviceStart(const DeviceRequest& request, const partition::World& world) {
  try {
    if (backend_from_string(request.backend) == Backend::cpu) return;
    // The driver's own start (the device count) happens on the thread too.
    thread_ = std::thread([request, &world] {
      try {
        for (const Exec& e : choose_execs(request, world))
          if (e.is_cuda()) activate(e);
      } catch (...) {  // a bad request or device: the command's own choice says what failed
      }
    });
  } catch (...) {  // a bad backend name, or no thread: the command finds out as before
  }
}

DeviceStart::~DeviceStart() {
  if (thread_.joinable()) thread_.join();
}

namespace {

std::string describe_exec(const Exec& e) {
  return e.is_cuda() ? fmt::format("cuda device {} ({})", e.device, cuda_device_name(e.device))
                     : fmt::format("cpu ({} threads)", host_thread_count());
}

}  // namespace

std::string describe_execs(const std::vector<Exec>& execs, const partition::World& world) {
  if (execs.size() == 1 && !world.distributed()) return describe_exec(execs.front());
  std::string s = execs.front().is_cuda() ? fmt::format("{} cuda devices (", execs.size())
                                          : fmt::format("{} cpu partitions (", execs.size());
  for (size_t k = 0; k < execs.size(); ++k)
    s += (k ? "; " : "") + (execs[k].is_cuda() ? fmt::format("{}: {}", execs[k].device,
                                                             cuda_device_name(execs[k].device))
                                               : fmt::format("{} threads", host_thread_count()));
  s += ")";
  if (world.distributed()) s += fmt::format(" on each of {} MPI ranks", world.size());
  return s;
}

int halo_layers(int requested, bool cuda) {
  if (requested > 0) return requested;
  return cuda ? kCudaHalo : 1;
}

}  // namespace silt::run
