// The host backend's G2P: particles in packs of 4 (SSE2), 8 (AVX2) or 16 (AVX-512;
// mpm/host/packs.hpp), their 27-node gathers summed on FloatPack lanes (SIMD across particles: the
// weights, offsets and sums of a pack in one instruction each, the node velocities transposed from
// 16-byte rows), then each particle's C, advance, colliders and stores as before. Every lane adds
// its nodes in the scalar order with the scalar operations, so the particle states are bit for bit
// those of the scalar path (docs/NOTES.md, "MPM on the CPU").
#pragma once

#include "silt/core/fault.hpp"
#include "silt/mpm/pipeline.hpp"

namespace silt::mpm::detail {

/// G2P on the host for dims 2 or 3 (the body of enqueue_g2p there).
void host_g2p(int dims, const TransferArgs& a, ParticleView p, GridView g, StepControl* ctl,
              FaultView fault);

}  // namespace silt::mpm::detail
