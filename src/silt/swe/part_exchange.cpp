// The exchange between the parts of a split run (part_exchange.hpp).
#include "silt/swe/part_exchange.hpp"

#include <chrono>

namespace silt::swe::detail {

template <class T>
Exchange<T>::Exchange(Parts& parts, const partition::Decomposition& dec,
                      const partition::World& world, int per_rank, int layers)
    : parts_(parts), world_(world), k_(layers) {
  if (dec.size() <= 1) return;
  partition::LocalParts local;
  local.per_rank = per_rank;
  for (auto& p : parts_) {
    lanes_.emplace_back(p->exec);
    local.ids.push_back(p->sub.id);
    local.compute.push_back(p->exec);
    local.halo_lane.push_back(lanes_.back().exec());
  }
  halo_ = std::make_unique<partition::HaloExchange>(dec, local, k_, 4, sizeof(T), world_);
  if (parts_.front()->scene->infiltration.enabled())
    halo_F_ = std::make_unique<partition::HaloExchange>(dec, local, k_, 1, sizeof(double), world_);
  // Every part's scalars (Part::scalars): the largest wave speed by max, the counts and
  // conveyances after it by sum.
  reduce_ = partition::ScalarReduce(local.compute, int(parts_.front()->scalars.size()), 1, world_);
}

template <class T>
void Exchange<T>::agree_on_dt() {
  if (coupled()) reduce_.run(scalar_ptrs());
}

template <class T>
bool Exchange<T>::begin_if_due(int cur) {
  if (!coupled() || valid_ > 0) return false;
  halo_->begin(storage(cur));
  if (halo_F_) halo_F_->begin(infiltration_storage(cur));
  valid_ = k_;
  return true;
}

template <class T>
void Exchange<T>::finish() {
  halo_->finish();
  if (halo_F_) halo_F_->finish();
}

template <class T>
Index Exchange<T>::use_layer() {
  valid_ = valid_ > 0 ? valid_ - 1 : 0;
  return valid_;
}

template <class T>
Index Exchange<T>::stage_layers(int cur) {
  if (!coupled()) return 2;
  if (valid_ < 2) {
    refresh(cur, true);
    valid_ = k_;
  }
  return valid_;
}

template <class T>
Index Exchange<T>::star_layers(Index valid) {
  if (!coupled()) return 2;
  if (valid >= 2) return valid;
  refresh(2, false);
  return k_;
}

template <class T>
void Exchange<T>::refresh(int which, bool with_infiltration) {
  halo_->begin(storage(which));
  if (with_infiltration && halo_F_) halo_F_->begin(infiltration_storage(which));
  halo_->finish();
  if (with_infiltration && halo_F_) halo_F_->finish();
}

template <class T>
void Exchange<T>::fence_lanes() const {
  for (const auto& s : lanes_) fence(s.exec());
}

template <class T>
void Exchange<T>::fence_all() const {
  for (const auto& p : parts_) fence(p->exec);
  fence_lanes();
}

template <class T>
CommTimes Exchange<T>::measure(int repetitions, int cur) {
  CommTimes t;
  if (!coupled()) return t;
  t.exchange_bytes = double(halo_->bytes_per_exchange());
  if (repetitions < 1) return t;
  using clock = std::chrono::steady_clock;
  fence_all();
  world_.barrier();
  auto t0 = clock::now();
  for (int r = 0; r < repetitions; ++r) {
    // The halos receive the values they already hold (the owners' cells): the state is unchanged.
    halo_->begin(storage(cur));
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
    phase_step_scalars(*p, cur);
  }
  return t;
}

template <class T>
std::vector<double*> Exchange<T>::scalar_ptrs() {
  std::vector<double*> v;
  for (auto& p : parts_) v.push_back(p->scalars.data());
  return v;
}

template <class T>
std::vector<std::vector<void*>> Exchange<T>::storage(int which) {
  std::vector<std::vector<void*>> s;
  for (auto& p : parts_) s.push_back(p->exchanged(which));
  return s;
}

template <class T>
std::vector<std::vector<void*>> Exchange<T>::infiltration_storage(int which) {
  std::vector<std::vector<void*>> s;
  for (auto& p : parts_) s.push_back({p->forcing.F[which].data()});
  return s;
}

template class Exchange<float>;
template class Exchange<double>;

}  // namespace silt::swe::detail
