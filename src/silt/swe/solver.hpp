// The shallow-water + pollutant solver over N >= 1 parts of the grid (one device's subdomain each;
// one part is the ordinary run on one device, CPU or CUDA). The state lives where each part's Exec
// runs; the time step is chosen and applied on the devices, so advance_to() only waits for them
// once per batch of steps.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "silt/core/error.hpp"
#include "silt/core/exec.hpp"
#include "silt/swe/fields.hpp"
#include "silt/swe/restart_state.hpp"
#include "silt/swe/scene.hpp"
#include "silt/swe/step_peaks.hpp"
#include "silt/swe/totals.hpp"

namespace silt::swe {

/// How a run is cut into subdomains (docs/multi-gpu-swe.md).
enum class SplitShape {
  automatic,  // strips of whole rows unless 2D blocks exchange fewer halo cells
  strips,
  blocks
};

/// The parts a run steps: one subdomain per exec of this process (one exec: the whole grid, the
/// ordinary run on one device) and, when the process was started by mpirun with several ranks
/// and this_process_only is false, the subdomains of every rank (each rank passing its own execs).
struct Split {
  std::vector<Exec> execs;  // one subdomain per exec here (CPU partitions: Exec::host() repeated)
  int halo = 1;             // k >= 1: halo layers, exchanged every k steps (ghost cell expansion)
  SplitShape shape = SplitShape::automatic;
  // true: this process's execs only, even under mpirun (partition::World::self()); false: the
  // subdomains of every rank (partition::World::get()).
  bool this_process_only = false;
};

/// Settings for tests and benchmarks, not for scenes.
struct SolverOptions {
  // CUDA parts step with the tile kernel (fused_step.hpp; 1.5-2.8x the plain phases on an H200,
  // bench/results/swe-2026-11-29-h200.md), CPU parts with the row step (row_step.hpp;
  // bench/results/swe-cpu-2026-12-01-cpu.md). true: the plain parallel_for phases instead, the
  // test oracle of both and the benchmark's --plain baseline.
  bool plain_phases = false;
  // The hazard fields accumulated by their own launch after each step (phase_hazard) even where
  // the float64 tile kernel would accumulate them in its update (kTileHazard): the oracle of the
  // fold, which must give the same bits.
  bool hazard_pass = false;
  // A CUDA run of one part: the stream to step on instead of a stream of its own (not owned: the
  // caller keeps it alive until the solver is gone). The solvers of one swe::Batch share one, so
  // that the batch's launches for all of them keep their order without events. nullptr: a stream
  // of its own.
  CUstream_st* stream = nullptr;
};

/// What the water does when the bed changes under it (Solver::set_bed).
enum class BedChange { keep_depth, keep_level };

/// A device fault (NaN, negative depth, collapsing time step). Under MPI every rank
/// throws it alike, with the same message, so a caller can end all ranks normally; any other
/// error may be one rank's alone (end the run with partition::World::abort()).
class SplitFault : public Error {
 public:
  using Error::Error;
};

/// The communication between parts, each kind timed on its own with the devices waited for.
struct CommTimes {
  int parts = 1;              // subdomains over all ranks
  double exchange_s = 0;      // one halo exchange of every subdomain, s
  double reduce_s = 0;        // one global reduction of the step's wave speed (the dt), s
  double exchange_bytes = 0;  // received by this process per exchange
};

class Batch;

class Solver {
 public:
  /// The whole grid on one exec, in this process alone (a Split of that exec).
  Solver(const Scene& scene, const Exec& exec, const SolverOptions& options = {});
  /// The grid over the parts of split (src/silt/partition/; one part: the whole grid, with no
  /// halo exchange and no reduction across parts). On the CPU the results of any split equal
  /// those of one part bit for bit. Under MPI every rank constructs it, and every member below is
  /// then collective (all ranks call it, in the same order); fields() returns the whole grid on
  /// rank 0 and only nx, ny on the other ranks; probe() and totals() return the same values on
  /// every rank. A fault on any rank is reported on every rank, naming the rank, the device, the
  /// global cell and the step.
  Solver(const Scene& scene, const Split& split, const SolverOptions& options = {});
  ~Solver();
  Solver(Solver&&) noexcept;
  Solver& operator=(Solver&&) noexcept;

  /// Steps until the simulated time reaches t_end exactly (the last dt is clipped on the device).
  /// Throws silt::Error naming the cell (i, j), its position, the step and the time when a NaN,
  /// a negative depth or a collapsing time step appears; the state of the last good check is kept.
  void advance_to(double t_end);
  /// The same, asking stop() (when not empty) after each batch of steps (at most a few hundred)
  /// and returning false when it said true: the run then stands at the end of that batch, short
  /// of t_end, checked for faults and ready to go on (an interactive caller's Ctrl-C).
  bool advance_to(double t_end, const std::function<bool()>& stop);
  /// The same, but returning at the end of the first step that ends at or past `after` (< t_end)
  /// without shortening any step for it: the time is then in [after, t_end] (a sample taken
  /// there, stamped with time(), costs no step; gauges). Steps still land on t_end exactly.
  bool advance_to(double t_end, const std::function<bool()>& stop, double after);
  /// Exactly one step (tests). It is queued without waiting for the device (a benchmark can time
  /// a run of them, then read time()); a fault it raises is reported by the next advance_to().
  void step();
  /// count steps queued together, as step() count times.
  void step(long long count);

  double time() const;
  long long steps() const;
  double last_dt() const;
  const Scene& scene() const;
  const Exec& exec() const;

  /// The arrays named by `arrays` (swe::arrays; all by default) of every cell; the others empty.
  Fields fields(unsigned arrays = swe::arrays::all) const;
  /// fields() without waiting: the copies are queued on the devices' streams into pinned memory
  /// (the steps queued next wait only for them, not for the host), and FieldsCopy::get() waits for
  /// them and converts, e.g. on a writer thread while the next frame steps. Under MPI it is
  /// fields() (collective), already done when it returns.
  FieldsCopy fields_async(unsigned arrays = swe::arrays::all) const;
  std::vector<Probe> probe(const std::vector<Index>& cells) const;
  /// Gauges sampled on the devices: at the end of every step that reaches the next sample time
  /// (`next`, then next + k interval, s), the probes of `cells` (as probe() gives them), kept until
  /// take_gauge_rows(), with no host wait per sample (the rows come back with the clock read after
  /// each batch of steps). Again with other cells or times: replaces them. Returns false, setting
  /// nothing, where the devices do not sample (several parts, MPI, the second-order scheme,
  /// interval <= 0): the caller then steps to each sample time (advance_to's `after`) and probes.
  bool sample_gauges(const std::vector<Index>& cells, double next, double interval);
  /// The rows sampled since the last call, in time order.
  std::vector<GaugeRow> take_gauge_rows();
  /// The next sample time of sample_gauges() (+inf without it).
  double next_gauge() const;
  Totals totals() const;
  /// From now on, after every step, each boundary's, point source's and cross section's discharge
  /// of the step (its net volume / dt) on the devices, keeping the largest magnitude and the end
  /// time of its step (no host wait per step; one small launch, two for a series of more than 64
  /// edges or cells). `from`: the peaks to go on from (empty: none yet). Kept across restore()
  /// and the scene changes below. Returns false, tracking nothing, where the devices cannot
  /// (several parts, MPI).
  bool track_step_peaks(const StepPeaks& from = {});
  /// The peaks so far (waits for the devices); empty when not tracking.
  StepPeaks step_peaks() const;

  /// The state to continue from: fields (whole grid on rank 0, as fields()) and clock. Collective.
  RestartState state() const;
  /// Continues from s: every cell and the clock as they were (any split or backend: the fields
  /// are those of the global grid). Collective; every rank passes the whole state. Throws
  /// silt::Error when the grid size differs from the scene's.
  void restore(const RestartState& s);

  /// Between steps: the series of the discharge or level boundary or point source `name` becomes
  /// `series` (t s, value m^3/s or m), from the current time on (series are sampled at each step's
  /// mid-time). Checked as the scene's series are (times increasing strictly, finite samples);
  /// silt::Error names the boundary or source and the sample. A checkpoint holds the scene's
  /// series: state() refuses after a change; restore() puts the scene's series back. Collective.
  void set_series(const std::string& name, const Series& series);

  /// Between steps: gravity becomes g (m/s^2, > 0). The changes below build the parts anew for the
  /// changed scene and continue from the state now (every cell, the clock, the volumes), as a
  /// checkpoint's restart does, on any backend; like set_series, a checkpoint holds the scene as
  /// given, so state() refuses after one and restore() puts the scene back. These three need the
  /// whole state in this process: not under mpirun (a Split with this_process_only).
  void set_gravity(double g);
  /// Between steps: the uniform rainfall series (m/s; empty: none) and the rain rasters (empty:
  /// none) become these, from the current time on. Checked as the scene's are (rates >= 0, times
  /// increasing); silt::Error names the problem and the rain stays as it was.
  void set_rain(const Series& rainfall, const RainRaster& rain);
  /// Between steps: the bed becomes `bed` (m, nx * ny, row-major from the south-west corner;
  /// inactive cells keep theirs). The water keeps its depth (its volume unchanged) or its level
  /// h + z (wet cells deepen or shallow; a cell the bed rises above dries; the velocity and
  /// concentration are kept): the water balance's residual shows the volume that came or went.
  void set_bed(const std::vector<double>& bed, BedChange keep);

  /// Times `repetitions` halo exchanges and global reductions on their own (zeros on one part).
  /// Collective under MPI. The state is left as it was.
  CommTimes measure_communication(int repetitions);
  /// How the grid is split ("one subdomain" on one part) and how the parts step.
  std::string layout() const;

 private:
  friend class Batch;  // steps the engines of its members (batch.hpp)
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace silt::swe
