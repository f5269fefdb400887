#include "silt/core/block_cache.hpp"

#include <vector>

namespace silt::detail {

BlockCache::~BlockCache() {
  for (auto& [key, blocks] : cached_)
    for (const Cached& c : blocks) {
      if (c.mark) backend_.wait_and_drop(key.first, c.mark);
      backend_.free(key.first, c.p);
    }
}

void* BlockCache::allocate(int device, std::size_t bytes) {
  Cached hit{nullptr, nullptr};
  {
    const std::lock_guard<std::mutex> lock(m_);
    ++stats_.allocations;
    const auto it = cached_.find(Key{device, bytes});
    if (it != cached_.end() && !it->second.empty()) {
      hit = it->second.front();
      it->second.pop_front();
      stats_.cached_bytes -= bytes;
      ++stats_.reused;
      live_[hit.p] = bytes;
    }
  }
  if (hit.p) {
    if (hit.mark) backend_.wait_and_drop(device, hit.mark);  // outside the lock
    return hit.p;
  }
  void* p = backend_.allocate(device, bytes);
  if (!p && release(device) > 0) p = backend_.allocate(device, bytes);
  if (p) {
    const std::lock_guard<std::mutex> lock(m_);
    live_[p] = bytes;
  }
  return p;
}

std::size_t BlockCache::forget(void* p) {
  const std::lock_guard<std::mutex> lock(m_);
  ++stats_.frees;
  const auto it = live_.find(p);
  if (it == live_.end()) return 0;
  const std::size_t bytes = it->second;
  live_.erase(it);
  return bytes;
}

void BlockCache::hold(int device, void* p, std::size_t bytes, void* mark) {
  const std::lock_guard<std::mutex> lock(m_);
  cached_[Key{device, bytes}].push_back(Cached{p, mark});
  stats_.cached_bytes += bytes;
}

void BlockCache::free(int device, void* p, void* stream) {
  if (!p) return;
  const std::size_t bytes = forget(p);
  void* mark = bytes > 0 && stream ? backend_.mark(device, stream) : nullptr;
  if (!mark) {
    backend_.free(device, p);
    return;
  }
  hold(device, p, bytes, mark);
}

void BlockCache::keep(int device, void* p) {
  if (!p) return;
  const std::size_t bytes = forget(p);
  if (bytes == 0) {
    backend_.free(device, p);
    return;
  }
  hold(device, p, bytes, nullptr);
}

long long BlockCache::release(int device) {
  std::vector<Cached> gone;
  {
    const std::lock_guard<std::mutex> lock(m_);
    for (auto& [key, blocks] : cached_) {
      if (key.first != device) continue;
      for (const Cached& c : blocks) {
        gone.push_back(c);
        stats_.cached_bytes -= key.second;
      }
      blocks.clear();
    }
    stats_.released += static_cast<long long>(gone.size());
  }
  for (const Cached& c : gone) {
    if (c.mark) backend_.wait_and_drop(device, c.mark);
    backend_.free(device, c.p);
  }
  return static_cast<long long>(gone.size());
}

std::size_t BlockCache::cached_bytes(int device) const {
  const std::lock_guard<std::mutex> lock(m_);
  std::size_t bytes = 0;
  for (const auto& [key, blocks] : cached_)
    if (key.first == device) bytes += key.second * blocks.size();
  return bytes;
}

BlockCacheStats BlockCache::stats() const {
  const std::lock_guard<std::mutex> lock(m_);
  return stats_;
}

}  // namespace silt::detail
