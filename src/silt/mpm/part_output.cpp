// A part's particles for a frame: kinetic energy and mass (reductions), and the attributes packed
// for the copy to the host (frame_copy.cpp, queued on the part's stream).
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
                   const StepControl* ctl, bool f_current, bool by_id, float* out) {
  parallel_for(
      exec, "mpm.output.stress", n, SILT_LAMBDA(Index i) {
        const Index row = by_id ? Index(p.id[i]) : i;
        const Mat3f c = detail::load9(p.c, i);
        Mat3f f = update_deformation(detail::load9(p.f, i), c, f_current ? 0.0f : ctl->dt);
        float plastic = p.plastic[i];
        const Mat3f tau = material_stress(classes[p.material[i]].material, f, plastic, c);
        const float j = determinant(f);
        detail::store9(out, row, tau * (j != 0.0f ? 1.0f / j : 0.0f));
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

void Part::pack(const ParticlePack& to) {
  const Index n = particles_.size();
  if (n == 0) return;
  const ParticleView p = particles_.view();
  const ParticleClass* classes = classes_.data();
  float* x = to.position;
  float* v = to.velocity;
  std::int32_t* material = to.material;
  std::int32_t* id = to.id;
  float* plastic = to.plastic;
  const bool by_id = to.by_id;
  parallel_for(
      exec_, "mpm.output.pack", n, SILT_LAMBDA(Index i) {
        const Index row = by_id ? Index(p.id[i]) : i;
        for (int a = 0; a < 3; ++a) {
          if (x) x[3 * row + a] = p.x[3 * i + a];
          if (v) v[3 * row + a] = p.v[3 * i + a];
        }
        material[row] = classes[p.material[i]].scene_material;
        id[row] = p.id[i];
        if (plastic) plastic[row] = p.plastic[i];
      });
  if (to.stress) cauchy_stress(exec_, p, classes, n, control(), scene_.g2p2g, by_id, to.stress);
}

}  // namespace silt::mpm
