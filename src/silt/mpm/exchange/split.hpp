// What the exchanges between several parts share (mpm/exchange/exchange.hpp): the agreement before
// a plain step, the tables of shared blocks, and the grid update that sums every holder's P2G copy.
// Internal.
#pragma once

#include <vector>

#include "silt/core/buffer.hpp"
#include "silt/mpm/exchange/exchange.hpp"
#include "silt/mpm/exchange/kernels.hpp"
#include "silt/partition/scalar_reduce.hpp"

namespace silt::mpm {

class SplitExchange : public Exchange {
 public:
  /// parts: this process's; nparts: over all ranks; global[k]: part k's index over all ranks.
  SplitExchange(Parts& parts, const partition::World& world, int nparts, std::vector<int> global);

  void prepare() override;
  void agree(bool allow_pause) override;
  void grid_update(int k) override;
  long long storage_key() const override;

 protected:
  /// Where part k finds every holder's P2G sums, and its own tables of shared blocks.
  virtual PartGrids grids(int k) = 0;
  /// Fresh tables of shared blocks when part k's grid capacity changed (true then).
  bool ensure_tables(int k);

  struct Tables {
    DeviceBuffer<double> agree;      // [kAgreeSlots] what the part publishes, then the combination
    DeviceBuffer<int> peer_block;    // [capacity * parts] PartGrids::peer_block
    DeviceBuffer<int> shared_list;   // [capacity]
    DeviceBuffer<int> shared_count;  // [1]
    Index capacity = 0;
  };
  PartGrids tables_of(int k);

  Parts& parts_;
  const partition::World& world_;
  int nparts_;
  std::vector<int> global_;
  std::vector<Tables> tables_;
  partition::ScalarReduce reduce_;
};

/// Parts of one process (CPU partitions, GPUs, or several parts on one GPU sharing its stream).
std::unique_ptr<Exchange> make_peer_exchange(Parts& parts);
/// One part per MPI rank.
std::unique_ptr<Exchange> make_host_exchange(Parts& parts, const partition::World& world);

}  // namespace silt::mpm
