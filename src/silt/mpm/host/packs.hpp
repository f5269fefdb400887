// Which packs the host transfers run (mpm/host/p2g.cpp, mpm/host/g2p.cpp): SSE2's 4 float lanes on
// any x86-64 CPU, 8 lanes from the unit built for AVX2 (mpm/host/transfer_isa.cpp) or 16 from the
// one built for AVX-512F (mpm/host/transfer_isa.cpp) where the CPU has them. Every width gives the
// same bits (each lane the scalar operations, no FMA), so the choice changes only the speed; tests
// cap it to run the narrower paths on any CPU.
#pragma once

namespace silt::mpm::detail {

/// Widths in increasing order (host_packs() compares them).
enum class HostPacks { sse2, avx2, avx512 };

/// Float lanes per pack of w.
constexpr int host_pack_lanes(HostPacks w) {
  return w == HostPacks::avx512 ? 16 : w == HostPacks::avx2 ? 8 : 4;
}

/// The packs the host P2G and G2P use: the widest this CPU (and its OS) runs, unless capped.
HostPacks host_packs();

/// Caps host_packs() at widest (HostPacks::sse2: the baseline path on any CPU); for tests, between
/// steps (not while a transfer runs).
void limit_host_packs(HostPacks widest);

}  // namespace silt::mpm::detail
