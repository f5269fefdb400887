#include "silt/mpm/balance.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "silt/mpm/exchange/kernels.hpp"

namespace silt::mpm {

namespace {

constexpr int kTagCoords = 7304;   // rebalancing: coordinates along the axis to rank 0
constexpr int kTagMigrate = 7305;  // rebalancing: the particles that change parts

/// No rebalancing below this many particles per part on average: small scenes would move
/// particles back and forth for nothing.
constexpr std::int64_t kMinBalanceParticles = 256;

constexpr const char* kAxisName[3] = {"x", "y", "z"};

/// nparts - 1 cuts splitting the coordinates c into pieces of equal count: each halfway between
/// the neighbouring coordinates in sorted order, so that every piece holds exactly its share
/// unless several particles share the coordinate at a cut (those all go to the piece above it).
/// Order statistics by selection (c is reordered), not a sort: linear in the particles.
std::vector<double> equal_count_cuts(std::vector<float>& c, int nparts) {
  const std::size_t n = c.size();
  std::vector<double> cuts;
  for (int k = 1; k < nparts; ++k) {
    const std::size_t i = std::max<std::size_t>(1, std::size_t(k) * n / std::size_t(nparts));
    if (i >= n) {
      cuts.push_back(double(*std::max_element(c.begin(), c.end())) + 1.0);
      continue;
    }
    // The i-th smallest at i, everything before it no larger: the (i-1)-th is their largest.
    std::nth_element(c.begin(), c.begin() + std::ptrdiff_t(i), c.end());
    const float below = *std::max_element(c.begin(), c.begin() + std::ptrdiff_t(i));
    cuts.push_back(0.5 * (double(below) + double(c[i])));
  }
  return cuts;
}

/// The coordinates along axis a of the positions xyz (3 per particle), in particle order.
std::vector<float> along(const std::vector<float>& xyz, int a) {
  std::vector<float> c(xyz.size() / 3);
  for (std::size_t i = 0; i < c.size(); ++i) c[i] = xyz[3 * i + std::size_t(a)];
  return c;
}

// The split of a rebalance: for each axis the equal-count cuts, and how many particles lie within
// `band` (m) of a cut (those whose blocks the neighbouring parts share); the axis with the fewest
// wins, the current one unless another has under 0.8 of its count (no flapping between axes).
std::pair<int, std::vector<double>> split_with_fewest_shared(const std::vector<float>& xyz,
                                                             int nparts, int current, double band) {
  double near[3] = {0, 0, 0};
  std::vector<double> cuts[3];
  for (int a = 0; a < 3; ++a) {
    std::vector<float> c = along(xyz, a);
    cuts[a] = equal_count_cuts(c, nparts);
    for (double cut : cuts[a]) {
      const float lo = float(cut - band), hi = float(cut + band);
      near[a] +=
          double(std::count_if(c.begin(), c.end(), [=](float v) { return v >= lo && v <= hi; }));
    }
  }
  int best = current;
  for (int a = 0; a < 3; ++a)
    if (near[a] < 0.8 * near[current] && near[a] < near[best]) best = a;
  return {best, cuts[best]};
}

}  // namespace

Balancer::Balancer(const Scene& scene, int nparts, std::vector<int> global,
                   const partition::World& world, double tolerance)
    : dx_(scene.dx),
      nparts_(nparts),
      global_(std::move(global)),
      world_(world),
      tolerance_(tolerance) {}

int Balancer::piece(float x) const {
  return int(std::upper_bound(cuts_.begin(), cuts_.end(), double(x)) - cuts_.begin());
}

std::vector<int> Balancer::pieces(const NewParticles& p) {
  const std::size_t n = p.count();
  if (axis_ < 0 && n > 0) {
    // Equal counts along the longest axis of the first particles' bounding box.
    double lo[3] = {1e300, 1e300, 1e300}, hi[3] = {-1e300, -1e300, -1e300};
    for (std::size_t i = 0; i < n; ++i)
      for (int a = 0; a < 3; ++a) {
        lo[a] = std::min(lo[a], double(p.x[3 * i + a]));
        hi[a] = std::max(hi[a], double(p.x[3 * i + a]));
      }
    axis_ = 0;
    for (int a = 1; a < 3; ++a)
      if (hi[a] - lo[a] > hi[axis_] - lo[axis_]) axis_ = a;
    std::vector<float> c = along(p.x, axis_);
    cuts_ = equal_count_cuts(c, nparts_);
  }
  std::vector<int> out(n);
  for (std::size_t i = 0; i < n; ++i) out[i] = piece(p.x[3 * i + std::size_t(axis_)]);
  return out;
}

std::vector<std::int64_t> Balancer::counts(const std::vector<std::unique_ptr<Part>>& parts) const {
  std::vector<std::int64_t> n(static_cast<std::size_t>(nparts_), 0);
  std::vector<double> mine(static_cast<std::size_t>(nparts_), 0.0);
  for (std::size_t k = 0; k < parts.size(); ++k)
    mine[std::size_t(global_[k])] = double(parts[k]->particle_count());
  if (world_.distributed()) world_.allreduce_sum(mine.data(), nparts_);  // integers: exact
  for (int q = 0; q < nparts_; ++q) n[std::size_t(q)] = std::int64_t(mine[std::size_t(q)]);
  return n;
}

double Balancer::outside_fraction(std::vector<std::unique_ptr<Part>>& parts,
                                  std::int64_t total) const {
  // Part q's piece is [cuts[q - 1], cuts[q]) along the axis (piece()), counted on the device.
  double outside = 0;
  for (std::size_t k = 0; k < parts.size(); ++k) {
    Part& p = *parts[k];
    const std::size_t q = std::size_t(global_[k]);
    const double lo = q > 0 ? cuts_[q - 1] : -1e300;
    const double hi = q + 1 < std::size_t(nparts_) ? cuts_[q] : 1e300;
    activate(p.exec());
    outside += count_outside(p.exec(), p.particle_view().x, p.particle_count(), axis_, lo, hi);
  }
  if (world_.distributed()) world_.allreduce_sum(&outside, 1);
  return outside / double(total);
}

bool Balancer::follow_parts(std::vector<std::unique_ptr<Part>>& parts) {
  // ext[2q] = -(part q's lowest coordinate), ext[2q + 1] = its highest, combined by max over
  // every rank's parts (a part not held here adds the identity).
  std::vector<double> ext(2 * std::size_t(nparts_), -1e300);
  for (std::size_t k = 0; k < parts.size(); ++k) {
    Part& p = *parts[k];
    activate(p.exec());
    const AxisExtent e = axis_extent(p.exec(), p.particle_view().x, p.particle_count(), axis_);
    const std::size_t q = std::size_t(global_[k]);
    ext[2 * q] = -e.lo;
    ext[2 * q + 1] = e.hi;
  }
  if (world_.distributed()) world_.allreduce_max_sum(ext.data(), 2 * nparts_, 2 * nparts_);
  for (int q = 0; q < nparts_; ++q)
    if (!(-ext[2 * std::size_t(q)] <= ext[2 * std::size_t(q) + 1])) return false;  // empty
  std::vector<double> cuts(cuts_.size());
  for (std::size_t q = 0; q + 1 < std::size_t(nparts_); ++q) {
    // Halfway between part q's highest particle and part q + 1's lowest: strictly between the two
    // parts when they lie apart (two distinct floats), in their overlap when they do not.
    cuts[q] = 0.5 * (ext[2 * q + 1] - ext[2 * (q + 1)]);
    if (q > 0 && !(cuts[q] > cuts[q - 1])) return false;
  }
  cuts_ = std::move(cuts);
  return true;
}

std::vector<double> Balancer::balanced_cuts(const std::vector<HostParticles>& held) {
  std::vector<float> c;
  for (const HostParticles& h : held) c.insert(c.end(), h.x.begin(), h.x.end());
  const double band = 2.0 * kBlockEdge * dx_;  // a block's 3x3x3 neighbourhood, either side
  // Under MPI rank 0 chooses from every position and hands the split to every rank through a sum
  // to which the others add zeros (exact), so that all ranks use the same split bit for bit.
  const std::vector<float> all = world_.gather_to_root(c, kTagCoords);
  std::vector<double> split(static_cast<std::size_t>(nparts_), 0.0);  // axis, then the cuts
  if (world_.is_root()) {
    auto [a, cut] = split_with_fewest_shared(all, nparts_, axis_, band);
    split[0] = a;
    for (int k = 0; k + 1 < nparts_; ++k) split[std::size_t(k) + 1] = cut[std::size_t(k)];
  }
  if (world_.distributed()) world_.allreduce_sum(split.data(), nparts_);
  axis_ = int(split[0]);
  return std::vector<double>(split.begin() + 1, split.end());
}

std::vector<HostParticles> Balancer::migrate(std::vector<std::vector<HostParticles>>& out) const {
  std::vector<HostParticles> in(out.size());
  if (!world_.distributed()) {
    // In part order of the sender, so that the result does not depend on the exchange.
    for (std::size_t k = 0; k < out.size(); ++k)
      for (std::size_t r = 0; r < out.size(); ++r) in[k].append(out[r][std::size_t(global_[k])]);
    return in;
  }
  // One part per rank: each attribute to the ranks of its particles' pieces, in rank order.
  auto move = [&](auto member) {
    using T = typename std::decay_t<decltype(out[0][0].*member)>::value_type;
    std::vector<std::vector<T>> to(static_cast<std::size_t>(nparts_));
    for (int q = 0; q < nparts_; ++q)
      to[std::size_t(q)] = std::move(out[0][std::size_t(q)].*member);
    for (const std::vector<T>& from : world_.exchange_all(std::move(to), kTagMigrate))
      (in[0].*member).insert((in[0].*member).end(), from.begin(), from.end());
  };
  move(&HostParticles::x);
  move(&HostParticles::v);
  move(&HostParticles::c);
  move(&HostParticles::f);
  move(&HostParticles::plastic);
  move(&HostParticles::material);
  move(&HostParticles::id);
  return in;
}

std::string Balancer::balance(std::vector<std::unique_ptr<Part>>& parts, double t) {
  if (!(tolerance_ > 0) || nparts_ < 2 || axis_ < 0) return {};
  const std::vector<std::int64_t> n = counts(parts);
  const std::int64_t total = std::accumulate(n.begin(), n.end(), std::int64_t(0));
  const std::int64_t largest = *std::max_element(n.begin(), n.end());
  const double mean = double(total) / nparts_;
  // Every rank takes this decision from the same counts.
  if (total < kMinBalanceParticles * nparts_) return {};
  // Too many particles in one part, or too many that have left their part's piece (its blocks
  // then spread over the others' and are mostly shared: a fountain's jet and pool).
  const bool unbalanced = double(largest) > (1.0 + tolerance_) * mean;
  const double outside = unbalanced ? 0.0 : outside_fraction(parts, total);
  if (!unbalanced && !(outside > tolerance_)) return {};
  // A body that crossed the cuts as a whole (a thrown snowball, a falling block) has left its
  // pieces, but its parts still lie (nearly) apart along the axis: the cuts follow them, and no
  // particle changes part or goes to the host (issue 33: the 1.33M snowball, falling across its y
  // cut, went to the host and back every 2-3 frames to move no particle). Kept when at most half
  // the tolerance of the particles lies outside the moved pieces, so the next frame does not come
  // straight back.
  if (!unbalanced) {
    const std::vector<double> before = cuts_;
    if (follow_parts(parts) && !(outside_fraction(parts, total) > 0.5 * tolerance_)) {
      ++cut_moves_;
      return {};
    }
    cuts_ = before;
  }
  const int old_axis = axis_;
  // Every particle to the host, new cuts, and each particle to the piece it lies in now
  // (particles move freely across the old cuts during frames).
  std::vector<HostParticles> held(parts.size());
  for (std::size_t k = 0; k < parts.size(); ++k) {
    activate(parts[k]->exec());
    held[k] = parts[k]->download_all();
  }
  cuts_ = balanced_cuts(held);
  // out[k][q]: the particles of local part k that belong to part q now.
  std::vector<std::vector<HostParticles>> out(parts.size());
  std::vector<std::size_t> had(parts.size()), stay(parts.size());
  double moved = 0;
  for (std::size_t k = 0; k < parts.size(); ++k) {
    out[k].resize(std::size_t(nparts_));
    const HostParticles& h = held[k];
    for (std::size_t i = 0; i < h.count(); ++i)
      out[k][std::size_t(piece(h.x[3 * i + std::size_t(axis_)]))].push_back(h, i);
    had[k] = h.count();
    stay[k] = out[k][std::size_t(global_[k])].count();
    moved += double(had[k] - stay[k]);
    held[k] = HostParticles{};  // one host copy at a time
  }
  if (world_.distributed()) world_.allreduce_sum(&moved, 1);
  const std::vector<HostParticles> in = migrate(out);
  // Parts that lost or gained particles take their new set; a rebuild follows (every part
  // rebuilds with them: the solver agrees on it), and with it the tagging of shared blocks.
  for (std::size_t k = 0; k < parts.size(); ++k) {
    if (stay[k] == had[k] && in[k].count() == had[k]) continue;  // nothing moved
    activate(parts[k]->exec());
    parts[k]->replace(in[k]);
  }
  ++rebalances_;
  std::string list;
  const std::vector<std::int64_t> now = counts(parts);
  for (std::size_t q = 0; q < now.size(); ++q) list += fmt::format("{}{}", q ? " | " : "", now[q]);
  return fmt::format(
      "MPM: rebalanced {} parts along {}{} at t = {:.6g} s: {} particles ({} moved; {})", nparts_,
      kAxisName[axis_],
      axis_ != old_axis ? fmt::format(" (was {})", kAxisName[old_axis]) : std::string(), t, list,
      (long long)moved,
      unbalanced
          ? fmt::format("the largest part held {:.3f}x the mean", double(largest) / mean)
          : fmt::format("{:.1f}% of the particles had left their part's piece", 100.0 * outside));
}

void Balancer::restore(int axis, std::vector<double> cuts, int rebalances) {
  axis_ = axis;
  cuts_ = std::move(cuts);
  rebalances_ = rebalances;
}

std::vector<HostParticles> Balancer::split(const HostParticles& all) {
  std::vector<HostParticles> held{all};
  if (axis_ < 0) axis_ = 0;
  cuts_ = balanced_cuts(held);
  std::vector<std::vector<HostParticles>> out(1);
  out[0].resize(std::size_t(nparts_));
  for (std::size_t i = 0; i < all.count(); ++i)
    out[0][std::size_t(piece(all.x[3 * i + std::size_t(axis_)]))].push_back(all, i);
  if (world_.distributed()) return migrate(out);
  std::vector<HostParticles> mine;
  for (int g : global_) mine.push_back(std::move(out[0][std::size_t(g)]));
  return mine;
}

}  // namespace silt::mpm
