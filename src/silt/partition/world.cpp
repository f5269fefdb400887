#include "silt/partition/world.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <cstdlib>

#include "silt/core/error.hpp"

#if defined(SILT_WITH_MPI)
#include <mpi.h>
#endif

namespace silt::partition {

bool mpi_compiled() {
#if defined(SILT_WITH_MPI)
  return true;
#else
  return false;
#endif
}

namespace {

int env_int(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::atoi(v) : fallback;
}

#if defined(SILT_WITH_MPI)
bool launched_by_mpi() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE", "PMI_RANK"})
    if (std::getenv(name)) return true;
  return false;
}

void check(int code, const char* what) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(code, text, &len);
  throw Error(fmt::format("MPI: {} failed: {}", what, std::string(text, size_t(len))));
}

void finalize_at_exit() {
  int done = 0;
  MPI_Finalized(&done);
  if (!done) MPI_Finalize();
}

// MPI_Op for allreduce_max_sum: the first g_n_max values by max, the rest by sum. The count is
// a file-level setting because an MPI user function has no context argument; World's
// collectives are called from one host thread.
int g_n_max = 0;
void max_sum_op(void* in, void* inout, int* len, MPI_Datatype*) {
  const double* a = static_cast<const double*>(in);
  double* b = static_cast<double*>(inout);
  for (int k = 0; k < *len; ++k) b[k] = k < g_n_max ? std::max(a[k], b[k]) : a[k] + b[k];
}

// Largest MPI count per call for a transfer of doubles.
constexpr long long kChunk = 1LL << 28;
#endif

}  // namespace

World::World() {
#if !defined(SILT_WITH_MPI)
  // Ranks that do not know of each other would each run the whole scene into the same files.
  const int launched = env_int("OMPI_COMM_WORLD_SIZE", env_int("PMI_SIZE", 1));
  if (launched > 1)
    throw Error(fmt::format(
        "started as one of {} MPI ranks, but this build of silt has no MPI (install Open MPI "
        "with its development files, libopenmpi-dev, and rebuild)",
        launched));
#else
  if (!launched_by_mpi()) return;
  int inited = 0;
  MPI_Initialized(&inited);
  if (!inited) {
    int provided = 0;
    // OpenMP threads never call MPI: FUNNELED is enough.
    check(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
    std::atexit(finalize_at_exit);
  }
  check(MPI_Comm_rank(MPI_COMM_WORLD, &rank_), "MPI_Comm_rank");
  check(MPI_Comm_size(MPI_COMM_WORLD, &size_), "MPI_Comm_size");
  local_rank_ = env_int("OMPI_COMM_WORLD_LOCAL_RANK", env_int("MPI_LOCALRANKID", rank_));
#endif
}

World& World::get() {
  static World w;
  return w;
}

const World& World::self() {
  static const World w{SelfTag{}};
  return w;
}

void World::allreduce_max_sum(double* v, int n_max, int n) const {
#if defined(SILT_WITH_MPI)
  if (size_ == 1 || n == 0) return;
  static MPI_Op op = [] {
    MPI_Op o;
    check(MPI_Op_create(max_sum_op, /*commute=*/1, &o), "MPI_Op_create");
    return o;
  }();
  g_n_max = n_max;
  check(MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_DOUBLE, op, MPI_COMM_WORLD), "MPI_Allreduce");
#else
  (void)v, (void)n_max, (void)n;
#endif
}

void World::allreduce_sum(double* v, int n) const {
#if defined(SILT_WITH_MPI)
  if (size_ == 1 || n == 0) return;
  check(MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD), "MPI_Allreduce");
#else
  (void)v, (void)n;
#endif
}

std::vector<double> World::allgather(const double* v, int n) const {
  std::vector<double> all(size_t(size_) * size_t(n));
#if defined(SILT_WITH_MPI)
  if (size_ > 1) {
    check(MPI_Allgather(v, n, MPI_DOUBLE, all.data(), n, MPI_DOUBLE, MPI_COMM_WORLD),
          "MPI_Allgather");
    return all;
  }
#endif
  std::copy(v, v + n, all.begin());
  return all;
}

void World::send(const double* v, long long n, int to, int tag) const {
#if defined(SILT_WITH_MPI)
  for (long long off = 0; off < n; off += kChunk)
    check(MPI_Send(v + off, int(std::min(kChunk, n - off)), MPI_DOUBLE, to, tag, MPI_COMM_WORLD),
          "MPI_Send");
#else
  (void)v, (void)n, (void)to, (void)tag;
  throw Error("World::send: this build has no MPI");
#endif
}

void World::recv(double* v, long long n, int from, int tag) const {
#if defined(SILT_WITH_MPI)
  for (long long off = 0; off < n; off += kChunk)
    check(MPI_Recv(v + off, int(std::min(kChunk, n - off)), MPI_DOUBLE, from, tag, MPI_COMM_WORLD,
                   MPI_STATUS_IGNORE),
          "MPI_Recv");
#else
  (void)v, (void)n, (void)from, (void)tag;
  throw Error("World::recv: this build has no MPI");
#endif
}

void World::barrier() const {
#if defined(SILT_WITH_MPI)
  if (size_ > 1) check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
#endif
}

void World::abort(int code) const {
#if defined(SILT_WITH_MPI)
  if (size_ > 1) MPI_Abort(MPI_COMM_WORLD, code);
#endif
  (void)code;
  std::abort();
}

#if defined(SILT_WITH_MPI)
struct World::Requests::Impl {
  std::vector<MPI_Request> req;

  /// A request for a message of `bytes` (MPI counts are int).
  MPI_Request* add(std::size_t bytes) {
    if (bytes > size_t(INT_MAX)) throw Error(fmt::format("MPI message of {} bytes", bytes));
    return &req.emplace_back();
  }
};

World::Requests::Requests() : impl_(std::make_unique<Impl>()) {}
World::Requests::~Requests() {
  // Messages still in flight when an exchange is abandoned (an error) must complete before their
  // buffers go away.
  if (!impl_->req.empty())
    MPI_Waitall(int(impl_->req.size()), impl_->req.data(), MPI_STATUSES_IGNORE);
}

void World::Requests::isend(const void* buf, std::size_t bytes, int to, int tag) {
  MPI_Request* r = impl_->add(bytes);
  check(MPI_Isend(buf, int(bytes), MPI_BYTE, to, tag, MPI_COMM_WORLD, r), "MPI_Isend");
}

void World::Requests::irecv(void* buf, std::size_t bytes, int from, int tag) {
  MPI_Request* r = impl_->add(bytes);
  check(MPI_Irecv(buf, int(bytes), MPI_BYTE, from, tag, MPI_COMM_WORLD, r), "MPI_Irecv");
}

void World::Requests::wait_all() {
  if (impl_->req.empty()) return;
  const int code = MPI_Waitall(int(impl_->req.size()), impl_->req.data(), MPI_STATUSES_IGNORE);
  impl_->req.clear();
  check(code, "MPI_Waitall");
}

bool World::Requests::empty() const {
  return impl_->req.empty();
}

#else  // no MPI: nothing can be posted, so there is never anything to wait for

struct World::Requests::Impl {};

World::Requests::Requests() : impl_(std::make_unique<Impl>()) {}
World::Requests::~Requests() = default;

void World::Requests::isend(const void*, std::size_t, int, int) {
  throw Error("World::Requests::isend: this build has no MPI");
}

void World::Requests::irecv(void*, std::size_t, int, int) {
  throw Error("World::Requests::irecv: this build has no MPI");
}

void World::Requests::wait_all() {}

bool World::Requests::empty() const {
  return true;
}
#endif

}  // namespace silt::partition
