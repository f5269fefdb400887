// The module silt._silt: exceptions, build information, backends. The Python package (python/silt)
// wraps it; docs/python.md describes the API.
#include <fmt/format.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "bindings.hpp"
#include "silt/io/checkpoint_file.hpp"
#include "silt/partition/world.hpp"
#include "silt/run/devices.hpp"
#include "silt/swe/solver.hpp"
#ifdef SILT_WITH_MPM
#include "silt/mpm/solver.hpp"
#endif

namespace silt::python {

std::vector<Exec> choose_execs(const std::string& backend, const std::vector<int>& devices) {
  return run::choose_execs({backend, devices, /*repeats=*/true, "devices"},
                           partition::World::self());
}

std::string describe_execs(const std::vector<Exec>& execs) {
  return run::describe_execs(execs, partition::World::self());
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

  m.def("build_id", &silt::run::build_id);
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

  m.attr("has_netcdf") =  // NetCDF outputs ("nc" in outputs.formats) need netCDF-C at build time
#ifdef SILT_WITH_NETCDF
      true;
#else
      false;
#endif

  bind_scene(m);
#ifdef SILT_WITH_MPM
  bind_mpm(m);
#endif
  bind_swe(m);
  bind_ensemble(m);
}
