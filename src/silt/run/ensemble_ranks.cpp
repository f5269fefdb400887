#include "silt/run/ensemble_ranks.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <csignal>
#include <exception>
#include <filesystem>
#include <vector>

#include "silt/io/atomic_file.hpp"
#include "silt/run/ensemble_checkpoint.hpp"
#include "silt/run/member_plan.hpp"

namespace silt::run {

namespace fs = std::filesystem;

namespace {

// Message tags of the ensemble's transfers (nothing else is in flight between its meetings).
constexpr int kErrorTag = 3701;
constexpr int kMemberTag = 3702;

// The lowest failing rank's message, on every rank.
std::string first_error(const partition::World& world, const std::string& error) {
  const double mine = error.empty() ? 0.0 : 1.0;
  const std::vector<double> failed = world.allgather(&mine, 1);
  const auto first = std::find(failed.begin(), failed.end(), 1.0);
  if (first == failed.end()) return {};
  const int f = int(first - failed.begin());
  std::vector<std::vector<char>> to(std::size_t(world.size()));
  if (world.rank() == f)
    for (std::vector<char>& v : to) v.assign(error.begin(), error.end());
  const std::vector<std::vector<char>> from = world.exchange_all(std::move(to), kErrorTag);
  const std::string text(from[std::size_t(f)].begin(), from[std::size_t(f)].end());
  return f == 0 ? text : fmt::format("rank {} of {}: {}", f, world.size(), text);
}

}  // namespace

void on_every_rank(const partition::World& world, const std::function<void()>& phase) {
  if (!world.distributed()) return phase();
  std::string error;
  try {
    phase();
  } catch (const std::exception& e) {
    error = e.what();
    if (error.empty()) error = "an error without a message";
  } catch (...) {
    error = "an unknown error";
  }
  const std::string first = first_error(world, error);
  if (!first.empty()) throw RanksError(first);
}

int run_members_on_ranks(const partition::World& world, const std::string& checkpoint,
                         std::function<int()>& stop, const std::function<int()>& run) {
  if (!world.distributed() || checkpoint.empty()) return run();
  const std::string mark = failed_mark(checkpoint);
  stop = [mark, own = stop] {
    std::error_code ec;
    if (fs::exists(mark, ec)) return int(SIGTERM);
    return own ? own() : 0;
  };
  try {
    return run();
  } catch (const std::exception& e) {
    try {  // only a shortcut: the error travels at the meeting whether or not the mark is written
      io::write_text_atomically(mark, fmt::format("rank {}: {}\n", world.rank(), e.what()));
    } catch (const std::exception&) {
    }
    throw;
  }
}

int agree_on_signal(const partition::World& world, int signal) {
  double s = double(signal);
  world.allreduce_max_sum(&s, 1, 1);
  return int(s);
}

std::size_t gather_members(const partition::World& world, std::size_t members,
                           const std::function<bool(std::size_t)>& done,
                           const std::function<std::string(std::size_t)>& pack,
                           const std::function<void(std::size_t, std::string)>& unpack) {
  const int ranks = world.size();
  // Each member's bytes where it finished (0: not finished); one rank adds each: exact.
  std::vector<std::string> bytes(members);
  std::vector<double> size(members, 0.0);
  for (const std::size_t m : members_of_rank(members, world.rank(), ranks)) {
    if (!done(m)) continue;
    if (world.distributed()) bytes[m] = pack(m);
    size[m] = world.distributed() ? double(bytes[m].size()) : 1.0;
  }
  world.allreduce_sum(size.data(), int(members));
  partition::World::Requests req;
  // Messages from one rank with one tag arrive in the order sent: both sides go in member order.
  for (std::size_t m = 0; m < members && world.distributed(); ++m) {
    const int owner = int(m % std::size_t(ranks));
    if (size[m] == 0 || owner == 0) continue;
    if (world.is_root()) {
      bytes[m].resize(std::size_t(size[m]));
      req.irecv(bytes[m].data(), bytes[m].size(), owner, kMemberTag);
    } else if (owner == world.rank()) {
      req.isend(bytes[m].data(), bytes[m].size(), 0, kMemberTag);
    }
  }
  req.wait_all();
  std::size_t finished = 0;
  for (std::size_t m = 0; m < members; ++m) {
    if (size[m] == 0) continue;
    ++finished;
    if (world.is_root() && m % std::size_t(ranks) != 0) unpack(m, std::move(bytes[m]));
  }
  return finished;
}

}  // namespace silt::run
