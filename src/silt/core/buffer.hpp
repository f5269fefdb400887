// Owning memory: DeviceBuffer<T> (move-only, labelled, lives where its Exec runs) and
// GrowBuffer<T> (a DeviceBuffer that grows 4x when more than half full, paper 000 §3: no
// reallocation once a simulation runs in steady state). No cudaMalloc outside core/.
#pragma once

#include <cstddef>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "silt/core/config.hpp"
#include "silt/core/exec.hpp"
#include "silt/core/span.hpp"

namespace silt {

namespace detail {
/// Allocates bytes where exec runs; throws silt::Error naming the label, the size and the free
/// device memory when the allocation fails.
void* allocate(const Exec& exec, std::size_t bytes, const std::string& label);
void deallocate(const Exec& exec, void* p) noexcept;
/// Copies bytes between any two spaces and waits for the copy to finish.
void copy_bytes(void* dst, const Exec& dst_exec, const void* src, const Exec& src_exec,
                std::size_t bytes);
/// Sets bytes to zero (stream-ordered on CUDA, no host wait).
void zero_bytes(void* dst, const Exec& exec, std::size_t bytes);
}  // namespace detail

template <class T>
class DeviceBuffer {
  static_assert(std::is_trivially_copyable_v<T>, "DeviceBuffer holds trivially copyable types");

 public:
  using value_type = T;
  DeviceBuffer() = default;
  DeviceBuffer(const Exec& exec, Index n, std::string label)
      : exec_(exec), n_(n), label_(std::move(label)) {
    if (n_ > 0) ptr_ = static_cast<T*>(detail::allocate(exec_, bytes(), label_));
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& o) noexcept { swap(o); }
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    if (this != &o) {
      release();
      swap(o);
    }
    return *this;
  }
  ~DeviceBuffer() { release(); }

  Index size() const { return n_; }
  std::size_t bytes() const { return static_cast<std::size_t>(n_) * sizeof(T); }
  T* data() { return ptr_; }
  const T* data() const { return ptr_; }
  const Exec& exec() const { return exec_; }
  const std::string& label() const { return label_; }

  Span<T> span() { return Span<T>{ptr_, n_}; }
  Span<const T> span() const { return Span<const T>{ptr_, n_}; }

  void upload(const T* host, Index count, Index offset = 0) {
    detail::copy_bytes(ptr_ + offset, exec_, host, Exec::host(), sizeof(T) * count);
  }
  void upload(const std::vector<T>& host) { upload(host.data(), static_cast<Index>(host.size())); }
  void download(T* host, Index count, Index offset = 0) const {
    detail::copy_bytes(host, Exec::host(), ptr_ + offset, exec_, sizeof(T) * count);
  }
  std::vector<T> download() const {
    std::vector<T> v(static_cast<std::size_t>(n_));
    if (n_ > 0) download(v.data(), n_);
    return v;
  }
  T get(Index i) const {
    T v;
    download(&v, 1, i);
    return v;
  }
  void set(Index i, const T& v) { upload(&v, 1, i); }
  void zero() {
    if (n_ > 0) detail::zero_bytes(ptr_, exec_, bytes());
  }

 private:
  void release() noexcept {
    if (ptr_) detail::deallocate(exec_, ptr_);
    ptr_ = nullptr;
    n_ = 0;
  }
  void swap(DeviceBuffer& o) noexcept {
    std::swap(exec_, o.exec_);
    std::swap(ptr_, o.ptr_);
    std::swap(n_, o.n_);
    std::swap(label_, o.label_);
  }

  Exec exec_{};
  T* ptr_ = nullptr;
  Index n_ = 0;
  std::string label_;
};

/// Capacity policy of paper 000 §3: once a request exceeds half the capacity, reallocate to 4x the
/// request, so that a growing simulation reallocates O(log n) times and a steady one never.
template <class T>
class GrowBuffer {
 public:
  GrowBuffer() = default;
  GrowBuffer(const Exec& exec, Index initial_capacity, std::string label)
      : buf_(exec, initial_capacity, std::move(label)) {}

  Index capacity() const { return buf_.size(); }
  int reallocations() const { return reallocations_; }
  T* data() { return buf_.data(); }
  const T* data() const { return buf_.data(); }
  Span<T> span() { return buf_.span(); }
  Span<const T> span() const { return buf_.span(); }
  DeviceBuffer<T>& buffer() { return buf_; }
  const DeviceBuffer<T>& buffer() const { return buf_; }

  /// Makes room for `needed` elements, keeping the first `keep` ones. Returns true when the
  /// storage moved (views taken before are then stale).
  bool ensure(Index needed, Index keep) {
    if (2 * static_cast<long long>(needed) <= buf_.size()) return false;
    long long want = 4 * static_cast<long long>(needed);
    if (want > 0x7fffffffLL) want = 0x7fffffffLL;
    DeviceBuffer<T> bigger(buf_.exec(), static_cast<Index>(want), buf_.label());
    if (keep > 0)
      detail::copy_bytes(bigger.data(), bigger.exec(), buf_.data(), buf_.exec(), sizeof(T) * keep);
    buf_ = std::move(bigger);
    ++reallocations_;
    return true;
  }

 private:
  DeviceBuffer<T> buf_;
  int reallocations_ = 0;
};

}  // namespace silt
