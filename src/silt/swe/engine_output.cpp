// What the engine gives back: the whole grid's fields gathered to rank 0, probes and totals on
// every rank, the layout, and the communication between parts timed on its own for the benchmark.
#include <fmt/format.h>

#include <chrono>

#include "silt/core/error.hpp"
#include "silt/swe/engine_parts.hpp"
#include "silt/swe/phases.hpp"

namespace silt::swe::detail {

namespace {
// Tag of the field gathers: one message per remote subdomain, in subdomain order, so a single tag
// suffices (MPI keeps the order of messages between two ranks).
constexpr int kGatherTag = 32000;
constexpr int kStateFields = 5;   // h, hu, hv, hc, max depth
constexpr int kHazardFields = 6;  // with hazard outputs: HazardBuffers' fields
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
Fields Engine<T>::fields() const {
  Fields f;
  f.nx = scene_.grid.nx;
  f.ny = scene_.grid.ny;
  std::vector<std::vector<double>*> dst = {&f.h, &f.hu, &f.hv, &f.hc, &f.max_depth};
  if (scene_.hazard.enabled)
    dst.insert(dst.end(), {&f.max_speed, &f.max_depth_speed, &f.max_concentration, &f.max_rating,
                           &f.first_wet_time, &f.wet_duration});
  const int gathered = int(dst.size());
  const auto place = [&](const partition::Subdomain& d, const double* packed) {
    const size_t cells = size_t(d.nx()) * size_t(d.ny());
    for (int k = 0; k < gathered; ++k)
      for (Index j = 0; j < d.ny(); ++j)
        for (Index i = 0; i < d.nx(); ++i)
          (*dst[k])[size_t(j + d.cells.j0) * size_t(f.nx) + size_t(i + d.cells.i0)] =
              packed[size_t(k) * cells + size_t(j) * size_t(d.nx()) + size_t(i)];
  };
  const bool root = world_.is_root();
  if (root)
    for (auto* v : dst) v->assign(size_t(f.nx) * size_t(f.ny), 0.0);
  for (const auto& p : parts_) {
    const DeviceBuffer<T>* src[kStateFields] = {&p->h[cur_], &p->hu[cur_], &p->hv[cur_],
                                                &p->hc[cur_], &p->max_depth};
    std::vector<double> packed;
    const auto pack = [&](const std::vector<double>& o) {
      packed.insert(packed.end(), o.begin(), o.end());
    };
    for (const auto* b : src) pack(owned(*p, *b));
    if (scene_.hazard.enabled) {
      const HazardBuffers<T>& z = p->hazard;
      for (const auto* b : {&z.max_speed, &z.max_depth_speed, &z.max_conc, &z.max_rating})
        pack(owned(*p, *b));
      pack(owned(*p, z.first_wet));
      pack(owned(*p, z.wet_time));
    }
    if (root)
      place(p->sub, packed.data());
    else
      world_.send(packed.data(), static_cast<long long>(packed.size()), 0, kGatherTag);
  }
  if (root && world_.distributed())
    for (const partition::Subdomain& d : dec_.parts) {
      const int rank = d.id / per_rank_;
      if (rank == 0) continue;
      std::vector<double> packed(size_t(gathered) * size_t(d.nx()) * size_t(d.ny()));
      world_.recv(packed.data(), static_cast<long long>(packed.size()), rank, kGatherTag);
      place(d, packed.data());
    }
  return f;
}

template <class T>
std::vector<Probe> Engine<T>::probe(const std::vector<Index>& cells) const {
  const Index nx = scene_.grid.nx, ny = scene_.grid.ny;
  // h, hu, hv, hc of each cell, filled by the rank owning it; then every rank takes the owner's.
  std::vector<double> mine(4 * cells.size(), 0.0);
  for (size_t c = 0; c < cells.size(); ++c) {
    const Index k = cells[c];
    if (k < 0 || k >= nx * ny)
      throw Error(fmt::format("swe scene '{}': probe cell index {} is outside the {} x {} grid",
                              scene_.name, k, nx, ny));
    const partition::Subdomain& d = dec_.owner(k % nx, k / nx);
    if (d.id / per_rank_ != world_.rank()) continue;
    const Part<T>& p = *parts_[size_t(d.id % per_rank_)];
    const Index o = p.grid(p.h[cur_]).offset(k % nx - d.cells.i0, k / nx - d.cells.j0);
    mine[4 * c] = double(p.h[cur_].get(o));
    mine[4 * c + 1] = double(p.hu[cur_].get(o));
    mine[4 * c + 2] = double(p.hv[cur_].get(o));
    mine[4 * c + 3] = double(p.hc[cur_].get(o));
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
  double sums[3] = {0, 0, 0};  // depth, pollutant (per area), inflow volume
  for (const auto& p : parts_) {
    const EdgeView<T> e = p->edge_view(cur_);
    activate(p->exec);
    sums[0] += sum_depth(p->exec, e);
    sums[1] += sum_pollutant(p->exec, e);
    sums[2] += p->clock.get(kInflow);
  }
  world_.allreduce_sum(sums, 3);
  const double area = scene_.grid.dx * scene_.grid.dx;
  Totals t;
  t.volume = sums[0] * area;
  t.pollutant_mass = sums[1] * area;
  t.inflow_volume = sums[2];
  return t;
}

template <class T>
CommTimes Engine<T>::measure_communication(int repetitions) {
  CommTimes t;
  t.parts = dec_.size();
  if (!coupled()) return t;
  t.exchange_bytes = double(halo_->bytes_per_exchange());
  if (repetitions < 1) return t;
  using clock = std::chrono::steady_clock;
  fence_all();
  world_.barrier();
  auto t0 = clock::now();
  for (int r = 0; r < repetitions; ++r) {
    // The halos receive the values they already hold (the owners' cells): the state is unchanged.
    halo_->begin(storage(cur_));
    halo_->finish();
    fence_all();
  }
  world_.barrier();
  t.exchange_s = std::chrono::duration<double>(clock::now() - t0).count() / repetitions;
  t0 = clock::now();
  for (int r = 0; r < repetitions; ++r) {
    reduce_.run(scalar_ptrs());
    fence_all();
  }
  world_.barrier();
  t.reduce_s = std::chrono::duration<double>(clock::now() - t0).count() / repetitions;
  // The sums of the reduction are not idempotent: recompute this step's scalars.
  for (auto& p : parts_) {
    activate(p->exec);
    phase_step_scalars(*p, cur_);
  }
  return t;
}

template <class T>
std::string Engine<T>::layout() const {
  const std::string path = path_ == Path::tile   ? "; fused tile kernel"
                           : path_ == Path::rows ? "; row step"
                                                 : "";
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
template Fields Engine<float>::fields() const;
template Fields Engine<double>::fields() const;
template std::vector<Probe> Engine<float>::probe(const std::vector<Index>&) const;
template std::vector<Probe> Engine<double>::probe(const std::vector<Index>&) const;
template Totals Engine<float>::totals() const;
template Totals Engine<double>::totals() const;
template CommTimes Engine<float>::measure_communication(int);
template CommTimes Engine<double>::measure_communication(int);
template std::string Engine<float>::layout() const;
template std::string Engine<double>::layout() const;

}  // namespace silt::swe::detail
