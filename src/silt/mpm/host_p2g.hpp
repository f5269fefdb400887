// The host backend's P2G: particles in batches of 8, their SVDs computed together on FloatPack
// lanes (SIMD across particles, host_svd.hpp), then each particle's material model and scatter in
// particle order as before, so the grids and particle states are bit for bit those of the scalar
// path (docs/NOTES.md, "MPM on the CPU").
#pragma once

#include "silt/core/fault.hpp"
#include "silt/mpm/pipeline.hpp"

namespace silt::mpm::detail {

/// P2G on the host into the accumulator of ctl->accum_parity (host_scatter.hpp), covering the
/// first `blocks` numbered blocks; dims 2 or 3. advance_f as enqueue_p2g.
void host_p2g(int dims, const TransferArgs& a, ParticleView p, GridView g, StepControl* ctl,
              FaultView fault, const int* gate, bool advance_f, Index blocks, HostPartials parts);

}  // namespace silt::mpm::detail
