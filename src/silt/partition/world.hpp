// The processes of a run. One process, or the ranks of MPI_COMM_WORLD when silt was built with
// MPI (SILT_MPI) and the process was started by an MPI launcher (mpirun sets OMPI_COMM_WORLD_SIZE,
// PMIX_RANK or PMI_SIZE). MPI is initialised on the first call to World::get() and finalised at
// exit. Debian's Open MPI is not CUDA-aware: every buffer handed to these functions is host memory.
// Without MPI every collective is the identity on a world of one rank.
#pragma once

#include <algorithm>
#include <cstddef>
#include <memory>
#include <type_traits>
#include <vector>

namespace silt::partition {

class World {
 public:
  /// The world of this process (initialises MPI the first time when launched by mpirun).
  static World& get();
  /// This process alone, as a world of one rank, even under mpirun (a split run over this
  /// process's devices only, e.g. the one-device baselines of a benchmark). Never calls MPI.
  static const World& self();

  int rank() const { return rank_; }
  int size() const { return size_; }
  /// Rank among the ranks of this machine (picks the GPU of a rank when one rank runs per GPU).
  int local_rank() const { return local_rank_; }
  bool distributed() const { return size_ > 1; }
  bool is_root() const { return rank_ == 0; }

  /// In place over all ranks: v[0, n_max) by max, v[n_max, n) by sum. The combination is
  /// order-independent for maxima and for integer-valued sums (exact in double below 2^53).
  void allreduce_max_sum(double* v, int n_max, int n) const;
  /// In place sum over ranks (order of summation up to MPI).
  void allreduce_sum(double* v, int n) const;
  /// Every rank's n values, rank after rank (size() * n values).
  std::vector<double> allgather(const double* v, int n) const;
  /// Blocking point-to-point transfer of n doubles (gathers of output fields).
  void send(const double* v, long long n, int to, int tag) const;
  void recv(double* v, long long n, int from, int tag) const;
  void barrier() const;
  /// Rank 0 gets every rank's v, rank after rank; the others get an empty vector. Blocking.
  template <class T>
  std::vector<T> gather_to_root(const std::vector<T>& v, int tag) const;
  /// All to all: to_rank[q] goes to rank q; returns what every rank sent to this one, by rank
  /// (this rank's own entry passes through). to_rank has size() entries. Blocking.
  template <class T>
  std::vector<std::vector<T>> exchange_all(std::vector<std::vector<T>> to_rank, int tag) const;
  /// Ends every rank now (MPI_Abort): for an error only this rank saw, so that no rank waits
  /// forever in a collective. Without MPI: std::abort().
  [[noreturn]] void abort(int code) const;

  /// Non-blocking messages of one halo exchange (MPI_Isend / MPI_Irecv), completed together.
  class Requests {
   public:
    Requests();
    ~Requests();
    Requests(const Requests&) = delete;
    Requests& operator=(const Requests&) = delete;
    void isend(const void* buf, std::size_t bytes, int to, int tag);
    void irecv(void* buf, std::size_t bytes, int from, int tag);
    /// Waits for every message posted since the last wait.
    void wait_all();
    bool empty() const;

   private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
  };

 private:
  World();
  struct SelfTag {};
  explicit World(SelfTag) {}
  int rank_ = 0, size_ = 1, local_rank_ = 0;
};

template <class T>
std::vector<T> World::gather_to_root(const std::vector<T>& v, int tag) const {
  static_assert(std::is_trivially_copyable_v<T>, "values travel as bytes");
  if (!distributed()) return v;
  const double mine = double(v.size());
  const std::vector<double> counts = allgather(&mine, 1);
  Requests req;
  if (!is_root()) {
    if (!v.empty()) req.isend(v.data(), sizeof(T) * v.size(), 0, tag);
    req.wait_all();
    return {};
  }
  std::vector<std::size_t> at(static_cast<std::size_t>(size()) + 1, 0);
  for (int r = 0; r < size(); ++r)
    at[std::size_t(r) + 1] = at[std::size_t(r)] + std::size_t(counts[std::size_t(r)]);
  std::vector<T> all(at.back());
  std::copy(v.begin(), v.end(), all.begin());
  for (int r = 1; r < size(); ++r)
    if (at[std::size_t(r) + 1] > at[std::size_t(r)])
      req.irecv(all.data() + at[std::size_t(r)],
                sizeof(T) * (at[std::size_t(r) + 1] - at[std::size_t(r)]), r, tag);
  req.wait_all();
  return all;
}

template <class T>
std::vector<std::vector<T>> World::exchange_all(std::vector<std::vector<T>> to_rank,
                                                int tag) const {
  static_assert(std::is_trivially_copyable_v<T>, "values travel as bytes");
  std::vector<std::vector<T>> from(static_cast<std::size_t>(size()));
  from[std::size_t(rank())] = std::move(to_rank[std::size_t(rank())]);
  if (!distributed()) return from;
  std::vector<double> row(static_cast<std::size_t>(size()));
  for (int q = 0; q < size(); ++q) row[std::size_t(q)] = double(to_rank[std::size_t(q)].size());
  const std::vector<double> sent = allgather(row.data(), size());  // sent[r * size + q]
  Requests req;
  for (int q = 0; q < size(); ++q) {
    if (q == rank()) continue;
    from[std::size_t(q)].resize(
        std::size_t(sent[std::size_t(q) * std::size_t(size()) + std::size_t(rank())]));
    if (!from[std::size_t(q)].empty())
      req.irecv(from[std::size_t(q)].data(), sizeof(T) * from[std::size_t(q)].size(), q, tag);
    if (!to_rank[std::size_t(q)].empty())
      req.isend(to_rank[std::size_t(q)].data(), sizeof(T) * to_rank[std::size_t(q)].size(), q, tag);
  }
  req.wait_all();
  return from;
}

/// True when this build has MPI support (SILT_MPI).
bool mpi_compiled();

}  // namespace silt::partition
