// An ensemble's members over MPI ranks (docs/ensembles.md, "Members over MPI ranks"): member m
// runs on rank m mod R (member_plan.hpp, members_of_rank), each rank with its own member pool;
// what a member leaves for the report (MemberBytes, ensemble_checkpoint.hpp) is gathered on rank
// 0 in member order, so the report is the one-process run's bit for bit. The ranks meet only at
// the ends of the phases: every phase before a meeting runs through on_every_rank, so that an
// error on one rank reaches every rank there instead of leaving the others waiting.
#pragma once

#include <cstddef>
#include <functional>
#include <string>

#include "silt/core/error.hpp"
#include "silt/partition/world.hpp"

namespace silt::run {

/// An error that every rank of an ensemble throws alike: the lowest failing rank's (its message,
/// after "rank k of R: " when k is not 0). Rank 0 reports it; the others end quietly.
class RanksError : public Error {
 public:
  using Error::Error;
};

/// Runs `phase` on this rank, then meets the other ranks: when any rank's phase threw, every rank
/// throws RanksError with the lowest failing rank's message. On one rank the phase's error
/// passes as it is.
void on_every_rank(const partition::World& world, const std::function<void()>& phase);

/// The members of this rank run by `run`, with `stop` as their stop (returns `run`'s signal). Over
/// several ranks a failure leaves failed_mark(checkpoint) (ensemble_checkpoint.hpp) in the folder
/// every rank sees, and every rank's members stop (SIGTERM) at their next frame once it is there:
/// the ranks meet only after their members, which may run for hours. The error itself travels
/// as on_every_rank's.
int run_members_on_ranks(const partition::World& world, const std::string& checkpoint,
                         std::function<int()>& stop, const std::function<int()>& run);

/// The largest of the ranks' signals (0: none stopped), on every rank.
int agree_on_signal(const partition::World& world, int signal);

/// Gathers on rank 0 what each rank's finished members left: `done(m)` for the members this rank
/// ran (members_of_rank), `pack(m)` their bytes, and on rank 0 `unpack(m, bytes)` for the others'
/// in member order. Returns the finished members over all ranks (on every rank).
std::size_t gather_members(const partition::World& world, std::size_t members,
                           const std::function<bool(std::size_t)>& done,
                           const std::function<std::string(std::size_t)>& pack,
                           const std::function<void(std::size_t, std::string)>& unpack);

}  // namespace silt::run
