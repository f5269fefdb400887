// How a split run divides its particles between parts (paper 000 §5: a static partition by
// initial position into equal counts): the first particles are cut into pieces of equal count
// along the longest axis of their bounding box, and each part keeps its piece and the emitted
// particles that start in it. When emitters make one part hold too many particles, or too many
// have left their part's piece, between two frames: if the parts still lie (nearly) apart along
// the axis (a body that crossed the cuts as a whole), the cuts move into the gaps between them;
// otherwise the cuts move back to equal counts (along the axis with the fewest particles near the cuts) and
// every particle goes to the part of its piece.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "silt/mpm/part.hpp"
#include "silt/mpm/particles.hpp"
#include "silt/partition/world.hpp"

namespace silt::mpm {

class Balancer {
 public:
  /// nparts over all ranks; global[k]: the index of this process's part k over all ranks.
  /// tolerance: rebalance when the largest part holds more than (1 + tolerance) x the mean count
  /// or more than that share of the particles lies outside its part's piece; <= 0: never.
  Balancer(const Scene& scene, int nparts, std::vector<int> global, const partition::World& world,
           double tolerance);

  /// The part (over all ranks) of each particle of p; the first call chooses axis and cuts.
  std::vector<int> pieces(const NewParticles& p);
  /// Particles per part over all ranks (collective under MPI).
  std::vector<std::int64_t> counts(const std::vector<std::unique_ptr<Part>>& parts) const;
  /// Between frames, after emission: moves the cuts and the particles when the parts are out of
  /// balance. Returns a line for the log when it did (empty otherwise). Collective under MPI.
  std::string balance(std::vector<std::unique_ptr<Part>>& parts, double t);

  int axis() const { return axis_; }
  int rebalances() const { return rebalances_; }
  /// Times the cuts followed parts that stayed (nearly) apart along the axis (no particle changed
  /// part).
  int cut_moves() const { return cut_moves_; }
  const std::vector<double>& cuts() const { return cuts_; }
  /// A restart on as many parts: the split as it was.
  void restore(int axis, std::vector<double> cuts, int rebalances);
  /// A restart on another part count: every particle of all (rank 0's; the other ranks pass
  /// none) to a part (over all ranks) by new equal-count cuts; returns this process's parts'
  /// particles in their order. Collective under MPI.
  std::vector<HostParticles> split(const HostParticles& all);

 private:
  int piece(float x) const;
  /// The share of all particles outside their part's piece (collective under MPI).
  double outside_fraction(std::vector<std::unique_ptr<Part>>& parts, std::int64_t total) const;
  /// Moves each cut halfway between the highest particle of the part below it and the lowest of
  /// the part above (into the gap when they lie apart along the axis, as a body that crossed the
  /// cuts as a whole does). False, cuts unchanged, when a part is empty or the cuts would not
  /// increase. Two numbers a part from the devices; collective under MPI.
  bool follow_parts(std::vector<std::unique_ptr<Part>>& parts);
  /// New equal-count cuts from every particle's position (held: this process's parts'), along
  /// the axis with the fewest particles near them; sets axis_. Collective under MPI.
  std::vector<double> balanced_cuts(const std::vector<HostParticles>& held);
  /// The particles that go to each part (over all ranks), in part order of the sender.
  std::vector<HostParticles> migrate(std::vector<std::vector<HostParticles>>& out) const;

  double dx_;
  int nparts_;
  std::vector<int> global_;
  const partition::World& world_;
  double tolerance_;
  int axis_ = -1;             // split axis, once the first particles are known
  std::vector<double> cuts_;  // nparts - 1 positions along the axis, m
  int rebalances_ = 0;
  int cut_moves_ = 0;
};

}  // namespace silt::mpm
