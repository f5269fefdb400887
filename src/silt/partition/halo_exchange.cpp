#include "silt/partition/halo_exchange.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "silt/core/error.hpp"

namespace silt::partition {

namespace {

/// Each local part's `to` exec waits (through its event) for the work queued on its `from` exec.
void hand_over(std::vector<Event>& events, const std::vector<Exec>& from,
               const std::vector<Exec>& to) {
  for (size_t k = 0; k < events.size(); ++k) {
    events[k].record(from[k]);
    events[k].wait(to[k]);
  }
}

}  // namespace

std::vector<HaloLink> halo_links(const Decomposition& d) {
  const Index k = d.halo;
  std::vector<HaloLink> links;
  for (const Subdomain& p : d.parts)
    for (int dj = -1; dj <= 1; ++dj)
      for (int di = -1; di <= 1; ++di) {
        if (di == 0 && dj == 0) continue;
        const int q = p.neighbour[size_t(direction(di, dj))];
        if (q < 0) continue;
        const Subdomain& s = d.parts[size_t(q)];
        const auto lo = [&](int dd, Index n) {
          return dd < 0 ? -k : dd == 0 ? 0 : n;
        };
        const auto hi = [&](int dd, Index n) {
          return dd < 0 ? 0 : dd == 0 ? n : n + k;
        };
        const Box2 recv{lo(di, p.nx()), hi(di, p.nx()), lo(dj, p.ny()), hi(dj, p.ny())};
        const Index si = p.cells.i0 - s.cells.i0, sj = p.cells.j0 - s.cells.j0;
        const Box2 send{recv.i0 + si, recv.i1 + si, recv.j0 + sj, recv.j1 + sj};
        links.push_back(HaloLink{q, p.id, direction(-di, -dj), send, recv});
      }
  return links;
}

// A message to or from another rank: one link's cells, field after field, row after row.
struct HaloExchange::Remote {
  HaloLink link;
  int local = 0;  // index of the local end in LocalParts
  int rank = 0;   // rank of the other end
  PinnedBuffer buf;
};

HaloExchange::HaloExchange(const Decomposition& d, LocalParts local, int ring, int fields,
                           std::size_t element_bytes, const World& world)
    : d_(d),
      local_(std::move(local)),
      ring_(ring),
      fields_(fields),
      elem_(element_bytes),
      world_(world) {
  SILT_REQUIRE(ring_ >= d_.halo, fmt::format("halo ring {} < halo width {}", ring_, d_.halo));
  SILT_REQUIRE(
      local_.compute.size() == local_.ids.size() && local_.halo_lane.size() == local_.ids.size(),
      "HaloExchange: one compute and one halo exec per local part");
  const int n_local = int(local_.ids.size());
  auto local_index = [&](int id) {
    const auto it = std::find(local_.ids.begin(), local_.ids.end(), id);
    return it == local_.ids.end() ? -1 : int(it - local_.ids.begin());
  };
  for (const Exec& e : local_.compute) any_cuda_ = any_cuda_ || e.is_cuda();
  for (int k = 0; k < n_local; ++k) {
    ready_.emplace_back(local_.compute[size_t(k)]);
    done_.emplace_back(local_.halo_lane[size_t(k)]);
  }
  for (const HaloLink& l : halo_links(d_)) {
    const int to = local_index(l.to), from = local_index(l.from);
    const std::size_t cells = std::size_t(l.recv.count());
    if (to >= 0) bytes_ += cells * std::size_t(fields_) * elem_;
    if (to >= 0 && from >= 0) {
      local_links_.push_back(l);
      continue;
    }
    if (to < 0 && from < 0) continue;
    auto r = std::make_unique<Remote>();
    r->link = l;
    r->local = to >= 0 ? to : from;
    r->rank = (to >= 0 ? l.from : l.to) / local_.per_rank;
    SILT_REQUIRE(world_.distributed(),
                 fmt::format("subdomain {} has no rank here (a world of one rank)", r->rank));
    r->buf = PinnedBuffer(cells * std::size_t(fields_) * elem_, any_cuda_);
    (to >= 0 ? recvs_ : sends_).push_back(std::move(r));
  }
}

HaloExchange::~HaloExchange() = default;

int HaloExchange::local_index(int part) const {
  return int(std::find(local_.ids.begin(), local_.ids.end(), part) - local_.ids.begin());
}

std::size_t HaloExchange::pitch(int part) const {
  return std::size_t(d_.parts[size_t(part)].nx() + 2 * ring_) * elem_;
}

std::size_t HaloExchange::offset(int part, Index i, Index j) const {
  return std::size_t(j + ring_) * pitch(part) + std::size_t(i + ring_) * elem_;
}

void HaloExchange::copy_link(const HaloLink& l, const std::vector<std::vector<void*>>& storage) {
  const int kt = local_index(l.to), kf = local_index(l.from);
  const std::size_t width = std::size_t(l.recv.i1 - l.recv.i0) * elem_;
  const std::size_t height = std::size_t(l.recv.j1 - l.recv.j0);
  for (int f = 0; f < fields_; ++f) {
    char* dst =
        static_cast<char*>(storage[size_t(kt)][size_t(f)]) + offset(l.to, l.recv.i0, l.recv.j0);
    const char* src = static_cast<const char*>(storage[size_t(kf)][size_t(f)]) +
                      offset(l.from, l.send.i0, l.send.j0);
    // A copy-engine 2D copy: in-kernel peer reads measured no better while competing with the
    // interior update for the SMs (bench/results/swe-2026-11-29-h200x2.md, sixth run).
    copy_rows_async(dst, pitch(l.to), local_.compute[size_t(kt)], src, pitch(l.from),
                    local_.compute[size_t(kf)], width, height, local_.halo_lane[size_t(kt)]);
  }
}

void HaloExchange::begin(const std::vector<std::vector<void*>>& storage) {
  SILT_REQUIRE(!open_, "HaloExchange::begin while an exchange is open");
  SILT_REQUIRE(storage.size() == local_.ids.size(), "HaloExchange: storage per local part");
  const int n_local = int(local_.ids.size());
  // The state to send and the halos to overwrite are what the compute streams have queued so far.
  hand_over(ready_, local_.compute, local_.halo_lane);
  for (const HaloLink& l : local_links_) {
    ready_[size_t(local_index(l.from))].wait(local_.halo_lane[size_t(local_index(l.to))]);
    copy_link(l, storage);
  }
  if (sends_.empty() && recvs_.empty()) {
    open_ = true;
    storage_ = storage;
    return;
  }
  // Remote: pack on the halo lanes, wait for the packs (and for the previous unpacks, whose
  // buffers the new receives reuse), then post the messages.
  for (const auto& s : sends_) {
    const HaloLink& l = s->link;
    const std::size_t width = std::size_t(l.send.i1 - l.send.i0) * elem_;
    const std::size_t height = std::size_t(l.send.j1 - l.send.j0);
    for (int f = 0; f < fields_; ++f) {
      const char* src = static_cast<const char*>(storage[size_t(s->local)][size_t(f)]) +
                        offset(l.from, l.send.i0, l.send.j0);
      copy_rows_async(s->buf.data() + std::size_t(f) * width * height, width, Exec::host(), src,
                      pitch(l.from), local_.compute[size_t(s->local)], width, height,
                      local_.halo_lane[size_t(s->local)]);
    }
  }
  for (int k = 0; k < n_local; ++k) fence(local_.halo_lane[size_t(k)]);
  // Tag: sender id and direction; each ordered pair of neighbours has exactly one direction.
  for (const auto& r : recvs_)
    requests_.irecv(r->buf.data(), r->buf.size(), r->rank,
                    r->link.from * kDirections + r->link.dir);
  for (const auto& s : sends_)
    requests_.isend(s->buf.data(), s->buf.size(), s->rank,
                    s->link.from * kDirections + s->link.dir);
  storage_ = storage;
  open_ = true;
}

void HaloExchange::finish() {
  SILT_REQUIRE(open_, "HaloExchange::finish without begin");
  open_ = false;
  requests_.wait_all();
  for (const auto& r : recvs_) {
    const HaloLink& l = r->link;
    const std::size_t width = std::size_t(l.recv.i1 - l.recv.i0) * elem_;
    const std::size_t height = std::size_t(l.recv.j1 - l.recv.j0);
    for (int f = 0; f < fields_; ++f) {
      char* dst = static_cast<char*>(storage_[size_t(r->local)][size_t(f)]) +
                  offset(l.to, l.recv.i0, l.recv.j0);
      copy_rows_async(dst, pitch(l.to), local_.compute[size_t(r->local)],
                      r->buf.data() + std::size_t(f) * width * height, width, Exec::host(), width,
                      height, local_.halo_lane[size_t(r->local)]);
    }
  }
  hand_over(done_, local_.halo_lane, local_.compute);
  // A local sender may overwrite the cells just read only after its receiver's copies.
  for (const HaloLink& l : local_links_)
    done_[size_t(local_index(l.to))].wait(local_.compute[size_t(local_index(l.from))]);
}

}  // namespace silt::partition
