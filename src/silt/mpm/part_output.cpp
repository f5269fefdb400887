// Particles back to the host for output (between frames: the copies wait for the device).
#include "silt/core/parallel_for.hpp"
#include "silt/mpm/part.hpp"
#include "silt/mpm/transfer_body.hpp"

namespace silt::mpm {

namespace {
/// Cauchy stress sigma = tau / J (Pa, 9 per particle, row-major) at the end of the last step. F
/// lags one step in storage (its update is done by the next P2G) unless G2P2G advanced it, so it
/// is advanced here first; the material's projection runs on a copy and leaves the particle
/// untouched.
void cauchy_stress(const Exec& exec, ParticleView p, const ParticleClass* classes, Index n,
                   const StepControl* ctl, bool f_current, float* out) {
  parallel_for(
      exec, "mpm.output.stress", n, SILT_LAMBDA(Index i) {
        const Mat3f c = detail::load9(p.c, i);
        Mat3f f = update_deformation(detail::load9(p.f, i), c, f_current ? 0.0f : ctl->dt);
        float plastic = p.plastic[i];
        const Mat3f tau = material_stress(classes[p.material[i]].material, f, plastic, c);
        const float j = determinant(f);
        detail::store9(out, i, tau * (j != 0.0f ? 1.0f / j : 0.0f));
      });
}
}  // namespace

Motion Part::motion() {
  Motion m;
  const Index n = particles_.size();
  if (n == 0) return m;
  const ParticleView p = particles_.view();
  const ParticleClass* classes = classes_.data();
  m.kinetic_energy = parallel_reduce_sum<double>(
      exec_, "mpm.output.kinetic", n, SILT_LAMBDA(Index i) {
        const double v0 = p.v[3 * i], v1 = p.v[3 * i + 1], v2 = p.v[3 * i + 2];
        return 0.5 * double(classes[p.material[i]].mass) * (v0 * v0 + v1 * v1 + v2 * v2);
      });
  m.mass = parallel_reduce_sum<double>(
      exec_, "mpm.output.mass", n,
      SILT_LAMBDA(Index i) { return double(classes[p.material[i]].mass); });
  return m;
}

ParticleFrame Part::download(bool with_stress) {
  fence(exec_);
  ParticleFrame out;
  out.position = particles_.download_x();
  out.velocity = particles_.download_v();
  out.id = particles_.download_id();
  const std::vector<int> cls = particles_.download_material();
  out.material.resize(cls.size());
  for (std::size_t i = 0; i < cls.size(); ++i)
    out.material[i] = classes_host_[std::size_t(cls[i])].scene_material;
  if (with_stress) {
    out.plastic = particles_.download_plastic();
    const Index n = particles_.size();
    DeviceBuffer<float> stress(exec_, 9 * n, "mpm output stress");
    if (n > 0) {
      cauchy_stress(exec_, particles_.view(), classes_.data(), n, control(), scene_.g2p2g,
                    stress.data());
      out.stress = stress.download();
    }
  }
  return out;
}

}  // namespace silt::mpm
