// Which packs the host transfers run (host_p2g.cpp, host_g2p.cpp): SSE2's 4 float lanes on any
// x86-64 CPU, or 8 lanes from the units built for AVX2 (host_transfer_avx2.cpp) where the CPU has
// it. Every width gives the same bits (each lane the scalar operations, no FMA), so the choice
// changes only the speed; tests cap it to run the narrower path on any CPU.
#pragma once

namespace silt::mpm::detail {

enum class HostPacks { sse2, avx2 };

/// The packs the host P2G and G2P use: the widest this CPU (and its OS) runs, unless capped.
HostPacks host_packs();

/// Caps host_packs() at widest (HostPacks::sse2: the baseline path on any CPU); for tests, between
/// steps (not while a transfer runs).
void limit_host_packs(HostPacks widest);

}  // namespace silt::mpm::detail
