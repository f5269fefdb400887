// What the module's files share: where a scene comes from, the backend and devices a simulation
// runs on, arrays handed to NumPy, and the Ctrl-C check between batches of steps. The bindings
// stay thin: every number comes from the library (src/silt/), nothing is computed here.
#pragma once

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <atomic>
#include <initializer_list>
#include <string>
#include <vector>

#include "silt/core/error.hpp"
#include "silt/core/exec.hpp"
#include "silt/run/job.hpp"

namespace silt::io {
struct SweJob;
struct MpmJob;
}  // namespace silt::io

namespace silt::python {

namespace nb = nanobind;

/// A scene that does not load or validate; silt.SceneError in Python, with the loader's message
/// (it names the file and the key).
class SceneError : public Error {
 public:
  using Error::Error;
};

/// Where a scene comes from: a file (path), or JSON text (Scene.from_dict) with a name for
/// messages and a folder for relative paths, and the overrides Scene.set collected ("path=value",
/// as `silt run --set`).
struct SceneSpec {
  std::string path;
  std::string text;
  std::string name;
  std::string base_dir;
  std::vector<std::string> overrides;
  /// NumPy arrays the scene names as "array:<name>" (io/scene_arrays.hpp), by that name: float64,
  /// C-contiguous (the Python layer checked and converted them, silt/_arrays.py).
  nb::dict arrays;
};

/// "swe" or "mpm" (SceneError when the scene does not say or cannot be read).
std::string scene_solver(const SceneSpec& spec);

/// Runs load(), reporting any silt::Error it throws as a SceneError.
template <class F>
auto load_scene(F load) {
  try {
    return load();
  } catch (const SceneError&) {
    throw;
  } catch (const Error& e) {
    throw SceneError(e.what());
  }
}

/// The scene of spec loaded and validated (SceneError with the loader's message), its arrays read
/// where the scene names them.
io::SweJob load_swe(const SceneSpec& spec);
io::MpmJob load_mpm(const SceneSpec& spec);

/// One exec per listed device (run::choose_execs, as `silt run` chooses, on this process alone):
/// "cpu" (CPU partitions), "cuda" or "auto" (CUDA when this build has it and a GPU is present); a
/// device may be listed several times (parts sharing it). Errors name the list "devices".
std::vector<Exec> choose_execs(const std::string& backend, const std::vector<int>& devices);
/// run::describe_execs on this process: "cpu (2 threads)", "cuda device 0 (NVIDIA H200)", ...
std::string describe_execs(const std::vector<Exec>& execs);

/// A NumPy array owning v's data (no copy), of the given shape.
template <class T>
nb::ndarray<nb::numpy, T> numpy_array(std::vector<T>&& v, std::initializer_list<size_t> shape) {
  auto* owned = new std::vector<T>(std::move(v));
  nb::capsule owner(owned, [](void* p) noexcept { delete static_cast<std::vector<T>*>(p); });
  return nb::ndarray<nb::numpy, T>(owned->data(), shape, owner);
}

/// Asked between frames or batches of steps while the GIL is released: takes the GIL and looks
/// for a signal (Ctrl-C). When one arrived, Python's error (KeyboardInterrupt) stays set, the
/// stepping loop stops, and raise_if_interrupted() raises it once the GIL is back.
class Interrupt {
 public:
  bool operator()() {
    nb::gil_scoped_acquire gil;
    if (PyErr_CheckSignals() != 0) interrupted_ = true;
    return interrupted_;
  }
  void raise_if_interrupted() const {
    if (interrupted_) throw nb::python_error();
  }

 private:
  bool interrupted_ = false;
};

/// One call into a simulation at a time: stepping runs without the GIL, so a second Python thread
/// could otherwise enter the same solver. Raises RuntimeError instead.
class Busy {
 public:
  explicit Busy(std::atomic<bool>& flag) : flag_(flag) {
    if (flag_.exchange(true))
      throw std::runtime_error("silt: this simulation is busy in another thread");
  }
  ~Busy() { flag_ = false; }
  Busy(const Busy&) = delete;
  Busy& operator=(const Busy&) = delete;

 private:
  std::atomic<bool>& flag_;
};

/// Where Simulation.run() writes: `dir` ("": nothing), claimed as `silt run --out` claims it
/// (empty or new; `overwrite` removes an earlier run's files), and the checkpoint interval
/// (--checkpoint-every's forms; checkpoints go to dir/checkpoint.silt).
struct RunOut {
  std::string dir;
  std::string checkpoint_every;
  bool overwrite = false;
  /// The run continues a restored checkpoint: the folder is claimed as `silt run --restart`
  /// claims it (its files kept, the frames after the checkpoint's written there).
  bool restart = false;
};
/// Checks the options of a run from `start` to `end` s and claims the folder (errors name them).
void check_run_options(const RunOut& out, double start, double end);
/// The run layer's frame loop over `job` (what `silt run` does), the GIL released, Ctrl-C its stop
/// signal (the frames queued before are written, a checkpoint too when out has a folder; then
/// KeyboardInterrupt).
void run_frames(run::Job& job, const RunOut& out, double end);

void bind_scene(nb::module_& m);
void bind_mpm(nb::module_& m);
void bind_swe(nb::module_& m);
void bind_ensemble(nb::module_& m);  // ensemble.cpp

}  // namespace silt::python
