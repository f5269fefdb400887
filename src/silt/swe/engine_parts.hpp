// The engine behind swe::Solver: the grid cut into N >= 1 parts (src/silt/partition/), one per
// exec of this process and, under MPI, per rank. One part is the ordinary run on one device: the
// whole grid, stepped by the phases of phases.hpp (the plain path), by the tile kernel of
// fused_step.hpp (CUDA) or by the row step of row_step.hpp (CPU), with no exchange, no reduction
// across parts and no host wait inside a step (the tile kernel step is 2 launches, clock and tile
// kernel, plus the wet count with discharge boundaries, before the clock). Several parts add what
// their Exchange (part_exchange.hpp) moves between them:
//   - one global reduction per step (largest wave speed, wet cells of discharge segments) before
//     the clock, so every part takes the same dt;
//   - a halo exchange every k steps (ghost cell expansion: a halo of k layers; in between each
//     part also updates the inner layers of its halo, one layer fewer each step), started before
//     the update and finished after the interior cells, whose stencil stays in the owned cells, so
//     the transfer overlaps them; the cells next to the halo follow;
// and otherwise the same arithmetic on the same values as one part: on the CPU a split run matches
// one part bit for bit.
#pragma once

#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "silt/core/device_set.hpp"
#include "silt/core/staging.hpp"
#include "silt/partition/decompose.hpp"
#include "silt/partition/world.hpp"
#include "silt/swe/engine.hpp"
#include "silt/swe/part.hpp"
#include "silt/swe/part_exchange.hpp"
#include "silt/swe/setup.hpp"

namespace silt::swe::detail {

template <class T>
class Engine final : public EngineBase {
 public:
  Engine(const Scene& scene, const Split& split, const SolverOptions& options);
  ~Engine() override;
  bool advance_to(double t_end, const std::function<bool()>& stop, double after) override;
  void step() override;
  void step_many(long long count) override;
  Clock clock() const override;
  Fields fields(unsigned arrays) const override;
  FieldsCopy fields_async(unsigned arrays) const override;
  std::vector<Probe> probe(const std::vector<Index>& cells) const override;
  bool sample_gauges(const std::vector<Index>& cells, double next, double interval) override;
  std::vector<GaugeRow> take_gauge_rows() override;
  double next_gauge() const override;
  Totals totals() const override;
  CommTimes measure_communication(int repetitions) override;
  std::string layout() const override;
  void restore(const RestartState& s) override;
  void set_series(const Layout& l) override;
  bool track_step_peaks(const StepPeaks& from) override;
  StepPeaks step_peaks() const override;

  // The hooks of swe::Batch (engine_batch.cpp), which steps one-part engines in lock step, each
  // with its own clock: the pieces of step_many() and advance_within() it calls for every member,
  // and launch_step() cut around the tile update, so that one launch of the tile kernel updates
  // every member's cells between the members' clocks and the rest of their steps. step_many()
  // and advance_within() are built of the same pieces.
  /// Why this engine cannot share a launch of the tile kernel ("": it can): it must step one
  /// CUDA part with the first-order scheme on the tile kernel.
  std::string batch_refusal() const;
  /// One whole step (launch_step()), for members stepped one after another (the CPU).
  void batch_step() { launch_step(); }
  /// launch_step() up to the tile update (one part: nothing to exchange), around the clock that
  /// the batch launches for all members (phase_clock_batch, of batch_view()): the wet count of
  /// discharge segments before it, the rating segments' conveyance after it.
  void batch_clock_before();
  void batch_clock_after();
  /// The view the step's clock and tile update take, its box and tile list.
  SolverView<T> batch_view() const;
  Box2 batch_box() const;
  const TileList& batch_tiles() const { return parts_.front()->tile_list; }
  /// launch_step() after the tile update.
  void batch_step_tail() { end_step(); }
  /// The part's exec (its device and stream; one part).
  const Exec& batch_exec() const { return parts_.front()->exec; }
  /// The layout's active mask (whose tiles the tile list holds).
  const std::vector<std::uint8_t>& batch_active() const { return layout_.active; }
  /// step_many(count)'s start, before each of its steps, and after step k.
  void queue_steps(long long count);
  void before_queued_step();
  void after_queued_step(long long k);
  /// advance_within(t_end, ..., after)'s start: reads the clock into c, reports faults and gauge
  /// rows of earlier step() calls, and sets the target; false when the clock already stands at
  /// min(t_end, after) (nothing to step).
  bool within_begin(double t_end, double after, Clock& c);
  /// Before a batch of steps: the state to go back to when the batch faults.
  void within_backup();
  /// After a batch: the clock, its faults (silt::Error, the state of the backup restored) and
  /// the batch's gauge rows.
  Clock within_check();
  /// Every part's rain bracket for time t; returns the time it ends (+inf: never).
  double rain_bracket(double t) { return select_rain(t); }

 private:
  // Construction (engine.cpp).
  void make_parts(const Split& split, const SolverOptions& options);
  /// One CUDA part on the tile kernel: the list of its tiles that hold an active cell.
  void make_tile_list();
  // The phases of a step (engine.cpp); end_step(): those after the update.
  void launch_step();
  void end_step();
  // The second-order step (engine_muscl.cpp): Heun's two stages over ghost-expanded boxes, then
  // the plain phases with the boundary flow of both stages.
  void launch_muscl_step();
  void muscl_stage(Index r);
  void muscl_final(Index r);
  void finish_muscl_parts();
  // The one-stage MUSCL-Hancock step (engine_muscl.cpp): one launch a part over a ghost-expanded
  // box, then the plain phases.
  void launch_hancock_step();
  void hancock_update(Index r);
  void finish_hancock_parts();
  bool tile_cfl(const SolverView<T>& v) const;
  void advance_clocks();
  void update_all(Index r, const char* label);
  void update_overlapping_exchange(Index r);
  void update(Part<T>& p, Box2 box, const char* label);
  void finish_parts();
  void accumulate_sections(bool second_order = false);
  void accumulate_mask_edges();
  void accumulate_hazard();
  // Gauges on the device (engine_gauges.cpp): the step's sample, and the host's read of the rows
  // after a batch that passed its fault check (c: the clock read then).
  void sample_gauges_on_device();
  void read_gauge_rows(const Clock& c);
  // Step peaks (engine_peaks.cpp): each series' discharge after a step (seed: its volume only).
  void accumulate_step_peaks(bool seed = false);
  void update_speed();
  /// The time steps land on and the time after which they stop (kTarget, kStopAfter).
  void set_target(double t, double after);
  /// Steps to t_end (or past `after`) with the rain bracket as it is (advance_to cuts the run at
  /// frame times).
  bool advance_within(double t_end, const std::function<bool()>& stop, double after);
  /// Every part's rain bracket for time t; returns the time it ends (+inf: never).
  double select_rain(double t);
  // Faults (engine_faults.cpp).
  void check_faults(const Clock& c, bool restore);
  std::string fastest_cell(double& speed, long long& cell, int& part, int& device) const;
  std::string where(int part, int device) const;
  // Helpers.
  bool coupled() const { return exchange_->coupled(); }
  /// The subdomain owning the cell of flow slot k (engine_restore.cpp).
  int flow_owner(size_t k) const;
  /// Owned cells of p grown by r layers into the halo on shared sides.
  Box2 grown(const Part<T>& p, Index r) const;
  void fence_all() const;
  /// p's owned cells of field b, as double, row-major.
  template <class U>
  std::vector<double> owned(const Part<T>& p, const DeviceBuffer<U>& b) const;
  /// p's owned cells of field b, as double, into dst (row j at dst + j * pitch): the rows copied
  /// without the ring into pinned staging (one 2D copy), then converted on the host's threads.
  template <class U>
  void place_owned(const Part<T>& p, const DeviceBuffer<U>& b, double* dst, size_t pitch) const;

  const Scene& scene_;
  Layout layout_;
  partition::Decomposition dec_;
  const partition::World& world_;
  int per_rank_;
  // Each part's stream (make_parts): a CUDA stream of its own (or SolverOptions::stream, not
  // owned); the host exec on the CPU.
  std::vector<Stream> compute_;
  std::vector<std::unique_ptr<Part<T>>> parts_;
  // What moves between the parts: halos, the dt reduction and their cadence (nothing on one part).
  std::unique_ptr<Exchange<T>> exchange_;
  /// The asked-for arrays of p in fields()' fixed order, each passed to put(buffer).
  template <class Put>
  static void for_each_array(const Part<T>& p, unsigned arrays, int cur, Put put);
  /// arrays with those the scene does not have removed.
  unsigned present(unsigned arrays) const;
  // fields() under MPI: the host side of a frame's copies, kept from frame to frame (pinned once).
  mutable PinnedBuffer frame_staging_;
  // fields_async(): pinned staging slots of frames in flight, reused once their get() is done
  // (core/staging.hpp).
  mutable StagingPool frame_slots_;
  bool muscl_;    // physics.scheme = "muscl" or "muscl_hancock" (the second-order schemes)
  bool hancock_;  // physics.scheme = "muscl_hancock"
  int k_;         // halo layers of a split run (the parts' ring)
  bool has_discharge_;
  bool has_rating_;
  // How each update box is stepped: the plain phases (phases.hpp; the oracle), the CUDA tile kernel
  // (fused_step.hpp) or the CPU row step (row_step.hpp). The last two do the whole step in one pass.
  enum class Path { plain, tile, rows };
  Path path_;
  bool hazard_pass_;  // SolverOptions::hazard_pass
  bool one_pass() const { return path_ != Path::plain; }
  /// Whether the first-order tile kernel accumulates the hazard fields in its update
  /// (kTileHazard; fused_step.hpp, kTileHazardFolds), so that end_step() skips phase_hazard.
  bool hazard_in_tiles() const {
    return scene_.hazard.accumulates() && path_ == Path::tile && !muscl_ && !hazard_pass_ &&
           kTileHazardFolds<T>;
  }
  /// p.view(cur_, 1 - cur_) for the tile kernel: with the hazard fields when hazard_in_tiles().
  SolverView<T> tile_view(const Part<T>& p) const;
  int cur_ = 0;
  // The clock as last read (clock()), while no step or restore has been queued since: the run
  // layer asks for the time, the step count and the clock several times between two batches of
  // steps, and each read was a wait for the device.
  mutable Clock clock_seen_{};
  mutable bool clock_known_ = false;
  // Gauges sampled on the device (one part; Solver::sample_gauges): the cells' offsets, the rows
  // of a batch (kMaxBatch + 1: one a step at most), those read and not yet taken, the next sample
  // time as of the last read (restore() puts it back on the device).
  struct DeviceGauges {
    bool on = false;
    double interval = 0;
    std::vector<Index> cells;
    DeviceBuffer<Index> offsets;
    DeviceBuffer<double> rows;
    Index capacity = 0;
    std::vector<GaugeRow> taken;
    double next = std::numeric_limits<double>::infinity();
  } gauges_;
  // Step peaks on the device (one part; Solver::track_step_peaks): each series' flow slots in
  // totals()' order, summed per series, or (chunked: a long series) cut into chunks summed in
  // parallel, then each series' chunks in order; per series its volume after the last step, its
  // peak discharge and that step's end time (engine_peaks.cpp).
  struct DevicePeaks {
    bool on = false, chunked = false;
    Index series = 0, chunks = 0;
    DeviceBuffer<Index> slot, chunk, series_offset;
    DeviceBuffer<double> partial, state;
  } peaks_;
  // Steps queued by step_many() whose fault flags nobody has read yet.
  bool faults_unread_ = false;
  double target_on_device_ = std::numeric_limits<double>::infinity();
  double stop_after_on_device_ = std::numeric_limits<double>::infinity();
};

}  // namespace silt::swe::detail
