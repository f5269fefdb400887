// The module silt._silt: exceptions, build information, backends. The Python package (python/silt)
// wraps it; docs/python.md describes the API.
#include <fmt/format.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "bindings.hpp"
#include "silt/io/checkpoint_file.hpp"
#include "silt/swe/solver.hpp"
#ifdef SILT_WITH_MPM
#include "silt/mpm/solver.hpp"
#endif

namespace silt::python {

std::string build_id() {
  return fmt::format("silt-python {}", SILT_VERSION);
}

std::vector<Exec> choose_execs(const std::string& backend, const std::vector<int>& devices) {
  const Backend b = backend_from_string(backend);
  if (devices.empty()) throw Error("devices: no device given (devices=[0] is one device)");
  if (b == Backend::cpu) return std::vector<Exec>(devices.size(), Exec::host());
  std::vector<Exec> execs;
  for (const int d : devices) {
    if (d < 0 || d >= cuda_device_count())
      throw Error(fmt::format("devices: CUDA device {} does not exist ({} visible)", d,
                              cuda_device_count()));
    execs.push_back(Exec::cuda(d));
  }
  return execs;
}

std::string describe_execs(const std::vector<Exec>& execs) {
  const Exec& e = execs.front();
  if (execs.size() > 1)
    return fmt::format("{} {}", execs.size(), e.is_cuda() ? "cuda parts" : "cpu partitions");
  return e.is_cuda() ? fmt::format("cuda device {} ({})", e.device, cuda_device_name(e.device))
                     : fmt::format("cpu ({} threads)", host_thread_count());
}

}  // namespace silt::python

NB_MODULE(_silt, m) {
  namespace nb = nanobind;
  using namespace silt::python;
  m.doc() = "silt's C++ library (the package silt wraps it; see docs/python.md)";

  // Translators are tried newest first: the specific ones after silt.Error.
  static nb::exception<silt::Error> error(m, "Error", PyExc_RuntimeError);
  static nb::exception<SceneError> scene_error(m, "SceneError", error);
  static nb::exception<silt::io::CheckpointError> checkpoint_error(m, "CheckpointError", error);
  static nb::exception<silt::swe::SplitFault> fault(m, "FaultError", error);
#ifdef SILT_WITH_MPM
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const silt::mpm::PartFault& e) {
      PyErr_SetString(fault.ptr(), e.what());
    }
  });
#endif

  m.def("build_id", &build_id);
  m.def("cuda_compiled", &silt::cuda_compiled, "True when this build has the CUDA backend.");
  m.def("cuda_device_count", &silt::cuda_device_count, "CUDA devices visible (0 without CUDA).");
  m.def("host_thread_count", &silt::host_thread_count, "Threads of the CPU backend.");
  m.def(
      "backend_of",
      [](const std::string& backend) {
        return silt::to_string(silt::backend_from_string(backend));
      },
      "'cpu' or 'cuda' for 'cpu', 'cuda' or 'auto'.");
  m.attr("has_mpm") =
#ifdef SILT_WITH_MPM
      true;
#else
      false;
#endif

  bind_scene(m);
#ifdef SILT_WITH_MPM
  bind_mpm(m);
#endif
  bind_swe(m);
}
