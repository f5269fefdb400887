// mpm::Solver's state for checkpoints and its restore (restart_state.hpp). A part's step depends
// on its particles in store order (the order P2G scatters in), on the block each particle was
// binned into at the last rebuild (its free zone until the next), and on the step control values
// that carry over (dt of the last step, the largest speeds, the rebuild and sort counters). On as
// many parts the binning is restored by one rebuild from positions at the centre of each
// particle's recorded block, without sorting, before the true positions go back: the blocks are
// numbered in the same order as at the run's own rebuild, so one part continues bit for bit on
// the CPU (one thread; several threads scatter in no fixed order in any run). Several parts
// rebuild at their first step instead, so that the exchange tags the blocks they share.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "silt/core/error.hpp"
#include "silt/mpm/block_hash.hpp"
#include "silt/mpm/solver_impl.hpp"
#include "silt/mpm/state_hash.hpp"

namespace silt::mpm {

namespace {

/// Marks a particle without a binning (added since the last rebuild): it bins at the next one.
constexpr std::int32_t kNoHome = -(1 << 30);

PartState state_of(Part& p) {
  PartState s;
  fence(p.exec());
  const StepControl c = p.read_control();
  s.particles = p.download_all();
  const std::size_t n = s.particles.count();
  std::vector<int> block(n);
  std::vector<BlockKey> keys(std::size_t(std::max(c.num_blocks, 0)));
  if (n > 0)
    detail::copy_bytes(block.data(), Exec::host(), p.particle_view().block, p.exec(),
                       n * sizeof(int));
  if (!keys.empty())
    detail::copy_bytes(keys.data(), Exec::host(), p.grid_view().block_key, p.exec(),
                       keys.size() * sizeof(BlockKey));
  s.home.assign(3 * n, kNoHome);
  for (std::size_t i = 0; i < n; ++i) {
    const int b = block[i];
    if (b < 0 || std::size_t(b) >= keys.size()) continue;
    int h[3];
    unpack_block(keys[std::size_t(b)], h[0], h[1], h[2]);
    for (int a = 0; a < 3; ++a) s.home[3 * i + std::size_t(a)] = h[a];
  }
  s.time = c.time;
  s.dt = c.dt;
  s.dt_prev = c.dt_prev;
  s.vmax = c.vmax;
  s.cmax = c.cmax;
  s.since_rebuild = c.since_rebuild;
  s.zone_escape = c.zone_escape;
  s.rebuild_serial = c.rebuild_serial;
  s.serial = c.serial;
  s.accum_parity = c.accum_parity;
  s.num_blocks = c.num_blocks;
  return s;
}

void write_control(Part& p, const StepControl& c) {
  detail::copy_bytes(p.control(), p.exec(), &c, Exec::host(), sizeof(StepControl));
}

/// The carried values of s into p's control; rebuild_next: the next step rebuilds.
void put_control(Part& p, const PartState& s, bool rebuild_next) {
  fence(p.exec());  // what is queued may still write the control (a speed reduction)
  StepControl c = p.read_control();
  c.time = s.time;
  c.frame_end = s.time;
  c.dt = s.dt;
  c.dt_prev = s.dt_prev;
  c.vmax = s.vmax;
  c.cmax = s.cmax;
  c.since_rebuild = rebuild_next ? p.scene().rebuild_period : s.since_rebuild;
  c.zone_escape = s.zone_escape;
  c.rebuild_serial = s.rebuild_serial;
  c.serial = s.serial;
  c.accum_parity = s.accum_parity;
  c.active = c.more = c.rebuild = c.paused = c.sort_now = 0;
  write_control(p, c);
  p.end_frame();
}

/// Whether every particle of s has a recorded block.
bool binned(const PartState& s) {
  return s.home.size() == 3 * s.particles.count() &&
         std::find(s.home.begin(), s.home.end(), kNoHome) == s.home.end();
}

/// The binning of s restored exactly (see the top of the file), then its true positions.
void rebin(Part& p, const PartState& s) {
  const Scene& sc = p.scene();
  HostParticles at_home = s.particles;
  for (std::size_t i = 0; i < 3 * at_home.count(); ++i) {
    // Node 4 h + 1 of block h: the nearest node of a particle there, half a cell from any other.
    const int a = int(i % 3);
    at_home.x[i] = float(sc.domain_min[a] + (4.0 * s.home[i] + 1.0) * sc.dx);
  }
  p.replace(at_home);
  p.prepare();
  fence(p.exec());
  StepControl c = p.read_control();
  c.rebuild = 1;
  c.rebuild_serial = 1;  // not a multiple of kSortEvery: bins without sorting
  write_control(p, c);
  p.rebuild();
  fence(p.exec());  // the rebuild reads the positions at home before the true ones go back
  if (!s.particles.x.empty())
    detail::copy_bytes(p.particle_view().x, p.exec(), s.particles.x.data(), Exec::host(),
                       s.particles.x.size() * sizeof(float));
  if (p.faulted()) p.throw_on_fault(p.read_control(), 0);
}

/// A PartState as bytes, for the gather to rank 0 (one part per rank).
struct Packer {
  std::vector<char> b;
  template <class T>
  void add(const std::vector<T>& v) {
    const std::uint64_t n = v.size();
    add_raw(&n, sizeof n);
    add_raw(v.data(), n * sizeof(T));
  }
  template <class T>
  void add(const T& v) {
    add_raw(&v, sizeof v);
  }
  void add_raw(const void* p, std::size_t n) {
    const char* c = static_cast<const char*>(p);
    b.insert(b.end(), c, c + n);
  }
};

struct Unpacker {
  const char* p;
  template <class T>
  void get(std::vector<T>& v) {
    std::uint64_t n;
    std::memcpy(&n, p, sizeof n);
    p += sizeof n;
    v.resize(n);
    std::memcpy(v.data(), p, n * sizeof(T));
    p += n * sizeof(T);
  }
  template <class T>
  void get(T& v) {
    std::memcpy(&v, p, sizeof v);
    p += sizeof v;
  }
};

template <class F>
void each_field(PartState& s, F f) {
  f(s.particles.x), f(s.particles.v), f(s.particles.c), f(s.particles.f);
  f(s.particles.plastic), f(s.particles.material), f(s.particles.id), f(s.home);
  f(s.time), f(s.dt), f(s.dt_prev), f(s.vmax), f(s.cmax), f(s.since_rebuild), f(s.zone_escape);
  f(s.rebuild_serial), f(s.serial), f(s.accum_parity), f(s.num_blocks);
}

constexpr int kTagState = 7307;  // checkpoints: each rank's part state to rank 0

/// Every rank's part state on rank 0, in rank order (one part per rank); none elsewhere.
std::vector<PartState> gather_states(const partition::World& w, PartState mine) {
  Packer pk;
  each_field(mine, [&](auto& v) { pk.add(v); });
  const double n = double(pk.b.size());
  const std::vector<double> sizes = w.allgather(&n, 1);
  const std::vector<char> all = w.gather_to_root(pk.b, kTagState);
  std::vector<PartState> out;
  if (!w.is_root()) return out;
  std::size_t at = 0;
  for (double sz : sizes) {
    PartState s;
    Unpacker u{all.data() + at};
    each_field(s, [&](auto& v) { u.get(v); });
    at += std::size_t(sz);
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace

RestartState Solver::state() const {
  Impl& m = *impl_;
  if (m.collider_moved_at >= 0)
    throw Error(fmt::format(
        "MPM scene '{}': a collider was moved at t = {} s; a checkpoint holds the scene's "
        "colliders and would restart differently, so none is written after a move",
        m.scene.name, m.collider_moved_at));
  if (m.physics_set_at >= 0)
    throw Error(fmt::format(
        "MPM scene '{}': gravity or a material was set at t = {} s; a checkpoint holds the "
        "scene's and would restart differently, so none is written after a change",
        m.scene.name, m.physics_set_at));
  RestartState s;
  m.each([&](Part& p, int) { s.parts.push_back(state_of(p)); });
  if (m.world.distributed()) s.parts = gather_states(m.world, std::move(s.parts.front()));
  const Emitter::Progress e = m.emitter.progress();
  s.emitted.assign(e.next.begin(), e.next.end());
  s.next_id = e.next_id;
  s.frame = m.frame;
  s.last_frame_steps = m.last_frame_steps;
  s.axis = m.balancer.axis();
  s.cuts = m.balancer.cuts();
  s.rebalances = m.balancer.rebalances();
  return s;
}

std::uint64_t Solver::state_hash() const {
  Impl& m = *impl_;
  RestartState s;
  m.each([&](Part& p, int) { s.parts.push_back(state_of(p)); });
  if (m.world.distributed()) s.parts = gather_states(m.world, std::move(s.parts.front()));
  if (!m.world.is_root()) return 0;
  return mpm::state_hash(s, m.parts.front()->read_control().time);
}

void Solver::restore(const RestartState& s) {
  Impl& m = *impl_;
  if (s.parts.empty())
    throw Error(fmt::format("MPM scene '{}': a restart state without parts", m.scene.name));
  Emitter::Progress e;
  e.next.assign(s.emitted.begin(), s.emitted.end());
  e.next_id = s.next_id;
  m.emitter.restore(e);
  if (m.collider_moved_at >= 0) {
    m.scene.colliders = m.scene_colliders;
    m.each([&](Part& p, int) { p.set_colliders(m.scene_colliders); });
    m.collider_moved_at = -1;
  }
  if (m.physics_set_at >= 0) {
    m.each([&](Part& p, int) { p.set_physics(m.scene_gravity, m.scene_materials); });
    m.scene.gravity = m.scene_gravity;
    m.scene.materials = m.scene_materials;
    m.graph_key = -1;
    m.physics_set_at = -1;
  }
  m.frame = s.frame;
  m.last_frame_steps = s.last_frame_steps;
  m.total_particles = 0;
  for (const PartState& p : s.parts) m.total_particles += (long long)p.particles.count();
  const bool same = int(s.parts.size()) == m.nparts;
  if (same) {
    m.balancer.restore(s.axis, s.cuts, s.rebalances);
    const bool exact = m.nparts == 1 && !m.scene.g2p2g;
    m.each([&](Part& p, int k) {
      const PartState& ps = s.parts[std::size_t(m.global[std::size_t(k)])];
      if (exact && binned(ps))
        rebin(p, ps);
      else
        p.replace(ps.particles);
      put_control(p, ps, !(exact && binned(ps)));
    });
  } else {
    HostParticles all;
    if (m.world.is_root())
      for (const PartState& p : s.parts) all.append(p.particles);
    const std::vector<HostParticles> mine = m.balancer.split(all);
    m.each([&](Part& p, int k) {
      p.replace(mine[std::size_t(k)]);
      put_control(p, s.parts.front(), true);
    });
  }
  m.counts = m.balancer.counts(m.parts);
}

}  // namespace silt::mpm
