// The multi-partition MPM driver (multi_solver.hpp): one Solver::Impl per part, stepped phase by
// phase so that the parts meet at the agreement before each step and after P2G.
#include "silt/mpm/multi_solver.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdint>
#include <cstring>
#include <numeric>

#include "silt/core/error.hpp"
#include "silt/mpm/multi_kernels.hpp"
#include "silt/mpm/solver_impl.hpp"
#include "silt/partition/scalar_reduce.hpp"
#include "silt/partition/streams.hpp"

namespace silt::mpm {

namespace {

constexpr int kTagKeys = 7301;  // MPI tags: block lists at rebuilds, shared P2G sums per step
constexpr int kTagSums = 7302;
constexpr int kTagGather = 7303;
constexpr int kTagCoords = 7304;   // rebalancing: coordinates along the axis to rank 0
constexpr int kTagMigrate = 7305;  // rebalancing: the particles that change parts

/// No rebalancing below this many particles per part on average: small scenes would move
/// particles back and forth for nothing.
constexpr std::int64_t kMinBalanceParticles = 256;

constexpr const char* kAxisName[3] = {"x", "y", "z"};

void append_frame(ParticleFrame& to, const ParticleFrame& f) {
  to.position.insert(to.position.end(), f.position.begin(), f.position.end());
  to.velocity.insert(to.velocity.end(), f.velocity.begin(), f.velocity.end());
  to.material.insert(to.material.end(), f.material.begin(), f.material.end());
  to.stress.insert(to.stress.end(), f.stress.begin(), f.stress.end());
  to.plastic.insert(to.plastic.end(), f.plastic.begin(), f.plastic.end());
  to.id.insert(to.id.end(), f.id.begin(), f.id.end());
}

// Per particle: x y z, v x y z, material, id [, plastic, 9 stress], as doubles (exact for floats
// and 32-bit integers).
std::vector<double> pack_frame(const ParticleFrame& f, bool with_stress) {
  std::vector<double> out;
  const std::size_t n = f.count();
  out.reserve(n * (with_stress ? 18 : 8));
  for (std::size_t i = 0; i < n; ++i) {
    for (int a = 0; a < 3; ++a) out.push_back(f.position[3 * i + a]);
    for (int a = 0; a < 3; ++a) out.push_back(f.velocity[3 * i + a]);
    out.push_back(f.material[i]);
    out.push_back(f.id[i]);
    if (with_stress) {
      out.push_back(f.plastic[i]);
      for (int k = 0; k < 9; ++k) out.push_back(f.stress[9 * i + k]);
    }
  }
  return out;
}

void unpack_frame(const std::vector<double>& in, bool with_stress, ParticleFrame& to) {
  const std::size_t w = with_stress ? 18 : 8;
  for (std::size_t i = 0; i + w <= in.size(); i += w) {
    for (int a = 0; a < 3; ++a) to.position.push_back(float(in[i + a]));
    for (int a = 0; a < 3; ++a) to.velocity.push_back(float(in[i + 3 + a]));
    to.material.push_back(std::int32_t(in[i + 6]));
    to.id.push_back(std::int32_t(in[i + 7]));
    if (with_stress) {
      to.plastic.push_back(float(in[i + 8]));
      for (int k = 0; k < 9; ++k) to.stress.push_back(float(in[i + 9 + k]));
    }
  }
}

/// nparts - 1 cuts splitting the coordinates c into pieces of equal count: each halfway between
/// the neighbouring sorted coordinates, so that every piece holds exactly its share unless several
/// particles share the coordinate at a cut (those all go to the piece above it). c is not empty.
std::vector<double> equal_count_cuts(std::vector<float> c, int nparts) {
  std::sort(c.begin(), c.end());
  const std::size_t n = c.size();
  std::vector<double> cuts;
  for (int k = 1; k < nparts; ++k) {
    const std::size_t i = std::max<std::size_t>(1, std::size_t(k) * n / std::size_t(nparts));
    cuts.push_back(i < n ? 0.5 * (double(c[i - 1]) + double(c[i])) : double(c[n - 1]) + 1.0);
  }
  return cuts;
}

// The split of a rebalance: for each axis the equal-count cuts, and how many particles lie within
// `band` (m) of a cut (those whose blocks the neighbouring parts share); the axis with the fewest
// wins, the current one unless another has under 0.8 of its count (no flapping between axes).
// xyz: 3 coordinates per particle. Returns the axis and its nparts - 1 cuts.
std::pair<int, std::vector<double>> split_with_fewest_shared(const std::vector<float>& xyz,
                                                             int nparts, int current, double band) {
  const std::size_t n = xyz.size() / 3;
  std::vector<double> near(3, 0.0);
  std::vector<std::vector<double>> cuts(3);
  for (int a = 0; a < 3; ++a) {
    std::vector<float> c(n);
    for (std::size_t i = 0; i < n; ++i) c[i] = xyz[3 * i + std::size_t(a)];
    std::sort(c.begin(), c.end());
    cuts[std::size_t(a)] = equal_count_cuts(c, nparts);
    for (double cut : cuts[std::size_t(a)])
      near[std::size_t(a)] += double(std::upper_bound(c.begin(), c.end(), float(cut + band)) -
                                     std::lower_bound(c.begin(), c.end(), float(cut - band)));
  }
  int best = current;
  for (int a = 0; a < 3; ++a)
    if (near[std::size_t(a)] < 0.8 * near[std::size_t(current)] &&
        near[std::size_t(a)] < near[std::size_t(best)])
      best = a;
  return {best, cuts[std::size_t(best)]};
}

// Particles in a message between ranks: each attribute's array in turn (x v c f plastic
// material id), 32-bit words copied bit for bit.
static_assert(sizeof(float) == 4 && sizeof(int) == 4, "particles travel as 32-bit words");
constexpr std::size_t kParticleWords = 3 + 3 + 9 + 9 + 1 + 1 + 1;

std::vector<std::uint32_t> pack_particles(const HostParticles& p) {
  std::vector<std::uint32_t> out(p.count() * kParticleWords);
  std::uint32_t* w = out.data();
  auto put = [&w](const auto& a) {
    if (!a.empty()) std::memcpy(w, a.data(), 4 * a.size());
    w += a.size();
  };
  put(p.x);
  put(p.v);
  put(p.c);
  put(p.f);
  put(p.plastic);
  put(p.material);
  put(p.id);
  return out;
}

HostParticles unpack_particles(const std::vector<std::uint32_t>& in) {
  const std::size_t n = in.size() / kParticleWords;
  HostParticles p;
  const std::uint32_t* w = in.data();
  auto get = [&w](auto& a, std::size_t count) {
    a.resize(count);
    if (count > 0) std::memcpy(a.data(), w, 4 * count);
    w += count;
  };
  get(p.x, 3 * n);
  get(p.v, 3 * n);
  get(p.c, 9 * n);
  get(p.f, 9 * n);
  get(p.plastic, n);
  get(p.material, n);
  get(p.id, n);
  return p;
}

}  // namespace

ParticleFrame sort_by_id(const ParticleFrame& f) {
  const std::size_t n = f.count();
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t(0));
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return f.id[a] < f.id[b]; });
  ParticleFrame o;
  o.position.resize(3 * n);
  o.velocity.resize(3 * n);
  o.material.resize(n);
  o.id.resize(n);
  if (!f.plastic.empty()) o.plastic.resize(n);
  if (!f.stress.empty()) o.stress.resize(9 * n);
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t i = order[k];
    for (int a = 0; a < 3; ++a) {
      o.position[3 * k + a] = f.position[3 * i + a];
      o.velocity[3 * k + a] = f.velocity[3 * i + a];
    }
    o.material[k] = f.material[i];
    o.id[k] = f.id[i];
    if (!f.plastic.empty()) o.plastic[k] = f.plastic[i];
    if (!f.stress.empty())
      for (int c = 0; c < 9; ++c) o.stress[9 * k + c] = f.stress[9 * i + c];
  }
  return o;
}

struct MultiSolver::Impl {
  struct Part {
    std::unique_ptr<Solver::Impl> s;  // the one-device pipeline on this part
    int global = 0;                   // index over all ranks
    std::string where;                // "cpu partition 1", "cuda device 1", "MPI rank 1, cpu"
    DeviceBuffer<double> agree;
    DeviceBuffer<int> peer_block;    // [capacity * parts]
    DeviceBuffer<int> shared_list;   // [capacity]
    DeviceBuffer<int> shared_count;  // [1]
    Index tagged_capacity = 0;
    partition::Event p2g_done;
    // MPI: the blocks shared with each other rank, in the order of their keys.
    std::vector<Index> link_count, link_offset;  // per global part, in blocks
    Index link_total = 0;
    int shared_host = 0;
    int last_serial = 0;
    DeviceBuffer<BarrierState> barrier_state;  // PartBarrier::atomic
    DeviceBuffer<SyncInbox> inbox;             // PartBarrier::atomic: the others write here
    std::unique_ptr<StepGraph> graph;
    DeviceBuffer<int> send_blocks;
    DeviceBuffer<float> send_dev, recv_dev;
    partition::PinnedBuffer send_host, recv_host;
  };

  Scene scene;
  MultiOptions options;
  const partition::World* world = nullptr;
  bool mpi = false;
  bool copies = false;  // shared sums travel as packed copies (MPI, or peer_copies)
  bool cuda = false;
  int nparts = 0;
  std::vector<Part> parts;  // this process's
  partition::ScalarReduce agree;
  int axis = -1;             // split axis, once the first particles are known
  std::vector<double> cuts;  // nparts - 1 positions along the axis, m
  int next_id = 0;
  long long total_particles = 0;     // all parts, all ranks
  std::vector<std::int64_t> counts;  // per part over all ranks, after the last emission/balance
  int rebalances = 0;
  long long frame = 0;
  int last_frame_steps = 0;
  bool stepping = false;
  bool graph_failed = false;
  long long graph_key = -1;
  bool lagged = false;  // the graphs run one synchronisation per step (MultiOptions::single_sync)
  PhaseTimes times;
  std::chrono::steady_clock::time_point last_mark;

  /// Instrumented runs: waits for every part and adds the time since the last mark to slot.
  void mark(double PhaseTimes::*slot) {
    if (!options.time_phases) return;
    for (Part& p : parts) fence(p.s->exec);
    const auto now = std::chrono::steady_clock::now();
    if (slot) times.*slot += std::chrono::duration<double, std::milli>(now - last_mark).count();
    last_mark = now;
  }

  Impl(const Scene& s, const std::vector<Exec>& execs, const MultiOptions& o,
       const partition::World& w);

  int piece(float x) const {
    return int(std::upper_bound(cuts.begin(), cuts.end(), double(x)) - cuts.begin());
  }
  Part* local(int global) {
    for (Part& p : parts)
      if (p.global == global) return &p;
    return nullptr;
  }
  double allmax(double v) const {
    if (mpi) world->allreduce_max_sum(&v, 1, 1);
    return v;
  }
  double allsum(double v) const {
    if (mpi) world->allreduce_sum(&v, 1);
    return v;
  }

  /// An error of one part (out of memory, ...) with the part named.
  std::string name_part(const Error& e, const Part& p) const {
    return fmt::format("{} [part {} of {}, {}]", e.what(), p.global, nparts, p.where);
  }
  void emit(double t);
  /// Particles per part over all ranks (collective under MPI).
  std::vector<std::int64_t> all_counts() const;
  /// Between frames, after emission: refreshes counts and rebalances the parts when the largest
  /// holds too many (MultiOptions::balance_tolerance). Collective under MPI.
  void balance(double t);
  /// Equal-count cuts over the particles of every part (held: this process's parts' particles).
  /// Chooses the split axis (fewest particles near the cuts) and its equal-count cuts from every
  /// particle's position; sets `axis`. Collective under MPI.
  std::vector<double> balanced_cuts(const std::vector<HostParticles>& held);
  /// The share of all particles that lie outside their part's piece (collective under MPI).
  double outside_fraction(std::int64_t total);
  void ensure_tag_buffers(Part& p);
  void agree_rebuild();
  void prepare_all(bool emit_new);
  PartGrids grids(Part& p);
  DeviceSync sync(Part& p);
  bool want_graphs() const {
    return cuda && !copies && parts.size() > 1 && options.barrier == PartBarrier::atomic &&
           options.cuda_graph && !options.time_phases && !graph_failed;
  }
  void prepare_graphs();
  // The phases of a step on one part, shared by the plain path and the graphs.
  void enqueue_dt_phase(Part& p, bool allow_pause, const StepHandles& h);
  void enqueue_step(bool allow_pause);
  /// Host exchange (MPI, or MultiOptions::peer_copies): after P2G, on rebuild steps the block
  /// lists are gathered and linked on the host; every step the shared sums are packed and sent.
  void exchange();
  std::vector<std::vector<BlockKey>> gather_keys(const std::vector<int>& blocks);
  void link_part(Part& p, const std::vector<std::vector<BlockKey>>& keys);
  void run_steps();
  void check_faults();
};

MultiSolver::Impl::Impl(const Scene& s, const std::vector<Exec>& execs, const MultiOptions& o,
                        const partition::World& w)
    : scene(s), options(o), world(&w) {
  mpi = w.distributed();
  copies = mpi || o.peer_copies;
  if (execs.empty()) throw Error("MPM on several parts: no device given");
  if (mpi && execs.size() != 1)
    throw Error(
        fmt::format("MPM on several MPI ranks: each rank drives one part ({} devices "
                    "given on rank {})",
                    execs.size(), w.rank()));
  nparts = mpi ? w.size() : int(execs.size());
  if (nparts > kMaxParts)
    throw Error(fmt::format("MPM on several parts: {} parts, at most {}", nparts, kMaxParts));
  if (scene.g2p2g)
    throw Error(
        fmt::format("MPM scene '{}': g2p2g runs on one device only (the fused kernel has "
                    "no place for the shared-block reduction); set g2p2g to false",
                    scene.name));
  cuda = execs.front().is_cuda();
  for (const Exec& e : execs)
    if (e.is_cuda() != cuda) throw Error("MPM on several parts: CPU and CUDA parts mixed");
  if (cuda && !mpi && execs.size() > 1) {
    std::vector<int> devices;
    for (const Exec& e : execs) {
      if (std::find(devices.begin(), devices.end(), e.device) != devices.end())
        throw Error(fmt::format("MPM on several GPUs: device {} listed twice", e.device));
      devices.push_back(e.device);
    }
    const int pairs = partition::enable_peer_access(devices);
    const int need = int(devices.size() * (devices.size() - 1));
    if (pairs < need)
      throw Error(
          fmt::format("MPM on several GPUs: peer access is available between {} of the "
                      "{} ordered device pairs; the shared-block reduction reads the "
                      "other GPUs' grids in-kernel and needs all of them",
                      pairs, need));
  }
  SolverOptions so = options.solver;
  so.cuda_graph = false;
  std::vector<Exec> part_execs;
  for (std::size_t k = 0; k < execs.size(); ++k) {
    Part p;
    p.global = mpi ? w.rank() : int(k);
    activate(execs[k]);
    p.s = std::make_unique<Solver::Impl>(scene, execs[k], so, false);
    const Exec& e = p.s->exec;
    const std::string dev = cuda ? fmt::format("cuda device {}", e.device) : std::string("cpu");
    p.where = mpi ? fmt::format("MPI rank {}, {}", w.rank(), dev)
                  : (cuda ? dev : fmt::format("cpu partition {}", k));
    p.agree = DeviceBuffer<double>(e, kAgreeSlots, "mpm multi agreement");
    p.agree.zero();
    p.shared_count = DeviceBuffer<int>(e, 1, "mpm multi shared count");
    p.shared_count.zero();
    p.p2g_done = partition::Event(e);
    p.link_count.assign(std::size_t(nparts), 0);
    p.link_offset.assign(std::size_t(nparts), 0);
    part_execs.push_back(e);
    parts.push_back(std::move(p));
  }
  agree = partition::ScalarReduce(part_execs, kAgreeSlots, kAgreeSlots, w);
  if (cuda && !mpi && parts.size() > 1 && options.barrier == PartBarrier::atomic) {
    for (Part& p : parts) {
      activate(p.s->exec);
      p.barrier_state = DeviceBuffer<BarrierState>(p.s->exec, 1, "mpm multi barrier state");
      p.barrier_state.zero();
      p.inbox = DeviceBuffer<SyncInbox>(p.s->exec, 1, "mpm multi sync inbox");
      p.inbox.zero();
      fence(p.s->exec);
    }
  }
  if (want_graphs() && options.fused_sync && options.single_sync) {
    lagged = true;
    for (Part& p : parts) {
      activate(p.s->exec);
      p.s->configure_lagged(true, !(scene.fixed_dt > 0));
    }
  }
  emit(0.0);
  counts = all_counts();
  for (Part& p : parts) ensure_tag_buffers(p);
}

void MultiSolver::Impl::emit(double t) {
  NewParticles all = parts.front().s->collect_due(t);
  const std::size_t n = all.count();
  if (n == 0) return;
  if (scene.max_particles > 0 && total_particles + (long long)n > scene.max_particles)
    throw Error(fmt::format(
        "MPM scene '{}': particle capacity overflow at t = {} s: {} particles "
        "needed ({} present + {} emitted), max_particles is {}",
        scene.name, t, total_particles + (long long)n, total_particles, n, scene.max_particles));
  if (axis < 0) {
    // The split: equal counts along the longest axis of the first particles' bounding box.
    double lo[3] = {1e300, 1e300, 1e300}, hi[3] = {-1e300, -1e300, -1e300};
    for (std::size_t i = 0; i < n; ++i)
      for (int a = 0; a < 3; ++a) {
        lo[a] = std::min(lo[a], double(all.x[3 * i + a]));
        hi[a] = std::max(hi[a], double(all.x[3 * i + a]));
      }
    axis = 0;
    for (int a = 1; a < 3; ++a)
      if (hi[a] - lo[a] > hi[axis] - lo[axis]) axis = a;
    std::vector<float> c(n);
    for (std::size_t i = 0; i < n; ++i) c[i] = all.x[3 * i + std::size_t(axis)];
    cuts = equal_count_cuts(std::move(c), nparts);
  }
  std::vector<NewParticles> piece_of(static_cast<std::size_t>(nparts));
  for (std::size_t i = 0; i < n; ++i) {
    const int p = piece(all.x[3 * i + std::size_t(axis)]);
    if (!local(p)) continue;
    NewParticles& d = piece_of[std::size_t(p)];
    for (int a = 0; a < 3; ++a) {
      d.x.push_back(all.x[3 * i + a]);
      d.v.push_back(all.v[3 * i + a]);
    }
    d.plastic.push_back(all.plastic[i]);
    d.material.push_back(all.material[i]);
    d.id.push_back(next_id + int(i));  // the ids one device gives them
  }
  next_id += int(n);
  total_particles += (long long)n;
  for (Part& p : parts) {
    const NewParticles& d = piece_of[std::size_t(p.global)];
    if (d.count() == 0) continue;
    activate(p.s->exec);
    try {
      p.s->append_new(d, t, false);
    } catch (const Error& e) {
      throw Error(name_part(e, p));
    }
    p.s->speed_stale = true;
  }
}

std::vector<std::int64_t> MultiSolver::Impl::all_counts() const {
  std::vector<std::int64_t> n(static_cast<std::size_t>(nparts), 0);
  for (const Part& p : parts) n[std::size_t(p.global)] = p.s->particles.size();
  if (!mpi) return n;
  const double mine = double(parts.front().s->particles.size());
  const std::vector<double> all = world->allgather(&mine, 1);
  for (int q = 0; q < nparts; ++q) n[std::size_t(q)] = std::int64_t(all[std::size_t(q)]);
  return n;
}

std::vector<double> MultiSolver::Impl::balanced_cuts(const std::vector<HostParticles>& held) {
  std::vector<float> c;
  for (const HostParticles& h : held) c.insert(c.end(), h.x.begin(), h.x.end());
  const double band = 2.0 * kBlockEdge * scene.dx;  // a block's 3x3x3 neighbourhood, either side
  if (!mpi) {
    auto [a, cut] = split_with_fewest_shared(c, nparts, axis, band);
    axis = a;
    return cut;
  }
  // Ranks: rank 0 gathers every position (the counts are known from the last all_counts),
  // chooses the axis and the cuts and hands them to every rank through a sum to which the others
  // add zeros (exact), so that all ranks use the same split bit for bit.
  const partition::World& w = *world;
  std::vector<double> split(static_cast<std::size_t>(nparts), 0.0);  // axis, then the cuts
  partition::World::Requests req;
  if (w.is_root()) {
    std::vector<std::vector<float>> from(static_cast<std::size_t>(nparts));
    for (int q = 1; q < nparts; ++q) {
      from[std::size_t(q)].resize(3 * std::size_t(counts[std::size_t(q)]));
      if (!from[std::size_t(q)].empty())
        req.irecv(from[std::size_t(q)].data(), sizeof(float) * from[std::size_t(q)].size(), q,
                  kTagCoords);
    }
    req.wait_all();
    for (const std::vector<float>& f : from) c.insert(c.end(), f.begin(), f.end());
    auto [a, cut] = split_with_fewest_shared(c, nparts, axis, band);
    split[0] = a;
    for (int k = 0; k + 1 < nparts; ++k) split[std::size_t(k) + 1] = cut[std::size_t(k)];
  } else if (!c.empty()) {
    req.isend(c.data(), sizeof(float) * c.size(), 0, kTagCoords);
    req.wait_all();
  }
  w.allreduce_sum(split.data(), nparts);
  axis = int(split[0]);
  return std::vector<double>(split.begin() + 1, split.end());
}

double MultiSolver::Impl::outside_fraction(std::int64_t total) {
  // Part q's piece is [cuts[q - 1], cuts[q]) along the axis (piece()), counted on the device.
  double outside = 0;
  for (Part& p : parts) {
    const std::size_t q = std::size_t(p.global);
    const double lo = q > 0 ? cuts[q - 1] : -1e300;
    const double hi = q + 1 < std::size_t(nparts) ? cuts[q] : 1e300;
    activate(p.s->exec);
    outside +=
        count_outside(p.s->exec, p.s->particles.view().x, p.s->particles.size(), axis, lo, hi);
  }
  return allsum(outside) / double(total);
}

void MultiSolver::Impl::balance(double t) {
  counts = all_counts();
  if (!(options.balance_tolerance > 0) || nparts < 2 || axis < 0) return;
  const std::int64_t total = std::accumulate(counts.begin(), counts.end(), std::int64_t(0));
  const std::int64_t largest = *std::max_element(counts.begin(), counts.end());
  const double mean = double(total) / nparts;
  // Every rank takes this decision from the same counts.
  if (total < kMinBalanceParticles * nparts) return;
  // Too many particles in one part, or too many that have left their part's piece (its blocks
  // then spread over the others' and are mostly shared: a fountain's jet and pool).
  const bool unbalanced = double(largest) > (1.0 + options.balance_tolerance) * mean;
  const double outside = unbalanced ? 0.0 : outside_fraction(total);
  if (!unbalanced && !(outside > options.balance_tolerance)) return;
  const int old_axis = axis;
  // Every particle to the host, new equal-count cuts (along the axis with the fewest particles
  // near them), and each particle to the piece it lies in now (particles move freely across the
  // old cuts during frames).
  std::vector<HostParticles> held(parts.size());
  for (std::size_t k = 0; k < parts.size(); ++k) {
    activate(parts[k].s->exec);
    fence(parts[k].s->exec);
    held[k] = parts[k].s->particles.download_all();
  }
  cuts = balanced_cuts(held);
  // out[k][q]: the particles of local part k that belong to part q now.
  std::vector<std::vector<HostParticles>> out(parts.size());
  std::vector<std::size_t> had(parts.size());
  for (std::size_t k = 0; k < parts.size(); ++k) {
    out[k].resize(std::size_t(nparts));
    const HostParticles& h = held[k];
    for (std::size_t i = 0; i < h.count(); ++i)
      out[k][std::size_t(piece(h.x[3 * i + std::size_t(axis)]))].push_back(h, i);
    had[k] = h.count();
    held[k] = HostParticles{};  // one host copy at a time
  }
  // sent[r * nparts + q]: particles going from part r to part q, known to every rank.
  std::vector<double> sent(std::size_t(nparts) * std::size_t(nparts), 0.0);
  std::vector<HostParticles> in(parts.size());
  if (!mpi) {
    for (std::size_t k = 0; k < parts.size(); ++k)
      for (int q = 0; q < nparts; ++q)
        sent[std::size_t(parts[k].global) * nparts + std::size_t(q)] =
            double(out[k][std::size_t(q)].count());
    // In part order of the sender, so that the result does not depend on the exchange.
    for (std::size_t k = 0; k < parts.size(); ++k)
      for (std::size_t r = 0; r < parts.size(); ++r)
        in[k].append(out[r][std::size_t(parts[k].global)]);
  } else {
    const partition::World& w = *world;
    const int self = parts.front().global;
    std::vector<double> row(static_cast<std::size_t>(nparts));
    for (int q = 0; q < nparts; ++q) row[std::size_t(q)] = double(out[0][std::size_t(q)].count());
    sent = w.allgather(row.data(), nparts);
    std::vector<std::vector<std::uint32_t>> send(static_cast<std::size_t>(nparts)),
        recv(static_cast<std::size_t>(nparts));
    partition::World::Requests req;
    for (int q = 0; q < nparts; ++q) {
      if (q == self) continue;
      const std::size_t n_in = std::size_t(sent[std::size_t(q) * nparts + std::size_t(self)]);
      if (n_in > 0) {
        recv[std::size_t(q)].resize(n_in * kParticleWords);
        req.irecv(recv[std::size_t(q)].data(), 4 * recv[std::size_t(q)].size(), q, kTagMigrate);
      }
      if (out[0][std::size_t(q)].count() > 0) {
        send[std::size_t(q)] = pack_particles(out[0][std::size_t(q)]);
        req.isend(send[std::size_t(q)].data(), 4 * send[std::size_t(q)].size(), q, kTagMigrate);
      }
    }
    req.wait_all();
    for (int r = 0; r < nparts; ++r)
      in[0].append(r == self ? out[0][std::size_t(r)] : unpack_particles(recv[std::size_t(r)]));
  }
  // Parts that lost or gained particles take their new set; a rebuild follows (every part
  // rebuilds with them, agree_rebuild), and with it the tagging of shared blocks.
  long long moved = 0;
  for (int r = 0; r < nparts; ++r)
    for (int q = 0; q < nparts; ++q)
      if (r != q) moved += (long long)sent[std::size_t(r) * nparts + std::size_t(q)];
  for (std::size_t k = 0; k < parts.size(); ++k) {
    Part& p = parts[k];
    const std::size_t g = std::size_t(p.global);
    if (out[k][g].count() == had[k] && in[k].count() == had[k]) continue;  // nothing moved
    activate(p.s->exec);
    try {
      p.s->replace_particles(in[k]);
    } catch (const Error& e) {
      throw Error(name_part(e, p));
    }
  }
  const double before = double(largest) / mean;
  counts = all_counts();
  ++rebalances;
  if (options.solver.log && (!mpi || world->is_root())) {
    std::string list;
    for (std::size_t q = 0; q < counts.size(); ++q)
      list += fmt::format("{}{}", q ? " | " : "", counts[q]);
    options.solver.log(fmt::format(
        "MPM: rebalanced {} parts along {}{} at t = {:.6g} s: {} particles ({} moved; {})", nparts,
        kAxisName[axis],
        axis != old_axis ? fmt::format(" (was {})", kAxisName[old_axis]) : std::string(), t, list,
        moved,
        unbalanced ? fmt::format("the largest part held {:.3f}x the mean", before)
                   : fmt::format("{:.1f}% of the particles had left their part's piece",
                                 100.0 * outside)));
  }
}

void MultiSolver::Impl::ensure_tag_buffers(Part& p) {
  const Index cap = p.s->grid.block_capacity();
  if (cap == p.tagged_capacity) return;
  const Exec& e = p.s->exec;
  p.peer_block = DeviceBuffer<int>(e, cap * nparts, "mpm multi peer blocks");
  p.shared_list = DeviceBuffer<int>(e, cap, "mpm multi shared blocks");
  p.shared_count.zero();
  p.shared_host = 0;
  p.tagged_capacity = cap;
}

void MultiSolver::Impl::agree_rebuild() {
  // A part that was handed particles or whose grid moved asked for a rebuild: all rebuild.
  double any = 0;
  for (Part& p : parts)
    if (p.s->read_control().since_rebuild >= scene.rebuild_period) any = 1;
  if (allmax(any) > 0)
    for (Part& p : parts) p.s->request_rebuild();
}

void MultiSolver::Impl::prepare_all(bool emit_new) {
  if (emit_new) {
    const double t = parts.front().s->read_control().time;
    emit(t);
    balance(t);  // between frames only, never at a pause inside one
  }
  for (Part& p : parts) {
    activate(p.s->exec);
    try {
      p.s->prepare(false, true);  // grows the grid: may run out of device memory
      ensure_tag_buffers(p);
    } catch (const Error& e) {
      throw Error(name_part(e, p));
    }
  }
  agree_rebuild();
  prepare_graphs();
}

PartGrids MultiSolver::Impl::grids(Part& p) {
  PartGrids g;
  g.parts = nparts;
  g.self = p.global;
  const int stride = p.s->grid.view().accum_stride;
  if (copies) {
    g.accum[p.global] = p.s->grid.view().accum;
    for (int q = 0; q < nparts; ++q)
      if (q != p.global && p.link_count[std::size_t(q)] > 0)
        g.accum[q] =
            p.recv_dev.data() + Index(stride) * kBlockNodes * p.link_offset[std::size_t(q)];
  } else {
    for (Part& q : parts) {
      const GridView v = q.s->grid.view();
      g.accum[q.global] = v.accum;
      g.accum_alt[q.global] = v.accum_alt;
      g.hash[q.global] = v.hash;
    }
  }
  g.peer_block = p.peer_block.data();
  g.shared_list = p.shared_list.data();
  g.shared_count = p.shared_count.data();
  return g;
}

DeviceSync MultiSolver::Impl::sync(Part& p) {
  DeviceSync d;
  d.state = p.barrier_state.data();
  d.parts = nparts;
  d.self = p.global;
  for (Part& q : parts) d.inbox[q.global] = q.inbox.data();
  return d;
}

void MultiSolver::Impl::enqueue_dt_phase(Part& p, bool allow_pause, const StepHandles& h) {
  Solver::Impl& m = *p.s;
  enqueue_clear_shared(m.exec, m.grid.view(), grids(p), m.control());
  m.enqueue_pre(h, allow_pause);
}

void MultiSolver::Impl::prepare_graphs() {
  if (!want_graphs()) {
    for (Part& p : parts) p.graph.reset();
    return;
  }
  // The graphs bake in every part's pointers (peer grids included) and particle counts.
  long long key = 0;
  for (Part& p : parts)
    key = key * 1000003LL + (long long)p.s->particles.size() * 1009LL +
          p.s->particles.reallocations() * 101LL + p.s->grid.reallocations() * 7LL +
          p.tagged_capacity;
  if (key == graph_key && parts.front().graph) return;
  for (Part& p : parts) p.graph.reset();
  try {
    for (Part& p : parts) {
      activate(p.s->exec);
      Part* pp = &p;
      p.graph = std::make_unique<StepGraph>(
          p.s->exec,
          [this, pp](const StepHandles& h) {
            Solver::Impl& m = *pp->s;
            if (options.fused_sync) {
              // Lagged (step_params.lagged): decides from the last barrier's values, no barrier.
              enqueue_agree_step(m.exec, m.control(), m.faults.view(), m.step_params, h, sync(*pp),
                                 m.grid.view(), grids(*pp));
              return;
            }
            enqueue_agree_in_kernel(m.exec, m.control(), m.faults.view(), m.step_params.grow_blocks,
                                    sync(*pp));
            enqueue_dt_phase(*pp, true, h);
          },
          [this, pp] {
            // Inside the IF node: every part rebuilds in the same step, so the barrier counts
            // stay equal; tagging right after it costs non-rebuild steps nothing.
            Solver::Impl& m = *pp->s;
            m.enqueue_rebuild_phase();
            if (lagged) {
              enqueue_tag_after_barrier(m.exec, m.grid.view(), m.control(), grids(*pp), sync(*pp),
                                        m.faults.view(), options.reduce_shared);
              return;
            }
            enqueue_atomic_barrier(m.exec, sync(*pp), m.faults.view());
            enqueue_tag(m.exec, m.grid.view(), m.control(), grids(*pp), options.reduce_shared);
          },
          [this, pp](const StepHandles& h) {
            Solver::Impl& m = *pp->s;
            enqueue_p2g(m.exec, m.targs, m.particles.view(), m.grid.view(), m.control(),
                        m.faults.view(), &m.control()->active, true);
            if (lagged) {
              enqueue_grid_update_lagged(m.exec, m.gargs, m.grid.view(), m.control(), grids(*pp),
                                         sync(*pp), m.faults.view(), m.step_params, h);
            } else if (options.fused_sync) {
              enqueue_grid_update_after_peers(m.exec, m.gargs, m.grid.view(), m.control(),
                                              grids(*pp), sync(*pp), m.faults.view());
            } else {
              enqueue_atomic_barrier(m.exec, sync(*pp), m.faults.view());
              enqueue_grid_update_shared(m.exec, m.gargs, m.grid.view(), m.control(), grids(*pp));
            }
            enqueue_g2p(m.exec, m.targs, m.particles.view(), m.grid.view(), m.control(),
                        m.faults.view());
          },
          options.solver.graph_steps_per_iteration);
    }
    graph_key = key;
  } catch (const Error& e) {
    graph_failed = true;
    for (Part& p : parts) p.graph.reset();
    if (lagged) {
      // The plain launches agree before each step, from one accumulator.
      lagged = false;
      for (Part& p : parts) {
        activate(p.s->exec);
        p.s->configure_lagged(false, false);
        p.s->grid.zero_accum();
        p.s->request_rebuild();
      }
    }
    if (options.solver.log)
      options.solver.log(fmt::format(
          "MPM: CUDA graphs unavailable on several GPUs, using plain launches ({})", e.what()));
  }
}

void MultiSolver::Impl::enqueue_step(bool allow_pause) {
  mark(nullptr);
  // 1. Agreement on dt, the rebuild, a pause and a stop.
  std::vector<double*> values;
  for (Part& p : parts) {
    activate(p.s->exec);
    const int grow = allow_pause ? p.s->step_params.grow_blocks : INT_MAX;
    enqueue_publish(p.s->exec, p.s->control(), p.s->faults.view(), grow, p.agree.data());
    values.push_back(p.agree.data());
  }
  agree.run(values);
  // Clear the shared sums the others have now read; dt.
  for (Part& p : parts) {
    Solver::Impl& m = *p.s;
    activate(m.exec);
    enqueue_combine(m.exec, p.agree.data(), m.control());
    enqueue_dt_phase(p, allow_pause, StepHandles{});
  }
  mark(&PhaseTimes::agree);
  // 2. Rebuild (gated on the agreed decision), P2G.
  for (Part& p : parts) {
    activate(p.s->exec);
    p.s->enqueue_rebuild_phase();
  }
  mark(&PhaseTimes::rebuild);
  for (Part& p : parts) {
    Solver::Impl& m = *p.s;
    activate(m.exec);
    enqueue_p2g(m.exec, m.targs, m.particles.view(), m.grid.view(), m.control(), m.faults.view(),
                &m.control()->active, true);
  }
  mark(&PhaseTimes::p2g);
  // 3. Every part's P2G is complete before anyone reads it.
  if (copies) {
    exchange();
  } else if (cuda && parts.size() > 1) {
    if (options.barrier == PartBarrier::atomic) {
      for (Part& p : parts) {
        activate(p.s->exec);
        enqueue_atomic_barrier(p.s->exec, sync(p), p.s->faults.view());
      }
    } else {
      for (Part& p : parts) {
        activate(p.s->exec);
        p.p2g_done.record(p.s->exec);
      }
      for (Part& q : parts)
        for (Part& p : parts)
          if (&p != &q) p.p2g_done.wait(q.s->exec);
    }
  }
  mark(&PhaseTimes::sync);
  // 4. Tag (rebuild steps), grid update with the shared-block sum, G2P.
  if (!copies) {
    for (Part& p : parts) {
      Solver::Impl& m = *p.s;
      activate(m.exec);
      enqueue_tag(m.exec, m.grid.view(), m.control(), grids(p), options.reduce_shared);
    }
    mark(&PhaseTimes::tag);
  }
  for (Part& p : parts) {
    Solver::Impl& m = *p.s;
    activate(m.exec);
    enqueue_grid_update_shared(m.exec, m.gargs, m.grid.view(), m.control(), grids(p));
  }
  mark(&PhaseTimes::update);
  for (Part& p : parts) {
    Solver::Impl& m = *p.s;
    activate(m.exec);
    enqueue_g2p(m.exec, m.targs, m.particles.view(), m.grid.view(), m.control(), m.faults.view());
  }
  mark(&PhaseTimes::g2p);
  ++times.steps;
}

void MultiSolver::Impl::exchange() {
  // Every part took the same decision in its dt kernel from the agreed values: serial tells
  // whether this step ran and since_rebuild == 1 that it rebuilt (whatever a fault did after).
  bool ran = false, rebuilt = false;
  std::vector<int> blocks;
  for (Part& p : parts) {
    const StepControl c = p.s->read_control();  // waits for the P2G
    const bool stepped = c.serial != p.last_serial;
    ran = ran || stepped;
    rebuilt = rebuilt || (stepped && c.since_rebuild == 1);
    p.last_serial = c.serial;
    blocks.push_back(c.num_blocks);
  }
  if (!ran) return;
  if (rebuilt) {
    const std::vector<std::vector<BlockKey>> keys = gather_keys(blocks);
    for (Part& p : parts) link_part(p, keys);
  }
  for (Part& p : parts) {
    Solver::Impl& m = *p.s;
    activate(m.exec);
    if (p.link_total > 0)
      enqueue_pack_blocks(m.exec, m.grid.view(), p.send_blocks.data(), p.link_total,
                          p.send_dev.data());
  }
  if (mpi) {
    Part& p = parts.front();
    Solver::Impl& m = *p.s;
    const std::size_t per_block =
        sizeof(float) * std::size_t(m.grid.view().accum_stride) * kBlockNodes;
    if (p.link_total > 0)
      silt::detail::copy_bytes(p.send_host.data(), Exec::host(), p.send_dev.data(), m.exec,
                               per_block * std::size_t(p.link_total));
    partition::World::Requests req;
    for (int q = 0; q < nparts; ++q) {
      const std::size_t count = std::size_t(p.link_count[std::size_t(q)]);
      if (q == p.global || count == 0) continue;
      const std::size_t off = per_block * std::size_t(p.link_offset[std::size_t(q)]);
      req.irecv(p.recv_host.data() + off, per_block * count, q, kTagSums);
      req.isend(p.send_host.data() + off, per_block * count, q, kTagSums);
    }
    req.wait_all();
    if (p.link_total > 0)
      silt::detail::copy_bytes(p.recv_dev.data(), m.exec, p.recv_host.data(), Exec::host(),
                               per_block * std::size_t(p.link_total));
    return;
  }
  // Parts of one process: each copies its packed sums into the parts that share them (peer
  // copies on its stream), and every part waits for the others' copies.
  for (Part& p : parts) {
    Solver::Impl& m = *p.s;
    const std::size_t per_block =
        sizeof(float) * std::size_t(m.grid.view().accum_stride) * kBlockNodes;
    for (Part& q : parts) {
      const std::size_t count = std::size_t(p.link_count[std::size_t(q.global)]);
      if (&q == &p || count == 0) continue;
      const std::size_t bytes = per_block * count;  // one row: pitch = width
      partition::copy_rows_async(
          q.recv_dev.data() + per_block / sizeof(float) * q.link_offset[std::size_t(p.global)],
          bytes, q.s->exec,
          p.send_dev.data() + per_block / sizeof(float) * p.link_offset[std::size_t(q.global)],
          bytes, m.exec, bytes, 1, m.exec);
    }
    p.p2g_done.record(m.exec);
  }
  for (Part& q : parts)
    for (Part& p : parts)
      if (&p != &q) p.p2g_done.wait(q.s->exec);
}

std::vector<std::vector<BlockKey>> MultiSolver::Impl::gather_keys(const std::vector<int>& blocks) {
  std::vector<std::vector<BlockKey>> keys(static_cast<std::size_t>(nparts));
  for (std::size_t k = 0; k < parts.size(); ++k) {
    Part& p = parts[k];
    const GridView g = p.s->grid.view();
    const Index nb = std::min<Index>(blocks[k], g.capacity);
    std::vector<BlockKey>& own = keys[std::size_t(p.global)];
    own.resize(std::size_t(nb));
    if (nb > 0)
      silt::detail::copy_bytes(own.data(), Exec::host(), g.block_key, p.s->exec,
                               sizeof(BlockKey) * std::size_t(nb));
  }
  if (!mpi) return keys;
  // Ranks: counts by allgather, keys point to point.
  const partition::World& w = *world;
  const int self = parts.front().global;
  const std::vector<BlockKey>& own = keys[std::size_t(self)];
  const double mine = double(own.size());
  const std::vector<double> counts = w.allgather(&mine, 1);
  partition::World::Requests req;
  for (int q = 0; q < nparts; ++q) {
    if (q == self) continue;
    const std::size_t nq = std::size_t(counts[std::size_t(q)]);
    if (nq > 0) {
      keys[std::size_t(q)].resize(nq);
      req.irecv(keys[std::size_t(q)].data(), sizeof(BlockKey) * nq, q, kTagKeys);
    }
    if (!own.empty()) req.isend(own.data(), sizeof(BlockKey) * own.size(), q, kTagKeys);
  }
  req.wait_all();
  return keys;
}

void MultiSolver::Impl::link_part(Part& p, const std::vector<std::vector<BlockKey>>& keys) {
  Solver::Impl& m = *p.s;
  const GridView g = m.grid.view();
  const std::vector<BlockKey>& mine = keys[std::size_t(p.global)];
  const Index nb = Index(mine.size());
  // For each other part, the blocks both hold in key order (both sides list them alike).
  std::vector<std::pair<BlockKey, int>> own(static_cast<std::size_t>(nb));
  for (Index b = 0; b < nb; ++b) own[std::size_t(b)] = {mine[std::size_t(b)], int(b)};
  std::sort(own.begin(), own.end());
  std::vector<int> row(std::size_t(g.capacity) * std::size_t(nparts), -1);
  for (Index b = 0; b < nb; ++b) row[std::size_t(b) * nparts + std::size_t(p.global)] = int(b);
  std::vector<int> send;
  std::vector<char> shared(std::size_t(nb), 0);
  for (int q = 0; q < nparts; ++q) {
    p.link_offset[std::size_t(q)] = Index(send.size());
    std::vector<BlockKey> t = keys[std::size_t(q)];
    std::sort(t.begin(), t.end());
    std::size_t i = 0, j = 0;
    int k = 0;
    while (options.reduce_shared && q != p.global && i < own.size() && j < t.size()) {
      if (own[i].first < t[j]) {
        ++i;
      } else if (t[j] < own[i].first) {
        ++j;
      } else {
        const int b = own[i].second;
        row[std::size_t(b) * nparts + std::size_t(q)] = k++;
        send.push_back(b);
        shared[std::size_t(b)] = 1;
        ++i, ++j;
      }
    }
    p.link_count[std::size_t(q)] = Index(send.size()) - p.link_offset[std::size_t(q)];
  }
  p.link_total = Index(send.size());
  std::vector<int> list;
  for (Index b = 0; b < nb; ++b)
    if (shared[std::size_t(b)]) list.push_back(int(b));
  p.shared_host = int(list.size());
  activate(m.exec);
  p.peer_block.upload(row);
  if (!list.empty()) p.shared_list.upload(list.data(), Index(list.size()));
  p.shared_count.set(0, p.shared_host);
  const Index floats = p.link_total * g.accum_stride * kBlockNodes;
  if (p.send_blocks.size() < p.link_total)
    p.send_blocks = DeviceBuffer<int>(m.exec, 2 * p.link_total, "mpm multi send blocks");
  if (!send.empty()) p.send_blocks.upload(send.data(), Index(send.size()));
  if (p.send_dev.size() < floats) {
    p.send_dev = DeviceBuffer<float>(m.exec, 2 * floats, "mpm multi send sums");
    p.recv_dev = DeviceBuffer<float>(m.exec, 2 * floats, "mpm multi received sums");
    if (mpi) {
      p.send_host = partition::PinnedBuffer(sizeof(float) * 2 * std::size_t(floats), cuda);
      p.recv_host = partition::PinnedBuffer(sizeof(float) * 2 * std::size_t(floats), cuda);
    }
  }
}

void MultiSolver::Impl::run_steps() {
  if (parts.front().graph) {
    // One graph per GPU: every GPU loops over the frame's steps on its own, meeting the others
    // at the in-kernel barriers; the loops end together (the agreed dt and frame end).
    for (Part& p : parts) {
      activate(p.s->exec);
      p.graph->launch();
    }
    return;
  }
  if (cuda && !mpi) {
    // Plain launches in batches, one host read per batch (as Solver's non-graph path).
    int batch = last_frame_steps > 0 ? last_frame_steps : 8;
    for (;;) {
      for (int i = 0; i < batch; ++i) enqueue_step(true);
      if (!parts.front().s->read_control().more) break;
      batch = batch / 4 > 1 ? batch / 4 : 1;
    }
    return;
  }
  do {
    enqueue_step(true);
  } while (parts.front().s->read_control().more);
}

void MultiSolver::Impl::check_faults() {
  int failed = -1;
  std::string msg;
  for (Part& p : parts) {
    const StepControl c = p.s->read_control();
    try {
      p.s->throw_on_fault(c);
    } catch (const Error& e) {
      failed = p.global;
      msg = name_part(e, p);
      break;
    }
  }
  const double any = allmax(double(failed));
  if (any < 0) return;
  if (mpi) {
    // The first faulty rank's message to every rank, so that all throw the same.
    const int from = int(any);
    const partition::World& w = *world;
    double len = double(msg.size());
    const std::vector<double> lens = w.allgather(&len, 1);
    std::vector<double> chars(static_cast<std::size_t>(lens[std::size_t(from)]));
    if (w.rank() == from) {
      for (std::size_t i = 0; i < chars.size(); ++i) chars[i] = double((unsigned char)msg[i]);
      for (int r = 0; r < w.size(); ++r)
        if (r != from && !chars.empty())
          w.send(chars.data(), (long long)chars.size(), r, kTagGather);
    } else if (!chars.empty()) {
      w.recv(chars.data(), (long long)chars.size(), from, kTagGather);
      msg.assign(chars.size(), ' ');
      for (std::size_t i = 0; i < chars.size(); ++i) msg[i] = char((unsigned char)chars[i]);
    }
  }
  throw PartFault(msg);
}

MultiSolver::MultiSolver(const Scene& scene, const std::vector<Exec>& execs,
                         const MultiOptions& options, const partition::World& world)
    : impl_(std::make_unique<Impl>(scene, execs, options, world)) {}
MultiSolver::~MultiSolver() = default;
MultiSolver::MultiSolver(MultiSolver&&) noexcept = default;
MultiSolver& MultiSolver::operator=(MultiSolver&&) noexcept = default;

FrameStats MultiSolver::advance_frame() {
  Impl& m = *impl_;
  m.stepping = false;
  m.prepare_all(true);
  for (Impl::Part& p : m.parts) {
    activate(p.s->exec);
    begin_frame(p.s->exec, p.s->control(), m.scene.frame_dt);
  }
  const auto t0 = std::chrono::steady_clock::now();
  int pauses = 0;
  for (;;) {
    m.run_steps();
    bool fault = false, paused = false;
    for (Impl::Part& p : m.parts) {
      const StepControl c = p.s->read_control();
      paused = paused || c.paused != 0;
      fault = fault || bool(p.s->faults.read());
    }
    // A pause is agreed (pause_request), and a fault anywhere halts every part unpaused.
    if (!paused || fault) break;
    for (Impl::Part& p : m.parts) p.s->last_num_blocks = p.s->read_control().num_blocks;
    m.prepare_all(false);
    for (Impl::Part& p : m.parts) {
      activate(p.s->exec);
      resume_frame(p.s->exec, p.s->control());
    }
    ++pauses;
  }
  const auto t1 = std::chrono::steady_clock::now();
  for (Impl::Part& p : m.parts) p.s->frame = m.frame;  // fault messages name the frame
  m.check_faults();
  ++m.frame;
  const StepControl c = m.parts.front().s->read_control();
  m.last_frame_steps = c.steps;
  double blocks = 0;
  for (Impl::Part& p : m.parts) {
    p.s->last_num_blocks = p.s->read_control().num_blocks;
    blocks += p.s->last_num_blocks;
  }
  FrameStats s = frame_stats(c, std::chrono::duration<double, std::milli>(t1 - t0).count(),
                             m.total_particles, std::int64_t(m.allsum(blocks)));
  Solver::Impl& p0 = *m.parts.front().s;
  p0.warn_unstable_dt(s, c, m.scene, m.frame);
  if (pauses > 0)
    p0.warn(s, fmt::format("MPM: frame {} paused {} time(s) to grow the sparse grids", m.frame,
                           pauses));
  return s;
}

void MultiSolver::step() {
  Impl& m = *impl_;
  if (!m.stepping) {
    // Single steps agree before each step from one accumulator at a time: a lagged frame's
    // pending shared sums go with a rebuild.
    if (m.lagged)
      for (Impl::Part& p : m.parts) {
        activate(p.s->exec);
        p.s->grid.zero_accum();
        p.s->request_rebuild();
      }
    m.prepare_all(false);
    for (Impl::Part& p : m.parts) {
      activate(p.s->exec);
      begin_frame(p.s->exec, p.s->control(), 0.0);
    }
    m.stepping = true;
  }
  m.enqueue_step(false);
}

void MultiSolver::check() {
  for (Impl::Part& p : impl_->parts) p.s->frame = impl_->frame;
  impl_->check_faults();
  for (Impl::Part& p : impl_->parts) p.s->last_num_blocks = p.s->read_control().num_blocks;
}

double MultiSolver::time() const {
  return impl_->parts.front().s->read_control().time;
}

std::int64_t MultiSolver::particle_count() const {
  return impl_->total_particles;
}

ParticleFrame MultiSolver::particles(bool with_stress) const {
  Impl& m = *impl_;
  ParticleFrame all;
  for (Impl::Part& p : m.parts) {
    activate(p.s->exec);
    append_frame(all, p.s->download(with_stress));
  }
  if (m.mpi) {
    const partition::World& w = *m.world;
    if (!w.is_root()) {
      const std::vector<double> buf = pack_frame(all, with_stress);
      const double n = double(buf.size());
      w.send(&n, 1, 0, kTagGather);
      if (!buf.empty()) w.send(buf.data(), (long long)buf.size(), 0, kTagGather);
      return ParticleFrame{};
    }
    for (int r = 1; r < w.size(); ++r) {
      double n = 0;
      w.recv(&n, 1, r, kTagGather);
      std::vector<double> buf(static_cast<std::size_t>(n));
      if (!buf.empty()) w.recv(buf.data(), (long long)buf.size(), r, kTagGather);
      unpack_frame(buf, with_stress, all);
    }
  }
  return sort_by_id(all);
}

int MultiSolver::parts() const {
  return impl_->nparts;
}

std::vector<PartInfo> MultiSolver::part_info() const {
  std::vector<PartInfo> out;
  for (Impl::Part& p : impl_->parts) {
    PartInfo i;
    i.part = p.global;
    i.where = p.where;
    i.particles = p.s->particles.size();
    i.blocks = p.s->read_control().num_blocks;
    i.shared_blocks = impl_->copies ? p.shared_host : p.shared_count.get(0);
    out.push_back(i);
  }
  return out;
}

std::vector<std::int64_t> MultiSolver::part_counts() const {
  return impl_->counts;
}

int MultiSolver::rebalances() const {
  return impl_->rebalances;
}

std::string MultiSolver::layout() const {
  const Impl& m = *impl_;
  std::string s =
      fmt::format("{} parts along {}: ", m.nparts, m.axis >= 0 ? kAxisName[m.axis] : "-");
  for (std::size_t q = 0; q < m.counts.size(); ++q)
    s += fmt::format("{}{}", q ? " | " : "", m.counts[q]);
  s += fmt::format(" particles, {} rebalance{}:", m.rebalances, m.rebalances == 1 ? "" : "s");
  for (const PartInfo& i : part_info())
    s += fmt::format(" [{}: {} particles, {} blocks, {} shared]", i.where, i.particles, i.blocks,
                     i.shared_blocks);
  return s;
}

const Scene& MultiSolver::scene() const {
  return impl_->scene;
}

bool MultiSolver::uses_graph() const {
  return impl_->parts.front().graph != nullptr;
}

PhaseTimes MultiSolver::phase_times() const {
  return impl_->times;
}

void MultiSolver::reset_phase_times() {
  impl_->times = PhaseTimes{};
}

const char* to_string(PartBarrier b) {
  return b == PartBarrier::atomic ? "atomic" : "event";
}

}  // namespace silt::mpm
