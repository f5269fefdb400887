// Multi-field contact between two bodies (Scene::contact; Bardenhagen et al. 2000, gap check after
// Nairn 2013): each body keeps its own mass, momentum and velocity on the nodes its particles
// reach, so that two bodies meet at their surfaces and part freely (kernels/contact_k.hpp has the
// contact condition). The second body's sums and velocities are the part's own grid (the P2G,
// grid update and G2P of one field are unchanged); the first body's are a grid of the same blocks
// held here, with its volume and volume moment and the second body's, for the normal and the gap.
// A step with contact replaces the part's P2G, grid update and G2P by the three phases below.
// Host backend, one part: Part refuses the rest (CUDA, split runs; g2p2g and deterministic in
// validate).
#pragma once

#include <vector>

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

class ContactGrid {
 public:
  ContactGrid() = default;
  /// Throws silt::Error naming the scene key `contact` where the part cannot take it (CUDA).
  ContactGrid(const Scene& scene, const Exec& exec);
  bool on() const { return on_; }

  /// P2G of every particle into its body's grid (the part's for the second body, this one's for
  /// the first), with both bodies' volumes and moments here.
  void p2g(const TransferArgs& a, ParticleView p, GridView g, StepControl* ctl, FaultView fault,
           HostPartials parts);
  /// Both bodies' grid updates and, on the nodes both reach, the contact.
  void grid_update(const GridArgs& a, GridView g, StepControl* ctl);
  /// G2P of every particle from its body's velocities.
  void g2p(const TransferArgs& a, ParticleView p, GridView g, StepControl* ctl, FaultView fault);

 private:
  /// Sizes the arrays to the grid's block capacity (zeroed when they grow).
  void fit(const GridView& g, int slabs);
  GridView first_view(const GridView& g);

  bool on_ = false;
  bool asflip_ = false;
  ContactParams<float> params_{};
  float cell_volume_ = 0;  // dx^3, m^3
  Index capacity_ = 0;     // blocks
  std::vector<float> sums_, partials_, vel_, vel_old_;
  int slabs_ = 0;
};

}  // namespace silt::mpm
