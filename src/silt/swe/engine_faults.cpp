// Device faults of the engine's parts (NaN, negative depth, collapsing time step), read once per
// batch of steps. Collective: every rank learns the earliest fault of any part (its step, then the
// lowest part), and every rank throws the same error, so none waits for another.
#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "silt/core/error.hpp"
#include "silt/swe/engine_parts.hpp"
#include "silt/swe/kernels/cell_update_k.hpp"
#include "silt/swe/kernels/cfl_k.hpp"

namespace silt::swe::detail {

namespace {

const char* fault_name(int code) {
  return code == kFaultNaN             ? "NaN in the state"
         : code == kFaultNegativeDepth ? "negative depth"
         : code == kFaultTimeStep      ? "collapsing time step"
                                       : "unknown device fault";
}

}  // namespace

template <class T>
std::string Engine<T>::where(int part, int device) const {
  const int rank = part / per_rank_;
  return fmt::format("subdomain {} of {} (rank {} of {}, {})", part, dec_.size(), rank,
                     world_.size(), device >= 0 ? fmt::format("cuda device {}", device) : "cpu");
}

// A collapsing time step is raised by every part alike: the fastest owned cell of all parts sets
// the step (ties to the lowest global cell, as one scan over the grid in order finds it). Returns
// the fault message's detail.
template <class T>
std::string Engine<T>::fastest_cell(double& speed, long long& cell, int& part, int& device) const {
  double fastest[4] = {-1.0, -1.0, 0.0, -1.0};  // speed, cell, part, device
  for (const auto& p : parts_) {
    const auto h = owned(*p, p->h[cur_]), hu = owned(*p, p->hu[cur_]), hv = owned(*p, p->hv[cur_]);
    const partition::Subdomain& d = p->sub;
    for (Index j = 0; j < p->ny; ++j)
      for (Index i = 0; i < p->nx; ++i) {
        const size_t k = size_t(j) * size_t(p->nx) + size_t(i);
        const size_t g = size_t(j + d.cells.j0) * size_t(scene_.grid.nx) + size_t(i + d.cells.i0);
        if (!layout_.active[g]) continue;
        const double sp = wave_speed_k(h[k], hu[k], hv[k], scene_.gravity, scene_.dry_depth);
        if (sp > fastest[0] || (sp == fastest[0] && double(g) < fastest[1]))
          fastest[0] = sp, fastest[1] = double(g), fastest[2] = d.id,
          fastest[3] = p->exec.is_cuda() ? p->exec.device : -1;
      }
  }
  const std::vector<double> speeds = world_.allgather(fastest, 4);
  for (size_t r = 0; r < speeds.size(); r += 4)
    if (speeds[r] > fastest[0] || (speeds[r] == fastest[0] && speeds[r + 1] < fastest[1]))
      std::copy(speeds.begin() + r, speeds.begin() + r + 4, fastest);
  speed = fastest[0];
  cell = static_cast<long long>(fastest[1]);
  part = int(fastest[2]);
  device = int(fastest[3]);
  return fmt::format(" (CFL step {:.3g} s < min_dt = {:.3g} s; wave speed {:.6g} m/s there)",
                     scene_.cfl * scene_.grid.dx / std::max(speed, 1e-300), scene_.min_dt, speed);
}

template <class T>
void Engine<T>::check_faults(const Clock& c, bool restore) {
  faults_unread_ = false;
  constexpr int kFields = 5;  // step, part, code, global cell, device
  const double none = std::numeric_limits<double>::infinity();
  double mine[kFields] = {none, 0, 0, -1, -1};
  for (auto& p : parts_) {
    const Fault f = p->fault.read();
    if (!f) continue;
    const double step = f.aux, id = p->sub.id;
    if (step < mine[0] || (step == mine[0] && id < mine[1])) {
      mine[0] = step;
      mine[1] = id;
      mine[2] = f.code;
      mine[3] = f.index;
      mine[4] = p->exec.is_cuda() ? p->exec.device : -1;
    }
  }
  const std::vector<double> all = world_.allgather(mine, kFields);
  const double* best = nullptr;
  for (size_t r = 0; r < all.size(); r += kFields) {
    const double* f = all.data() + r;
    if (f[0] == none) continue;
    if (!best || f[0] < best[0] || (f[0] == best[0] && f[1] < best[1])) best = f;
  }
  if (!best) return;
  const int code = int(best[2]);
  long long cell = static_cast<long long>(best[3]);
  int part = int(best[1]), device = int(best[4]);
  std::string extra;
  if (code == kFaultTimeStep) {
    double speed = 0;
    extra = fastest_cell(speed, cell, part, device);
  }
  const Index nx = scene_.grid.nx;
  const Index i = cell >= 0 ? Index(cell % nx) : -1, j = cell >= 0 ? Index(cell / nx) : -1;
  // One part: the cell says it all.
  const std::string in = dec_.size() > 1 ? ", in " + where(part, device) : "";
  const std::string msg = fmt::format(
      "swe scene '{}': {} in cell ({}, {}) at x = {:.6g} m, y = {:.6g} m, step {}, t = {:.9g} s"
      "{}{}{}",
      scene_.name, fault_name(code), i, j, scene_.grid.x0 + (i + 0.5) * scene_.grid.dx,
      scene_.grid.y0 + (j + 0.5) * scene_.grid.dx, static_cast<long long>(best[0]), c[kTime], in,
      extra, restore ? "; the state of the last good check is kept" : "");
  if (restore) {
    for (auto& p : parts_) {
      activate(p->exec);
      p->copy_state(cur_, /*to_backup=*/false);
    }
    clock_known_ = false;
    update_speed();
    exchange_->invalidate();  // halos of the restored state: exchange again
  }
  for (auto& p : parts_) p->fault.clear();
  throw SplitFault(msg);
}

#define SILT_SWE_ENGINE_FAULTS(T)                                                      \
  template std::string Engine<T>::where(int, int) const;                               \
  template std::string Engine<T>::fastest_cell(double&, long long&, int&, int&) const; \
  template void Engine<T>::check_faults(const Clock&, bool);
SILT_SWE_ENGINE_FAULTS(float)
SILT_SWE_ENGINE_FAULTS(double)
#undef SILT_SWE_ENGINE_FAULTS

}  // namespace silt::swe::detail
