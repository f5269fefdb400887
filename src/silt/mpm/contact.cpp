// Multi-field contact (contact.hpp): what both backends share, the first body's arrays and the
// choice of the host loops (contact_host.cpp) or the CUDA launches (contact_cuda.cpp).
#include "silt/mpm/contact_phases.hpp"

#include <algorithm>

namespace silt::mpm {

ContactGrid::ContactGrid(const Scene& scene, const Exec& exec)
    : on_(scene.contact.enabled()), exec_(exec) {
  if (!on_) return;
  asflip_ = scene.transfer == Transfer::asflip;
  params_ = ContactParams<float>{float(scene.contact.friction), float(scene.contact.gap)};
  cell_volume_ = float(scene.dx * scene.dx * scene.dx);
}

void ContactGrid::prepare(const GridView& g, HostPartials parts) {
  // The host's per-thread slabs; CUDA adds with atomics into one grid.
  const int slabs = exec_.is_cuda() ? 0 : std::max(parts.slabs, 0);
  if (!on_ || (capacity_ == g.capacity && slabs_ == slabs)) return;
  capacity_ = g.capacity;
  slabs_ = slabs;
  const Index nodes = capacity_ * kBlockNodes;
  auto zeroed = [&](Index n, const char* label) {
    DeviceBuffer<float> b(exec_, n, label);
    b.zero();
    return b;
  };
  sums_ = zeroed(nodes * kContactChannels, "mpm contact sums");
  partials_ = zeroed(nodes * kContactChannels * slabs, "mpm contact partial sums");
  vel_ = zeroed(nodes * kVelChannels, "mpm contact velocity");
  vel_old_ = zeroed(asflip_ ? nodes * kVelChannels : 0, "mpm contact velocity before forces");
}

ContactView ContactGrid::view(const GridView& g) {
  ContactView c;
  c.sums = sums_.data();
  c.partials = partials_.data();
  c.first = g;
  c.first.vel = vel_.data();
  c.first.vel_old = asflip_ ? vel_old_.data() : nullptr;
  c.params = params_;
  c.cell_volume = cell_volume_;
  return c;
}

void ContactGrid::p2g(const TransferArgs& a, ParticleView p, GridView g, StepControl* ctl,
                      FaultView fault, HostPartials parts) {
  // Sized in Part::prepare already (a no-op then); the host's slabs follow its thread count.
  prepare(g, parts);
  if (exec_.is_cuda())
    detail::cuda_contact_p2g(exec_, a, p, g, ctl, fault, view(g));
  else
    detail::host_contact_p2g(a, p, g, ctl, fault, parts, view(g));
}

void ContactGrid::grid_update(const GridArgs& a, GridView g, StepControl* ctl) {
  if (exec_.is_cuda())
    detail::cuda_contact_grid_update(exec_, a, g, ctl, view(g));
  else
    detail::host_contact_grid_update(a, g, ctl, view(g));
}

void ContactGrid::g2p(const TransferArgs& a, ParticleView p, GridView g, StepControl* ctl,
                      FaultView fault) {
  if (exec_.is_cuda())
    detail::cuda_contact_g2p(exec_, a, p, g, ctl, fault, view(g));
  else
    detail::host_contact_g2p(a, p, g, ctl, fault, view(g));
}

}  // namespace silt::mpm
