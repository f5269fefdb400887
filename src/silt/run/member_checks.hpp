// Building every member's job before an ensemble runs (ensemble.hpp check_members, mpm_ensemble.hpp
// check_mpm_members) on several threads: 64 members of a 1M-cell flood are 64 scenes of 1M-cell
// arrays, about 10 ms each, which one thread built one after another (docs/NOTES.md, "The
// ensemble's wall outside its members").
#pragma once

#include <cstddef>
#include <exception>
#include <functional>
#include <vector>

namespace silt::run {

/// Cells of the member jobs built at once beyond the members in flight (~1-4 GB of host arrays):
/// small jobs (a 1M-cell flood) are checked on every OpenMP thread, large ones as many at once as
/// the run holds anyway.
constexpr std::size_t kCheckCells = std::size_t(64) << 20;

/// How many member jobs to build at once: the members the run has in flight (`in_flight`, the
/// member plan's workers, whose jobs the run holds at once anyway), or more while they hold at
/// most kCheckCells cells (`cells`: a job's; 0 when not known); at most OpenMP's threads and
/// `members`; at least 1.
std::size_t check_workers(std::size_t in_flight, std::size_t members, std::size_t cells = 0);

/// Calls check(m) for every m in [0, n): with workers <= 1 in this thread (OpenMP's threads as
/// they are), else on `workers` threads of one OpenMP thread each, taking the members in order.
/// Returns what each call threw (null: nothing, or not called: members after one that threw are
/// skipped); the caller reports them in member order, as a loop over the members stops at the
/// first.
std::vector<std::exception_ptr> check_each_member(std::size_t n, std::size_t workers,
                                                  const std::function<void(std::size_t)>& check);

}  // namespace silt::run
