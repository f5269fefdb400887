// The exchange's kernels of a plain step (mpm/exchange/kernels.hpp): the agreement's publish and
// combine, the clearing of shared sums, the tagging and the grid update with the reduction.
#include "silt/mpm/exchange/kernels.hpp"

#include "silt/core/parallel_for.hpp"
#include "silt/mpm/exchange/body.hpp"

namespace silt::mpm {

using detail::fill_values;
using detail::SharedNodeUpdate;
using detail::tag_block;

namespace {

/// The combined values into the control, for a dt kernel that runs next (decide_step).
SILT_HD SILT_FORCEINLINE void apply_values(StepControl& c, const double* v) {
  c.vmax = float(v[kAgreeVmax]);
  c.zone_escape = v[kAgreeEscape] > 0.0 ? 1 : 0;
  c.agreed.pause = v[kAgreePause] > 0.0 ? 1 : 0;
  c.agreed.halt = v[kAgreeFault] > 0.0 ? 1 : 0;
  c.cmax = float(v[kAgreeWave]);
  c.agreed.vmax = c.vmax;
  c.agreed.cmax = c.cmax;
}

}  // namespace

void enqueue_publish(const Exec& exec, const StepControl* ctl, FaultView fault, int grow_blocks,
                     double* values) {
  parallel_for(
      exec, "mpm.exchange.publish", 1,
      SILT_LAMBDA(Index) { fill_values(*ctl, fault, grow_blocks, values); });
}

void enqueue_combine(const Exec& exec, const double* values, StepControl* ctl) {
  parallel_for(
      exec, "mpm.exchange.combine", 1, SILT_LAMBDA(Index) { apply_values(*ctl, values); });
}

void enqueue_clear_shared(const Exec& exec, GridView g, const PartGrids& pg,
                          const StepControl* ctl) {
  const int* list = pg.shared_list;
  const int* count = pg.shared_count;
  // The count is on the device: a fixed launch whose threads stride over the shared nodes (a
  // launch over the whole grid would cost a pass over every block). On the host it is host
  // memory: loop over the shared nodes only.
  constexpr Index kThreads = 1 << 16;
  const Index n = exec.is_cuda() ? kThreads : Index(*count) * kBlockNodes;
  const Index stride = exec.is_cuda() ? kThreads : n;
  if (n == 0) return;
  parallel_for(
      exec, "mpm.exchange.clear_shared", n, SILT_LAMBDA(Index t) {
        const Index nodes = Index(*count) * kBlockNodes;
        for (Index i = t; i < nodes; i += stride) {
          const Index k = i / kBlockNodes;
          clear_node_sums(g, ctl->accum_parity,
                          Index(list[k]) * kBlockNodes + (i - k * kBlockNodes));
        }
      });
}

void enqueue_tag(const Exec& exec, GridView g, StepControl* ctl, const PartGrids& pg) {
  const int* gate = &ctl->rebuild;
  gated_for(
      exec, "mpm.exchange.tag_begin", 1, gate, SILT_LAMBDA(Index) { *pg.shared_count = 0; });
  gated_for(
      exec, "mpm.exchange.tag", g.capacity, gate, SILT_LAMBDA(Index b) {
        if (b < ctl->num_blocks) tag_block(b, g, pg);
      });
}

void enqueue_grid_update_shared(const Exec& exec, const GridArgs& a, GridView g, StepControl* ctl,
                                const PartGrids& pg, FaultView fault) {
  const Index nodes = g.capacity * kBlockNodes;
  const SharedNodeUpdate u{a, g, ctl, pg, fault};
  gated_for(
      exec, "mpm.exchange.grid_update", nodes, &ctl->active, SILT_LAMBDA(Index node) {
        if (u.in_use(node)) u(node);
      });
}

double count_outside(const Exec& exec, const float* x, Index n, int axis, double lo, double hi) {
  if (n <= 0) return 0.0;
  return parallel_reduce_sum<double>(
      exec, "mpm.exchange.count_outside", n, SILT_LAMBDA(Index i)->double {
        const double c = x[3 * i + axis];
        return c < lo || c >= hi ? 1.0 : 0.0;
      });
}

AxisExtent axis_extent(const Exec& exec, const float* x, Index n, int axis) {
  AxisExtent e;
  if (n <= 0) return e;
  e.lo = parallel_reduce_min<double>(
      exec, "mpm.exchange.axis_lo", n, SILT_LAMBDA(Index i)->double { return x[3 * i + axis]; });
  e.hi = parallel_reduce_max<double>(
      exec, "mpm.exchange.axis_hi", n, SILT_LAMBDA(Index i)->double { return x[3 * i + axis]; });
  return e;
}

void enqueue_pack_blocks(const Exec& exec, GridView g, const int* blocks, Index count, float* out) {
  const int stride = g.accum_stride;
  parallel_for(
      exec, "mpm.exchange.pack", count * kBlockNodes, SILT_LAMBDA(Index i) {
        const Index k = i / kBlockNodes;
        const Index node = Index(blocks[k]) * kBlockNodes + (i - k * kBlockNodes);
        for (int c = 0; c < stride; ++c) out[Index(stride) * i + c] = g.accum[stride * node + c];
      });
}

}  // namespace silt::mpm
