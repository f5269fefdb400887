// The exchange between MPI ranks, one part each (mpm/exchange/exchange.hpp; paper 000 §5 for
// several machines): after P2G every rank packs the sums of the blocks it shares with each other
// rank and sends them through pinned host buffers (Debian's Open MPI is not CUDA-aware); the grid
// update then reads the received copies. On rebuild steps the ranks exchange their block lists and
// link the shared blocks on the host, in key order on both sides.
#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "silt/core/device_set.hpp"
#include "silt/core/error.hpp"
#include "silt/mpm/exchange/split.hpp"

namespace silt::mpm {

namespace {

constexpr int kTagKeys = 7301;  // MPI tags: block lists at rebuilds, shared P2G sums per step
constexpr int kTagSums = 7302;

class HostExchange : public SplitExchange {
 public:
  HostExchange(Parts& parts, const partition::World& world)
      : SplitExchange(parts, world, world.size(), {world.rank()}),
        link_count_(std::size_t(world.size()), 0),
        link_offset_(std::size_t(world.size()), 0) {
    if (parts.size() != 1)
      throw Error(fmt::format(
          "MPM on several MPI ranks: each rank drives one part ({} devices given on rank {})",
          parts.size(), world.rank()));
  }

  void prepare() override {
    if (ensure_tables(0)) shared_host_ = 0;
  }

  void after_p2g() override;

  bool records_graphs() const override { return false; }
  void graph_decide(int, const StepHandles&) override { unreachable(); }
  void graph_rebuild(int) override { unreachable(); }
  void graph_grid_update(int, const StepHandles&) override { unreachable(); }
  std::int64_t shared_blocks(int) const override { return shared_host_; }

 protected:
  PartGrids grids(int k) override {
    PartGrids g = tables_of(k);
    Part& p = part();
    const int self = world_.rank();
    g.accum[self] = p.grid_view().accum;
    const Index per_block = Index(p.grid_view().accum_stride) * kBlockNodes;
    for (int q = 0; q < nparts_; ++q)
      if (q != self && link_count_[std::size_t(q)] > 0)
        g.accum[q] = recv_dev_.data() + per_block * link_offset_[std::size_t(q)];
    return g;
  }

 private:
  [[noreturn]] static void unreachable() {
    throw Error("MPM: the MPI exchange runs no CUDA graphs");
  }
  Part& part() { return *parts_.front(); }
  /// Every rank's block keys in its block order (own from the device, the others' by MPI).
  std::vector<std::vector<BlockKey>> gather_keys(int blocks);
  /// For each other rank, the blocks both hold, in key order: the device tables and send list.
  void link(const std::vector<std::vector<BlockKey>>& keys);
  void send_sums();

  std::vector<Index> link_count_, link_offset_;  // per rank, in blocks
  Index link_total_ = 0;
  int shared_host_ = 0;
  int last_serial_ = 0;
  DeviceBuffer<int> send_blocks_;
  DeviceBuffer<float> send_dev_, recv_dev_;
  PinnedBuffer send_host_, recv_host_;
};

void HostExchange::after_p2g() {
  // Every rank took the same decision in its dt kernel from the agreed values: serial tells
  // whether this step ran and since_rebuild == 1 that it rebuilt (whatever a fault did after).
  const StepControl c = part().read_control();  // waits for the P2G
  const bool ran = c.serial != last_serial_;
  last_serial_ = c.serial;
  if (!ran) return;
  if (c.since_rebuild == 1) link(gather_keys(c.num_blocks));
  send_sums();
}

void HostExchange::send_sums() {
  Part& p = part();
  const std::size_t per_block =
      sizeof(float) * std::size_t(p.grid_view().accum_stride) * kBlockNodes;
  const std::size_t bytes = per_block * std::size_t(link_total_);
  if (link_total_ > 0) {
    enqueue_pack_blocks(p.exec(), p.grid_view(), send_blocks_.data(), link_total_,
                        send_dev_.data());
    silt::detail::copy_bytes(send_host_.data(), Exec::host(), send_dev_.data(), p.exec(), bytes);
  }
  partition::World::Requests req;
  for (int q = 0; q < nparts_; ++q) {
    const std::size_t count = std::size_t(link_count_[std::size_t(q)]);
    if (q == world_.rank() || count == 0) continue;
    const std::size_t off = per_block * std::size_t(link_offset_[std::size_t(q)]);
    req.irecv(recv_host_.data() + off, per_block * count, q, kTagSums);
    req.isend(send_host_.data() + off, per_block * count, q, kTagSums);
  }
  req.wait_all();
  if (link_total_ > 0)
    silt::detail::copy_bytes(recv_dev_.data(), p.exec(), recv_host_.data(), Exec::host(), bytes);
}

std::vector<std::vector<BlockKey>> HostExchange::gather_keys(int blocks) {
  std::vector<std::vector<BlockKey>> keys(static_cast<std::size_t>(nparts_));
  const int self = world_.rank();
  Part& p = part();
  const GridView g = p.grid_view();
  std::vector<BlockKey>& own = keys[std::size_t(self)];
  own.resize(std::size_t(std::min<Index>(blocks, g.capacity)));
  if (!own.empty())
    silt::detail::copy_bytes(own.data(), Exec::host(), g.block_key, p.exec(),
                             sizeof(BlockKey) * own.size());
  // Counts by allgather, keys point to point.
  const double mine = double(own.size());
  const std::vector<double> counts = world_.allgather(&mine, 1);
  partition::World::Requests req;
  for (int q = 0; q < nparts_; ++q) {
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

void HostExchange::link(const std::vector<std::vector<BlockKey>>& keys) {
  Part& p = part();
  const int self = world_.rank();
  const GridView g = p.grid_view();
  const std::vector<BlockKey>& mine = keys[std::size_t(self)];
  const Index nb = Index(mine.size());
  std::vector<std::pair<BlockKey, int>> own(static_cast<std::size_t>(nb));
  for (Index b = 0; b < nb; ++b) own[std::size_t(b)] = {mine[std::size_t(b)], int(b)};
  std::sort(own.begin(), own.end());
  std::vector<int> row(std::size_t(g.capacity) * std::size_t(nparts_), -1);
  for (Index b = 0; b < nb; ++b) row[std::size_t(b) * nparts_ + std::size_t(self)] = int(b);
  std::vector<int> send;
  std::vector<char> shared(std::size_t(nb), 0);
  for (int q = 0; q < nparts_; ++q) {
    link_offset_[std::size_t(q)] = Index(send.size());
    std::vector<BlockKey> t = keys[std::size_t(q)];
    std::sort(t.begin(), t.end());
    std::size_t i = 0, j = 0;
    int k = 0;
    while (q != self && i < own.size() && j < t.size()) {
      if (own[i].first < t[j]) {
        ++i;
      } else if (t[j] < own[i].first) {
        ++j;
      } else {
        const int b = own[i].second;
        row[std::size_t(b) * nparts_ + std::size_t(q)] = k++;
        send.push_back(b);
        shared[std::size_t(b)] = 1;
        ++i, ++j;
      }
    }
    link_count_[std::size_t(q)] = Index(send.size()) - link_offset_[std::size_t(q)];
  }
  link_total_ = Index(send.size());
  std::vector<int> list;
  for (Index b = 0; b < nb; ++b)
    if (shared[std::size_t(b)]) list.push_back(int(b));
  shared_host_ = int(list.size());
  Tables& t = tables_.front();
  t.peer_block.upload(row);
  if (!list.empty()) t.shared_list.upload(list.data(), Index(list.size()));
  t.shared_count.set(0, shared_host_);
  const Index floats = link_total_ * g.accum_stride * kBlockNodes;
  if (send_blocks_.size() < link_total_)
    send_blocks_ = DeviceBuffer<int>(p.exec(), 2 * link_total_, "mpm exchange send blocks");
  if (!send.empty()) send_blocks_.upload(send.data(), Index(send.size()));
  if (send_dev_.size() < floats) {
    send_dev_ = DeviceBuffer<float>(p.exec(), 2 * floats, "mpm exchange send sums");
    recv_dev_ = DeviceBuffer<float>(p.exec(), 2 * floats, "mpm exchange received sums");
    const bool pin = p.exec().is_cuda();
    send_host_ = PinnedBuffer(sizeof(float) * 2 * std::size_t(floats), pin);
    recv_host_ = PinnedBuffer(sizeof(float) * 2 * std::size_t(floats), pin);
  }
}

}  // namespace

std::unique_ptr<Exchange> make_host_exchange(Parts& parts, const partition::World& world) {
  // The packed shared-block sums travel as floats: the fixed-point sums would need a message
  // format of their own (not done; docs/scenes-mpm.md, "Reproducible runs").
  if (parts.front()->scene().deterministic)
    throw Error(fmt::format(
        "MPM scene '{}': performance.deterministic is not supported under MPI (mpirun) yet; "
        "run the parts in one process (--devices 0,1 or CPU partitions) or without the mode",
        parts.front()->scene().name));
  return std::make_unique<HostExchange>(parts, world);
}

}  // namespace silt::mpm
