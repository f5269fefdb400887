// What the engine gives back: the whole grid's fields gathered to rank 0, probes and totals on
// every rank, the layout, and the communication between parts timed on its own for the benchmark.
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "silt/core/error.hpp"
#include "silt/swe/engine_parts.hpp"
#include "silt/swe/phases.hpp"

namespace silt::swe::detail {

namespace {
// Tag of the field gathers: one message per remote subdomain, in subdomain order, so a single tag
// suffices (MPI keeps the order of messages between two ranks).
constexpr int kGatherTag = 32000;
}  // namespace

template <class T>
template <class U>
std::vector<double> Engine<T>::owned(const Part<T>& p, const DeviceBuffer<U>& b) const {
  const std::vector<U> all = b.download();
  const Grid2<const U> g{all.data(), p.nx, p.ny, p.ring};
  std::vector<double> out(size_t(p.nx) * size_t(p.ny));
  for (Index j = 0; j < p.ny; ++j)
    for (Index i = 0; i < p.nx; ++i) out[size_t(j) * size_t(p.nx) + size_t(i)] = double(g(i, j));
  return out;
}

template <class T>
template <class U>
void Engine<T>::place_owned(const Part<T>& p, const DeviceBuffer<U>& b, double* dst,
                            size_t pitch) const {
  const size_t nx = size_t(p.nx), ny = size_t(p.ny);
  const size_t bytes = nx * ny * sizeof(U);
  if (frame_staging_.size() < bytes) {
    bool pin = false;
    for (const auto& q : parts_) pin = pin || q->exec.is_cuda();
    frame_staging_ = PinnedBuffer(bytes, pin);
  }
  const Grid2<const U> g{b.data(), p.nx, p.ny, p.ring};
  U* staged = reinterpret_cast<U*>(frame_staging_.data());
  copy_rows_async(staged, nx * sizeof(U), Exec::host(), b.data() + g.offset(0, 0),
                  size_t(g.stride()) * sizeof(U), p.exec, nx * sizeof(U), ny, p.exec);
  fence(p.exec);
  const auto rows = static_cast<std::int64_t>(ny);
#pragma omp parallel for schedule(static)
  for (std::int64_t j = 0; j < rows; ++j) {
    const U* from = staged + size_t(j) * nx;
    double* to = dst + size_t(j) * pitch;
    for (size_t i = 0; i < nx; ++i) to[i] = double(from[i]);
  }
}

namespace {
// The destinations of the asked-for arrays in f, in the fixed order of for_each_array (the order
// of a remote part's packed message too).
std::vector<std::vector<double>*> destinations(Fields& f, unsigned arrays) {
  std::vector<std::vector<double>*> dst;
  if (arrays & arrays::depth) dst.push_back(&f.h);
  if (arrays & arrays::discharge) dst.insert(dst.end(), {&f.hu, &f.hv});
  if (arrays & arrays::pollutant) dst.push_back(&f.hc);
  if (arrays & arrays::max_depth) dst.push_back(&f.max_depth);
  if (arrays & arrays::hazard)
    dst.insert(dst.end(), {&f.max_speed, &f.max_depth_speed, &f.max_concentration, &f.max_rating,
                           &f.first_wet_time, &f.wet_duration});
  if (arrays & arrays::infiltration) dst.push_back(&f.infiltration);
  return dst;
}

// A frame's copies in flight (fields_async): a slot of the staging pool holding each part's
// asked-for arrays (owned rows, in their stored type, piece after piece), and where each piece
// goes in the whole grid. get() waits for the parts' events, converts the pieces into Fields on
// the calling thread's OpenMP team and frees the slot; a copy dropped unread frees it once its
// copies have landed (StagedFrame).
struct Piece {
  size_t at;     // byte offset in the slot
  size_t bytes;  // of one value: sizeof(float) or sizeof(double)
  int k;         // index into destinations()
  Index i0, j0;  // the part's first owned cell in the global grid
  Index nx, ny;  // its owned cells
};

class SlotCopy final : public FieldsCopy::Pending {
 public:
  SlotCopy(StagedFrame slot, std::vector<Piece> pieces, Index gnx, Index gny, unsigned arrays)
      : slot_(std::move(slot)), pieces_(std::move(pieces)), gnx_(gnx), gny_(gny), arrays_(arrays) {}
  Fields get() override {
    StagedFrame slot = std::move(slot_);  // freed on return, or on a throw
    Fields f;
    f.nx = gnx_;
    f.ny = gny_;
    const std::vector<std::vector<double>*> dst = destinations(f, arrays_);
    for (auto* v : dst) v->resize(size_t(gnx_) * size_t(gny_));
    const char* staged = slot.get();
    for (const Piece& pc : pieces_) {
      const char* from = staged + pc.at;
      double* to = dst[size_t(pc.k)]->data() + size_t(pc.j0) * size_t(gnx_) + size_t(pc.i0);
      const auto rows = static_cast<std::int64_t>(pc.ny);
      const size_t nx = size_t(pc.nx), gx = size_t(gnx_);
#pragma omp parallel for schedule(static)
      for (std::int64_t j = 0; j < rows; ++j) {
        double* row = to + size_t(j) * gx;
        if (pc.bytes == sizeof(float)) {
          const float* src = reinterpret_cast<const float*>(from) + size_t(j) * nx;
          for (size_t i = 0; i < nx; ++i) row[i] = double(src[i]);
        } else {
          std::memcpy(row, from + size_t(j) * nx * sizeof(double), nx * sizeof(double));
        }
      }
    }
    return f;
  }

 private:
  StagedFrame slot_;
  std::vector<Piece> pieces_;
  Index gnx_, gny_;
  unsigned arrays_;
};

}  // namespace

template <class T>
unsigned Engine<T>::present(unsigned arrays) const {
  if (!scene_.hazard.enabled) arrays &= ~arrays::hazard;
  if (!scene_.infiltration.enabled()) arrays &= ~arrays::infiltration;
  return arrays;
}

template <class T>
template <class Put>
void Engine<T>::for_each_array(const Part<T>& p, unsigned arrays, int cur, Put put) {
  if (arrays & arrays::depth) put(p.h[cur]);
  if (arrays & arrays::discharge) {
    put(p.hu[cur]);
    put(p.hv[cur]);
  }
  if (arrays & arrays::pollutant) put(p.hc[cur]);
  if (arrays & arrays::max_depth) put(p.max_depth);
  if (arrays & arrays::hazard) {
    const HazardBuffers<T>& z = p.hazard;
    for (const auto* b : {&z.max_speed, &z.max_depth_speed, &z.max_conc, &z.max_rating}) put(*b);
    put(z.first_wet);
    put(z.wet_time);
  }
  if (arrays & arrays::infiltration) put(p.forcing.F[cur]);
}

template <class T>
FieldsCopy Engine<T>::fields_async(unsigned arrays) const {
  // Under MPI the other ranks' parts come as messages (collective): the waiting path.
  if (world_.distributed()) return FieldsCopy(fields(arrays));
  arrays = present(arrays);
  // Where each piece goes and how large the staging must be.
  std::vector<Piece> pieces;
  size_t bytes = 0;
  for (size_t q = 0; q < parts_.size(); ++q) {
    const Part<T>& p = *parts_[q];
    int k = 0;
    for_each_array(p, arrays, cur_, [&](const auto& b) {
      using U = typename std::decay_t<decltype(b)>::value_type;
      pieces.push_back(Piece{bytes, sizeof(U), k++, p.sub.cells.i0, p.sub.cells.j0, p.nx, p.ny});
      // Page-aligned pieces: each 2D copy starts on its own page.
      bytes += (size_t(p.nx) * size_t(p.ny) * sizeof(U) + 4095) & ~size_t(4095);
    });
  }
  bool pin = false;
  std::vector<Exec> execs;
  for (const auto& p : parts_) {
    pin = pin || p->exec.is_cuda();
    execs.push_back(p->exec);
  }
  StagedFrame slot = frame_slots_.take(bytes, bytes, execs, pin);
  // Each part's owned rows, one 2D copy an array, queued on the part's stream behind its steps.
  size_t n = 0;
  for (size_t q = 0; q < parts_.size(); ++q) {
    const Part<T>& p = *parts_[q];
    for_each_array(p, arrays, cur_, [&](const auto& b) {
      using U = typename std::decay_t<decltype(b)>::value_type;
      const Piece& pc = pieces[n++];
      const Grid2<const U> g{b.data(), p.nx, p.ny, p.ring};
      copy_rows_async(slot.data() + pc.at, size_t(p.nx) * sizeof(U), Exec::host(),
                      b.data() + g.offset(0, 0), size_t(g.stride()) * sizeof(U), p.exec,
                      size_t(p.nx) * sizeof(U), size_t(p.ny), p.exec);
    });
    slot.done(q).record(p.exec);
  }
  return FieldsCopy(std::make_unique<SlotCopy>(std::move(slot), std::move(pieces), scene_.grid.nx,
                                               scene_.grid.ny, arrays));
}

template <class T>
Fields Engine<T>::fields(unsigned arrays) const {
  if (!world_.distributed()) return fields_async(arrays).get();
  Fields f;
  f.nx = scene_.grid.nx;
  f.ny = scene_.grid.ny;
  arrays = present(arrays);
  const std::vector<std::vector<double>*> dst = destinations(f, arrays);
  const int gathered = int(dst.size());
  // Each asked-for array of part p into out(k) (row j at out(k) + j * pitch).
  const auto copy_part = [&](const Part<T>& p, const auto& out, size_t pitch) {
    int k = 0;
    for_each_array(p, arrays, cur_, [&](const auto& b) { place_owned(p, b, out(k++), pitch); });
  };
  const bool root = world_.is_root();
  const size_t gx = size_t(f.nx);
  const auto corner = [&](std::vector<double>* v, const partition::Subdomain& d) {
    return v->data() + size_t(d.cells.j0) * gx + size_t(d.cells.i0);
  };
  if (root)
    for (auto* v : dst) v->resize(gx * size_t(f.ny));
  for (const auto& p : parts_) {
    if (root) {
      copy_part(
          *p, [&](int k) { return corner(dst[size_t(k)], p->sub); }, gx);
      continue;
    }
    const size_t cells = size_t(p->nx) * size_t(p->ny);
    std::vector<double> packed(size_t(gathered) * cells);
    copy_part(
        *p, [&](int k) { return packed.data() + size_t(k) * cells; }, size_t(p->nx));
    world_.send(packed.data(), static_cast<long long>(packed.size()), 0, kGatherTag);
  }
  if (root)
    for (const partition::Subdomain& d : dec_.parts) {
      const int rank = d.id / per_rank_;
      if (rank == 0) continue;
      const size_t cells = size_t(d.nx()) * size_t(d.ny());
      std::vector<double> packed(size_t(gathered) * cells);
      world_.recv(packed.data(), static_cast<long long>(packed.size()), rank, kGatherTag);
      for (int k = 0; k < gathered; ++k)
        for (Index j = 0; j < d.ny(); ++j)
          std::copy_n(packed.data() + size_t(k) * cells + size_t(j) * size_t(d.nx()),
                      size_t(d.nx()), corner(dst[size_t(k)], d) + size_t(j) * gx);
    }
  return f;
}

template <class T>
std::vector<Probe> Engine<T>::probe(const std::vector<Index>& cells) const {
  const Index nx = scene_.grid.nx, ny = scene_.grid.ny;
  // h, hu, hv, hc of each cell, filled by the rank owning it; then every rank takes the owner's.
  std::vector<double> mine(4 * cells.size(), 0.0);
  std::vector<std::vector<Index>> offsets(parts_.size());
  std::vector<std::vector<size_t>> slots(parts_.size());
  for (size_t c = 0; c < cells.size(); ++c) {
    const Index k = cells[c];
    if (k < 0 || k >= nx * ny)
      throw Error(fmt::format("swe scene '{}': probe cell index {} is outside the {} x {} grid",
                              scene_.name, k, nx, ny));
    const partition::Subdomain& d = dec_.owner(k % nx, k / nx);
    if (d.id / per_rank_ != world_.rank()) continue;
    const size_t q = size_t(d.id % per_rank_);
    const Part<T>& p = *parts_[q];
    offsets[q].push_back(p.grid(p.h[cur_]).offset(k % nx - d.cells.i0, k / nx - d.cells.j0));
    slots[q].push_back(c);
  }
  // Each part's cells gathered on its device in one launch and copied back in one.
  for (size_t q = 0; q < parts_.size(); ++q) {
    if (offsets[q].empty()) continue;
    Part<T>& p = *parts_[q];
    activate(p.exec);
    if (offsets[q] != p.probe_offsets) {
      p.probe_off = DeviceBuffer<Index>(p.exec, Index(offsets[q].size()), "swe.probe_cells");
      p.probe_off.upload(offsets[q]);
      p.probe_values = DeviceBuffer<double>(p.exec, 4 * Index(offsets[q].size()), "swe.probes");
      p.probe_offsets = offsets[q];
    }
    phase_gather_cells(p.exec, p.edge_view(cur_), p.probe_off.data(), Index(offsets[q].size()),
                       p.probe_values.data());
    const std::vector<double> v = p.probe_values.download();
    for (size_t m = 0; m < slots[q].size(); ++m)
      std::copy(v.begin() + 4 * std::ptrdiff_t(m), v.begin() + 4 * std::ptrdiff_t(m + 1),
                mine.begin() + 4 * std::ptrdiff_t(slots[q][m]));
  }
  const std::vector<double> all = world_.allgather(mine.data(), int(mine.size()));
  std::vector<Probe> out;
  out.reserve(cells.size());
  const double dry = scene_.dry_depth;
  for (size_t c = 0; c < cells.size(); ++c) {
    const Index k = cells[c];
    const int rank = dec_.owner(k % nx, k / nx).id / per_rank_;
    const double* v = all.data() + size_t(rank) * mine.size() + 4 * c;
    const double h = v[0];
    Probe p;
    p.h = h;
    p.u = h > dry ? v[1] / h : 0.0;
    p.v = h > dry ? v[2] / h : 0.0;
    p.c = h > 0 ? v[3] / h : 0.0;
    out.push_back(p);
  }
  return out;
}

template <class T>
Totals Engine<T>::totals() const {
  // Depth, pollutant (per area), inflow volume, rain volume, infiltrated depth, then the flow
  // slots: each edge cell's and source's volume, non-zero on its owner alone (an exact sum).
  const size_t n_grid_edge = size_t(edge_slots(scene_.grid.nx, scene_.grid.ny));
  const size_t n_edge = size_t(layout_.n_edge());
  const size_t n_src = layout_.sources.size();
  const size_t n_flow = n_edge + n_src + layout_.sections.edges.size();
  std::vector<double> sums(5 + n_flow, 0.0);
  for (const auto& p : parts_) {
    const EdgeView<T> e = p->edge_view(cur_);
    activate(p->exec);
    sums[0] += sum_depth(p->exec, e);
    sums[1] += sum_pollutant(p->exec, e);
    const std::vector<double> c = p->clock.download();
    sums[2] += c[kInflow];
    sums[3] += c[kRainIn];
    sums[4] += p->forcing.infiltrated_depth(cur_);
    for (size_t k = 0; k < n_flow; ++k) sums[5 + k] += c[kClockSize + k];
  }
  world_.allreduce_sum(sums.data(), int(sums.size()));
  const double area = scene_.grid.dx * scene_.grid.dx;
  Totals t;
  t.volume = sums[0] * area;
  t.pollutant_mass = sums[1] * area;
  t.net_inflow_volume = sums[2];
  t.rain_volume = sums[3];
  t.infiltrated_volume = sums[4] * area;
  // Each segment's edges in the order of the sides and along them: the same sum on any split.
  t.boundary_volume.assign(layout_.seg_kind.size(), 0.0);
  // Then the mask edges of boundary lines, in key order.
  for (size_t k = 0; k < n_grid_edge; ++k)
    if (layout_.side_seg[k] >= 0) t.boundary_volume[size_t(layout_.side_seg[k])] += sums[5 + k];
  for (size_t k = n_grid_edge; k < n_edge; ++k)
    t.boundary_volume[size_t(layout_.mask_seg[k - n_grid_edge])] += sums[5 + k];
  const auto flow = sums.begin() + 5;
  // Each source's slots (an inflow line has one per cell) in order.
  t.source_volume.assign(scene_.sources.size(), 0.0);
  for (size_t k = 0; k < n_src; ++k)
    t.source_volume[size_t(layout_.source_of[k])] += flow[long(n_edge + k)];
  // Each section's edges in order, likewise.
  const SectionEdges& sec = layout_.sections;
  for (size_t s = 0; s + 1 < sec.offset.size(); ++s) {
    double v = 0.0;
    for (Index k = sec.offset[s]; k < sec.offset[s + 1]; ++k) v += flow[long(n_edge + n_src) + k];
    t.section_volume.push_back(v);
  }
  t.flows.assign(flow, sums.end());
  for (double v : t.boundary_volume) t.boundary_net_volume += v;
  for (double v : t.source_volume) t.source_net_volume += v;
  return t;
}

template <class T>
CommTimes Engine<T>::measure_communication(int repetitions) {
  CommTimes t = exchange_->measure(repetitions, cur_);
  t.parts = dec_.size();
  return t;
}

template <class T>
std::string Engine<T>::layout() const {
  const char* tiles = hancock_ ? "; muscl-hancock tile kernel"
                      : muscl_ ? "; muscl tile kernels"
                               : "; fused tile kernel";
  const std::string path = path_ == Path::tile ? tiles : path_ == Path::rows ? "; row step" : "";
  const Part<T>& p0 = *parts_.front();
  if (dec_.size() == 1 && p0.tile_list.tiles != nullptr)
    return fmt::format("one subdomain{} over {} of {} tiles (those with an active cell)", path,
                       p0.tile_list.count, p0.all_tiles);
  if (dec_.size() == 1) return "one subdomain" + path;
  std::string devices;
  for (const auto& p : parts_)
    devices += fmt::format("{}{}", devices.empty() ? "" : ",",
                           p->exec.is_cuda() ? fmt::format("cuda:{}", p->exec.device) : "cpu");
  return fmt::format("{} subdomains, {}; {} rank{} x [{}]{}", dec_.size(), dec_.describe(),
                     world_.size(), world_.size() == 1 ? "" : "s", devices, path);
}

template std::vector<double> Engine<float>::owned(const Part<float>&,
                                                  const DeviceBuffer<float>&) const;
template std::vector<double> Engine<float>::owned(const Part<float>&,
                                                  const DeviceBuffer<double>&) const;
template std::vector<double> Engine<double>::owned(const Part<double>&,
                                                   const DeviceBuffer<double>&) const;
template Fields Engine<float>::fields(unsigned) const;
template FieldsCopy Engine<float>::fields_async(unsigned) const;
template FieldsCopy Engine<double>::fields_async(unsigned) const;
template Fields Engine<double>::fields(unsigned) const;
template std::vector<Probe> Engine<float>::probe(const std::vector<Index>&) const;
template std::vector<Probe> Engine<double>::probe(const std::vector<Index>&) const;
template Totals Engine<float>::totals() const;
template Totals Engine<double>::totals() const;
template CommTimes Engine<float>::measure_communication(int);
template CommTimes Engine<double>::measure_communication(int);
template std::string Engine<float>::layout() const;
template std::string Engine<double>::layout() const;

}  // namespace silt::swe::detail
