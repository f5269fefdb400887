// silt.Ensemble(scene, ensemble).run(out): the library's run::run_ensemble (the one `silt run
// scene --ensemble ens.json` runs), the GIL released, Ctrl-C its stop signal; .validate():
// run::validate_ensemble (`silt validate scene --ensemble ens.json`).
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <csignal>

#include "bindings.hpp"
#include "silt/run/ensemble_run.hpp"

namespace silt::python {

void bind_ensemble(nb::module_& m) {
  m.def(
      "run_ensemble",
      [](const std::string& scene, const std::vector<std::string>& overrides,
         const std::string& ensemble, const std::string& ensemble_text, const std::string& out,
         const std::string& backend, int device, bool overwrite, bool quiet,
         const std::string& restart, const std::string& checkpoint_every) {
        Interrupt interrupted;
        run::EnsembleRequest q;
        q.scene = scene;
        q.overrides = overrides;
        q.ensemble = ensemble;
        q.ensemble_text = ensemble_text;
        q.out = out;
        q.backend = backend;
        q.devices = {device};
        q.overwrite = overwrite;
        q.quiet = quiet;
        q.restart = restart;
        q.checkpoint_every = checkpoint_every;
        q.checkpoint_option = "checkpoint_every";
        q.stop = [&interrupted] {
          return interrupted() ? SIGINT : 0;
        };
        run::EnsembleOutcome r;
        {
          nb::gil_scoped_release unlocked;
          r = run::run_ensemble(q);
        }
        interrupted.raise_if_interrupted();
        nb::dict d;
        d["out"] = r.out;
        d["members"] = r.members;
        d["done"] = r.done;
        d["files"] = r.files;
        d["checkpoint"] = r.checkpoint;
        return d;
      },
      nb::arg("scene"), nb::arg("overrides"), nb::arg("ensemble"), nb::arg("ensemble_text"),
      nb::arg("out"), nb::arg("backend"), nb::arg("device"), nb::arg("overwrite"), nb::arg("quiet"),
      nb::arg("restart"), nb::arg("checkpoint_every"));
  m.def(
      "validate_ensemble",
      [](const std::string& scene, const std::vector<std::string>& overrides,
         const std::string& ensemble, const std::string& ensemble_text) {
        run::EnsembleRequest q;
        q.scene = scene;
        q.overrides = overrides;
        q.ensemble = ensemble;
        q.ensemble_text = ensemble_text;
        return run::validate_ensemble(q);
      },
      nb::arg("scene"), nb::arg("overrides"), nb::arg("ensemble"), nb::arg("ensemble_text"));
}

}  // namespace silt::python
