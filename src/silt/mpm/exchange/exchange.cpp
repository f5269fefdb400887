// The exchange of one part (none), what several parts share, and the choice of strategy.
#include "silt/mpm/exchange/exchange.hpp"

#include <climits>

#include "silt/mpm/exchange/split.hpp"

namespace silt::mpm {

namespace {

/// One part: its own phases, nothing to meet.
class SoloExchange : public Exchange {
 public:
  explicit SoloExchange(Parts& parts) : part_(*parts.front()) {}
  void grid_update(int) override { part_.grid_update(); }
  bool records_graphs() const override { return part_.exec().is_cuda(); }
  void graph_decide(int, const StepHandles& h) override { part_.decide(h, true); }
  void graph_rebuild(int) override { part_.rebuild(); }
  void graph_grid_update(int, const StepHandles&) override { part_.grid_update(); }

 private:
  Part& part_;
};

}  // namespace

std::unique_ptr<Exchange> make_exchange(Parts& parts, const partition::World& world) {
  if (world.distributed()) return make_host_exchange(parts, world);
  if (parts.size() == 1) return std::make_unique<SoloExchange>(parts);
  return make_peer_exchange(parts);
}

SplitExchange::SplitExchange(Parts& parts, const partition::World& world, int nparts,
                             std::vector<int> global)
    : parts_(parts), world_(world), nparts_(nparts), global_(std::move(global)) {
  std::vector<Exec> execs;
  for (auto& p : parts_) {
    Tables t;
    t.agree = DeviceBuffer<double>(p->exec(), kAgreeSlots, "mpm exchange agreement");
    t.agree.zero();
    t.shared_count = DeviceBuffer<int>(p->exec(), 1, "mpm exchange shared count");
    t.shared_count.zero();
    tables_.push_back(std::move(t));
    execs.push_back(p->exec());
  }
  reduce_ = partition::ScalarReduce(execs, kAgreeSlots, kAgreeSlots, world);
}

bool SplitExchange::ensure_tables(int k) {
  Part& p = *parts_[std::size_t(k)];
  Tables& t = tables_[std::size_t(k)];
  const Index cap = p.grid().block_capacity();
  if (cap == t.capacity) return false;
  activate(p.exec());
  t.peer_block = DeviceBuffer<int>(p.exec(), cap * nparts_, "mpm exchange peer blocks");
  t.shared_list = DeviceBuffer<int>(p.exec(), cap, "mpm exchange shared blocks");
  t.shared_count.zero();
  t.capacity = cap;
  return true;
}

void SplitExchange::prepare() {
  for (int k = 0; k < int(parts_.size()); ++k) ensure_tables(k);
}

long long SplitExchange::storage_key() const {
  long long key = 0;
  for (const Tables& t : tables_) key = key * 1009LL + t.capacity;
  return key;
}

PartGrids SplitExchange::tables_of(int k) {
  PartGrids g;
  g.parts = nparts_;
  g.self = global_[std::size_t(k)];
  Tables& t = tables_[std::size_t(k)];
  g.peer_block = t.peer_block.data();
  g.shared_list = t.shared_list.data();
  g.shared_count = t.shared_count.data();
  return g;
}

void SplitExchange::agree(bool allow_pause) {
  std::vector<double*> values;
  for (std::size_t k = 0; k < parts_.size(); ++k) {
    Part& p = *parts_[k];
    activate(p.exec());
    const int grow = allow_pause ? p.step_params().grow_blocks : INT_MAX;
    enqueue_publish(p.exec(), p.control(), p.fault(), grow, tables_[k].agree.data());
    values.push_back(tables_[k].agree.data());
  }
  reduce_.run(values);
  // The combination into every control; the shared sums the others have now read are cleared.
  for (std::size_t k = 0; k < parts_.size(); ++k) {
    Part& p = *parts_[k];
    activate(p.exec());
    enqueue_combine(p.exec(), tables_[k].agree.data(), p.control());
    enqueue_clear_shared(p.exec(), p.grid_view(), grids(int(k)), p.control());
  }
}

void SplitExchange::grid_update(int k) {
  Part& p = *parts_[std::size_t(k)];
  enqueue_grid_update_shared(p.exec(), p.grid_args(), p.grid_view(), p.control(), grids(k),
                             p.fault());
}

}  // namespace silt::mpm
