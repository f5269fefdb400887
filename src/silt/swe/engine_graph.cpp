// A batch of steps as one CUDA graph launch (step_graph.hpp): one CUDA part of one process (the
// tile kernels of either scheme), unless SolverOptions::step_graphs is off. Anywhere else, or when recording fails, the
// batch is the plain loop of launch_step() calls.
#include <fmt/format.h>

#include <atomic>
#include <cstdio>

#include "silt/core/error.hpp"
#include "silt/core/parallel_for.hpp"
#include "silt/swe/engine_parts.hpp"

namespace silt::swe::detail {

namespace {
std::atomic<std::uint64_t> g_graph_launches{0};
std::atomic<bool> g_graph_failure_logged{false};
}  // namespace

std::uint64_t step_graph_launch_count() {
  return g_graph_launches.load(std::memory_order_relaxed);
}

/// The batch's copies to skip (0 or 1: it starts at the other parity) and its steps, into w.
void phase_graph_count(const Exec& exec, int* w, int skip, int steps) {
  parallel_for(
      exec, "swe.graph_count", 1, SILT_LAMBDA(Index) {
        w[0] = skip;
        w[1] = steps;
      });
}

/// Before each copy of the step: the copy runs (IF) when no skip is left and a step is; the loop
/// goes on while steps are left.
void phase_graph_countdown(const Exec& exec, int* w, const LoopHandles& h) {
  parallel_for(
      exec, "swe.graph_countdown", 1, SILT_LAMBDA(Index) {
        unsigned run = 0;
        if (w[0] > 0) {
          w[0] -= 1;
        } else if (w[1] > 0) {
          w[1] -= 1;
          run = 1;
        }
        set_loop_conditionals(h, w[1] > 0 ? 1u : 0u, run);
      });
}

template <class T>
void Engine<T>::init_step_graph(const SolverOptions& options) {
  // Both schemes: one part's launch_step() is kernels only (its Exchange does nothing).
  graph_.wanted = options.step_graphs && path_ == Path::tile && dec_.size() == 1 &&
                  !world_.distributed() && parts_.size() == 1 && parts_.front()->exec.is_cuda() &&
                  LoopGraph::supported();
}

// Records the graph when none is or what it baked in changed (step_graph_changed(); the rain
// bracket is compared here): the views' pointers and sizes, the gauges' and peaks' buffers and
// settings, the series tables. Returns false where the plain loop must run.
template <class T>
bool Engine<T>::step_graph_ready() {
  if (!graph_.wanted || graph_.failed) return false;
  Part<T>& p = *parts_.front();
  const std::vector<int> rain{p.forcing.frame_a, p.forcing.frame_b};
  if (rain != graph_.rain_frames) graph_.dirty = true;
  if (graph_.graph && !graph_.dirty) return true;
  activate(p.exec);
  const int parity = cur_;
  try {
    if (graph_.count.size() == 0) graph_.count = DeviceBuffer<int>(p.exec, 2, "swe.graph_count");
    int* w = graph_.count.data();
    const Exec exec = p.exec;
    const LoopGraph::Pre countdown = [exec, w](const LoopHandles& h) {
      phase_graph_countdown(exec, w, h);
    };
    // Recorded once per copy, in copy order: copy 0 at cur_ = parity, copy 1 at 1 - parity (each
    // launch_step() turns cur_ over), and cur_ is back at parity after both.
    const LoopGraph::Phase step = [this] {
      launch_step();
    };
    const LoopGraph::Pre after = [](const LoopHandles&) {
      // nothing after a copy's IF node: the step is its body
    };
    if (!graph_.graph)
      graph_.graph = std::make_unique<LoopGraph>(exec, countdown, step, after, 2);
    else
      graph_.graph->record_again(countdown, step, after, 2);
    cur_ = parity;
    graph_.parity = parity;
    graph_.rain_frames = rain;
    graph_.dirty = false;
    return true;
  } catch (const Error& e) {
    cur_ = parity;
    graph_.failed = true;
    graph_.graph.reset();
    if (!g_graph_failure_logged.exchange(true))
      std::fprintf(stderr, "swe: CUDA graphs unavailable, using plain launches (%s)\n", e.what());
    return false;
  }
}

// n steps queued with no host wait: one graph launch (n >= 2 where graphs are on), else n plain
// steps. Either way the same kernels in the same order.
template <class T>
void Engine<T>::queue_steps(long long n) {
  if (n < 2 || n > kMaxBatch || !step_graph_ready()) {
    for (long long k = 0; k < n; ++k) launch_step();
    return;
  }
  Part<T>& p = *parts_.front();
  activate(p.exec);
  phase_graph_count(p.exec, graph_.count.data(), cur_ == graph_.parity ? 0 : 1, int(n));
  graph_.graph->launch();
  g_graph_launches.fetch_add(1, std::memory_order_relaxed);
  if (n % 2 != 0) cur_ = 1 - cur_;
  clock_known_ = false;
}

#define SILT_SWE_ENGINE_GRAPH(T)                                  \
  template void Engine<T>::init_step_graph(const SolverOptions&); \
  template bool Engine<T>::step_graph_ready();                    \
  template void Engine<T>::queue_steps(long long);
SILT_SWE_ENGINE_GRAPH(float)
SILT_SWE_ENGINE_GRAPH(double)
#undef SILT_SWE_ENGINE_GRAPH

}  // namespace silt::swe::detail
