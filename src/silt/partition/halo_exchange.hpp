// Halo exchange between subdomains (paper 001, multi-GPU: each subdomain's halo holds copies of
// its neighbours' cells; with ghost cell expansion the halo is k layers wide and exchanged every
// k steps, the layers in between being recomputed locally). Each local subdomain stores a field as
// a Grid2 with a ring of width `ring` >= k; its halo of width k is refreshed from the owned cells
// of its up to eight neighbours (diagonal ones too: a halo cell recomputed at depth 2 reads its
// corner neighbour). Neighbours in this process are copied directly (memcpy on the host; on CUDA
// a 2D copy over the peer link, on a halo stream so that it overlaps the interior update);
// neighbours on other ranks are reached through host staging buffers (page-locked for CUDA) with
// MPI_Isend / MPI_Irecv.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "silt/core/device_set.hpp"
#include "silt/core/exec.hpp"
#include "silt/partition/decompose.hpp"
#include "silt/partition/world.hpp"

namespace silt::partition {

/// One halo transfer: the cells of subdomain `from` (box `send`, in its local coordinates) that
/// fill box `recv` of subdomain `to` (in its local coordinates). dir: direction from `from` to
/// `to`.
struct HaloLink {
  int from, to, dir;
  Box2 send, recv;
};

/// Every halo transfer of a decomposition, receiver after receiver.
std::vector<HaloLink> halo_links(const Decomposition& d);

/// Where this process's subdomains run.
struct LocalParts {
  std::vector<int> ids;         // subdomain ids, consecutive: rank r holds [r L, (r + 1) L)
  std::vector<Exec> compute;    // the stream each one computes on
  std::vector<Exec> halo_lane;  // the stream its halo copies run on (may equal compute)
  int per_rank = 1;             // L
};

class HaloExchange {
 public:
  /// ring: width of the arrays' halo ring (>= d.halo); fields: fields exchanged per subdomain,
  /// each element_bytes wide. world: the ranks (subdomains of other ranks are reached with MPI).
  HaloExchange(const Decomposition& d, LocalParts local, int ring, int fields,
               std::size_t element_bytes, const World& world);
  ~HaloExchange();
  HaloExchange(const HaloExchange&) = delete;
  HaloExchange& operator=(const HaloExchange&) = delete;

  /// Starts refreshing every local halo: storage[k][f] is Grid2::ptr of field f of local part k.
  /// Until finish(), the owned cells may be read but not written, and the halos not touched.
  void begin(const std::vector<std::vector<void*>>& storage);
  /// Completes the exchange: work queued on the compute execs after this sees the new halos.
  void finish();

  /// Bytes received by this process per exchange.
  std::size_t bytes_per_exchange() const { return bytes_; }

 private:
  struct Remote;
  void copy_link(const HaloLink& l, const std::vector<std::vector<void*>>& storage);
  std::size_t offset(int part, Index i, Index j) const;
  std::size_t pitch(int part) const;
  /// The index of subdomain `part` among the local parts.
  int local_index(int part) const;

  Decomposition d_;
  LocalParts local_;
  int ring_, fields_;
  std::size_t elem_;
  const World& world_;
  std::vector<HaloLink> local_links_;  // both ends here
  std::vector<std::unique_ptr<Remote>> sends_, recvs_;
  std::vector<Event> ready_, done_;  // per local part
  World::Requests requests_;
  std::vector<std::vector<void*>> storage_;  // of the open exchange
  std::size_t bytes_ = 0;
  bool any_cuda_ = false;
  bool open_ = false;
};

}  // namespace silt::partition
