// The host allocator's policy for a process that builds grids of one size again and again on
// several threads (issue 37: an ensemble's members each read their job's fields, build a solver's
// host arrays and take their maxima, then free them for the next member). glibc maps each array
// above its dynamic mmap threshold afresh and returns the top of a heap above twice that to the
// system, so every member's arrays were page-faulted again: 1.1M minor faults in the flood
// ensemble of 64 members of 1M cells, ~0.1 s of its 8.5 s wall on an H100
// (bench/results/ensemble-host-memory-2026-12-07g-h100.md).
#pragma once

namespace silt {

/// Has the C library's allocator keep freed blocks for the next allocations of this process:
/// blocks of up to 32 MiB (4M doubles) come from its heaps instead of mappings of their own, and
/// a heap gives its free top back to the system only above 256 MiB. Larger blocks are mapped and
/// unmapped as before. Process-wide and not undone: the command line's ensemble calls it; the
/// library never does by itself (a process that embeds it keeps its own allocator's settings).
/// Does nothing where the C library is not glibc.
void keep_freed_host_blocks();

}  // namespace silt
