// silt._silt.MpmSimulation: one mpm::Solver over the parts of a run, stepped frame by frame with
// the GIL released; particles to NumPy (copies, id order) or as zero-copy views of a part's
// storage (DLPack, valid until the next step); frames and checkpoints through the CLI's writers.
#include <fmt/format.h>
#include <nanobind/stl/array.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cmath>
#include <map>
#include <memory>
#include <optional>

#include "bindings.hpp"
#include "silt/io/mpm/checkpoint.hpp"
#include "silt/io/mpm/scene_file.hpp"
#include "silt/io/particles/output.hpp"
#include "silt/mpm/solver.hpp"
#include "silt/run/devices.hpp"
#include "silt/run/mpm_adapter.hpp"

namespace silt::python {

namespace {

nb::dict stats_dict(const mpm::FrameStats& s, long frame) {
  nb::dict d;
  d["frame"] = frame;
  d["time"] = s.time;
  d["steps"] = s.steps;
  d["ms_per_step"] = s.ms_per_step;
  d["particles"] = s.particles;
  d["active_blocks"] = s.active_blocks;
  d["rebuilds"] = s.rebuilds;
  d["forced_rebuilds"] = s.forced_rebuilds;
  d["sorts"] = s.sorts;
  d["dt_min"] = s.dt_min;
  d["dt_max"] = s.dt_max;
  d["stable_dt"] = s.stable_dt;
  d["unstable_steps"] = s.unstable_steps;
  d["kinetic_energy"] = s.kinetic_energy;
  d["rms_speed"] = s.rms_speed;
  d["warnings"] = s.warnings;
  return d;
}

/// (n, 3) float32 rows in host memory (the Python layer converts and checks the shape).
using Rows = nb::ndarray<const float, nb::shape<-1, 3>, nb::c_contig, nb::device::cpu>;

class MpmSimulation {
 public:
  MpmSimulation(const SceneSpec& spec, const std::string& backend, const std::vector<int>& devices)
      : job_(std::make_unique<io::MpmJob>(load_mpm(spec))),
        execs_(choose_execs(backend, devices)),
        overrides_(spec.overrides) {
    mpm::SolverOptions o;
    o.log = [this](const std::string& line) {
      log_.push_back(line);
    };
    nb::gil_scoped_release unlocked;
    solver_ = std::make_unique<mpm::Solver>(job_->scene, execs_, o);
  }

  nb::dict advance_frame() {
    Busy busy(busy_);
    mpm::FrameStats s;
    {
      nb::gil_scoped_release unlocked;
      s = frame();
    }
    return stats_dict(s, frame_);
  }

  // One step of the dt the CFL condition allows (Solver::step, not clipped to a frame's end),
  // checked for faults. Returns the step's dt.
  double step() {
    Busy busy(busy_);
    const double before = solver_->time();
    {
      nb::gil_scoped_release unlocked;
      ++generation_;  // before: a fault mid-step also ends the views
      solver_->step();
      solver_->check();
      ++steps_;
    }
    return solver_->time() - before;
  }

  // Frames until the time reaches t (frame k ends at k frame_dt), looking for Ctrl-C between
  // frames: KeyboardInterrupt leaves the run at the end of the last whole frame.
  nb::object advance_to(double t) {
    Busy busy(busy_);
    if (!std::isfinite(t)) throw nb::value_error("advance_to: t must be a finite time in s");
    const double slack = 1e-6 * job_->scene.frame_dt;
    Interrupt interrupted;
    bool any = false;
    mpm::FrameStats s;
    {
      nb::gil_scoped_release unlocked;
      while (solver_->time() < t - slack) {
        s = frame();
        any = true;
        if (interrupted()) break;
      }
    }
    interrupted.raise_if_interrupted();
    if (!any) return nb::none();
    return stats_dict(s, frame_);
  }

  // What `silt run` does from here (to run.frames, or to rest), through the same frame loop,
  // writing into out.dir (when given) what it writes; a run that writes starts at frame 0.
  // Returns the last frame's statistics (None when no frame was left).
  nb::object run(const std::string& dir, const std::string& checkpoint_every, bool overwrite) {
    std::optional<mpm::FrameStats> last;
    {
      Busy busy(busy_);
      const bool continues = restored_steps_ == steps_;
      const RunOut out{dir, checkpoint_every, overwrite, continues};
      if (!dir.empty() && steps_ != 0 && !continues)
        throw Error(fmt::format(
            "run(out='{}'): a run that writes starts at frame 0 or at the checkpoint restore() "
            "read (this simulation is at frame {}, step {}); make a new Simulation, or run() "
            "without out",
            dir, frame_, steps_));
      check_run_options(out, solver_->time(), job_->run.end_time);
      if (!dir.empty()) run::write_resolved_scene(*job_, dir, describe_execs(execs_), overrides_);
      run::MpmAdapter frames(*job_, *solver_, frame_ > 0 || continues ? frame_ + 1 : 0, dir, true);
      ++generation_;  // a fault mid-frame also ends the views
      frames.on_frame = [&](const mpm::FrameStats& s) {
        ++generation_;
        ++frame_;
        steps_ += s.steps;
        last = s;
      };
      run_frames(frames, out, job_->run.end_time);
    }
    if (!last) return nb::none();
    return stats_dict(*last, frame_);
  }

  double time() const { return solver_->time(); }

  nb::dict particles(bool with_stress) {
    Busy busy(busy_);
    mpm::ParticleFrame f;
    {
      nb::gil_scoped_release unlocked;
      f = solver_->particles(with_stress);
    }
    const size_t n = f.count();
    nb::dict d;
    d["position"] = numpy_array(std::move(f.position), {n, 3});
    d["velocity"] = numpy_array(std::move(f.velocity), {n, 3});
    d["material"] = numpy_array(std::move(f.material), {n});
    d["id"] = numpy_array(std::move(f.id), {n});
    if (with_stress) {
      d["stress"] = numpy_array(std::move(f.stress), {n, 3, 3});
      d["plastic"] = numpy_array(std::move(f.plastic), {n});
    }
    return d;
  }

  // Zero-copy views of part k's storage (device memory on CUDA, host memory on the CPU), which
  // keep `self` alive. Valid until the next call that steps (generation() changes then).
  static nb::dict part_particles(nb::handle self, int k) {
    MpmSimulation& s = nb::cast<MpmSimulation&>(self);
    Busy busy(s.busy_);
    const mpm::PartParticles p = s.solver_->part_particles(k);
    const int type = p.exec.is_cuda() ? nb::device::cuda::value : nb::device::cpu::value;
    const int dev = p.exec.is_cuda() ? p.exec.device : 0;
    const size_t n = size_t(p.count);
    // Exported writable: consumers differ in how they take DLPack's read-only flag (NumPy marks
    // the array, others refuse it); the documentation asks for read-only use.
    const auto view = [&](const auto* data, std::initializer_list<size_t> shape) {
      using T = std::remove_const_t<std::remove_pointer_t<decltype(data)>>;
      return nb::ndarray<nb::array_api, T>(const_cast<T*>(data), shape, self, {}, nb::dtype<T>(),
                                           type, dev);
    };
    nb::dict d;
    d["position"] = view(p.position, {n, 3});
    d["velocity"] = view(p.velocity, {n, 3});
    d["deformation_gradient"] = view(p.deformation_gradient, {n, 3, 3});
    d["plastic"] = view(p.plastic, {n});
    d["material"] = view(p.material, {n});
    d["id"] = view(p.id, {n});
    return d;
  }

  // The current state as frame `frame()` of dir, with the CLI's writer (the scene's particle
  // formats, preview, particles.pvd, frames.csv); resolved_scene.json the first time.
  std::vector<std::string> write_frame(const std::string& dir) {
    Busy busy(busy_);
    auto& w = writers_[dir];
    if (!w) {
      run::write_resolved_scene(*job_, dir, describe_execs(execs_), overrides_);
      w = std::make_unique<io::MpmFrameWriter>(*job_, dir);
    }
    nb::gil_scoped_release unlocked;
    mpm::ParticleFrame f;
    if (io::wants_particles(job_->outputs)) f = solver_->particles(job_->outputs.with_stress);
    return w->write(f, frame_, solver_->time());
  }

  void checkpoint(const std::string& path) {
    Busy busy(busy_);
    nb::gil_scoped_release unlocked;
    io::save_mpm_checkpoint(path, *job_, solver_->state(), run::build_id());
  }

  void restore(const std::string& path) {
    Busy busy(busy_);
    nb::gil_scoped_release unlocked;
    const mpm::RestartState st = io::load_mpm_checkpoint(path, *job_);
    solver_->restore(st);
    frame_ = long(st.frame);
    restored_steps_ = steps_;
    ++generation_;
  }

  // Particles of source `source` added between frames (Solver::add_particles); the library's
  // messages (the first bad row, the capacity) as ValueError. The storage moves: views end.
  int add_particles(int source, Rows x, Rows v) {
    Busy busy(busy_);
    const std::vector<float> xs(x.data(), x.data() + x.size()), vs(v.data(), v.data() + v.size());
    std::string error;
    int first = 0;
    {
      nb::gil_scoped_release unlocked;
      ++generation_;
      try {
        first = solver_->add_particles(source, xs, vs);
      } catch (const Error& e) {
        error = e.what();
      }
    }
    if (!error.empty()) throw nb::value_error(error.c_str());
    return first;
  }

  std::vector<std::string> source_names() const {
    std::vector<std::string> names;
    for (const mpm::Source& s : solver_->scene().sources) names.push_back(s.name);
    return names;
  }

  // The colliders as they are now: name, kind, the reference point at the current time (a
  // plane's point, a sphere's or cylinder's center, a box's box_min) and velocity.
  nb::list colliders() const {
    nb::list out;
    const double t = solver_->time();
    for (const mpm::Collider& c : solver_->scene().colliders) {
      const mpm::Vec3d& ref = c.kind == mpm::ColliderKind::plane ? c.point
                              : c.kind == mpm::ColliderKind::box ? c.box_min
                                                                 : c.center;
      std::array<double, 3> at;
      for (std::size_t a = 0; a < 3; ++a) at[a] = ref[a] + c.velocity[a] * t;
      nb::dict d;
      d["name"] = c.name;
      d["kind"] = mpm::collider_kind_name(c.kind);
      d["at"] = at;
      d["velocity"] = c.velocity;
      out.append(d);
    }
    return out;
  }

  void move_collider(int index, const std::array<double, 3>& at,
                     const std::array<double, 3>& velocity) {
    Busy busy(busy_);
    try {
      solver_->move_collider(std::size_t(index), at, velocity);
    } catch (const Error& e) {
      throw nb::value_error(e.what());
    }
  }

  // Gravity and the materials of `spec`: the simulation's scene with the change, validated by the
  // scene's loader (Python's Scene.update); the solver refuses a material's kind or density.
  void set_physics(const SceneSpec& spec) {
    Busy busy(busy_);
    const io::MpmJob changed = load_mpm(spec);
    std::string error;
    {
      nb::gil_scoped_release unlocked;
      try {
        solver_->set_physics(changed.scene.gravity, changed.scene.materials);
      } catch (const Error& e) {
        error = e.what();
      }
    }
    if (!error.empty()) throw nb::value_error(error.c_str());
    job_->scene.gravity = changed.scene.gravity;
    job_->scene.materials = changed.scene.materials;
  }

  long frame_index() const { return frame_; }
  long long steps() const { return steps_; }
  long long generation() const { return generation_; }
  std::int64_t particle_count() const { return solver_->particle_count(); }
  int parts() const { return solver_->parts(); }
  std::string layout() const { return solver_->layout(); }
  std::string backend() const { return describe_execs(execs_); }
  double frame_dt() const { return job_->scene.frame_dt; }
  int frames() const { return job_->run.frames; }
  double rest_speed() const { return job_->run.rest_speed; }
  std::vector<std::string> take_log() { return std::move(log_); }

 private:
  mpm::FrameStats frame() {
    ++generation_;  // before: a fault mid-frame also ends the views
    mpm::FrameStats s = solver_->advance_frame();
    ++frame_;
    steps_ += s.steps;
    return s;
  }

  std::unique_ptr<io::MpmJob> job_;  // writers keep its address
  std::vector<Exec> execs_;
  std::vector<std::string> overrides_;
  std::vector<std::string> log_;
  std::unique_ptr<mpm::Solver> solver_;
  std::map<std::string, std::unique_ptr<io::MpmFrameWriter>> writers_;
  long frame_ = 0;
  long long steps_ = 0;
  long long restored_steps_ = -1;  // steps_ at the last restore(): run(out) continues from there
  long long generation_ = 0;
  std::atomic<bool> busy_{false};
};

}  // namespace

void bind_mpm(nb::module_& m) {
  nb::class_<MpmSimulation>(m, "MpmSimulation")
      .def(nb::init<const SceneSpec&, const std::string&, const std::vector<int>&>(),
           nb::arg("spec"), nb::arg("backend"), nb::arg("devices"))
      .def("advance_frame", &MpmSimulation::advance_frame)
      .def("step", &MpmSimulation::step)
      .def("advance_to", &MpmSimulation::advance_to, nb::arg("t"))
      .def("run", &MpmSimulation::run, nb::arg("out"), nb::arg("checkpoint_every"),
           nb::arg("overwrite"))
      .def("particles", &MpmSimulation::particles, nb::arg("with_stress") = false)
      .def("part_particles", &MpmSimulation::part_particles, nb::arg("part") = 0)
      .def("write_frame", &MpmSimulation::write_frame, nb::arg("dir"))
      .def("checkpoint", &MpmSimulation::checkpoint, nb::arg("path"))
      .def("restore", &MpmSimulation::restore, nb::arg("path"))
      .def("take_log", &MpmSimulation::take_log)
      .def("add_particles", &MpmSimulation::add_particles, nb::arg("source"), nb::arg("position"),
           nb::arg("velocity"))
      .def("source_names", &MpmSimulation::source_names)
      .def("set_physics", &MpmSimulation::set_physics, nb::arg("spec"))
      .def("colliders", &MpmSimulation::colliders)
      .def("move_collider", &MpmSimulation::move_collider, nb::arg("index"), nb::arg("at"),
           nb::arg("velocity"))
      .def_prop_ro("time", &MpmSimulation::time)
      .def_prop_ro("frame", &MpmSimulation::frame_index)
      .def_prop_ro("steps", &MpmSimulation::steps)
      .def_prop_ro("generation", &MpmSimulation::generation)
      .def_prop_ro("particle_count", &MpmSimulation::particle_count)
      .def_prop_ro("parts", &MpmSimulation::parts)
      .def_prop_ro("layout", &MpmSimulation::layout)
      .def_prop_ro("backend", &MpmSimulation::backend)
      .def_prop_ro("frame_dt", &MpmSimulation::frame_dt)
      .def_prop_ro("frames", &MpmSimulation::frames)
      .def_prop_ro("rest_speed", &MpmSimulation::rest_speed);
}

}  // namespace silt::python
