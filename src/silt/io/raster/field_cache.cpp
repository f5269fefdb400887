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
std::shared_ptr<const FieldCache::Checked> FieldCache::field(const std::string& key,
                                                             const std::function<Checked()>& make) {
  const std::string k = "field " + key;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (const Entry* e = find(k)) return e->field;
  }
  auto made = std::make_shared<const Checked>(make());
  std::lock_guard<std::mutex> lock(mutex_);
  keep({k, made, nullptr});
  return made;
}

std::shared_ptr<const Raster> FieldCache::raster(const std::string& path,
                                                 const std::function<Raster()>& read) {
  const std::string k = "raster " + path;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (const Entry* e = find(k)) return e->raster;
  }
  auto made = std::make_shared<const Raster>(read());
  std::lock_guard<std::mutex> lock(mutex_);
  keep({k, nullptr, made});
  return made;
}

void FieldCache::clear() {
  std::lock_guard<std::mutex> lock(mutex_);
  entries_.clear();
}

}  // namespace silt::io
