// The member pool of an ensemble (ensemble.hpp, for_each_member): workers that each run members
// one after another, pulling the next from a shared counter. On the CPU a worker is one OpenMP
// thread; on CUDA each worker drives its own member's solver (its own streams and graphs: nothing
// in a step waits on the device as a whole, and stream capture is thread-local), several in
// flight per GPU, on the listed GPUs in turn, and a few more that build their next member while
// those step and then wait for a turn (member_turns.hpp). Before CUDA workers start, the first
// member measures what a member takes of its device and only as many as fit go on.
#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

#include "silt/core/device_memory.hpp"
#include "silt/core/error.hpp"
#include "silt/run/ensemble.hpp"
#include "silt/run/member_batch.hpp"
#include "silt/run/member_plan.hpp"
#include "silt/run/member_saver.hpp"
#include "silt/run/member_turns.hpp"

namespace silt::run {

namespace {

std::string gib(std::size_t bytes) {
  return fmt::format("{:.2f} GiB", double(bytes) / 1073741824.0);
}

// Holds workers 1.. of a CUDA pool until worker 0's first member has built its solver, whose
// memory says how many members each GPU holds; then lets through those that fit.
class MemoryGate {
 public:
  // workers: each worker's device index (MemberPlan::workers).
  MemoryGate(const std::vector<int>& workers, const std::vector<Exec>& execs)
      : open_(workers.size() <= 1 || !execs.front().is_cuda()) {
    for (const int d : workers) gpu_.push_back(execs[std::size_t(d)].device);
    keep_.assign(gpu_.size(), true);
  }
  // Worker 0, before each member while shut: its GPU's free memory.
  void before() {
    if (!is_open()) free_before_ = cuda_free_bytes(gpu_[0]);
  }
  // Worker 0, once a member's solver holds its memory: how many fit on each GPU. Returns the
  // log line when fewer than asked go on ("": all).
  std::string built() {
    if (is_open()) return {};
    const std::size_t now = cuda_free_bytes(gpu_[0]);
    const std::size_t member = free_before_ > now ? free_before_ - now : 0;
    std::map<int, std::size_t> room, free;
    for (const int g : gpu_) {
      if (room.count(g) || member == 0) continue;  // nothing measured: no limit
      free[g] = g == gpu_[0] ? now : cuda_free_bytes(g);
      const std::size_t fit = members_that_fit(free[g], member);
      room[g] = g == gpu_[0] ? 1 + fit : std::max<std::size_t>(fit, 1);
    }
    std::string line;
    const std::vector<bool> keep = workers_that_fit(gpu_, room);
    for (const auto& [g, n] : room) {
      const std::size_t asked = std::size_t(std::count(gpu_.begin(), gpu_.end(), g));
      if (n < asked)
        line += fmt::format(
            "{}members at once on cuda device {} lowered from {} to {}: a member takes {}, {} "
            "of the device is free",
            line.empty() ? "" : "; ", g, asked, n, gib(member), gib(free[g]));
    }
    {
      const std::lock_guard<std::mutex> lock(m_);
      keep_ = keep;
      open_ = true;
    }
    cv_.notify_all();
    return line;
  }
  // Worker 0 leaves its loop (the members are done, a stop, an error): nobody waits longer.
  void open() {
    {
      const std::lock_guard<std::mutex> lock(m_);
      open_ = true;
    }
    cv_.notify_all();
  }
  // Worker w > 0: waits for the gate; false when its GPU has no room for it.
  bool wait(std::size_t w) {
    std::unique_lock<std::mutex> lock(m_);
    cv_.wait(lock, [this] { return open_; });
    return keep_[w];
  }

 private:
  bool is_open() {
    const std::lock_guard<std::mutex> lock(m_);
    return open_;
  }
  std::vector<int> gpu_;  // each worker's CUDA device
  std::vector<bool> keep_;
  std::size_t free_before_ = 0;
  std::mutex m_;
  std::condition_variable cv_;
  bool open_;
};

// What the members' device buffers took from the block cache (core/block_cache.hpp): each block
// reused is a cudaMalloc and a cudaFree (a wait for the whole device) saved.
std::string blocks_line(const DeviceBlockStats& a, const DeviceBlockStats& b) {
  return fmt::format(
      "device blocks: {} asked for by the members, {} reused (no cudaMalloc, no cudaFree), {} "
      "cached now",
      b.allocations - a.allocations, b.reused - a.reused, gib(b.cached_bytes));
}

// Where the workers' wall goes outside their members: waiting at the memory gate, idle after
// their last member while others still run (the pool's tail), and the saver's last writes.
class PoolTimes {
 public:
  explicit PoolTimes(std::size_t workers) : gate_(workers, 0.0), last_(workers, -1.0) {}
  void gate_opened(std::size_t w) { gate_[w] = since_start(); }
  // Worker 0's first member: when it began and when its solver was built (the gate's measure).
  void first_began() {
    if (began_ < 0) began_ = since_start();
  }
  void first_built() {
    if (built_ < 0) built_ = since_start();
  }
  void worker_done(std::size_t w) { last_[w] = since_start(); }
  void members_done() { members_ = since_start(); }
  // "member pool: ..." once the saver has finished.
  std::string line() const {
    double gate = 0, idle = 0;
    for (std::size_t w = 0; w < last_.size(); ++w)
      if (last_[w] >= 0) {  // a worker that ran (not one the memory gate sent home)
        gate += gate_[w];
        idle += members_ - last_[w];
      }
    std::string first;  // where the gate's wait went, when workers waited at it
    if (built_ >= 0 && gate > 0)
      first = fmt::format(
          " (the pool's first member began {:.2f} s after its start, its solver was built at "
          "{:.2f} s, the last worker passed the gate at {:.2f} s)",
          began_, built_, *std::max_element(gate_.begin(), gate_.end()));
    return fmt::format(
        "member pool: {} workers, summed over them: {:.2f} s waiting for the first member's "
        "memory{}, {:.2f} s idle after their last member; saving ended {:.2f} s after the members",
        last_.size(), gate, first, idle, since_start() - members_);
  }

 private:
  double since_start() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::vector<double> gate_, last_;
  double members_ = 0, began_ = -1, built_ = -1;
};

// Whether the shallow-water members in flight on one device step together (member_batch.hpp):
// run.parallel "members", run.batch_members on, several workers. Not by default: on an H100 a
// whole ensemble run stepping together was no faster than in flight (0.63 against 0.65 of one
// 64M-cell run's kernels, bench/results/ensemble-batch-2026-12-06-h100.md) though its kernels
// alone are (0.88 against 0.71).
bool batches_members(const io::Ensemble& e, const MemberPlan& plan) {
  if (e.mpm || e.parallel != io::EnsembleParallel::members || plan.device.size() < 2) return false;
  return e.batch == io::EnsembleBatch::on;
}

// Sets this thread's OpenMP threads for the worker's life (0: as they are).
struct ThreadsFor {
  explicit ThreadsFor(int n) : before(omp_get_max_threads()) {
    if (n > 0) omp_set_num_threads(n);
  }
  ~ThreadsFor() { omp_set_num_threads(before); }
  int before;
};

// A worker's failure, rethrown in the caller's thread: silt's errors as they are, others named
// with the ensemble file.
[[noreturn]] void rethrow_as_error(const std::exception_ptr& error, const std::string& path) {
  try {
    std::rethrow_exception(error);
  } catch (const Error&) {
    throw;
  } catch (const std::exception& err) {
    throw Error(fmt::format("ensemble '{}': {}", path, err.what()));
  }
}

}  // namespace

MemberPlan member_plan(const io::Ensemble& e, const EnsembleOptions& o) {
  const bool cuda = o.execs.front().is_cuda();
  MemberPlan plan = plan_members(members_of_rank(e.members.size(), o.rank, o.ranks).size(),
                                 e.at_once, e.parallel == io::EnsembleParallel::members, cuda,
                                 o.execs.size(), omp_get_max_threads());
  // Members that step together start each step together: none waits for a turn. MPM members
  // are not built ahead: their set-up is small (0.005 s median of a 0.42 s sand column on an
  // H200) and building ahead made the 256-column sweep slower, 13.9 -> 16.2 s, its set-ups,
  // frames and teardowns each ~10x longer beside the launch-bound steps (docs/NOTES.md,
  // "Members built ahead, measured").
  if (e.mpm || batches_members(e, plan)) plan.ahead.clear();
  return plan;
}

namespace {

// One pool's run: the workers (w = 0 in the caller's thread, which also measures the first
// member's memory for the gate) and the state they share.
class Pool {
 public:
  Pool(const io::Ensemble& e, const EnsembleOptions& o, Progress& progress, const MemberRun& one,
       const std::function<std::string(std::size_t)>& line,
       const std::function<void(std::size_t)>& save)
      : e_(e),
        o_(o),
        progress_(progress),
        one_(one),
        line_(line),
        mine_(members_of_rank(e.members.size(), o.rank, o.ranks)),
        rank_(o.ranks > 1 ? fmt::format("rank {}: ", o.rank) : std::string()),
        plan_(member_plan(e, o)),
        workers_(plan_.workers()),
        gate_(workers_, o.execs),
        times_(workers_.size()),
        turns_(step_turns()),
        batches_(batch_groups()),
        saver_(!save ? std::function<void(std::size_t)>() : [this, save](std::size_t m) {
          try {
            save(m);  // a failed save ends the run as a failed member does
          } catch (...) {
            fail();
          }
        }) {}

  int run() {
    const DeviceBlockStats blocks_before = device_block_stats();
    std::vector<std::thread> pool;
    for (std::size_t w = 1; w < workers_.size(); ++w) pool.emplace_back([this, w] { work(w); });
    work(0);
    gate_.open();
    for (std::thread& t : pool) t.join();
    times_.members_done();
    saver_.finish();  // every finished member saved before the pool returns (a stop's checkpoint)
    log(rank_ + times_.line());
    for (const auto& [device, group] : batches_)
      if (const std::string s = group->summary(); !s.empty()) log(rank_ + s);
    if (o_.execs.front().is_cuda()) log(rank_ + blocks_line(blocks_before, device_block_stats()));
    if (error_) rethrow_as_error(error_, e_.path);
    return signal_;
  }

 private:
  void log(const std::string& text) {
    const std::lock_guard<std::mutex> lock(mutex_);
    progress_.log(text);
  }
  void fail() {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (!failed_) error_ = std::current_exception();
    failed_ = true;
  }
  // A member's stop: the command's signal, or another member's failure (the run ends with it).
  int stop() const {
    if (failed_) return int(SIGTERM);
    return o_.stop ? o_.stop() : 0;
  }
  // A group for each device with several workers (by CUDA device: `--devices 0,0` lists one
  // twice), when the members batch.
  std::map<int, std::unique_ptr<MemberBatch>> batch_groups() {
    std::map<int, std::unique_ptr<MemberBatch>> groups;
    if (!batches_members(e_, plan_)) return groups;
    std::map<int, std::size_t> workers;
    for (const int d : plan_.device) ++workers[o_.execs[std::size_t(d)].device];
    for (const int d : plan_.device) {
      const Exec& x = o_.execs[std::size_t(d)];
      if (workers[x.device] > 1 && !groups.count(x.device))
        groups[x.device] =
            std::make_unique<MemberBatch>(x, [this](const std::string& s) { log(rank_ + s); });
    }
    return groups;
  }
  // Each CUDA device's turns to step (as many as plan_.device lists it), when workers beyond
  // them build ahead; else none.
  std::unique_ptr<StepTurns> step_turns() const {
    if (plan_.ahead.empty()) return nullptr;
    std::map<int, std::size_t> turns;
    for (const int d : plan_.device) ++turns[o_.execs[std::size_t(d)].device];
    return std::make_unique<StepTurns>(turns);
  }
  MemberSlot slot_of(std::size_t w) {
    MemberSlot slot;
    slot.exec = o_.execs[std::size_t(workers_[w])];
    slot.turns = turns_.get();
    if (const auto it = batches_.find(slot.exec.device); it != batches_.end())
      slot.batch = it->second.get();
    slot.stop = [this] {
      return stop();
    };
    if (w == 0)
      slot.built = [this] {
        times_.first_built();
        const std::string lowered = gate_.built();
        if (!lowered.empty()) log(lowered);
      };
    return slot;
  }
  void work(std::size_t w) {
    const MemberSlot slot = slot_of(w);
    if (w != 0 && !gate_.wait(w)) return;
    times_.gate_opened(w);
    const ThreadsFor threads(plan_.threads);
    try {
      activate(slot.exec);
      for (std::size_t k; !failed_ && !signal_ && (k = next_++) < mine_.size();) {
        const std::size_t m = mine_[k];
        if (w == 0) {
          times_.first_began();
          gate_.before();
        }
        const int sig = one_(m, slot);  // its errors name the member
        if (sig && !failed_) signal_ = sig;
        if (sig) break;
        saver_.push(m);
        log(fmt::format("{}member {:>4}/{} '{}': {}", rank_, ++finished_, mine_.size(),
                        e_.members[m].name, line_(m)));
      }
    } catch (...) {
      fail();
    }
    times_.worker_done(w);
  }

  const io::Ensemble& e_;
  const EnsembleOptions& o_;
  Progress& progress_;
  const MemberRun& one_;
  const std::function<std::string(std::size_t)>& line_;
  const std::vector<std::size_t> mine_;
  const std::string rank_;  // "rank 1: " under MPI (of this rank's share), else empty
  const MemberPlan plan_;
  const std::vector<int> workers_;  // each worker's device index: plan_.device, then plan_.ahead
  MemoryGate gate_;
  PoolTimes times_;
  const std::unique_ptr<StepTurns> turns_;  // null: every worker steps at once
  // Each device's members stepping together (empty: each alone); by CUDA device (0 on the CPU).
  std::map<int, std::unique_ptr<MemberBatch>> batches_;
  std::atomic<std::size_t> next_{0}, finished_{0};
  std::atomic<int> signal_{0};
  std::atomic<bool> failed_{false};
  std::exception_ptr error_;
  std::mutex mutex_;   // the progress log and error_
  MemberSaver saver_;  // last: its thread ends before the state it calls into
};

}  // namespace

int for_each_member(const io::Ensemble& e, const EnsembleOptions& o, Progress& progress,
                    const MemberRun& one, const std::function<std::string(std::size_t)>& line,
                    const std::function<void(std::size_t)>& save) {
  return Pool(e, o, progress, one, line, save).run();
}

}  // namespace silt::run
