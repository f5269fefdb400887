#include "silt/io/raster/field_cache.hpp"

#include <utility>

namespace silt::io {

const FieldCache::Entry* FieldCache::find(const std::string& key) const {
  for (const Entry& e : entries_)
    if (e.key == key) return &e;
  return nullptr;
}

void FieldCache::keep(Entry e) {
  if (entries_.size() < kFieldCacheEntries && !find(e.key)) entries_.push_back(std::move(e));
}

// Made outside the lock: threads reading other fields go on meanwhile. Two threads that miss the
// same key both make it (only while the first has not kept it; the first member's job is built
// alone before the others, ensemble.hpp check_members).
template <class V>
std::shared_ptr<const V> FieldCache::held(const std::string& key,
                                          std::shared_ptr<const V> Entry::*slot,
                                          const std::function<V()>& make) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (const Entry* e = find(key)) return e->*slot;
  }
  auto made = std::make_shared<const V>(make());
  Entry e{key, nullptr, nullptr};
  e.*slot = made;
  std::lock_guard<std::mutex> lock(mutex_);
  keep(std::move(e));
  return made;
}

std::shared_ptr<const FieldCache::Checked> FieldCache::field(const std::string& key,
                                                             const std::function<Checked()>& make) {
  return held("field " + key, &Entry::field, make);
}

std::shared_ptr<const Raster> FieldCache::raster(const std::string& path,
                                                 const std::function<Raster()>& read) {
  return held("raster " + path, &Entry::raster, read);
}

void FieldCache::clear() {
  std::lock_guard<std::mutex> lock(mutex_);
  entries_.clear();
}

}  // namespace silt::io
