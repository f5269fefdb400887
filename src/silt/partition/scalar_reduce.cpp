#include "silt/partition/scalar_reduce.hpp"

#include <algorithm>

#include "silt/core/error.hpp"
#include "silt/core/parallel_for.hpp"

#if SILT_HAS_CUDA
#include <cuda_runtime.h>
#endif

namespace silt::partition {

namespace detail {

// Combines the gathered values of every part into `out` (the part's own values, which it also
// reads at position `self`): max for the first n_max, sum in part order for the rest.
void combine_on(const Exec& exec, double* out, const double* gathered, int parts, int self,
                int length, int n_max) {
  parallel_for(
      exec, "partition.reduce", 1, SILT_LAMBDA(Index) {
        for (int s = 0; s < length; ++s) {
          double acc = 0.0;
          for (int p = 0; p < parts; ++p) {
            const double v = p == self ? out[s] : gathered[p * length + s];
            acc = p == 0 ? v : s < n_max ? (v > acc ? v : acc) : acc + v;
          }
          out[s] = acc;
        }
      });
}

/// Every part's values in device memory of one device, combined in place by one thread.
struct StreamValues {
  static constexpr int kMax = 16;
  double* v[kMax] = {};
};

// The combination of run_host on the device: max for the first n_max, sum in part order for the
// rest, written back to every part.
void combine_stream(const Exec& exec, StreamValues sv, int parts, int length, int n_max) {
  parallel_for(
      exec, "partition.reduce_stream", 1, SILT_LAMBDA(Index) {
        for (int s = 0; s < length; ++s) {
          double acc = sv.v[0][s];
          for (int p = 1; p < parts; ++p) {
            const double v = sv.v[p][s];
            acc = s < n_max ? (v > acc ? v : acc) : acc + v;
          }
          for (int p = 0; p < parts; ++p) sv.v[p][s] = acc;
        }
      });
}

}  // namespace detail

ScalarReduce::ScalarReduce(const std::vector<Exec>& execs, int length, int n_max,
                           const World& world)
    : execs_(execs), length_(length), n_max_(n_max), world_(&world) {
  for (const Exec& e : execs_) cuda_ = cuda_ || e.is_cuda();
  host_.assign(execs_.size() * size_t(length_), 0.0);
  one_stream_ = cuda_ && !world.distributed() && execs_.size() > 1 &&
                execs_.size() <= std::size_t(detail::StreamValues::kMax);
  for (const Exec& e : execs_)
    one_stream_ = one_stream_ && e.is_cuda() && e.device == execs_.front().device &&
                  e.stream == execs_.front().stream;
  if (cuda_ && !world.distributed() && execs_.size() > 1 && !one_stream_) {
    const Index slots = Index(2 * execs_.size() * size_t(length_));
    for (const Exec& e : execs_) {
      SILT_REQUIRE(e.is_cuda(), "ScalarReduce: CUDA and host parts in one process");
      gather_.emplace_back(e, slots, "partition.reduce.gather");
      gather_.back().zero();
      sent_.emplace_back(e);
    }
  }
}

void ScalarReduce::run(const std::vector<double*>& values) {
  SILT_REQUIRE(values.size() == execs_.size(), "ScalarReduce: values per local part");
  if (length_ == 0) return;
  if (world_->distributed())
    run_world(values);
  else if (execs_.size() > 1 && one_stream_)
    run_stream(values);
  else if (execs_.size() > 1)
    cuda_ ? run_devices(values) : run_host(values);
}

void ScalarReduce::run_host(const std::vector<double*>& values) {
  const size_t n = values.size();
  for (int s = 0; s < length_; ++s) {
    double acc = values[0][s];
    for (size_t p = 1; p < n; ++p)
      acc = s < n_max_ ? std::max(acc, values[p][s]) : acc + values[p][s];
    for (size_t p = 0; p < n; ++p) values[p][s] = acc;
  }
}

void ScalarReduce::run_devices(const std::vector<double*>& values) {
#if SILT_HAS_CUDA
  const int parts = int(execs_.size());
  const size_t set = size_t(parts) * size_t(length_);
  const size_t bytes = sizeof(double) * size_t(length_);
  for (int p = 0; p < parts; ++p) {
    const Exec& e = execs_[size_t(p)];
    activate(e);
    for (int q = 0; q < parts; ++q) {
      if (q == p) continue;
      double* slot = gather_[size_t(q)].data() + size_t(parity_) * set + size_t(p) * length_;
      SILT_CUDA_CHECK(cudaMemcpyAsync(slot, values[size_t(p)], bytes, cudaMemcpyDefault, e.stream));
    }
    sent_[size_t(p)].record(e);
  }
  for (int q = 0; q < parts; ++q) {
    const Exec& e = execs_[size_t(q)];
    for (int p = 0; p < parts; ++p)
      if (p != q) sent_[size_t(p)].wait(e);
    detail::combine_on(e, values[size_t(q)], gather_[size_t(q)].data() + size_t(parity_) * set,
                       parts, q, length_, n_max_);
  }
  parity_ = 1 - parity_;
#else
  (void)values;
  throw Error("ScalarReduce: CUDA parts in a build without the CUDA backend");
#endif
}

void ScalarReduce::run_stream(const std::vector<double*>& values) {
  detail::StreamValues sv;
  for (std::size_t p = 0; p < values.size(); ++p) sv.v[p] = values[p];
  activate(execs_.front());
  detail::combine_stream(execs_.front(), sv, int(values.size()), length_, n_max_);
}

void ScalarReduce::run_world(const std::vector<double*>& values) {
  const size_t n = values.size(), len = size_t(length_);
  for (size_t p = 0; p < n; ++p)
    silt::detail::copy_bytes(host_.data() + p * len, Exec::host(), values[p], execs_[p],
                             sizeof(double) * len);
  std::vector<double*> local(n);
  for (size_t p = 0; p < n; ++p) local[p] = host_.data() + p * len;
  run_host(local);
  world_->allreduce_max_sum(host_.data(), n_max_, length_);
  for (size_t p = 0; p < n; ++p)
    silt::detail::copy_bytes(values[p], execs_[p], host_.data(), Exec::host(),
                             sizeof(double) * len);
}

}  // namespace silt::partition
