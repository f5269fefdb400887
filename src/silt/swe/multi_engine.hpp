// The engine of a split run (swe::Solver built from a Split): the grid cut into subdomains
// (src/silt/partition/), one per exec of this process and, under MPI, per rank. A step is the
// single-device step of phases.hpp on every subdomain, with
//   - one global reduction per step (largest wave speed, wet cells of discharge segments) before
//     the clock, so every subdomain takes the same dt (partition::ScalarReduce);
//   - a halo exchange every k steps (ghost cell expansion: a halo of k layers; in between each
//     subdomain also updates the inner layers of its halo, one layer fewer each step), started
//     before the update and finished after the interior cells, whose stencil stays in the owned
//     cells, so the transfer overlaps them; the cells next to the halo follow;
// and otherwise the same arithmetic on the same values as one device: on the CPU a split run
// matches the single-device run bit for bit. CUDA subdomains step with the tile kernel of
// fused_step.hpp over the same boxes (grown box, interior and edge strips) when Split::fused and
// the scene's fused_kernel allow (layout() then says "fused tile kernel"), else with the plain
// phases.
#pragma once

#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "silt/partition/decompose.hpp"
#include "silt/partition/halo_exchange.hpp"
#include "silt/partition/scalar_reduce.hpp"
#include "silt/partition/streams.hpp"
#include "silt/partition/world.hpp"
#include "silt/swe/engine.hpp"
#include "silt/swe/multi_part.hpp"
#include "silt/swe/setup.hpp"

namespace silt::swe::detail {

template <class T>
class MultiEngine final : public EngineBase {
 public:
  MultiEngine(const Scene& scene, const Split& split);
  ~MultiEngine() override;
  void advance_to(double t_end) override;
  void step() override;
  void step_many(long long count) override;
  Clock clock() const override;
  Fields fields() const override;
  std::vector<Probe> probe(const std::vector<Index>& cells) const override;
  Totals totals() const override;
  CommTimes measure_communication(int repetitions) override;
  std::string layout() const override;

  // The phases of a step (public: nvcc forbids launches from private members).
  void launch_step();
  /// count steps: with graphs, plain launches until the step cycle is at its start (an exchange
  /// step, buffer 0 current), then replays of the recorded period of 2k steps, then plain
  /// launches for the rest (the same steps in the same batches as without graphs).
  void launch_steps(long long count);
  void begin_exchange();
  void update(Part<T>& p, Box2 box, const char* label);
  void finish_step(Part<T>& p);
  void update_speed();
  void check_faults(const Clock& c, bool restore);

 private:
  std::vector<double*> scalar_ptrs();
  std::vector<std::vector<void*>> storage(int which);
  /// Owned cells of p grown by r layers into the halo on shared sides.
  Box2 grown(const Part<T>& p, Index r) const;
  void set_target(double t);
  void fence_all() const;
  /// The recorded period of steps, recorded on first use; nullptr when graphs are off, not
  /// possible here (host parts, one part, MPI) or recording failed (then plain launches).
  partition::StreamGraph* period_graph();
  std::string where(int part, int device) const;
  /// Each local part's owned cells of field b (buffer per part), as double, row-major.
  std::vector<double> owned(const Part<T>& p, const DeviceBuffer<T>& b) const;

  const Scene& scene_;
  Layout layout_;
  partition::Decomposition dec_;
  const partition::World& world_;
  int per_rank_;
  std::vector<partition::Stream> compute_, halo_lane_;
  std::vector<std::unique_ptr<Part<T>>> parts_;
  std::unique_ptr<partition::HaloExchange> halo_;
  partition::ScalarReduce reduce_;
  int k_;
  int since_exchange_;  // steps since the last exchange; >= k_: exchange before the next step
  bool has_discharge_;
  bool fused_;   // CUDA tile kernel over each update box instead of the plain phases
  bool graphs_;  // replay periods of steps as CUDA graphs (Split::graphs, where possible)
  std::unique_ptr<partition::StreamGraph> graph_;
  std::string graph_error_;  // why recording failed (layout() says it)
  int graph_parity_ = 0;     // the reduction's slot set at the start of the recorded period
  int cur_ = 0;
  double target_on_device_ = std::numeric_limits<double>::infinity();
};

}  // namespace silt::swe::detail
