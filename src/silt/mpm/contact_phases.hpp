// The phases of a contact step per backend (contact.hpp): host loops (contact_host.cpp) and CUDA
// launches (contact_cuda.cpp), which ContactGrid chooses between (contact.cpp).
#pragma once

#include "silt/mpm/contact.hpp"

namespace silt::mpm {

namespace detail {
// The phases per backend (contact_host.cpp, contact_cuda.cpp).
void host_contact_p2g(const TransferArgs& a, const ParticleView& p, const GridView& g,
                      StepControl* ctl, const FaultView& fault, HostPartials parts,
                      const ContactView& c);
void host_contact_grid_update(const GridArgs& a, const GridView& g, StepControl* ctl,
                              const ContactView& c);
void host_contact_g2p(const TransferArgs& a, const ParticleView& p, const GridView& g,
                      StepControl* ctl, const FaultView& fault, const ContactView& c);
void cuda_contact_p2g(const Exec& exec, const TransferArgs& a, const ParticleView& p,
                      const GridView& g, StepControl* ctl, const FaultView& fault,
                      const ContactView& c);
void cuda_contact_grid_update(const Exec& exec, const GridArgs& a, const GridView& g,
                              StepControl* ctl, const ContactView& c);
void cuda_contact_g2p(const Exec& exec, const TransferArgs& a, const ParticleView& p,
                      const GridView& g, StepControl* ctl, const FaultView& fault,
                      const ContactView& c);
}  // namespace detail

}  // namespace silt::mpm
