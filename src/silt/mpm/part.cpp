// mpm::Part: the phases of a step on one device and its frames (part.hpp). A step is
//   decide   dt kernel (dt from the speed G2P folded in, clock, rebuild decision on the device)
//   rebuild  only every rebuild_period steps or when the free-zone guard fired (rebuild.cpp)
//   p2g, grid update, g2p (transfer.cpp)
#include "silt/mpm/part.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <climits>

#include "silt/core/error.hpp"
#include "silt/mpm/scene_params.hpp"

namespace silt::mpm {

namespace {
/// The P2G accumulator channels (sparse_grid.hpp), for messages.
constexpr const char* kChannelName[8] = {"mass",    "momentum x", "momentum y", "momentum z",
                                         "force x", "force y",    "force z",    "padding"};
}  // namespace

Part::Part(const Scene& scene, const Exec& exec, std::string where)
    : scene_(scene), exec_(exec), where_(std::move(where)) {
  ctl_ = DeviceBuffer<StepControl>(exec_, 1, "mpm step control");
  StepControl init;
  init.since_rebuild = scene_.rebuild_period;  // the first step rebuilds
  ctl_.set(0, init);
  faults_ = FaultFlags(exec_);
  particles_ = ParticleStore(exec_, 0);
  grid_ = make_grid(split_force_channels(scene_));
  contact_ = ContactGrid(scene_, exec_);
  build_tables();
  refresh_args();
}

SparseGrid Part::make_grid(bool split_force) const {
  const FixedScale fixed = fixed_scale(scene_);
  return SparseGrid(exec_, scene_.transfer == Transfer::asflip, split_force,
                    scene_.deterministic ? &fixed : nullptr);
}

void Part::decide(const StepHandles& handles, bool allow_pause) {
  StepParams sp = step_params_;
  if (!allow_pause) sp.grow_blocks = INT_MAX;
  // Values are current here: one part, or parts that agreed just before (a lagged part's graph
  // decides in its exchange instead).
  sp.lagged = 0;
  launch_dt_kernel(exec_, control(), sp, handles, fault());
}

void Part::rebuild() {
  enqueue_rebuild(exec_, rargs_, particles_.view(), particles_.sort_view(), grid_.view(), control(),
                  fault());
  // G2P2G scattered the particles into the old mapping (or could not scatter those that left
  // their zone): after a rebuild every particle scatters again, F already current.
  if (scene_.g2p2g)
    enqueue_p2g(exec_, targs_, particles_.view(), grid_.view(), control(), fault(),
                &control()->rebuild, false, grid_.host_partials());
}

void Part::p2g() {
  if (scene_.g2p2g) return;
  if (contact_.on()) {
    contact_.p2g(targs_, particles_.view(), grid_.view(), control(), fault(),
                 grid_.host_partials());
    return;
  }
  enqueue_p2g(exec_, targs_, particles_.view(), grid_.view(), control(), fault(),
              &control()->active, true, grid_.host_partials());
}

void Part::grid_update() {
  if (contact_.on()) {
    contact_.grid_update(gargs_, grid_.view(), control());
    return;
  }
  enqueue_grid_update(exec_, gargs_, grid_.view(), control(), fault());
}

void Part::g2p() {
  if (contact_.on())
    contact_.g2p(targs_, particles_.view(), grid_.view(), control(), fault());
  else if (scene_.g2p2g)
    enqueue_g2p2g(exec_, targs_, particles_.view(), grid_.view(), control(), fault(),
                  grid_.host_partials());
  else
    enqueue_g2p(exec_, targs_, particles_.view(), grid_.view(), control(), fault());
}

int Part::step_launches() const {
  return scene_.g2p2g ? 3 : 4;  // dt kernel, (P2G,) grid update, G2P (or G2P2G)
}

int Part::rebuild_launches() const {
  return rebuild_launch_count() + (scene_.g2p2g ? 1 : 0);  // and the re-scatter under G2P2G
}

void Part::request_rebuild() {
  StepControl c = ctl_.get(0);
  c.since_rebuild = scene_.rebuild_period;
  ctl_.set(0, c);
}

void Part::prepare() {
  // A grid that moved has lost its blocks (and, under G2P2G, the scattered particles).
  if (grid_.ensure(last_num_blocks_)) request_rebuild();
  contact_.prepare(grid_.view(), grid_.host_partials());  // sized with the grid, before the steps
  refresh_args();
  if (speed_stale_) {
    // New particles have not been through a G2P: one reduction over all of them (it combines
    // with, and covers, the speeds the last G2P folded in).
    reduce_max_speed(exec_, particles_.view().v, particles_.size(), control());
    speed_stale_ = false;
  }
}

void Part::begin_frame(double span) {
  // G2P2G leaves the next step's P2G sums in the grid, which a checkpoint does not hold: a
  // restart scatters again at its first step (a rebuild), where the material model runs once more
  // on the current F. In the deterministic mode every frame starts that way, so that a restart
  // continues bit for bit (one rebuild more per frame).
  if (scene_.deterministic && scene_.g2p2g && span > 0) request_rebuild();
  mpm::begin_frame(exec_, control(), span);
}

void Part::resume_frame() {
  mpm::resume_frame(exec_, control());
}

StepControl Part::end_frame() {
  const StepControl c = read_control();
  last_num_blocks_ = c.num_blocks;
  return c;
}

StepControl Part::read_control() const {
  return ctl_.get(0);
}

long long Part::storage_key() const {
  return (long long)particles_.size() * 1000003LL + particles_.reallocations() * 1009LL +
         grid_.reallocations();
}

std::string Part::describe_node(int node) const {
  const int b = node / kBlockNodes, l = node % kBlockNodes;
  BlockKey key{};
  if (b >= 0 && b < grid_.block_capacity())
    detail::copy_bytes(&key, Exec::host(), grid_.block_keys() + b, exec_, sizeof(BlockKey));
  int bc[3];
  unpack_block(key, bc[0], bc[1], bc[2]);
  const int local[3] = {l & (kBlockEdge - 1), (l >> kBlockLog2) & (kBlockEdge - 1),
                        l >> (2 * kBlockLog2)};
  int n[3];
  double x[3];
  for (int a = 0; a < 3; ++a) {
    n[a] = kBlockEdge * bc[a] + local[a];
    x[a] = scene_.domain_min[a] + scene_.dx * n[a];
  }
  return fmt::format("node ({}, {}, {}) (x = {:.6g}, {:.6g}, {:.6g} m)", n[0], n[1], n[2], x[0],
                     x[1], x[2]);
}

void Part::throw_on_fault(const StepControl& c, long long frame) const {
  const Fault f = faults_.read();
  if (!f) return;
  const std::string where = fmt::format("scene '{}', frame {} (t = {:.6g} s, step {} of the frame)",
                                        scene_.name, frame, c.time, c.steps);
  switch (f.code) {
    case kFaultNaN:
      throw Error(
          fmt::format("MPM: particle id {} has a non-finite position or velocity in {}; "
                      "the smallest stable dt met was {:.3g} s",
                      f.index, where, c.dt_limit_min));
    case kFaultHashFull:
      throw Error(fmt::format("MPM: block hash table full ({} slots, {} blocks needed) in {}",
                              f.index, c.num_blocks, where));
    case kFaultBlockOverflow:
      throw Error(
          fmt::format("MPM: sparse grid overflow in {}: a rebuild needed {} blocks, the "
                      "capacity is {} (it grows 4x between frames; the active region "
                      "more than doubled within one frame)",
                      where, c.num_blocks, f.index));
    case kFaultZoneEscape:
      throw Error(
          fmt::format("MPM: particle id {} left the 3x3x3 blocks around its block in one "
                      "step in {} (moved more than 3 cells: dt too large?)",
                      f.index, where));
    case kFaultStepLimit:
      throw Error(fmt::format("MPM: more than {} steps in {}: dt collapsed", step_params_.max_steps,
                              where));
    case kFaultBadDt:
      throw Error(fmt::format("MPM: dt is not a positive number in {}", where));
    case kFaultFixedRange:
      throw Error(fmt::format(
          "MPM: the fixed-point P2G sum of {} at {} left its range in {} (performance."
          "deterministic: a share of 2^50 or a node sum of 2^62 units, or not finite; the units "
          "are sized for particles of the scene's masses below ~{:.3g} m/s, docs/scenes-mpm.md)",
          kChannelName[std::clamp(f.aux, 0, 7)], describe_node(f.index), where,
          fixed_speed_bound(scene_) * 16384.0));
    case kFaultBarrier:
      throw Error(fmt::format(
          "MPM: the cross-GPU barrier after P2G timed out in {} (another GPU never arrived)",
          where));
    default:
      throw Error(fmt::format("MPM: device fault {} (index {}) in {}", f.code, f.index, where));
  }
}

}  // namespace silt::mpm
