// Initial particle positions: filling a Source's shape (box, sphere, cylinder, closed OBJ mesh) at
// particles_per_cell particles per dx^3, by a jittered lattice or Poisson-disk sampling. Host code,
// run once per source (and once per emission of an emitter); deterministic for Source::seed.
#pragma once

#include <cstdint>
#include <vector>

#include "silt/mpm/scene.hpp"

namespace silt::mpm {

/// Positions (m) filling `source`'s shape with source.particles_per_cell particles per dx^3.
///  - jittered: a world-aligned lattice of spacing h = dx / ppc^(1/3), each point moved uniformly
///    within its lattice cell (stratified sampling), kept when inside the shape. The expected count
///    is exactly ppc * volume / dx^3; a box aligned with the lattice gets exactly that many.
///  - poisson: parallel dart throwing with minimum distance poisson_radius(ppc, dx) (poisson_disk), then
///    thinned at random to the jittered count for the same seed (so the same expected count).
/// The same seed gives the same positions bit for bit, whatever the thread count: the random
/// numbers are splitmix64 hashes of the seed and lattice index (only std::cbrt, for a ppc that is
/// not a perfect cube and for the Poisson radius, could round differently in another C library).
/// Throws silt::Error naming the source on an empty or degenerate shape, an unreadable or open
/// mesh, or too many particles.
/// dims = 2: the shape in the plane z = 0 (source_region), a lattice of spacing dx / ppc^(1/2) in
/// x and y with every point at z = 0 (jittered only).
std::vector<Vec3d> sample_source(const Source& source, double dx, int dims = 3);

/// Volume of the source's region, m^3 (mesh: by the divergence theorem over its triangles; 2D:
/// its area times dx, source_region).
double source_volume(const Source& source, int dims = 3, double dx = 0);

/// Minimum particle distance used by Poisson-disk sampling at ppc particles per dx^3, m.
double poisson_radius(double particles_per_cell, double dx);

/// Times (s) at which a source adds its particles: {0} for a plain source, else emit_start,
/// emit_start + emit_interval, ... up to and including emit_end.
std::vector<double> emission_times(const Source& source);
/// How many times emission_times has, without building the list (a double: a hostile interval
/// gives more than any integer type holds). Check it before calling emission_times.
double emission_count(const Source& source);

/// Upper bound on the particles all emissions of all sources of a scene add (capacity sizing).
std::int64_t estimate_particle_capacity(const Scene& scene);

}  // namespace silt::mpm
