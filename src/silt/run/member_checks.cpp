#include "silt/run/member_checks.hpp"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <thread>

namespace silt::run {

std::size_t check_workers(std::size_t in_flight, std::size_t members, std::size_t cells) {
  const std::size_t threads = std::size_t(std::max(omp_get_max_threads(), 1));
  const std::size_t small = cells > 0 ? kCheckCells / cells : 0;
  return std::max<std::size_t>(std::min({std::max(in_flight, small), threads, members}), 1);
}

std::vector<std::exception_ptr> check_each_member(std::size_t n, std::size_t workers,
                                                  const std::function<void(std::size_t)>& check) {
  std::vector<std::exception_ptr> errors(n);
  // The lowest member that failed so far: members after it need no check (its error is the
  // first reported).
  std::atomic<std::size_t> failed{n};
  const auto one = [&](std::size_t m) {
    if (m > failed) return;
    try {
      check(m);
    } catch (...) {
      errors[m] = std::current_exception();
      for (std::size_t f = failed; m < f && !failed.compare_exchange_weak(f, m);) {
      }
    }
  };
  if (workers <= 1) {
    for (std::size_t m = 0; m < n && m <= failed; ++m) one(m);
    return errors;
  }
  std::atomic<std::size_t> next{0};
  const auto work = [&] {
    omp_set_num_threads(1);  // this thread's own setting: its job's loops run on it alone
    for (std::size_t m; (m = next++) < n && m <= failed;) one(m);
  };
  std::vector<std::thread> pool;
  for (std::size_t w = 0; w < workers; ++w) pool.emplace_back(work);
  for (std::thread& t : pool) t.join();
  return errors;
}

}  // namespace silt::run
