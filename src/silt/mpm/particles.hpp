// Particle state as structure-of-arrays on the device: one GrowBuffer per attribute (position,
// velocity, affine velocity C, deformation gradient F, plastic state, material, id, and the block
// the particle was binned into). Vectors and matrices are stored per particle (x y z; 9 entries of
// F row-major), so a warp reads contiguous memory. Capacity grows 4x when more than half full
// (paper 000 §3), and only between frames, never inside a step.
//
// A second set of the same arrays is the destination of the counting sort by block (rebuild.cpp);
// the sorted particles are copied back so that kernels always see the same pointers (a CUDA graph
// keeps the addresses it captured).
#pragma once

#include <string>
#include <vector>

#include "silt/core/buffer.hpp"
#include "silt/core/exec.hpp"

namespace silt::mpm {

/// Raw pointers into one particle set, passed to kernels by value.
struct ParticleView {
  float* x = nullptr;        // [3n] position, m
  float* v = nullptr;        // [3n] velocity, m/s
  float* c = nullptr;        // [9n] APIC/MLS affine velocity C, 1/s
  float* f = nullptr;        // [9n] deformation gradient F (elastic part), -
  float* plastic = nullptr;  // [n] plastic state (log J_p, vc or alpha, by material), -
  int* material = nullptr;   // [n] index into the solver's material table
  int* id = nullptr;         // [n] stable particle id (its index at creation)
  int* block = nullptr;      // [n] block index the particle was binned into at the last rebuild
  int* rank = nullptr;       // [n] scratch of a rebuild: the particle's rank within its block
};

/// Host copy of particles to append.
struct NewParticles {
  std::vector<float> x, v;     // 3 per particle, m and m/s
  std::vector<float> plastic;  // initial plastic state, -
  std::vector<int> material;   // material-table index
  std::vector<int> id;         // stable ids; empty: the store numbers them itself
  std::size_t count() const { return material.size(); }
  /// Appends particle i of `from` (whose ids are given).
  void push_back(const NewParticles& from, std::size_t i);
};

/// Host copy of every attribute that defines a particle (all but the scratch of a rebuild): what
/// moves when a particle changes parts (balance.cpp) and comes back exactly.
struct HostParticles {
  std::vector<float> x, v;     // 3 per particle, m and m/s
  std::vector<float> c, f;     // 9 per particle: affine velocity C (1/s), deformation gradient F
  std::vector<float> plastic;  // plastic state, -
  std::vector<int> material;   // material-table index
  std::vector<int> id;         // stable ids
  std::size_t count() const { return id.size(); }
  /// Appends particle i of `from`.
  void push_back(const HostParticles& from, std::size_t i);
  /// Appends every particle of `from`.
  void append(const HostParticles& from);
};

class ParticleStore {
 public:
  ParticleStore() = default;
  ParticleStore(const Exec& exec, Index initial_capacity);

  Index size() const { return n_; }
  Index capacity() const { return x_.capacity() / 3; }
  /// Times any attribute moved to a bigger allocation (views and CUDA graphs must be refreshed).
  int reallocations() const { return reallocations_; }

  ParticleView view() { return view_of(x_, v_, c_, f_, plastic_, material_, id_, block_, rank_); }
  ParticleView sort_view() {
    return view_of(sx_, sv_, sc_, sf_, splastic_, smaterial_, sid_, sblock_, rank_);
  }

  /// Appends particles (F = I, C = 0, fresh ids); grows the storage first when needed. Between
  /// frames only: it copies from the host and waits. Returns true when storage moved.
  bool append(const NewParticles& p);
  /// Appends copies of n rows of the positions x (3 per row, in this store's memory): rows[i]
  /// (rows: nullptr for rows 0 .. n - 1), with velocity v, plastic state, material index and id
  /// first_id + row (F = I, C = 0). One launch on the store's stream, no copy from the host and
  /// no wait. Returns true when storage moved.
  bool append_copies(const float* x, const int* rows, Index n, const float v[3], float plastic,
                     int material, int first_id);

  /// Host copies of single attributes (waits for the device).
  std::vector<float> download_x() const;
  std::vector<float> download_v() const;
  std::vector<float> download_f() const;
  std::vector<float> download_plastic() const;
  std::vector<int> download_material() const;
  std::vector<int> download_id() const;

  /// Every particle with all its attributes, in store order (waits for the device).
  HostParticles download_all() const;
  /// Replaces the particles with p, ids and all (the block each lies in is unknown until the next
  /// rebuild); grows the storage first when needed, as append does. Between frames only. Returns
  /// true when storage moved.
  bool replace(const HostParticles& p);

 private:
  static ParticleView view_of(GrowBuffer<float>& x, GrowBuffer<float>& v, GrowBuffer<float>& c,
                              GrowBuffer<float>& f, GrowBuffer<float>& plastic,
                              GrowBuffer<int>& material, GrowBuffer<int>& id,
                              GrowBuffer<int>& block, GrowBuffer<int>& rank);
  bool ensure(Index needed);
  /// Room for add more particles (silt::Error past one device's 32-bit index range); true when
  /// storage moved.
  bool make_room(Index add);

  Exec exec_{};
  Index n_ = 0;
  int next_id_ = 0;
  int reallocations_ = 0;
  GrowBuffer<float> x_, v_, c_, f_, plastic_;
  GrowBuffer<int> material_, id_, block_, rank_;
  GrowBuffer<float> sx_, sv_, sc_, sf_, splastic_;
  GrowBuffer<int> smaterial_, sid_, sblock_;
};

}  // namespace silt::mpm
