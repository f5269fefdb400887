// The host backend's P2G: particles in batches, their SVDs together on FloatPack lanes, each
// material model in particle order, then the scatter's arithmetic on packs of 4, 8 or 16 (SSE2,
// AVX2, AVX-512; mpm/host/packs.hpp) added particle by particle: the grids and particle states are
// bit for bit those of the scalar path at every width (docs/NOTES.md, "MPM on the CPU", "Wider
// packs").
#pragma once

#include "silt/core/fault.hpp"
#include "silt/mpm/pipeline.hpp"

namespace silt::mpm::detail {

/// P2G on the host into the accumulator of ctl->accum_parity (mpm/host/scatter.hpp), covering the
/// first `blocks` numbered blocks; dims 2 or 3. advance_f as enqueue_p2g.
void host_p2g(int dims, const TransferArgs& a, ParticleView p, GridView g, StepControl* ctl,
              FaultView fault, const int* gate, bool advance_f, Index blocks, HostPartials parts);

}  // namespace silt::mpm::detail
