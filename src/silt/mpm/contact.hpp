// Multi-field contact between two bodies (Scene::contact; Bardenhagen et al. 2000, gap check after
// Nairn 2013): each body keeps its own mass, momentum and velocity on the nodes its particles
// reach, so that two bodies meet at their surfaces and part freely (kernels/contact_k.hpp has the
// contact condition). The second body's sums and velocities are the part's own grid (the P2G,
// grid update and G2P of one field are unchanged); the first body's are a grid of the same blocks
// held here, with its volume and volume moment and the second body's, for the normal and the gap.
// A step with contact replaces the part's P2G, grid update and G2P by the three phases below:
// host loops (contact_host.cpp) or CUDA launches (contact_cuda.cpp) over the same per-particle and
// per-node bodies (contact_body.hpp). One part only: Part refuses split runs; g2p2g and
// deterministic are refused in validate.
#pragma once

#include "silt/core/buffer.hpp"
#include "silt/core/exec.hpp"
#include "silt/core/fault.hpp"
#include "silt/mpm/kernels/contact_k.hpp"
#include "silt/mpm/particles.hpp"
#include "silt/mpm/pipeline.hpp"
#include "silt/mpm/scene.hpp"
#include "silt/mpm/sparse_grid.hpp"
#include "silt/mpm/step_control.hpp"

namespace silt::mpm {

/// Floats per node of the first body's sums: mass, momentum (3), force (3, split channels) and
/// padding, then its volume and volume moment (4), then the second body's (4).
constexpr int kContactChannels = 16;
constexpr int kContactForce = 4;
constexpr int kContactVolumeFirst = 8;
constexpr int kContactVolumeSecond = 12;

/// What the contact phases take besides the part's views: the first body's arrays (node-major,
/// kContactChannels or kVelChannels floats a node) and the contact's parameters.
struct ContactView {
  float* sums = nullptr;      // [nodes * kContactChannels] P2G sums, cleared by the grid update
  float* partials = nullptr;  // host: the other OpenMP threads' sums, slab after slab
  GridView first;             // the part's grid with the first body's vel and vel_old
  ContactParams<float> params{};
  float cell_volume = 0;  // dx^3, m^3
};

class ContactGrid {
 public:
  ContactGrid() = default;
  ContactGrid(const Scene& scene, const Exec& exec);
  bool on() const { return on_; }

  /// Sizes the arrays to the grid's block capacity (zeroed when they grow). Called before the
  /// steps of a frame are launched or recorded (nothing allocates inside a step).
  void prepare(const GridView& g, HostPartials parts);
  /// P2G of every particle into its body's grid (the part's for the second body, this one's for
  /// the first), with both bodies' volumes and moments here.
  void p2g(const TransferArgs& a, ParticleView p, GridView g, StepControl* ctl, FaultView fault,
           HostPartials parts);
  /// Both bodies' grid updates and, on the nodes both reach, the contact.
  void grid_update(const GridArgs& a, GridView g, StepControl* ctl);
  /// G2P of every particle from its body's velocities.
  void g2p(const TransferArgs& a, ParticleView p, GridView g, StepControl* ctl, FaultView fault);

 private:
  ContactView view(const GridView& g);

  bool on_ = false;
  bool asflip_ = false;
  Exec exec_;
  ContactParams<float> params_{};
  float cell_volume_ = 0;  // dx^3, m^3
  Index capacity_ = 0;     // blocks
  DeviceBuffer<float> sums_, partials_, vel_, vel_old_;
  int slabs_ = 0;
};

}  // namespace silt::mpm
