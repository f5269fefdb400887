#include "silt/run/member_plan.hpp"

#include <algorithm>

namespace silt::run {

MemberPlan plan_members(std::size_t members, int at_once, bool parallel, bool cuda,
                        std::size_t devices, int host_threads) {
  MemberPlan p;
  const std::size_t lists = std::max<std::size_t>(devices, 1);
  std::size_t k = 1;
  if (parallel && at_once > 0)
    k = std::size_t(at_once);
  else if (parallel)
    k = cuda ? lists * std::size_t(kCudaMembersPerDevice) : std::size_t(std::max(host_threads, 1));
  k = std::max<std::size_t>(std::min(k, members), 1);
  for (std::size_t w = 0; w < k; ++w) p.device.push_back(cuda ? int(w % lists) : 0);
  // On the CPU a member's set-up takes the cores its steps would: none ahead there.
  if (cuda && k > 1) {
    const std::size_t ahead = std::min(lists * std::size_t(kCudaMembersAhead), members - k);
    for (std::size_t w = 0; w < ahead; ++w) p.ahead.push_back(int(w % lists));
  }
  // On the CPU a member in flight has one thread (one after another: all of them); on CUDA the
  // members share the host's threads for their outputs.
  if (cuda)
    p.threads = std::max(1, host_threads / int(k));
  else
    p.threads = parallel ? 1 : 0;
  return p;
}

std::vector<int> MemberPlan::workers() const {
  std::vector<int> w = device;
  w.insert(w.end(), ahead.begin(), ahead.end());
  return w;
}

std::vector<std::size_t> members_of_rank(std::size_t members, int rank, int ranks) {
  std::vector<std::size_t> mine;
  const std::size_t step = std::size_t(std::max(ranks, 1));
  for (std::size_t m = std::size_t(std::max(rank, 0)); m < members; m += step) mine.push_back(m);
  return mine;
}

std::size_t members_that_fit(std::size_t free_bytes, std::size_t member_bytes) {
  if (member_bytes == 0) return std::size_t(-1);
  return std::size_t(kMemberMemoryShare * double(free_bytes) / double(member_bytes));
}

std::vector<bool> workers_that_fit(const std::vector<int>& gpu,
                                   const std::map<int, std::size_t>& room) {
  std::map<int, std::size_t> taken;
  std::vector<bool> keep(gpu.size(), false);
  for (std::size_t w = 0; w < gpu.size(); ++w) {
    const auto r = room.find(gpu[w]);
    const std::size_t limit = r == room.end() ? std::size_t(-1) : r->second;
    keep[w] = taken[gpu[w]]++ < limit;
  }
  return keep;
}

}  // namespace silt::run
