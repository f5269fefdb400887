// The exchange between the parts of one process (mpm/exchange/exchange.hpp; paper 000 §5): each
// part reads the others' block hashes and P2G sums in-kernel (over the peer link between GPUs;
// plain memory on the host and on one GPU). CPU partitions and parts that share one GPU run their
// phases in turn on one stream, so stream order is the synchronisation. Parts on distinct GPUs meet
// at a barrier without the host after P2G; their frames run as one CUDA graph per GPU with one
// synchronisation per step (StepParams::lagged): the agreement travels with that barrier and
// decides the next step.
#include <fmt/format.h>

#include <algorithm>

#include "silt/core/device_set.hpp"
#include "silt/core/error.hpp"
#include "silt/mpm/exchange/split.hpp"

namespace silt::mpm {

namespace {

std::vector<int> identity(std::size_t n) {
  std::vector<int> v(n);
  for (std::size_t k = 0; k < n; ++k) v[k] = int(k);
  return v;
}

/// True when the CUDA parts run on distinct GPUs (they then meet at a barrier); false when they
/// share one GPU (and its stream). Throws for other layouts and for missing peer access.
bool distinct_gpus(const Parts& parts) {
  std::vector<int> devices;
  for (const auto& p : parts) devices.push_back(p->exec().device);
  std::vector<int> sorted = devices;
  std::sort(sorted.begin(), sorted.end());
  const bool one_gpu = sorted.front() == sorted.back();
  if (one_gpu) return false;
  if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end())
    throw Error(
        "MPM on several GPUs: list every GPU once, or one GPU several times (several parts on "
        "one GPU); a mix of both is not supported");
  const int pairs = enable_peer_access(devices);
  const int need = int(devices.size() * (devices.size() - 1));
  if (pairs < need)
    throw Error(
        fmt::format("MPM on several GPUs: peer access is available between {} of the {} ordered "
                    "device pairs; the shared-block reduction reads the other GPUs' grids "
                    "in-kernel and needs all of them",
                    pairs, need));
  return true;
}

class PeerExchange : public SplitExchange {
 public:
  explicit PeerExchange(Parts& parts)
      : SplitExchange(parts, partition::World::self(), int(parts.size()), identity(parts.size())) {
    cuda_ = parts_.front()->exec().is_cuda();
    barrier_ = cuda_ && distinct_gpus(parts_);
    if (!barrier_) return;
    for (auto& p : parts_) {
      activate(p->exec());
      state_.emplace_back(p->exec(), 1, "mpm exchange barrier state");
      state_.back().zero();
      inbox_.emplace_back(p->exec(), 1, "mpm exchange inbox");
      inbox_.back().zero();
      fence(p->exec());
    }
    // Graph frames synchronise once per step; set up before the first particles.
    lagged_ = true;
    const bool split_force = !(parts_.front()->scene().fixed_dt > 0);
    for (auto& p : parts_) {
      activate(p->exec());
      p->configure_lagged(true, split_force);
    }
  }

  void after_p2g() override {
    // Every part's P2G is complete before anyone reads it: on distinct GPUs a barrier kernel on
    // every stream; otherwise the phases already run in turn.
    if (barrier_)
      for (std::size_t k = 0; k < parts_.size(); ++k) {
        Part& p = *parts_[k];
        activate(p.exec());
        enqueue_atomic_barrier(p.exec(), sync(k), p.fault());
      }
    for (std::size_t k = 0; k < parts_.size(); ++k) {
      Part& p = *parts_[k];
      activate(p.exec());
      enqueue_tag(p.exec(), p.grid_view(), p.control(), grids(int(k)));
    }
  }

  // Parts on one GPU share its stream: one graph steps them all (Solver::Impl::record_stream_graph).
  bool records_graphs() const override { return cuda_; }
  bool one_stream() const override { return cuda_ && !barrier_; }

  void graph_decide(int k, const StepHandles& h) override {
    Part& p = *parts_[std::size_t(k)];
    enqueue_lagged_decide(p.exec(), p.control(), p.fault(), p.step_params(), h, sync(k));
  }

  void graph_rebuild(int k) override {
    // Inside the IF node: every part rebuilds in the same step, so the barrier counts stay
    // equal; tagging right after the rebuild's barrier costs non-rebuild steps nothing.
    Part& p = *parts_[std::size_t(k)];
    p.rebuild();
    enqueue_tag_after_barrier(p.exec(), p.grid_view(), p.control(), grids(k), sync(k), p.fault());
  }

  void graph_grid_update(int k, const StepHandles& h) override {
    Part& p = *parts_[std::size_t(k)];
    enqueue_grid_update_lagged(p.exec(), p.grid_args(), p.grid_view(), p.control(), grids(k),
                               sync(k), p.fault(), p.step_params(), h);
  }

  void use_plain_steps() override {
    if (!lagged_) return;
    // The plain steps agree before each step, from one accumulator.
    lagged_ = false;
    for (auto& p : parts_) {
      activate(p->exec());
      p->configure_lagged(false, false);
      p->grid().zero_accum();
      p->request_rebuild();
    }
  }

  void single_steps() override {
    // Single steps agree before each step from one accumulator at a time: a lagged frame's
    // pending shared sums go with a rebuild.
    if (!lagged_) return;
    for (auto& p : parts_) {
      activate(p->exec());
      p->grid().zero_accum();
      p->request_rebuild();
    }
  }

  std::int64_t shared_blocks(int k) const override {
    return tables_[std::size_t(k)].shared_count.get(0);
  }

 protected:
  PartGrids grids(int k) override {
    PartGrids g = tables_of(k);
    for (std::size_t q = 0; q < parts_.size(); ++q) {
      const GridView v = parts_[q]->grid_view();
      g.accum[q] = v.accum;
      g.accum_alt[q] = v.accum_alt;
      g.fixed[q] = v.fixed;
      g.fixed_alt[q] = v.fixed_alt;
      g.hash[q] = v.hash;
    }
    return g;
  }

 private:
  DeviceSync sync(std::size_t k) {
    DeviceSync d;
    d.state = state_[k].data();
    d.barrier.passed = &d.state->passed;
    d.barrier.parties = int(parts_.size());
    d.barrier.self = int(k);
    for (std::size_t q = 0; q < parts_.size(); ++q) d.barrier.inbox[q] = inbox_[q].data();
    return d;
  }
  DeviceSync sync(int k) { return sync(std::size_t(k)); }

  bool cuda_ = false;
  bool barrier_ = false;  // distinct GPUs: a barrier without the host after P2G
  bool lagged_ = false;   // the graph step with one synchronisation (configure_lagged)
  std::vector<DeviceBuffer<BarrierState>> state_;
  std::vector<DeviceBuffer<PeerInbox>> inbox_;
};

}  // namespace

std::unique_ptr<Exchange> make_peer_exchange(Parts& parts) {
  if (int(parts.size()) > kMaxParts)
    throw Error(fmt::format("MPM on several parts: {} parts, at most {}", parts.size(), kMaxParts));
  return std::make_unique<PeerExchange>(parts);
}

}  // namespace silt::mpm
