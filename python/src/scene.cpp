// Scenes from Python: a file or JSON text (a dict), loaded and validated by the same io/ loaders
// as `silt run` and `silt validate`, so the messages are the CLI's (they name the file and key).
#include <fmt/format.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "bindings.hpp"
#include "silt/io/swe/scene_file.hpp"
#ifdef SILT_WITH_MPM
#include "silt/io/mpm/scene_file.hpp"
#endif

namespace silt::python {

namespace {

using GridArray = nb::ndarray<const double, nb::ndim<2>, nb::c_contig, nb::device::cpu>;

// Views of the spec's arrays, valid while the spec holds them.
io::SceneArrays views_of(const SceneSpec& s) {
  io::SceneArrays out;
  for (auto [name, value] : s.arrays) {
    GridArray a;
    if (!nb::try_cast(value, a))
      throw SceneError(fmt::format("{}: the array '{}' is not a C-contiguous 2D float64 array",
                                   s.name, nb::cast<std::string>(name)));
    out[nb::cast<std::string>(name)] = {a.data(), Index(a.shape(0)), Index(a.shape(1))};
  }
  return out;
}

}  // namespace

io::SweJob load_swe(const SceneSpec& s) {
  return load_scene([&] {
    const io::SceneArrays arrays = views_of(s);
    return s.path.empty() ? io::parse_swe_job(s.text, s.name, s.base_dir, s.overrides, &arrays)
                          : io::load_swe_job(s.path, s.overrides, {}, &arrays);
  });
}

#ifdef SILT_WITH_MPM
io::MpmJob load_mpm(const SceneSpec& s) {
  return load_scene([&] {
    const io::SceneArrays arrays = views_of(s);
    return s.path.empty() ? io::parse_mpm_job(s.text, s.name, s.base_dir, s.overrides, &arrays)
                          : io::load_mpm_job(s.path, s.overrides);
  });
}
#endif

std::string scene_solver(const SceneSpec& s) {
  return load_scene([&] {
    return s.path.empty() ? io::scene_solver_of_text(s.text, s.name) : io::scene_solver(s.path);
  });
}

namespace {

// The scene validated: its solver, name, resolved JSON (defaults filled in), `silt validate`'s
// summary and the loader's warnings.
nb::dict check_scene(const SceneSpec& s) {
  const std::string solver = scene_solver(s);
  nb::dict d;
  d["solver"] = solver;
  if (solver == "swe") {
    const io::SweJob job = load_swe(s);
    d["name"] = job.scene.name;
    d["resolved"] = job.resolved.dump();
    d["summary"] = io::describe(job);
    d["warnings"] = job.warnings;
    return d;
  }
#ifdef SILT_WITH_MPM
  if (solver == "mpm") {
    const io::MpmJob job = load_mpm(s);
    d["name"] = job.scene.name;
    d["resolved"] = job.resolved.dump();
    d["summary"] = io::describe(job);
    d["warnings"] = job.warnings;
    return d;
  }
#endif
  throw SceneError((s.path.empty() ? s.name : s.path) + ": 'solver' is '" + solver +
                   "'; this build runs 'swe'" +
#ifdef SILT_WITH_MPM
                   " and 'mpm'"
#else
                   ""
#endif
  );
}

}  // namespace

void bind_scene(nb::module_& m) {
  nb::class_<SceneSpec>(m, "SceneSpec", "Where a scene comes from (silt.Scene holds one).")
      .def(nb::init<>())
      .def_rw("path", &SceneSpec::path)
      .def_rw("text", &SceneSpec::text)
      .def_rw("name", &SceneSpec::name)
      .def_rw("base_dir", &SceneSpec::base_dir)
      .def_rw("overrides", &SceneSpec::overrides)
      .def_rw("arrays", &SceneSpec::arrays);
  m.def("check_scene", &check_scene, nb::arg("spec"),
        "Loads and validates a scene: dict of solver, name, resolved (JSON text), summary and "
        "warnings. Raises SceneError naming the file and key.");
}

}  // namespace silt::python
